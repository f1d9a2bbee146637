"""ScheduleStore.take_due and the Scheduler on it: late and gone schedules are taken out and
reported, never fired, and never cost the others their fire."""

from __future__ import annotations

import asyncio
import gc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from jiayu.executor.clock import ManualClock
from jiayu.executor.scheduler import Scheduler
from jiayu.executor.schedules import Dropped, Due, Schedule, ScheduleStore
from jiayu.ir import Command

NOW = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)
HOME = {"ac_living", "light_living", "light_bedroom"}


def schedule(schedule_id: str, at: datetime, *devices: str) -> Schedule:
    return Schedule(
        id=schedule_id,
        session=f"s-{schedule_id}",
        user=None,
        at=at,
        commands=tuple(Command(d, "turn_off", {}) for d in devices or ("ac_living",)),
        text="晚上十点关灯",
        condition=None,
        created=NOW - timedelta(days=1),
    )


def in_home(device: str) -> bool:
    return device in HOME


def ids(schedules: tuple[Schedule, ...]) -> list[str]:
    return [s.id for s in schedules]


def test_take_due_sorts_fire_late_and_gone_and_takes_each_out_once(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    store = ScheduleStore(path)
    store.add(schedule("ok", NOW - timedelta(minutes=59), "light_living"))
    store.add(schedule("late", NOW - timedelta(hours=1, seconds=1), "light_living"))
    # A device removed from the home: dropped, whether or not it is also late.
    store.add(schedule("gone", NOW - timedelta(minutes=1), "light_living", "lamp_removed"))
    store.add(schedule("gone-late", NOW - timedelta(hours=3), "lamp_removed"))
    store.add(schedule("ahead", NOW + timedelta(seconds=1)))

    due = store.take_due(NOW, in_home)

    assert ids(due.fire) == ["ok"]
    assert ids(due.late) == ["late"]
    assert ids(due.gone) == ["gone-late", "gone"]
    assert [(s.id, why) for s, why in due.dropped()] == [
        ("late", "late"),
        ("gone-late", "gone"),
        ("gone", "gone"),
    ]
    # Taken out of memory and the file: a second call, or a restart, sees none of them again.
    assert store.take_due(NOW, in_home) == Due()
    store.close()  # one store owns a file at a time, in one process too
    assert [s.id for s in ScheduleStore(path).pending()] == ["ahead"]


def test_a_removed_device_no_longer_costs_the_other_due_schedule_its_fire() -> None:
    # Before take_due, run_due's pop_due took both, the removed device's KeyError escaped, and
    # the other schedule was lost unsent.
    store = ScheduleStore()
    store.add(schedule("removed", NOW - timedelta(minutes=2), "lamp_removed"))
    store.add(schedule("kept", NOW - timedelta(minutes=1), "ac_living"))

    due = store.take_due(NOW, in_home)

    assert (ids(due.fire), ids(due.gone), len(store)) == (["kept"], ["removed"], 0)


def test_limit_takes_only_that_many_to_fire_and_leaves_the_rest() -> None:
    store = ScheduleStore()
    for n in range(3):
        store.add(schedule(f"s{n}", NOW - timedelta(minutes=3 - n)))
    store.add(schedule("gone", NOW - timedelta(minutes=5), "lamp_removed"))

    first = store.take_due(NOW, in_home, limit=1)

    assert (ids(first.fire), ids(first.gone)) == (["s0"], ["gone"])
    assert [s.id for s in store.pending()] == ["s1", "s2"]


def test_a_has_device_that_raises_takes_nothing() -> None:
    store = ScheduleStore()
    store.add(schedule("a", NOW - timedelta(minutes=1)))

    def broken(device: str) -> bool:
        raise RuntimeError("the home is being reloaded")

    with pytest.raises(RuntimeError):
        store.take_due(NOW, broken)
    assert len(store) == 1


def test_take_due_fires_even_when_the_file_can_no_longer_be_written(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    store = ScheduleStore(folder / "schedules.json")
    store.add(schedule("a", NOW - timedelta(minutes=1)))
    folder.rename(tmp_path / "away")

    assert ids(store.take_due(NOW, in_home).fire) == ["a"]
    assert len(store) == 0  # at most once: memory never gives it back


def test_the_scheduler_drops_gone_and_late_ones_to_on_dropped_and_fires_the_others(
    tmp_path: Path,
) -> None:
    path = tmp_path / "schedules.json"
    kept = ScheduleStore(path)
    kept.add(schedule("removed", NOW - timedelta(minutes=2), "lamp_removed"))
    kept.add(schedule("kept", NOW - timedelta(minutes=1), "ac_living"))
    kept.add(schedule("late", NOW - timedelta(hours=2), "ac_living"))
    kept.add(schedule("soon", NOW + timedelta(minutes=10), "light_bedroom"))
    kept.close()  # the engine that set them stops

    async def main() -> tuple[list[str], list[tuple[str, Dropped]]]:
        clock = ManualClock(NOW)
        fired: list[str] = []
        dropped: list[tuple[str, Dropped]] = []

        async def fire(item: Schedule) -> None:
            fired.append(item.id)

        # A restart: started with no turn at all, it goes through what the file kept.
        scheduler = Scheduler(
            ScheduleStore(path),
            clock,
            fire,
            on_dropped=lambda s, why: dropped.append((s.id, why)),
            has_device=in_home,
        )
        scheduler.start()
        await asyncio.wait_for(clock.wait_for_sleepers(), timeout=5)  # asleep until "soon"
        clock.advance(600)
        for _ in range(100):
            if len(fired) == 2:
                break
            await asyncio.sleep(0.01)
        await scheduler.stop()
        return fired, dropped

    fired, dropped = asyncio.run(main())
    assert fired == ["kept", "soon"]
    assert dropped == [("late", "late"), ("removed", "gone")]
    gc.collect()  # the restarted store is gone with its scheduler: collected, it lets go
    assert ScheduleStore(path).pending() == []
