"""One turn as a service answers it: `Engine.handle`, then a bounded wait for its commands.

A service that answers once per message (a Wyoming `handle` program, an HA conversation
agent) can wait for the hub before it answers: the caller then reads back states that have
changed, and a failure is told in this answer rather than the session's next one. A turn
that starts a long scene is not waited for (its Result comes after the last step); neither
is a hub slower than `settle_s`: the runtime's first reply is said, which never claims what
has not happened, and what came of it is told at the session's next reply.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jiayu.grammar.phrases import say
from jiayu.result import Outcome, Result

if TYPE_CHECKING:
    from jiayu.engine import Engine
    from jiayu.executor.events import Event

log = logging.getLogger(__name__)

REFUSED: frozenset[Outcome] = frozenset({"unknown", "rejected"})
"""Outcomes that did nothing because nothing could be done: a protocol's "not handled"."""


@dataclass(frozen=True)
class Answer:
    """What a service says for one message."""

    reply: str
    """The words to say: the runtime's reply, then what failed if the hub already said so."""
    outcome: Outcome
    """What the turn decided (executed, clarify, confirm, ...)."""
    result: Result | None
    """The final Result, when the turn's commands were all tried before answering."""

    @property
    def handled(self) -> bool:
        """False when the turn did nothing: not understood, refused, or every command failed."""
        if self.outcome in REFUSED:
            return False
        return self.result is None or not (self.result.failures and not self.result.commands)

    @property
    def asks(self) -> bool:
        """The reply is a question (which one? 确认?): the speaker's next words answer it."""
        return self.outcome in ("clarify", "confirm")


async def answer(
    engine: Engine,
    text: str,
    session_id: str,
    *,
    area: str | None = None,
    user: str | None = None,
    settle_s: float = 10.0,
) -> Answer:
    """Run one turn on the engine's runtime and answer it once its commands are tried (at most
    `settle_s`, and not past the start of a long scene)."""
    scene = asyncio.get_running_loop().create_future()
    numbers: set[int] = set()

    def heard(event: Event) -> None:
        # A scene's Result waits for its last step: stop waiting when this turn starts one.
        if event.kind == "scene.started" and event.turn in numbers and not scene.done():
            scene.set_result(None)

    unsubscribe = engine.subscribe(session_id, heard)
    try:
        handled = await engine.handle(text, session_id, area=area, user=user)
        numbers.add(handled.turn)
        done, _ = await asyncio.wait(
            {handled.result, scene}, timeout=settle_s, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        unsubscribe()
        if not scene.done():
            scene.cancel()
    if handled.result not in done:
        log.debug("turn %s of %s still running: answered first", handled.turn, session_id)
        return Answer(handled.reply, handled.outcome, None)
    result = handled.result.result()
    # What failed was queued for the session's next reply; this answer is that reply.
    session = engine.session(session_id)
    late = list(session.messages)
    session.messages.clear()
    reply = say("told.all", messages=[handled.reply, *late]) if late else handled.reply
    return Answer(reply, handled.outcome, result)
