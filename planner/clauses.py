"""The clauses of an understood utterance, in order: resolve each target, plan each device's
command from what was read, hold what is risky, and queue the rest in batches."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from jiayu.actions import meanings
from jiayu.catalog import check
from jiayu.compiler.build import complaint_of
from jiayu.compiler.understand import said_words
from jiayu.grammar.phrases import say
from jiayu.ir import Clause, Command, Condition, Target
from jiayu.planner import complaints, conditions, delayed, preferences, queries
from jiayu.planner.draft import Draft, failed
from jiayu.planner.effects import CancelSchedules
from jiayu.planner.plan import Batch, Refusal, needs_read, plan
from jiayu.planner.replies import Acknowledged, asked_verb, names_phrase
from jiayu.resolver.resolve import Ask, Found, Refuse, Resolution, cannot
from jiayu.resolver.session import PendingClarify, PendingConfirm
from jiayu.text import shown


def plan_in_order(
    draft: Draft,
    clauses: Sequence[Clause],
    focus: list[str],
    previous: tuple[str, ...] | None,
) -> None:
    """Plan the clauses in order until one asks.

    focus: rooms said so far in this utterance, nearest last: they place a later clause whose
    target has no place of its own (如果客厅温度超过26度就打开空调). previous: None until a
    clause names a target; then the devices it acted on (empty if it failed, and a later
    clause with no target must not guess from older turns)."""
    checked: dict[Condition, bool] = {}
    last = len(clauses) - 1
    for index, clause in enumerate(clauses):
        if clause.action in ("confirm", "cancel") and len(clauses) > 1:
            continue  # 算了，还是把它打开吧: an interjection beside a command
        condition = clause.condition
        if condition is not None:
            if condition.subject is not None:
                focus.extend(_rooms(condition.subject))
            if condition not in checked:
                _read_with(draft, clause, condition, focus, previous)
                checked[condition] = conditions.holds(draft, condition, focus)
            if not checked[condition]:
                continue
        acted = _clause(draft, clause, focus, previous, tuple(clauses[index + 1 :]))
        if draft.asked or index == last:
            # It and every later clause wait for the answer; or no clause follows (most
            # utterances), and what is kept below is for a following clause only: the
            # callers pass a focus of their own and do not read it afterwards.
            return
        if clause.target is not None or previous is not None:
            previous = acted
        if clause.target is not None:
            focus.extend(_rooms(clause.target))
        room = _one_room(draft, acted)
        if room is not None:  # 把书房灯关了，台灯打开: the room inside a name counts too
            focus.append(room)


def _read_with(
    draft: Draft,
    clause: Clause,
    condition: Condition,
    focus: Sequence[str],
    previous: tuple[str, ...] | None,
) -> None:
    """A clause that reads its devices (调低一度) under a condition: the condition's sensors
    and the clause's devices are read in one round trip, not one after the other."""
    if not needs_read(clause) or clause.target is None:
        return
    resolution = draft.resolve(clause, focus, previous)
    sensors = conditions.sources(draft, condition, focus)
    if isinstance(resolution, Found) and sensors:
        draft.states([*sensors, *resolution.devices])


def _clause(
    draft: Draft,
    clause: Clause,
    focus: list[str],
    previous: tuple[str, ...] | None,
    rest: tuple[Clause, ...],
) -> tuple[str, ...]:
    """Plan one clause; returns the devices it acts on (for a following clause)."""
    if clause.negated:
        draft.say("noop", _negated_phrase(clause))
        return ()
    last = draft.ctx.session.last_commands
    if clause.action == "repeat":
        if not last:
            draft.say("rejected", say("refuse.nothing_to_repeat"))
            return ()
        queue(draft, list(last), None)
        return tuple(c.device for c in last)
    if clause.action in ("confirm", "cancel", "select"):
        draft.say(
            "unknown",
            say("refuse.nothing_asked") if clause.action != "select" else say("ask.what_to_do"),
        )
        return ()
    if clause.action == "scene":
        return _scene(draft, clause)
    if clause.action == "remember":
        preferences.remember(draft, clause)
        return ()
    if clause.action in ("schedule_cancel", "schedule_query") and clause.target is None:
        delayed.schedules(draft, clause, None)
        return ()
    started = time.perf_counter()
    asked = clause
    if clause.action in ("schedule_cancel", "schedule_query") and clause.target is not None:
        # 取消关空调的定时: every device the words name, whatever it can do.
        asked = Clause("query", replace(clause.target, quantifier="all"))
    resolution = draft.resolve(asked, focus, previous)
    draft.timings["resolve"] = draft.timings.get("resolve", 0.0) + time.perf_counter() - started
    return act_on(draft, clause, resolution, focus, rest)


def act_on(
    draft: Draft,
    clause: Clause,
    resolution: Resolution,
    focus: Sequence[str],
    rest: tuple[Clause, ...],
) -> tuple[str, ...]:
    """Act on a clause's resolution: refuse, ask, answer, or plan each device's command."""
    home = draft.ctx.home
    if isinstance(resolution, Refuse):
        draft.say("rejected", resolution.reason)
        return ()
    yes_no = False
    if isinstance(resolution, Found) and resolution.match == "fuzzy" and clause.action != "query":
        # Heard too poorly to act on: ask back with what was understood.
        names = names_phrase(home, resolution.devices)
        question = say("ask.heard_poorly", action=clause.action, names=names)
        resolution = Ask(resolution.devices, question)
        yes_no = True
    if isinstance(resolution, Ask):
        draft.options += resolution.options
        reply = resolution.question
        if rest:
            reply = say("ask.then_rest", question=reply)
        draft.say("clarify", reply)
        draft.asked = True
        draft.pending = PendingClarify(
            clause, resolution.options, yes_no, rest, tuple(focus), draft.text
        )
        return ()
    devices = resolution.devices
    if complaint_of(clause) is not None:
        return complaints.act(draft, clause, devices, focus, rest)  # 太热了: the actuator helps
    if clause.action == "query":
        queries.query(draft, clause, devices)
        return devices
    if clause.action in ("schedule_cancel", "schedule_query"):
        delayed.schedules(draft, clause, devices)
        return ()
    if clause.value is not None and clause.value.kind == "preferred":
        value = preferences.preferred(draft, clause, devices, focus, rest)
        if value is None:
            return ()
        clause = replace(clause, value=value)
    commands: list[Command] = []
    refusals: list[str] = []
    known = meanings(clause)  # once for all the clause's devices
    reads = needs_read(clause)
    states = draft.states(devices) if reads else {}  # the clause's devices in one round trip
    for device_id in devices:
        device = home.device(device_id)
        state: Mapping[str, object] | None = None
        if reads:
            got = states[device_id]
            if not isinstance(got, dict):
                name = shown(device.name)
                refusals.append(say("refuse.unreadable_state", name=name, reason=got.reason))
                continue
            state = got
        planned = plan(clause, device, state, known)
        if isinstance(planned, Refusal):
            refusals.append(planned.reason)
        else:
            commands.append(planned)
    if refusals:
        # Every device left out is said, even when others went ahead.
        draft.say("rejected", say("refuse.each", reasons=list(dict.fromkeys(refusals))))
    if commands and clause.when is not None:
        delayed.schedule(draft, commands, clause.when, clause.condition, focus)
    elif commands:
        queue(draft, commands, clause, condition=clause.condition, focus=focus)
    if resolution.skipped and commands:
        # 把所有灯调到50%: the others went ahead; the ones that cannot are named, not refused.
        draft.say("executed", cannot(home, resolution.skipped, clause))
    return tuple([c.device for c in commands])  # (a list is made faster than a generator runs)


def queue(
    draft: Draft,
    commands: Sequence[Command],
    clause: Clause | None,
    *,
    scene: str | None = None,
    condition: Condition | None = None,
    focus: Sequence[str] = (),
    confirmed: bool = False,
) -> None:
    """Validate, hold the high-risk ones for confirmation, queue the rest to be sent."""
    home = draft.ctx.home
    ready: list[Command] = []
    held: list[Command] = []
    # Looked up once: a whole-home turn queues thousands of commands.
    device_of, overlay, planned = home.device, draft.overlay, draft.planned
    for command in commands:
        # Each command once per turn: 客厅灯和客厅灯 gives one device one identical command.
        count = len(planned)
        planned.add(command)  # (added, then counted: one hash, not two)
        if len(planned) == count:
            continue
        device = device_of(command.device)
        found = check(device, command.command, command.params)
        if found is False or (found is True and confirmed):
            ready.append(command)
            if overlay:  # a device read earlier in the turn: later reads see this command
                draft.expect(command)
        elif found is True:
            held.append(command)
        else:  # never send what the schema refuses
            draft.failures.append(
                {"device": command.device, "command": command.command, "reason": found}
            )
            draft.say("rejected", say("refuse.invalid", name=shown(device.name), error=found))
    if ready or scene is not None:
        draft.add_batch(Batch(ready, clause, scene))
    if held:
        draft.held += tuple(held)
        names = [shown(home.device(c.device).name) for c in held]
        draft.say("confirm", say("ask.confirm", command=asked_verb(held[0].command), names=names))
        draft.pending = PendingConfirm(draft.held, condition, tuple(focus), draft.text)


def _scene(draft: Draft, clause: Clause) -> tuple[str, ...]:
    if clause.scene is None:
        # 换个风格: the running scene stops, and the next one is asked for.
        stopped = stop_scene(draft)
        names = [shown(s.name) for s in draft.ctx.home.scenes]
        if not names:
            draft.say("rejected", say("refuse.no_scenes"))
            return ()
        ask = say("ask.other_scene", names=names)
        draft.say("clarify", Acknowledged(say("done.stopped_then", reply=ask)) if stopped else ask)
        return ()
    scene = draft.ctx.home.scene(clause.scene)
    commands = [Command(s.device, s.command, dict(s.params)) for s in scene.steps]
    queue(draft, commands, None, scene=scene.name)
    batch = draft.parts[-1]
    if isinstance(batch, Batch) and batch.scene == scene.name:
        # Each step keeps its own time from the scene's start, found by the step it came from
        # (two steps may send one device one command): a step held or refused above passes
        # its wait on to the next one sent.
        offsets: dict[int, float] = {}
        offset = 0.0
        for command, step in zip(commands, scene.steps, strict=True):
            offset += step.delay_s
            offsets[id(command)] = offset
        at = [offsets[id(c)] for c in batch.commands]
        batch.delays = tuple(b - a for a, b in zip([0.0, *at], at, strict=False))
    return tuple(dict.fromkeys(c.device for c in commands))


def stop_scene(draft: Draft) -> bool | None:
    """算了 / 停下 / 换个风格 with nothing waiting: the running scene stops. The asyncio
    runtime paces a scene's steps itself and cancels them on `draft.stop_scene` (the store
    holds none of them, so the write below takes nothing there); under the sync API they wait
    in the store as schedules marked with their scene, and this session's are cancelled here,
    never a timer the user set. True when steps were cancelled, False when none waited, None
    when they could not be (said here)."""
    draft.stop_scene = True
    session = draft.ctx.session.id
    cancel = CancelSchedules(session, None, scene_steps=True)
    if not draft.answered(cancel) and not draft.ctx.schedules.pending(
        session=session, scene_steps=True
    ):
        return False  # nothing to cancel: no write (and no second pass to wait for it)
    answer = draft.write(cancel)
    error = failed(answer)
    if error is not None:
        draft.say("rejected", say("refuse.scene_not_stopped", error=error))
        return None
    return bool(answer)


def _one_room(draft: Draft, devices: Sequence[str]) -> str | None:
    """The room all the devices are in, if there is one; stops at a second room, which after
    打开所有的灯 is a few devices in, not thousands."""
    device = draft.ctx.home.device
    if len(devices) == 1:  # most clauses: one device, one room
        return device(devices[0]).room
    rooms = (device(d).room for d in devices)
    first = next(rooms, None)
    return first if all(room == first for room in rooms) else None


def _rooms(target: Target) -> list[str]:
    return [p.id for p in target.places if p.kind == "room" and p.id]


def _negated_phrase(clause: Clause) -> Acknowledged:
    target = clause.target
    # 这里不要开: the room the user stands in is not said back (好的，不开了).
    here = target is None or (
        all(p.kind == "this_room" for p in target.places)
        and target.name is None
        and not target.type_word
    )
    what = said_words(target) if target is not None and not here else ""
    return Acknowledged(say("done.negated", action=clause.action, what=what))
