"""What the two drivers (jiayu/engine.py, sync; jiayu/runtime.py, asyncio) do alike for the
planner: the sessions they keep, the state-file writes and the LLM call it asks for, what a
session is told later, and a turn that failed closed. One copy, used by both."""

from __future__ import annotations

import gc
import itertools
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from jiayu.errors import JiayuError
from jiayu.executor.schedules import Dropped, ScheduleStore
from jiayu.grammar import phrases
from jiayu.grammar.phrases import say
from jiayu.home import Home
from jiayu.ir import Command
from jiayu.planner.draft import Draft
from jiayu.planner.effects import AddSchedule, CancelSchedules, Consult, Write
from jiayu.planner.finish import commands_json
from jiayu.planner.timing import Schedule, new_schedule_id
from jiayu.preferences import PreferenceStore
from jiayu.resolver.session import Session
from jiayu.result import Result

if TYPE_CHECKING:
    from jiayu.compiler import Lexicon
    from jiayu.compiler.llm import Fallback
    from jiayu.compiler.llm.client import LLMClient
    from jiayu.resolver.names import NameIndex

log = logging.getLogger(__name__)

MAX_SESSIONS = 10_000
"""Sessions kept per engine; the least recently used is forgotten beyond this."""


class Sessions:
    """An engine's sessions, created on first use; the least recently used is forgotten past
    `limit`, and with it everything kept per session (its asyncio lock is weakly held)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = self._sessions[session_id] = Session(session_id)
                if len(self._sessions) > self.limit:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(session_id)
            return session

    def __len__(self) -> int:
        return len(self._sessions)

    def tell_dropped(self, schedule: Schedule, why: Dropped) -> None:
        """A schedule not fired is told to the session that made it, at its next reply."""
        if why == "late":
            said = say("told.late", text=schedule.text)
        else:
            said = say("told.gone", text=schedule.text)
        self.get(schedule.session).messages.append(said)


def write(schedules: ScheduleStore, preferences: PreferenceStore, op: Write) -> object:
    """A state-file change the planner asked for: its answer, or the JiayuError."""
    try:
        if isinstance(op, AddSchedule):
            schedules.add(op.schedule)
            return op.schedule
        if isinstance(op, CancelSchedules):
            return schedules.cancel_where(
                session=op.session, devices=op.devices, scene_steps=op.scene_steps
            )
        return preferences.set(op.user, op.key, op.value)
    except JiayuError as err:
        return err


def consult(fallback: Fallback | None, effect: Consult) -> Any:
    """The LLM fallback's one call for a turn (blocking)."""
    assert fallback is not None
    return fallback.parse(
        effect.text, recent_devices=effect.recent_devices, recent_rooms=effect.recent_rooms
    )


def defer_scene_steps(schedules: ScheduleStore, draft: Draft) -> None:
    """Under the sync API a scene's delayed steps are kept as schedules, fired by `run_due`
    when their time comes, not sent at once (there is no background to pace them in)."""
    for batch in draft.batches:
        if not any(batch.delays):
            continue
        now, session, user = draft.ctx.now, draft.ctx.session.id, draft.ctx.user
        offset, at_once, deferred = 0.0, list[Command](), list[Schedule]()
        for command, delay in zip(batch.commands, batch.delays, strict=True):
            offset += delay
            if offset <= 0:
                at_once.append(command)
                continue
            at = now + timedelta(seconds=offset)
            text = batch.scene or ""
            step = Schedule(new_schedule_id(), session, user, at, (command,), text, None, now, text)
            schedules.add(step)
            deferred.append(step)
        batch.commands, batch.delays, batch.deferred = at_once, (), tuple(deferred)


def told_first(session: Session, reply: str) -> str:
    """The reply after what the session was waiting to be told (its message queue), which is
    told once: the queue is emptied."""
    if not session.messages:
        return reply
    queued = list(session.messages)
    session.messages.clear()
    return say("told.all", messages=[*queued, reply])


def told(result: Result, session: Session) -> Result:
    """The Result whose reply starts with what the session was waiting to be told."""
    if not session.messages:
        return result
    return replace(result, reply=told_first(session, result.reply))


def crashed(session: Session, text: str, sent: Sequence[Command] = ()) -> Result:
    """The Result of a turn that hit a bug: whatever was already sent is reported."""
    log.exception(
        "a turn of session %s failed: %s",
        session.id,
        text,
        extra={"session": session.id, "text": text},
    )
    session.pending = None
    commands = commands_json(sent)
    return Result(
        text,
        "executed" if commands else "unknown",
        commands,
        reply=say("failed.crashed"),
    )


def load_fallback(llm: LLMClient, home: Home) -> Fallback:
    # Imported here: a grammar-only engine never loads the fallback (nor dashscope).
    from jiayu.compiler.llm import Fallback

    return Fallback(llm, home)


WARM_TURNS = 64
"""Turns after which an engine counts as warm: the phrasings a home hears most have been
compiled and checked, and what that built (the compile cache, the catalog's remembered
checks) lives as long as the engine."""


class Warming:
    """When an engine warms, shared by its `fresh()` copies: after the first turn any of them
    answers, the pinyin data is built in a background thread; after WARM_TURNS turns, and
    again each time the count doubles, what the turns built is kept out of later full
    collections (`gc.freeze`), which would otherwise rescan it and set the slowest turns (a
    gen-2 collection of a warm compile cache takes longer than a turn). Doubling keeps the
    freezes few (log of the turns), and what is frozen is what was alive then."""

    def __init__(self) -> None:
        self._turns = itertools.count(1)  # next() is one C call: atomic under the GIL
        self._due = 1  # the next turn that does something: the 1st, then the 64th, 128th, …

    def turned(self, lexicon: Lexicon, names: NameIndex) -> None:
        """One more turn answered."""
        turns = next(self._turns)
        if turns != self._due:  # each count is one turn's: only that turn moves the next due
            return
        if turns == 1:
            warm_in_background(lexicon, names)
            self._due = WARM_TURNS
        else:
            gc.freeze()
            self._due = turns * 2


def warm_in_background(lexicon: Lexicon, names: NameIndex) -> None:
    """Build the lexicon's and the name index's pinyin data, and every reply phrase, in a
    background thread: no later turn pays for them."""

    def build() -> None:
        lexicon.pinyin_index()
        names.warm()
        phrases.warm()
        # Like the engine's own build: what lives as long as the engine is kept out of later
        # full collections, which would otherwise rescan every key (~40 ms on a big home).
        gc.freeze()

    threading.Thread(target=build, name="jiayu-pinyin", daemon=True).start()
