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
from jiayu.executor.schedules import LATE_LIMIT, Schedule, ScheduleStore

log = logging.getLogger(__name__)

Fire = Callable[[Schedule], Awaitable[None]]


class Scheduler:
    """Fires the store's schedules on time, as one asyncio task.

    It sleeps until the soonest schedule is due (no polling) and wakes early when the store
    changes, from any thread. Due schedules fire one at a time in time order, each taken out
    of the store just before its `fire` is awaited; a schedule cancelled meanwhile does not
    fire. A `fire` that raises is logged and the next one still fires. A schedule more than
    `late_limit` late (the hub was down) is not fired but handed to `on_dropped`.
    """

    def __init__(
        self,
        store: ScheduleStore,
        clock: Clock,
        fire: Fire,
        *,
        on_dropped: Callable[[Schedule], None] | None = None,
        late_limit: timedelta = LATE_LIMIT,
    ) -> None:
        self.store = store
        self.clock = clock
        self.fire = fire
        self.on_dropped = on_dropped
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
            for schedule in self.store.due(self.clock.now()):
                await self._fire(schedule)
            soonest = self.store.next_at()
            if soonest is not None and soonest <= self.clock.now():
                continue
            await self._sleep(soonest, changed)

    async def _fire(self, schedule: Schedule) -> None:
        if self.store.claim(schedule.id) is None:
            return  # cancelled while the ones before it fired
        late = self.clock.now() - schedule.at
        if late > self.late_limit:
            log.warning("schedule %s is %s late: dropped", schedule.id, late)
            if self.on_dropped is not None:
                try:
                    self.on_dropped(schedule)
                except Exception:
                    log.exception("on_dropped failed for schedule %s", schedule.id)
            return
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
