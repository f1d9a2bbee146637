"""A turn in its conversation: the answer to a waiting question (确认, 书房的, 第二个, 算了),
then the utterance's own clauses; and a schedule's commands when it fires."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from jiayu.home import Home
from jiayu.ir import Clause, Command
from jiayu.planner import clauses as plan_clauses
from jiayu.planner import conditions, preferences, timers
from jiayu.planner.draft import Draft
from jiayu.planner.timing import Schedule
from jiayu.resolver.resolve import Found, Resolution
from jiayu.resolver.session import PendingClarify, PendingConfirm
from jiayu.text import shown


def utterance(draft: Draft, said: tuple[Clause, ...]) -> None:
    """Plan an understood utterance against the question the session was waiting on."""
    pending = draft.pending_in
    actions = {c.action for c in said}
    if isinstance(pending, PendingConfirm):
        if actions == {"confirm"}:  # 确认 / 好的，确认: nothing but yes
            _confirmed(draft, pending)
            return
        if actions == {"cancel"}:
            draft.say("noop", "好的，已取消。")
            return
        draft.parts.append(_dropped(draft.home, pending.commands))
    if isinstance(pending, PendingClarify):
        if actions == {"cancel"}:
            draft.say("noop", "好的，不操作了。")
            return
        narrowed: Resolution | None
        if pending.preference is not None:
            # Stored: the waiting clause now finds it. Anything else is a new command, and
            # the question is dropped (as any clarify's is).
            answered = preferences.answer(draft, pending, said[0])
            narrowed = Found(pending.options) if answered else None
        else:
            narrowed = _answer(draft, pending, said[0])
        if narrowed is not None:
            focus = list(pending.focus)
            previous: tuple[str, ...] | None = None
            if conditions.holds(draft, pending.clause.condition, focus):
                previous = plan_clauses.apply(draft, pending.clause, narrowed, focus, pending.rest)
            if not draft.asked:
                plan_clauses.run(draft, pending.rest, focus, previous)
            said = said[1:]  # 书房的，然后关掉客厅灯: the rest still runs
    elif actions == {"cancel"}:
        draft.say("noop", "好的。")  # 算了 with nothing waiting: just acknowledge
        draft.stop_scene = True
        return
    if not draft.asked:
        plan_clauses.run(draft, said, [], None)


def fired(draft: Draft, schedule: Schedule) -> None:
    """A schedule whose time has come: its condition checked against a fresh read, its
    commands validated again (they were confirmed when it was set)."""
    guard = schedule.condition
    if guard is not None and not conditions.guard_holds(draft, guard):
        return
    plan_clauses.queue(draft, list(schedule.commands), None, confirmed=True)


def _answer(draft: Draft, pending: PendingClarify, first: Clause) -> Resolution | None:
    """What the first clause of this turn says about a pending question; None if it is not
    an answer to it."""
    resolver = draft.ctx.resolver
    if first.action == "confirm" and pending.options and pending.yes_no:
        return Found(pending.options)  # 你是说客厅灯吗？— 对
    if first.action in ("on", "off") and first.target is not None and first.target.is_set:
        quantity = replace(first.target, quantifier="one", count=None)
        if quantity == type(first.target)():
            first = replace(first, action="select")  # 都关掉, said to 要关闭哪个？: all of them
    if first.action != "select":
        return None
    if pending.options:
        return resolver.narrow(pending.clause, pending.options, first)
    if first.target is None:
        return None  # 第一个 answers nothing when nothing was offered
    # 要调节哪个设备？— 书房空调: the answer is the target the question lacked.
    return resolver.resolve(
        replace(pending.clause, target=first.target), draft.session, area=draft.ctx.area
    )


def _confirmed(draft: Draft, pending: PendingConfirm) -> None:
    """确认: re-check the condition against a fresh read, then send what waited (or, for a
    delayed command, schedule it: its condition is checked when it fires)."""
    if pending.when is not None:
        timers.schedule(
            draft, pending.commands, pending.when, pending.condition, pending.focus, True
        )
        return
    if not conditions.holds(draft, pending.condition, list(pending.focus)):
        return
    plan_clauses.queue(draft, list(pending.commands), None, confirmed=True)


def _dropped(home: Home, commands: Iterable[Command]) -> str:
    names = "、".join(dict.fromkeys(shown(home.device(c.device).name) for c in commands))
    return f"刚才等你确认的{names}没有执行"
