"""Delayed commands: fire times, the store and its file, and the scheduler on real asyncio."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from jiayu.executor.clock import ManualClock, SystemClock
from jiayu.executor.scheduler import Scheduler
from jiayu.executor.schedules import (
    Schedule,
    ScheduleError,
    ScheduleStore,
    fire_time,
    new_schedule_id,
)
from jiayu.ir import Command, Timing
from jiayu.preferences import StateFileError

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 23, 20, 15, 30, tzinfo=SHANGHAI)


def schedule(
    at: datetime,
    *,
    device: str = "ac_living",
    command: str = "turn_off",
    session: str = "s1",
    user: str | None = "小明",
    schedule_id: str | None = None,
) -> Schedule:
    return Schedule(
        id=schedule_id or new_schedule_id(),
        session=session,
        user=user,
        at=at,
        commands=(Command(device, command, {}),),
        text="半小时后关空调",
        condition=None,
        created=NOW,
    )


# fire_time


def test_a_delay_is_now_plus_that_many_seconds() -> None:
    assert fire_time(Timing(delay_s=1800), NOW) == NOW + timedelta(minutes=30)


def test_a_clock_time_still_ahead_is_today_and_one_gone_by_is_tomorrow() -> None:
    assert fire_time(Timing(hour=22), NOW) == datetime(2026, 11, 23, 22, 0, tzinfo=SHANGHAI)
    assert fire_time(Timing(hour=7), NOW) == datetime(2026, 11, 24, 7, 0, tzinfo=SHANGHAI)


def test_a_clock_time_equal_to_now_or_in_this_minute_is_tomorrow() -> None:
    exactly = datetime(2026, 11, 23, 22, 0, tzinfo=SHANGHAI)
    tomorrow = datetime(2026, 11, 24, 22, 0, tzinfo=SHANGHAI)
    assert fire_time(Timing(hour=22), exactly) == tomorrow
    assert fire_time(Timing(hour=22), exactly + timedelta(seconds=30)) == tomorrow
    assert fire_time(Timing(hour=22), exactly - timedelta(seconds=1)) == exactly


def test_a_day_counts_from_today() -> None:
    assert fire_time(Timing(hour=7, day=1), NOW) == datetime(2026, 11, 24, 7, tzinfo=SHANGHAI)
    assert fire_time(Timing(hour=7, minute=30, day=2), NOW) == datetime(
        2026, 11, 25, 7, 30, tzinfo=SHANGHAI
    )
    assert fire_time(Timing(hour=23, day=0), NOW) == datetime(2026, 11, 23, 23, tzinfo=SHANGHAI)


@pytest.mark.parametrize(
    ("timing", "reason"),
    [
        (Timing(hour=7, day=0), "past"),
        (Timing(delay_s=-1), "invalid"),
        (Timing(delay_s=float("nan")), "invalid"),
        (Timing(delay_s=float("inf")), "invalid"),
        (Timing(delay_s=400 * 86400), "too_far"),
        (Timing(hour=24), "invalid"),
        (Timing(hour=7, minute=60), "invalid"),
        (Timing(hour=7, day=-1), "invalid"),
        (Timing(hour=7, day=10**9), "invalid"),
        (Timing(), "invalid"),
        (Timing(delay_s=60, hour=7), "invalid"),
    ],
)
def test_a_timing_that_cannot_be_scheduled_says_why(timing: Timing, reason: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        fire_time(timing, NOW)
    assert caught.value.reason == reason


def test_across_daylight_saving_a_delay_is_elapsed_time_and_a_clock_time_is_wall_time() -> None:
    # 2026-03-08 02:00 EST the clocks in New York jump to 03:00.
    evening = datetime(2026, 3, 7, 22, 0, tzinfo=NEW_YORK)
    eight_hours = fire_time(Timing(delay_s=8 * 3600), evening)
    assert eight_hours.astimezone(UTC) - evening.astimezone(UTC) == timedelta(hours=8)
    assert (eight_hours.hour, eight_hours.minute) == (7, 0)  # the clock jumped an hour
    seven = fire_time(Timing(hour=7, day=1), evening)
    assert (seven.hour, seven.utcoffset()) == (7, timedelta(hours=-4))
    skipped = fire_time(Timing(hour=2, minute=30), evening)  # 02:30 does not exist that night
    assert (skipped.hour, skipped.minute) == (3, 30)


def test_fire_time_needs_an_aware_now() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        fire_time(Timing(delay_s=1), datetime(2026, 1, 1))


# the store


def test_pending_is_in_time_order_and_filters_by_session_user_and_device() -> None:
    store = ScheduleStore()
    late = schedule(NOW + timedelta(hours=2), device="light_living", session="s2", user=None)
    soon = schedule(NOW + timedelta(minutes=10))
    mid = schedule(NOW + timedelta(hours=1), device="curtain")
    for item in (late, soon, mid):
        store.add(item)
    assert store.pending() == [soon, mid, late]
    assert store.pending(session="s1") == [soon, mid]
    assert store.pending(user="小明") == [soon, mid]
    assert store.pending(devices=["ac_living", "light_living"]) == [soon, late]
    assert store.next_at() == soon.at
    assert len(store) == 3


def test_cancel_takes_one_out_and_cancel_where_takes_the_matching_ones() -> None:
    store = ScheduleStore()
    ac = schedule(NOW + timedelta(minutes=30), device="ac_living")
    light = schedule(NOW + timedelta(minutes=10), device="light_living")
    other = schedule(NOW + timedelta(minutes=20), device="ac_living", session="s2")
    for item in (ac, light, other):
        store.add(item)
    assert store.cancel(light.id) == light
    assert store.cancel(light.id) is None
    assert store.cancel_where(session="s1", devices=["ac_living"]) == [ac]
    assert store.cancel_where(session="s1") == []
    assert store.pending() == [other]
    assert store.cancel_where() == [other]
    assert store.next_at() is None


def test_due_leaves_them_and_pop_due_takes_them() -> None:
    store = ScheduleStore()
    first = schedule(NOW + timedelta(minutes=1))
    second = schedule(NOW + timedelta(minutes=2))
    store.add(second)
    store.add(first)
    assert store.due(NOW) == []
    assert store.due(NOW + timedelta(minutes=2)) == [first, second]
    assert store.pop_due(NOW + timedelta(minutes=1)) == [first]
    assert store.pending() == [second]


def test_a_repeated_id_a_naive_time_or_a_value_that_is_not_json_is_refused() -> None:
    store = ScheduleStore()
    store.add(schedule(NOW, schedule_id="a"))
    with pytest.raises(ScheduleError, match="exists already"):
        store.add(schedule(NOW, schedule_id="a"))
    with pytest.raises(ScheduleError, match="timezone-aware"):
        store.add(schedule(datetime(2026, 1, 1)))
    bad = Command("ac_living", "set_temperature", {"value": float("nan")})
    item = schedule(NOW)
    with pytest.raises(ScheduleError, match="not plain JSON"):
        store.add(Schedule(**{**item.__dict__, "commands": (bad,)}))
    assert [s.id for s in store.pending()] == ["a"]


def test_a_watcher_hears_every_change() -> None:
    store = ScheduleStore()
    heard: list[int] = []
    unwatch = store.watch(lambda: heard.append(len(store)))
    item = schedule(NOW)
    store.add(item)
    store.cancel(item.id)
    store.cancel(item.id)  # nothing changed: nothing heard
    unwatch()
    store.add(schedule(NOW))
    assert heard == [1, 0]


def test_the_result_entry_is_the_contracts_shape() -> None:
    item = schedule(NOW + timedelta(minutes=30, microseconds=5), schedule_id="abc")
    assert item.result_json() == {
        "id": "abc",
        "at": "2026-11-23T20:45:30+08:00",
        "commands": [{"device": "ac_living", "command": "turn_off", "params": {}}],
    }


# the file


def test_schedules_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    store = ScheduleStore(path)
    kept = Schedule(
        id="t1",
        session="s1",
        user=None,
        at=NOW + timedelta(hours=1),
        commands=(Command("ac_living", "set_temperature", {"value": 26}),),
        text="一个小时以后空调调到26度",
        condition={"attribute": "temperature", "op": ">", "number": 28, "room": "living"},
        created=NOW,
    )
    store.add(kept)
    store.add(schedule(NOW + timedelta(hours=2), schedule_id="t2"))
    store.cancel("t2")
    store.close()  # one owner at a time: the restart owns the file once this gives it up
    again = ScheduleStore(path)
    assert again.pending() == [kept]
    assert again.pending()[0].commands[0].params == {"value": 26}
    # No temporary file left (the lock beside it is its owner's: CONTRACTS §5).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["schedules.json", "schedules.json.lock"]


def test_a_store_that_cannot_write_refuses_at_start_and_undoes_a_change(tmp_path: Path) -> None:
    with pytest.raises(StateFileError, match="cannot write"):
        ScheduleStore(tmp_path / "missing" / "schedules.json")
    folder = tmp_path / "state"
    folder.mkdir()
    store = ScheduleStore(folder / "schedules.json")
    kept = schedule(NOW, schedule_id="kept")
    store.add(kept)
    folder.rename(tmp_path / "away")
    with pytest.raises(StateFileError, match="cannot write"):
        store.add(schedule(NOW, schedule_id="lost"))
    with pytest.raises(StateFileError, match="cannot write"):
        store.cancel("kept")
    assert store.pending() == [kept]


def test_concurrent_adds_from_threads_all_land_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    store = ScheduleStore(path)

    def add_some(n: int) -> None:
        for i in range(10):
            store.add(schedule(NOW + timedelta(minutes=i), schedule_id=f"{n}-{i}"))

    threads = [threading.Thread(target=add_some, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    assert len(ScheduleStore(path)) == 60


def _problems(path: Path, doc: object) -> list[str]:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    with pytest.raises(StateFileError) as caught:
        ScheduleStore(path)
    return str(caught.value).splitlines()


def test_a_bad_file_names_file_pointer_and_problem_one_line_each(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    good = schedule(NOW, schedule_id="x").to_json()
    doc = {
        "version": 1,
        "schedules": [
            good,
            {**good, "at": 5, "commands": []},
            {**good, "extra": 1, "commands": [{"device": "ac", "command": "turn_off"}]},
        ],
    }
    assert _problems(path, doc) == [
        f"{path}: /schedules/1/at: 5 is not a string",
        f"{path}: /schedules/1/commands: [] is empty",
        f'{path}: /schedules/2: unknown key "extra"',
        f'{path}: /schedules/2/commands/0: missing required key "params"',
    ]


def test_times_without_offsets_and_repeated_ids_are_reported_after_the_shape(
    tmp_path: Path,
) -> None:
    path = tmp_path / "schedules.json"
    good = schedule(NOW, schedule_id="x").to_json()
    doc = {
        "version": 1,
        "schedules": [good, {**good, "at": "2026-11-23T22:00"}, {**good, "created": "soon"}],
    }
    assert _problems(path, doc) == [
        f'{path}: /schedules/1/at: "2026-11-23T22:00" is not a time with its offset',
        f"{path}: /schedules/1/id: repeats an id",
        f'{path}: /schedules/2/created: "soon" is not a time with its offset',
        f"{path}: /schedules/2/id: repeats an id",
    ]


def test_a_confirmed_flag_that_is_not_a_boolean_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    doc = {"version": 1, "schedules": [{**schedule(NOW).to_json(), "confirmed": "yes"}]}
    assert _problems(path, doc) == [f'{path}: /schedules/0/confirmed: "yes" is not a boolean']


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "/: invalid JSON at line 1, column 1"),
        ('{"version": 1, "schedules": [Infinity]}', "/schedules/0: not a finite number"),
        ('{"version": 3, "schedules": []}', "/version: 3 is not 1"),
        ('{"version": 1}', '/: missing required key "schedules"'),
    ],
)
def test_a_file_that_is_not_a_schedule_document_is_one_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "schedules.json"
    lines = _problems(path, text)
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}: {problem}")


# the scheduler


async def asleep(clock: ManualClock) -> None:
    """Wait (a bounded time) until the code under test sleeps on the clock."""
    await asyncio.wait_for(clock.wait_for_sleepers(), timeout=5)


class Recorder:
    """A `fire` that notes what fired and when, and lets a test wait for it."""

    def __init__(self, clock: ManualClock | SystemClock) -> None:
        self.clock = clock
        self.fired: list[tuple[str, datetime]] = []
        self._more = asyncio.Event()

    async def __call__(self, item: Schedule) -> None:
        self.fired.append((item.id, self.clock.now()))
        self._more.set()

    async def wait_for(self, count: int) -> list[tuple[str, datetime]]:
        while len(self.fired) < count:
            self._more.clear()
            await asyncio.wait_for(self._more.wait(), timeout=5)
        return self.fired


def test_a_schedule_fires_when_the_manual_clock_reaches_it() -> None:
    async def main() -> list[tuple[str, datetime]]:
        clock = ManualClock(NOW)
        store = ScheduleStore()
        fire = Recorder(clock)
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        store.add(schedule(NOW + timedelta(minutes=30), schedule_id="ac"))
        await asleep(clock)
        clock.advance(30 * 60 - 1)
        clock.advance(1)
        fired = await fire.wait_for(1)
        await scheduler.stop()
        return fired

    # Fired when the clock showed its time, not at the second before.
    assert asyncio.run(main()) == [("ac", NOW + timedelta(minutes=30))]


def test_schedules_fire_in_time_order_and_a_failing_fire_stops_nothing() -> None:
    async def main() -> list[str]:
        clock = ManualClock(NOW)
        store = ScheduleStore()
        record = Recorder(clock)

        async def fire(item: Schedule) -> None:
            await record(item)
            if item.id == "b":
                raise RuntimeError("the hub fell over")

        for name, minutes in (("c", 30), ("a", 10), ("b", 20)):
            store.add(schedule(NOW + timedelta(minutes=minutes), schedule_id=name))
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        await asleep(clock)
        clock.advance(3600)  # all three at once: still in their order
        fired = await record.wait_for(3)
        await scheduler.stop()
        return [name for name, _ in fired]

    assert asyncio.run(main()) == ["a", "b", "c"]


def test_a_cancelled_schedule_does_not_fire_and_an_added_one_wakes_the_scheduler() -> None:
    async def main() -> list[tuple[str, datetime]]:
        clock = ManualClock(NOW)
        store = ScheduleStore()
        fire = Recorder(clock)
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        store.add(schedule(NOW + timedelta(hours=1), schedule_id="far"))
        await asleep(clock)  # until the far one
        # Sooner ones must wake it: asleep until the far one, it would miss them.
        store.add(schedule(NOW + timedelta(minutes=10), schedule_id="soon"))
        store.add(schedule(NOW + timedelta(minutes=20), schedule_id="later"))
        store.cancel("soon")
        clock.advance(20 * 60)
        await fire.wait_for(1)
        await scheduler.stop()
        assert [s.id for s in store.pending()] == ["far"]
        return fire.fired

    assert asyncio.run(main()) == [("later", NOW + timedelta(minutes=20))]


def test_on_start_a_little_late_fires_and_too_late_is_dropped_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    store = ScheduleStore(path)
    store.add(schedule(NOW - timedelta(minutes=10), schedule_id="late"))
    store.add(schedule(NOW - timedelta(hours=2), schedule_id="too-late"))
    store.add(schedule(NOW + timedelta(hours=1), schedule_id="ahead"))
    store.close()

    async def main() -> tuple[list[tuple[str, datetime]], list[str]]:
        clock = ManualClock(NOW)
        restarted = ScheduleStore(path)  # the hub was down while two came due
        fire = Recorder(clock)
        dropped: list[str] = []
        scheduler = Scheduler(
            restarted, clock, fire, on_dropped=lambda s, why: dropped.append(f"{s.id}:{why}")
        )
        scheduler.start()
        await asleep(clock)  # asleep until "ahead": the due ones are behind it
        await scheduler.stop()
        restarted.close()
        return fire.fired, dropped

    assert asyncio.run(main()) == ([("late", NOW)], ["too-late:late"])
    assert [s.id for s in ScheduleStore(path).pending()] == ["ahead"]


def test_a_real_sub_second_timer_fires_on_the_system_clock() -> None:
    async def main() -> tuple[float, list[tuple[str, datetime]]]:
        clock = SystemClock()
        store = ScheduleStore()
        fire = Recorder(clock)
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        started = time.monotonic()
        item = schedule(clock.now() + timedelta(seconds=0.2), schedule_id="soon")
        store.add(item)
        fired = await fire.wait_for(1)
        took = time.monotonic() - started
        await scheduler.stop()
        assert fired[0][1] >= item.at
        return took, fired

    took, fired = asyncio.run(main())
    assert [name for name, _ in fired] == ["soon"]
    assert 0.19 <= took < 2.0


def test_a_schedule_added_from_another_thread_wakes_the_scheduler() -> None:
    async def main() -> list[str]:
        clock = SystemClock()
        store = ScheduleStore()
        fire = Recorder(clock)
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        await asyncio.sleep(0.01)  # asleep on the store, with nothing to fire
        # The sync engine adds from its own thread.
        item = schedule(clock.now() + timedelta(seconds=0.05), schedule_id="threaded")
        thread = threading.Thread(target=store.add, args=(item,))
        thread.start()
        fired = await fire.wait_for(1)
        thread.join()
        await scheduler.stop()
        return [name for name, _ in fired]

    assert asyncio.run(main()) == ["threaded"]


def test_stop_keeps_the_waiting_schedules() -> None:
    async def main() -> int:
        clock = ManualClock(NOW)
        store = ScheduleStore()
        scheduler = Scheduler(store, clock, Recorder(clock))
        scheduler.start()
        store.add(schedule(NOW + timedelta(minutes=5)))
        await asleep(clock)
        await scheduler.stop()
        assert clock.sleepers == 0  # its sleep was cancelled, not left behind
        return len(store)

    assert asyncio.run(main()) == 1


# the clock


def test_the_manual_clock_wakes_only_the_due_sleepers_in_deadline_order() -> None:
    async def main() -> list[str]:
        clock = ManualClock(NOW)
        woke: list[str] = []

        async def sleeper(name: str, seconds: float) -> None:
            await clock.sleep_until(NOW + timedelta(seconds=seconds))
            woke.append(name)

        tasks = [
            asyncio.create_task(sleeper(name, seconds))
            for name, seconds in (("c", 30), ("a", 10), ("b", 20), ("late", 99))
        ]
        await asyncio.wait_for(clock.wait_for_sleepers(4), timeout=5)
        clock.advance(30)
        await asyncio.gather(*tasks[:3])
        assert clock.sleepers == 1
        tasks[3].cancel()
        await asyncio.gather(tasks[3], return_exceptions=True)
        assert clock.sleepers == 0
        await clock.sleep_until(NOW)  # a time already reached: at once
        return woke

    assert asyncio.run(main()) == ["a", "b", "c"]


def test_the_manual_clock_is_aware_and_only_moves_forward() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        ManualClock(datetime(2026, 1, 1))
    clock = ManualClock(NOW)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="moves forward"):
            clock.advance(bad)
    clock.advance(1.5)
    assert clock.now() == NOW + timedelta(seconds=1.5)


def test_the_system_clock_is_aware_in_the_zone_it_is_given() -> None:
    assert SystemClock().now().tzinfo is not None
    assert SystemClock(SHANGHAI).now().utcoffset() == timedelta(hours=8)

    async def main() -> float:
        clock = SystemClock()
        started = time.monotonic()
        await clock.sleep_until(clock.now() + timedelta(seconds=0.05))
        await clock.sleep_until(clock.now() - timedelta(seconds=1))
        return time.monotonic() - started

    assert 0.04 <= asyncio.run(main()) < 1.0


def test_a_schedule_still_fires_when_its_file_can_no_longer_be_written(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    store = ScheduleStore(folder / "schedules.json")
    store.add(schedule(NOW + timedelta(minutes=1), schedule_id="first"))
    store.add(schedule(NOW + timedelta(minutes=2), schedule_id="second"))
    folder.rename(tmp_path / "away")

    async def main() -> list[str]:
        clock = ManualClock(NOW)
        fire = Recorder(clock)
        scheduler = Scheduler(store, clock, fire)
        scheduler.start()
        await asleep(clock)
        clock.advance(120)
        fired = await fire.wait_for(2)
        await scheduler.stop()
        return [name for name, _ in fired]

    assert asyncio.run(main()) == ["first", "second"]
    assert len(store) == 0
