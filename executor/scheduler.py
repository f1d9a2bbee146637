"""The asyncio side of delayed commands: one task that fires the store's schedules on time.

Kept apart from executor/schedules.py (the store, the file, when a schedule fires) so that a
sync-only engine never imports asyncio, and with it ssl: about 9 MiB and 30 ms of start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from jiayu.executor.clock import Clock
from jiayu.executor.schedules import LATE_LIMIT, Dropped, Schedule, ScheduleStore

log = logging.getLogger(__name__)

Fire = Callable[[Schedule], Awaitable[None]]


class Scheduler:
    """Fires the store's schedules on time, as one asyncio task.

    It sleeps until the soonest schedule is due (no polling) and wakes early when the store
    changes, from any thread. Due schedules fire one at a time in time order, each taken out
    of the store (`ScheduleStore.take_due`, the rule the sync API keeps too) just before its
    `fire` is awaited; a schedule cancelled meanwhile does not fire. A `fire` that raises is
    logged and the next one still fires. A schedule more than `late_limit` late (the hub was
    down), or one with a device `has_device` no longer knows, is not fired but handed to
    `on_dropped` with why, so the runtime can tell the session that set it.

    `start` needs only a running loop: the runtime starts it when it starts, and schedules
    kept in the file from before a restart fire (or are dropped) at once.
    """

    def __init__(
        self,
        store: ScheduleStore,
        clock: Clock,
        fire: Fire,
        *,
        on_dropped: Callable[[Schedule, Dropped], None] | None = None,
        has_device: Callable[[str], bool] = lambda _: True,
        late_limit: timedelta = LATE_LIMIT,
    ) -> None:
        self.store = store
        self.clock = clock
        self.fire = fire
        self.on_dropped = on_dropped
        self.has_device = has_device
        self.late_limit = late_limit
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        self._unwatch: Callable[[], None] | None = None

    def start(self) -> None:
        """Start firing, on the running event loop; schedules already due fire at once."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        self._unwatch = self.store.watch(self.wake)
        self._task = self._loop.create_task(self._run(self._changed), name="jiayu-scheduler")

    async def stop(self) -> None:
        """Stop firing. A fire in progress is cancelled; the schedules still waiting stay in
        the store (and its file) for the next start."""
        task, self._task = self._task, None
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def wake(self) -> None:
        """Look at the store again (a schedule was added or cancelled); safe from any thread."""
        loop, changed = self._loop, self._changed
        if loop is not None and changed is not None and not loop.is_closed():
            loop.call_soon_threadsafe(changed.set)

    async def _run(self, changed: asyncio.Event) -> None:
        while True:
            # Cleared before looking, so a change made while firing or sleeping is never missed.
            changed.clear()
            while fire := self._take_next():
                await self._fire(fire)
            soonest = self.store.next_at()
            if soonest is not None and soonest <= self.clock.now():
                continue
            await self._sleep(soonest, changed)

    def _take_next(self) -> Schedule | None:
        """The next schedule to fire, taken out of the store; the ones not to fire that are
        due by now are taken out too and handed to on_dropped."""
        due = self.store.take_due(
            self.clock.now(), self.has_device, limit=1, late_limit=self.late_limit
        )
        for schedule, why in due.dropped():
            log.warning("schedule %s is dropped: %s", schedule.id, why)
            if self.on_dropped is not None:
                try:
                    self.on_dropped(schedule, why)
                except Exception:
                    log.exception("on_dropped failed for schedule %s", schedule.id)
        return due.fire[0] if due.fire else None

    async def _fire(self, schedule: Schedule) -> None:
        try:
            await self.fire(schedule)
        except Exception:
            log.exception("schedule %s failed to fire", schedule.id)

    async def _sleep(self, until: datetime | None, changed: asyncio.Event) -> None:
        waits: set[asyncio.Task[Any]] = {asyncio.create_task(changed.wait())}
        if until is not None:
            waits.add(asyncio.create_task(self.clock.sleep_until(until)))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
