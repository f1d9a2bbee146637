"""What time it is, and waiting for a time: injected, so schedules and scenes are testable.

`SystemClock` is the wall clock in the home's time zone. `ManualClock` only moves when a
test (or a hub's test) tells it to, and wakes its sleepers then, in the order of their
deadlines: a test of “半小时后关空调” takes microseconds and cannot be flaky.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

if TYPE_CHECKING:
    # asyncio is imported where a clock sleeps, not here: every engine has a clock, and a
    # sync-only one never sleeps, so it never pays asyncio's (and ssl's) start-up and memory.
    import asyncio

MAX_NAP_S = 60.0
"""The longest single asyncio sleep of the system clock. asyncio sleeps on the monotonic clock;
a wall clock corrected by NTP, or a machine that was suspended, would otherwise fire a 22:00
schedule at the wrong wall time. Waking once a minute to look again costs nothing."""


class Clock(Protocol):
    """The time now, and a way to wait for a time."""

    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...

    async def sleep_until(self, when: datetime) -> None:
        """Return once `now()` has reached `when` (at once when it already has)."""
        ...


def local_zone() -> tzinfo:
    """The machine's time zone with its daylight-saving rules, when the system says what they
    are (TZ, /etc/localtime); else the current fixed offset, which knows no DST."""
    name = os.environ.get("TZ", "").removeprefix(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass  # a TZ the zone database does not know: the rules of /etc/localtime still apply
    try:
        with open("/etc/localtime", "rb") as rules:
            return ZoneInfo.from_file(rules)
    except (OSError, ValueError):
        zone = datetime.now().astimezone().tzinfo
        return zone if zone is not None else UTC


class SystemClock:
    """The wall clock, in `tz` (the machine's zone by default)."""

    def __init__(self, tz: tzinfo | None = None) -> None:
        self.tz = tz if tz is not None else local_zone()

    def now(self) -> datetime:
        return datetime.now(self.tz)

    async def sleep_until(self, when: datetime) -> None:
        import asyncio

        while (left := (when - self.now()).total_seconds()) > 0:
            await asyncio.sleep(min(left, MAX_NAP_S))


@dataclass(order=True)
class _Sleeper:
    when: datetime
    seq: int
    loop: asyncio.AbstractEventLoop = field(compare=False)
    future: asyncio.Future[None] = field(compare=False)


class ManualClock:
    """A clock that moves only by `advance`. Safe to advance from any thread; sleepers are
    woken on their own event loop, in deadline order (ties in the order they went to sleep)."""

    def __init__(self, start: datetime | None = None) -> None:
        start = start if start is not None else datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
        if start.tzinfo is None:
            raise ValueError("a ManualClock starts at a timezone-aware time")
        self._now = start
        self._lock = threading.Lock()
        self._sleepers: list[_Sleeper] = []
        self._seq = itertools.count()
        # Tests waiting until the code under test has gone to sleep: (count, loop, future).
        self._watchers: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def now(self) -> datetime:
        with self._lock:
            return self._now

    @property
    def sleepers(self) -> int:
        """How many sleep_until calls are waiting now."""
        with self._lock:
            return len(self._sleepers)

    async def sleep_until(self, when: datetime) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if when <= self._now:
                return
            sleeper = _Sleeper(when, next(self._seq), loop, future)
            heapq.heappush(self._sleepers, sleeper)
            ready = self._ready_watchers()
        _resolve_all(ready)
        try:
            await future
        finally:
            # Cancelled while asleep (a scene stopped, a scheduler woken early): forget it, so
            # `sleepers` counts only the ones still waiting. A woken sleeper is already gone.
            with self._lock:
                if sleeper in self._sleepers:
                    self._sleepers.remove(sleeper)
                    heapq.heapify(self._sleepers)

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose time has come."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"a clock moves forward by a finite number of seconds, not {seconds}")
        with self._lock:
            self._now += timedelta(seconds=seconds)
            woken = []
            while self._sleepers and self._sleepers[0].when <= self._now:
                woken.append(heapq.heappop(self._sleepers))
        _resolve_all([(s.loop, s.future) for s in woken])

    async def wait_for_sleepers(self, count: int = 1) -> None:
        """Return once at least `count` sleepers are waiting: the code under test has reached
        its next sleep, so the test may advance the clock past it."""
        import asyncio

        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if len(self._sleepers) >= count:
                return
            self._watchers.append((count, loop, future))
        await future

    def _ready_watchers(self) -> list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]:
        ready = [(loop, f) for n, loop, f in self._watchers if len(self._sleepers) >= n]
        self._watchers = [w for w in self._watchers if len(self._sleepers) < w[0]]
        return ready


def _resolve_all(futures: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
    # call_soon_threadsafe keeps the order of the calls, so sleepers wake in deadline order.
    for loop, future in futures:
        if not loop.is_closed():
            loop.call_soon_threadsafe(_resolve, future)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
