"""The end of a turn: what the session remembers (decided when the turn is planned, so a
next turn's 它 means this one's device even while a slow hub still works on it), the first
reply said before anything is sent, and the Result once every command has been tried."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from operator import attrgetter
from typing import Any

from jiayu.compiler.cache import Compile
from jiayu.compiler.compact import UNKNOWN, compact
from jiayu.compiler.understand import Understood
from jiayu.grammar.phrases import phrase, say
from jiayu.home import Home
from jiayu.ir import Command, Parse
from jiayu.planner.draft import Answer, Draft
from jiayu.planner.plan import Batch
from jiayu.planner.replies import Acknowledged, done_phrase
from jiayu.resolver.resolve import Resolver
from jiayu.resolver.session import PendingConfirm, Session
from jiayu.result import Outcome, Result, most_blocking
from jiayu.text import shown

# Said on nearly every turn: the phrases' functions, called directly.
_ALL = phrase("done.all")
_OK_THEN = phrase("done.ok_then")

_COMMANDS = attrgetter("commands")
_DEVICE = attrgetter("device")


def decided(draft: Draft) -> Outcome:
    """The turn's outcome as planned: what sending may still turn into a failure."""
    return _decided(draft.outcomes, any(map(_COMMANDS, draft.batches)))


def _decided(outcomes: list[Outcome], commands: bool) -> Outcome:
    """The most blocking of `outcomes` and, when there are `commands`, executed."""
    if not outcomes:  # most turns: only commands, or nothing at all
        return "executed" if commands else "noop"
    return most_blocking([*outcomes, "executed"] if commands else outcomes)


def update_session(draft: Draft, session: Session) -> None:
    """What a planned user's turn changes in its session: the question it waits on now, and
    what it did (for 它, 那个房间, 再来一次)."""
    commands = draft.planned_commands()
    outcome = _decided(draft.outcomes, bool(commands))
    pending = draft.pending
    if pending is not None and outcome != "confirm" and isinstance(pending, PendingConfirm):
        pending = None  # the question was overtaken by what else the turn said
    session.pending = pending
    if len(commands) == 1 and not draft.devices:  # most turns: one command
        device = commands[0].device
        devices: tuple[str, ...] = (device,)
        rooms: tuple[str, ...] = (draft.ctx.home.device(device).room,)
    else:
        devices = tuple(dict.fromkeys([*draft.devices, *map(_DEVICE, commands)]))
        rooms = _first_rooms(draft.ctx.home, devices, session.recent_rooms.maxlen)
    session.remember(devices, rooms, commands)


def _first_rooms(home: Home, devices: Iterable[str], most: int | None) -> tuple[str, ...]:
    """The rooms of the devices, each once, in order, as many as the session remembers: the
    rest would be forgotten at once (打开所有的灯 names thousands of devices in a few rooms)."""
    rooms: dict[str, None] = {}
    for device in devices:
        rooms[home.device(device).room] = None
        if len(rooms) == most:
            break
    return tuple(rooms)


def announce(draft: Draft) -> str:
    """The first reply, before anything is sent: what will happen, never that it did."""
    # Each phrase, and whether it says what is being done: a reply opening with that
    # (正在打开客厅灯) is led by 好的.
    said: list[tuple[str, bool]] = []
    for part in draft.parts:
        if isinstance(part, str):
            said.append((part, False))
        elif part.scene is not None:
            said.append((say("doing.scene", scene=shown(part.scene)), False))
        elif part.commands:
            said.append((done_phrase(draft.ctx.home, part.clause, part.commands, "doing"), True))
    said = [(phrase, doing) for phrase, doing in said if phrase]
    reply = _ALL(parts=[phrase for phrase, _ in said])
    return _OK_THEN(reply=reply) if said and said[0][1] else reply


def result(
    draft: Draft,
    understood: Understood | None,
    *,
    audit_failed: bool = False,
    kept: Compile | None = None,
) -> Result:
    """The Result of a planned and sent turn: `understood` is what it planned (None if it was
    not understood), `kept` the turn's compile from the cache, whose `ir` and `compact` forms
    are built once for every turn that says the same."""
    # The draft's lists go to the Result as they are, unless a batch adds to them (the draft
    # is done with; most turns add nothing).
    outcomes = list(draft.outcomes)
    executed = False
    replies: list[str] = []
    failures = draft.failures
    scheduled = draft.scheduled
    home = draft.ctx.home
    for part in draft.parts:
        if isinstance(part, str):
            replies.append(part)
            continue
        replies += batch_phrases(home, part)
        if part.sent:
            executed = True
        elif part.failed:
            outcomes.append("rejected")
        elif part.deferred:
            outcomes.append("scheduled")
        if part.failed:
            failures = [
                *failures,
                *(
                    {"device": c.device, "command": c.command, "reason": reason}
                    for c, reason in part.failed
                ),
            ]
        if part.deferred:
            scheduled = [
                *scheduled,
                *({**s.result_json(), "scene": part.scene} for s in part.deferred),
            ]
    if audit_failed:
        outcomes.append("rejected")
        replies.append(say("failed.audit"))
    outcome = _decided(outcomes, executed)
    replies = [reply for reply in replies if reply]
    # One reply (most turns) is said as it is: the phrases joined are that one, as a str.
    reply = str(replies[0]) if len(replies) == 1 else _ALL(parts=replies)
    if outcome == "executed" and not (replies and isinstance(replies[0], Acknowledged)):
        reply = _OK_THEN(reply=reply)
    compact, ir = _forms(draft, understood, kept)
    return Result(
        draft.text,
        outcome,
        partial(commands_json, draft.sent()),
        partial(answers_json, draft.answers) if draft.answers else None,  # (most turns ask none)
        list(dict.fromkeys(draft.options)) if draft.options else [],
        reply,
        "none" if understood is None else understood.source,  # type: ignore[arg-type]
        compact,
        ir,
        failures,
        commands_json(draft.held) if outcome == "confirm" else [],
        scheduled,
        draft.timings,
    )


def batch_phrases(home: Home, batch: Batch) -> list[str]:
    """What came of one batch, failures named device by device."""
    phrases: list[str] = []
    if batch.scene is not None:
        name = shown(batch.scene)
        if batch.deferred:
            steps = len(batch.deferred)
            phrases.append(Acknowledged(say("done.scene_paced", scene=name, steps=steps)))
        elif batch.sent and not batch.failed:
            phrases.append(Acknowledged(say("done.scene", scene=name)))
        elif batch.sent:
            phrases.append(say("done.scene_partly", scene=name))
        elif batch.failed:
            phrases.append(say("failed.scene", scene=name))
    elif batch.sent:
        phrases.append(done_phrase(home, batch.clause, batch.sent))
    if batch.failed:
        phrases += _failed(home, batch)
    return phrases


def late_failures(draft: Draft) -> list[str]:
    """What failed of a turn whose reply was already said (the asyncio API): told in the
    session's next reply."""
    phrases: list[str] = []
    for batch in draft.batches:
        if batch.scene is not None and batch.failed and not batch.sent:
            phrases.append(say("failed.scene", scene=shown(batch.scene)))
        phrases.extend(_failed(draft.ctx.home, batch))
    return phrases


def _failed(home: Home, batch: Batch) -> list[str]:
    return [
        say("failed.device", name=shown(home.device(c.device).name), reason=reason)
        for c, reason in batch.failed
    ]


def commands_json(commands: Iterable[Command]) -> list[dict[str, Any]]:
    """The commands as the Result and the events give them (a fresh dict each, the caller's
    to change)."""
    return [{"device": c.device, "command": c.command, "params": dict(c.params)} for c in commands]


def answers_json(answers: Iterable[Answer]) -> list[dict[str, Any]]:
    """The answers as the Result gives them."""
    return [{"device": d, "attribute": a, "value": v} for d, a, v in answers]


def _forms(
    draft: Draft, understood: Understood | None, kept: Compile | None
) -> tuple[Callable[[], list[dict[str, Any]]], Callable[[], dict[str, Any]]]:
    """Builders of the Result's compact and ir forms, run only if the caller reads them. They
    hold the turn's parse and the home, not the draft; a kept compile builds each once.
    (Partials, not closures: made on every turn, read on few.)"""
    home, resolver = draft.ctx.home, draft.ctx.resolver
    if understood is None:  # not understood: no parse
        build = partial(_compact, None, None, home, resolver)
    elif kept is not None and understood.compact is None and understood.parsed is kept.compiled:
        # Most turns: the grammar's own parse of a kept compile, whose forms it keeps.
        return partial(_kept_compact, kept, understood.parsed, home, resolver), kept.ir
    else:
        build = partial(_compact, understood.compact, understood.parsed, home, resolver)
    return build, dict if kept is None else kept.ir  # (no compile: a fired schedule)


def _kept_compact(
    kept: Compile, parsed: Parse | None, home: Home, resolver: Resolver
) -> list[dict[str, Any]]:
    return kept.compact(partial(_compact, None, parsed, home, resolver))


def _compact(
    llm_compact: list[dict[str, Any]] | None,
    parsed: Parse | None,
    home: Home,
    resolver: Resolver,
) -> list[dict[str, Any]]:
    if llm_compact is not None:
        return llm_compact
    if parsed is None:
        return [dict(u) for u in UNKNOWN]

    def split_room(name: str) -> tuple[str | None, str]:
        word = home.leading_room_word(name)
        return (word, name[len(word) :]) if word is not None else (None, name)

    def type_of(name: str) -> str:
        match = resolver.names.lookup(name)
        if match is None:
            return "Unknown"
        types = {home.device(d).type for d in match.devices}
        return types.pop() if len(types) == 1 else "Unknown"

    return compact(
        parsed,
        split_room,
        type_of,
        lambda place, noun: resolver.composed(place, noun) is not None,
    )
