"""Live events of the asyncio runtime (pushed as they happen), per session.

Each command publishes started / finished / failed, each turn done / failed, each
background scene started / finished / failed / cancelled, in the
order they happen, to the session's subscribers: async iterators (one queue each)
and plain callbacks. A slow subscriber never blocks sending: its queue is unbounded
and is dropped when the subscriber goes away.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    # Imported where a stream starts: the sync engine publishes events too, without asyncio.
    import asyncio

log = logging.getLogger(__name__)

EventKind = Literal[
    "command.started",
    "command.finished",
    "command.failed",
    "turn.done",
    "turn.failed",
    "scene.started",
    "scene.finished",
    "scene.failed",
    "scene.cancelled",
]


@dataclass(frozen=True)
class Event:
    """One thing that happened in the background."""

    kind: EventKind
    """What happened."""
    session: str
    """The session whose turn it belongs to."""
    turn: int
    """The turn's number in this engine (increasing), to tell turns apart."""
    device: str | None = None
    """For command events: the device."""
    command: str | None = None
    """For command events: the command."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """For command events: its params."""
    reason: str | None = None
    """For failures: why (offline, timeout, refused, audit, ...)."""
    reply: str | None = None
    """For turn events: the final reply."""
    scene: str | None = None
    """For scene events: the scene's name."""


Callback = Callable[[Event], None]


class EventBus:
    """Subscribers per session; publishing is synchronous and never raises."""

    def __init__(self) -> None:
        self._queues: dict[str, list[asyncio.Queue[Event]]] = {}
        self._callbacks: dict[str, list[Callback]] = {}

    def publish(self, event: Event) -> None:
        """Deliver to every subscriber of the event's session, in call order."""
        for queue in self._queues.get(event.session, ()):
            queue.put_nowait(event)
        for callback in list(self._callbacks.get(event.session, ())):
            try:
                callback(event)
            except Exception:  # a subscriber's bug must not stop the sends
                log.exception(
                    "a callback of session %s failed on %s",
                    event.session,
                    event.kind,
                    extra={"session": event.session},
                )

    def on(self, session: str, callback: Callback) -> Callable[[], None]:
        """Call `callback` with each event of the session; returns a function that stops it."""
        self._callbacks.setdefault(session, []).append(callback)
        return lambda: self._callbacks.get(session, []).remove(callback)

    async def stream(self, session: str) -> AsyncIterator[Event]:
        """The session's events as an async iterator, from now on, until the caller stops."""
        import asyncio

        queue: asyncio.Queue[Event] = asyncio.Queue()
        self._queues.setdefault(session, []).append(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues[session].remove(queue)
