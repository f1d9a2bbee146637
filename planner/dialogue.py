"""A turn in its conversation: the answer to a waiting question (确认, 书房的, 第二个, 算了),
then the utterance's own clauses; and a schedule's commands when it fires."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta

from jiayu.catalog import is_high_risk
from jiayu.grammar.phrases import say
from jiayu.grammar.vocab import QUESTION, STATEMENT_END, TABLES
from jiayu.home import Home
from jiayu.ir import Clause, Command, Target
from jiayu.planner import clauses as plan_clauses
from jiayu.planner import conditions, delayed, preferences
from jiayu.planner.draft import Draft
from jiayu.planner.replies import Acknowledged, asked_verb, when_phrase
from jiayu.planner.timing import Schedule, ScheduleError, fire_time
from jiayu.resolver.resolve import Found, Resolution
from jiayu.resolver.session import PendingClarify, PendingConfirm
from jiayu.text import normalize, shown


def utterance(draft: Draft, said: tuple[Clause, ...]) -> None:
    """Plan an understood utterance against the question the session was waiting on; a
    confirmation this turn asks for is stamped with its time and its user."""
    if draft.pending_in is None and (not said or said[0].action != "cancel"):
        # Most turns: nothing waits, and no 算了 is said.
        plan_clauses.plan_in_order(draft, said, [], None)
    else:
        _utterance(draft, said)
    asked = draft.pending
    if asked is not None and asked is not draft.pending_in and isinstance(asked, PendingConfirm):
        draft.pending = replace(asked, asked_at=draft.ctx.now, user=draft.ctx.user)


def unclear(draft: Draft, reply: str) -> None:
    """An utterance not understood is no answer: the question keeps waiting. One that asks
    about a waiting confirmation (是吗, 好吗, 可以吗) gets the confirmation asked again."""
    pending = draft.pending_in
    if (
        isinstance(pending, PendingConfirm)
        and not _expired(draft, pending)
        and is_question(draft.text)
    ):
        _ask_again(draft, pending, [])
        return
    if isinstance(pending, PendingConfirm | PendingClarify):
        draft.pending = pending
    draft.say("unknown", reply)


def _utterance(draft: Draft, said: tuple[Clause, ...]) -> None:
    pending = draft.pending_in
    actions = {c.action for c in said}
    if isinstance(pending, PendingConfirm) and _expired(draft, pending):
        if "confirm" in actions:
            draft.say("noop", say("refuse.confirm_expired"))
            return
        pending = None  # gone: the turn is an ordinary one
    if isinstance(pending, PendingConfirm):
        if is_question(draft.text):
            # 确认吗 / 对吗 / 你确定吗: never a yes, and no reason to drop what waits.
            _ask_again(draft, pending, [c for c in said if c.action not in _ANSWERS])
            return
        elif actions == {"confirm"} and is_confirmation(draft.text):
            # 确认 / 好的，确认: a plain yes, nothing else, and only from who asked; another
            # user's is refused and the question kept for the one who asked. Any other
            # statement (好吧, 确认，打开客厅灯) confirms for no one: it drops the question,
            # whoever says it.
            if pending.user is not None and draft.ctx.user != pending.user:
                draft.held += pending.commands
                draft.pending = pending
                draft.say("confirm", say("refuse.confirm_other_user"))
            else:
                _confirmed(draft, pending)
            return
        if actions == {"cancel"}:
            draft.say("noop", Acknowledged(say("done.cancelled")))
            return
        draft.parts.append(_dropped(draft.ctx.home, pending.commands))
    if isinstance(pending, PendingClarify):
        if actions == {"cancel"}:
            draft.say("noop", Acknowledged(say("done.not_doing")))
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
                previous = plan_clauses.act_on(draft, pending.clause, narrowed, focus, pending.rest)
            if not draft.asked:
                plan_clauses.plan_in_order(draft, pending.rest, focus, previous)
            said = said[1:]  # 书房的，然后关掉客厅灯: the rest still runs
    elif actions == {"cancel"}:
        # 算了 with nothing waiting: a scene whose steps still wait stops; else just 好的.
        stopped = plan_clauses.stop_scene(draft)
        if stopped is not None:
            draft.say("noop", Acknowledged(say("done.stopped" if stopped else "done.ok")))
        return
    if not draft.asked:
        plan_clauses.plan_in_order(draft, said, [], None)


def fired(draft: Draft, schedule: Schedule) -> None:
    """A schedule whose time has come, judged on the home loaded now: a command high-risk
    now that was not confirmed when set (the home was edited since) drops the whole schedule,
    and says so; else its condition is checked against a fresh read and its commands are
    validated again."""
    home = draft.ctx.home
    risky = [
        c
        for c in schedule.commands
        if home.has_device(c.device) and is_high_risk(home.device(c.device), c.command, c.params)
    ]
    if risky and not schedule.confirmed:
        names = [shown(home.device(d).name) for d in dict.fromkeys(c.device for c in risky)]
        command = asked_verb(risky[0].command)
        draft.say("rejected", say("refuse.risky_when_fired", names=names, command=command))
        return
    guard = schedule.condition
    if guard is not None and not conditions.guard_holds(draft, guard):
        return
    plan_clauses.queue(draft, list(schedule.commands), None, confirmed=True)


def _answer(draft: Draft, pending: PendingClarify, first: Clause) -> Resolution | None:
    """What the first clause of this turn says about a pending question; None if it is not
    an answer to it."""
    if first.action == "confirm" and pending.options and pending.yes_no:
        return Found(pending.options)  # 你是说客厅灯吗？— 对
    if first.action in ("on", "off") and first.target is not None and first.target.is_set:
        quantity = replace(first.target, quantifier="one", count=None)
        if quantity == type(first.target)():
            first = replace(first, action="select")  # 都关掉, said to 要关闭哪个？: all of them
    if first.action != "select":
        return None
    if pending.options:
        return draft.narrow(pending.clause, pending.options, first)
    if first.target is None:
        return None  # 第一个 answers nothing when nothing was offered
    # 要调节哪个设备？— 书房空调: the answer is the target the question lacked.
    return draft.resolve(replace(pending.clause, target=_answered(pending.clause, first.target)))


def _answered(asked: Clause, answer: Target) -> Target:
    """The target a question with no options is answered with. An answer that names no device
    (客厅 / 书房的 / 全部 to “这里”是指哪个房间？ after 这里的灯关掉) only says where: the
    question's own target there, never every device of that place (客厅 turned off the room's
    television and air conditioner with its lights)."""
    target = asked.target
    if target is None or answer.name or answer.type_word or answer.reference or answer.count:
        return answer
    if answer.places:
        return replace(target, places=answer.places)
    if answer.quantifier == "all":  # 全部 / 都: every one in the home
        return replace(target, places=(), quantifier="all")
    return answer


def _confirmed(draft: Draft, pending: PendingConfirm) -> None:
    """确认: re-check the condition against a fresh read, then send what waited (or, for a
    delayed command, schedule it: its condition is checked when it fires)."""
    if pending.when is not None:
        delayed.schedule(
            draft, pending.commands, pending.when, pending.condition, pending.focus, True
        )
        return
    if not conditions.holds(draft, pending.condition, list(pending.focus)):
        return
    plan_clauses.queue(draft, list(pending.commands), None, confirmed=True)


_ANSWERS = frozenset({"confirm", "cancel"})
_YES = re.compile(
    "(?:" + "|".join(sorted(map(re.escape, TABLES["CONFIRM"]), key=len, reverse=True)) + ")+"
)
"""The grammar's own words of assent (确认, 是的, 好的, 对, 确定, 可以 …), alone, together
or repeated (对对): nothing else in the utterance."""
_STATEMENT_END = STATEMENT_END
_SEPARATORS = re.compile(f"[{re.escape(STATEMENT_END)}]+")
_QUESTION = re.compile(QUESTION)


def is_question(text: str) -> bool:
    """Whether the utterance asks rather than states (a question never confirms)."""
    return _QUESTION.search(normalize(text).strip().rstrip(_STATEMENT_END)) is not None


def is_confirmation(text: str) -> bool:
    """Whether the whole utterance is a plain yes: only the confirming words, with
    separators and final stops between them (好的，确认。), and no question."""
    words = [w for w in _SEPARATORS.split(normalize(text)) if w]
    return bool(words) and not is_question(text) and all(_YES.fullmatch(w) for w in words)


def _expired(draft: Draft, pending: PendingConfirm) -> bool:
    asked = pending.asked_at
    if asked is None:
        return True  # fail closed: a confirmation with no time of asking is no confirmation
    return draft.ctx.now - asked > timedelta(seconds=draft.ctx.confirm_ttl_s)


def _ask_again(draft: Draft, pending: PendingConfirm, rest: list[Clause]) -> None:
    """A question while a confirmation waits: what else it says runs (门锁锁着吗 is answered),
    and the confirmation is asked again unless the turn asked something new."""
    if rest:
        plan_clauses.plan_in_order(draft, tuple(rest), [], None)
    if draft.pending is not None:
        return
    draft.held += pending.commands
    draft.pending = pending
    names = [
        shown(draft.ctx.home.device(d).name)
        for d in dict.fromkeys(c.device for c in pending.commands)
    ]
    when = ""
    if pending.when is not None:  # 确认 schedules it from now: said as the first asking said it
        now = draft.ctx.now
        with contextlib.suppress(ScheduleError):
            when = when_phrase(fire_time(pending.when, now), now)
    command = pending.commands[0].command
    draft.say(
        "confirm", say("ask.confirm_again", when=when, command=asked_verb(command), names=names)
    )


def _dropped(home: Home, commands: Iterable[Command]) -> str:
    names = list(dict.fromkeys(shown(home.device(c.device).name) for c in commands))
    return say("refuse.dropped", names=names)
