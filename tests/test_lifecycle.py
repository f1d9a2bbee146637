"""The runtime's lifecycle (issue 18, item 6), on real asyncio and a fake clock where time
matters: focus moves when a turn is planned, kept schedules fire from the runtime's start,
late and orphaned schedules are told, long scenes have events and a Result of every step,
a blocking hub cannot starve the runtime, and per-session state leaves with the session."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.events import Event
from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.home import Home, load_home

NOON = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


class SlowAsyncHub:
    """An AsyncHub whose sends take `delay` seconds of real time, as a hub on a network."""

    def __init__(self, home: Home, delay: float) -> None:
        self.inner = SimulatedHub(home)
        self.delay = delay

    async def read(self, device_id: str) -> Mapping[str, Any]:
        return self.inner.read(device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await asyncio.sleep(self.delay)
        self.inner.send(device_id, command, params)


class BlockingHub:
    """A blocking Hub that takes `delay` seconds a call, in its caller's thread."""

    def __init__(self, home: Home, delay: float) -> None:
        self.inner = SimulatedHub(home)
        self.delay = delay
        self.calls = 0
        self._lock = threading.Lock()

    def _wait(self) -> None:
        with self._lock:
            self.calls += 1
        time.sleep(self.delay)

    def read(self, device_id: str) -> Mapping[str, Any]:
        self._wait()
        return self.inner.read(device_id)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        self._wait()
        self.inner.send(device_id, command, params)

    def read_many(self, device_ids: Sequence[str]) -> dict[str, Mapping[str, Any] | HubError]:
        self._wait()
        return self.inner.read_many(device_ids)

    def send_many(self, commands: Sequence[Any]) -> list[HubError | None]:
        self._wait()
        return self.inner.send_many(commands)


async def _until(check: Any, seconds: float = 2.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


def test_focus_moves_when_the_turn_is_planned_not_when_the_hub_answers(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home, hub=SlowAsyncHub(demo_home, delay=0.8))
        first = await engine.handle("打开客厅空调", "s")
        # 0.8 s later the hub is still working; the next turn already means that device.
        second = await engine.handle("调到27度", "s")
        assert second.planned == [
            {"device": "ac_living", "command": "set_temperature", "params": {"value": 27}}
        ]
        await asyncio.gather(first.result, second.result)
        await engine.aclose()

    asyncio.run(main())


def _schedule_file(tmp_path: Path, clock: ManualClock, *texts: str) -> Path:
    state = tmp_path / "schedules.json"
    setter = Engine(load_home(demo_home_path()), clock=clock, schedules_path=state)
    for text in texts:
        assert setter.turn(text, "s").outcome == "scheduled"
    return state


def test_kept_schedules_fire_from_the_runtimes_start_without_a_turn(
    demo_home: Home, tmp_path: Path
) -> None:
    clock = ManualClock(NOON)
    state = _schedule_file(tmp_path, clock, "十分钟后把书房灯关了")

    async def main() -> None:
        hub = SimulatedHub(demo_home, {"light_study": {"on": True}})
        async with Engine(demo_home, hub=hub, clock=clock, schedules_path=state):
            await clock.wait_for_sleepers()
            clock.advance(600)
            await _until(lambda: hub.read("light_study")["on"] is False)

    asyncio.run(main())


def test_run_due_keeps_the_one_hour_late_limit_and_tells_the_session(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = Engine(demo_home, clock=clock)
    engine.hub.send("light_study", "turn_on", {})  # type: ignore[union-attr]
    assert engine.turn("十分钟后关书房灯", "s").outcome == "scheduled"
    clock.advance(600 + 2 * 3600)  # due two hours ago
    assert engine.run_due() == []
    assert engine.hub.read("light_study")["on"] is True  # type: ignore[union-attr]
    assert len(engine.schedules) == 0
    told = engine.turn("客厅温度多少", "s")
    assert told.reply.startswith("定时的操作（十分钟后关书房灯）晚了一个多小时，没有执行")


def test_the_runtime_keeps_the_same_late_limit(demo_home: Home, tmp_path: Path) -> None:
    clock = ManualClock(NOON)
    state = _schedule_file(tmp_path, clock, "十分钟后关书房灯")
    clock.advance(600 + 2 * 3600)

    async def main() -> None:
        hub = SimulatedHub(demo_home, {"light_study": {"on": True}})
        engine = Engine(demo_home, hub=hub, clock=clock, schedules_path=state)
        async with engine:
            await _until(lambda: len(engine.schedules) == 0)
            told = await engine.handle("客厅温度多少", "s")
        assert hub.read("light_study")["on"] is True
        assert told.reply.startswith("定时的操作（十分钟后关书房灯）晚了一个多小时")

    asyncio.run(main())


def _without(device_id: str, tmp_path: Path) -> Home:
    data = json.loads(demo_home_path().read_text("utf-8"))
    data["devices"] = [d for d in data["devices"] if d["id"] != device_id]
    for group in data.get("groups", []):
        group["members"] = [m for m in group["members"] if m != device_id]
    for scene in data.get("scenes", []):
        scene["steps"] = [s for s in scene["steps"] if s["device"] != device_id]
    path = tmp_path / "smaller.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return load_home(path)


def test_a_schedule_whose_device_left_is_dropped_and_told_and_the_others_fire(
    tmp_path: Path,
) -> None:
    clock = ManualClock(NOON)
    state = _schedule_file(tmp_path, clock, "十分钟后关书房灯", "十分钟后关客厅灯")
    smaller = _without("light_study", tmp_path)
    hub = SimulatedHub(smaller, {"light_living": {"on": True}})
    engine = Engine(smaller, hub=hub, clock=clock, schedules_path=state)
    clock.advance(600)
    [fired] = engine.run_due()
    assert fired.commands == [{"device": "light_living", "command": "turn_off", "params": {}}]
    assert len(engine.schedules) == 0
    assert json.loads(state.read_text("utf-8"))["schedules"] == []
    told = engine.turn("客厅温度多少", "s")
    assert "十分钟后关书房灯" in told.reply and "不在家里" in told.reply


def test_a_background_scene_has_events_and_its_result_lists_every_step(
    demo_home: Home,
) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = Engine(demo_home, clock=clock)
        events: list[Event] = []
        engine.subscribe("s", events.append)
        handled = await engine.handle("帮我放松一下", "s")
        for _ in range(2):  # two steps wait (3 s, then 5 s)
            await clock.wait_for_sleepers()
            clock.advance(10)
        result = await asyncio.wait_for(handled.result, 2)
        assert [c["device"] for c in result.commands] == [
            "strip_living",
            "light_living",
            "speaker_kitchen",
        ]
        kinds = [e.kind for e in events if not e.kind.startswith("command.")]
        assert kinds == ["scene.started", "scene.finished", "turn.done"]
        await engine.aclose()

    asyncio.run(main())


def test_a_cancelled_scene_says_so_and_its_turn_still_ends(demo_home: Home) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = Engine(demo_home, clock=clock)
        events: list[Event] = []
        engine.subscribe("s", events.append)
        handled = await engine.handle("帮我放松一下", "s")
        await clock.wait_for_sleepers()
        await engine.handle("算了", "s")
        result = await asyncio.wait_for(handled.result, 2)
        assert [c["device"] for c in result.commands] == ["strip_living"]
        assert "scene.cancelled" in [e.kind for e in events]
        await engine.aclose()

    asyncio.run(main())


def test_under_the_sync_api_a_scenes_delayed_steps_wait_for_run_due(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = Engine(demo_home, clock=clock)
    hub: SimulatedHub = engine.hub  # type: ignore[assignment]
    first = engine.turn("帮我放松一下", "s")
    assert [c["device"] for c in first.commands] == ["strip_living"]
    assert len(engine.schedules) == 2
    clock.advance(3)
    assert [r.commands[0]["device"] for r in engine.run_due()] == ["light_living"]
    clock.advance(5)
    assert [r.commands[0]["device"] for r in engine.run_due()] == ["speaker_kitchen"]
    assert [s[0] for s in hub.sent] == ["strip_living", "light_living", "speaker_kitchen"]


def test_a_blocking_hub_cannot_starve_the_runtime(demo_home: Home) -> None:
    async def main() -> None:
        hub = BlockingHub(demo_home, delay=0.05)
        engine = Engine(demo_home, hub=hub, parallel=4, command_timeout=1.0)
        handled = await asyncio.gather(*(engine.handle("哪些灯开着", f"s{i}") for i in range(16)))
        results = await asyncio.gather(*(h.result for h in handled))
        assert all(r.outcome == "answered" for r in results)
        assert all(not r.failures for r in results)
        assert hub.calls == 16  # one batch read per turn, not one per light
        await engine.aclose()

    asyncio.run(main())


def test_per_session_state_leaves_with_the_session(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home)
        engine.sessions.limit = 5
        for i in range(40):
            handled = await engine.handle("打开客厅灯", f"s{i}")
            await handled.result
        gc.collect()
        assert len(engine.sessions) == 5
        assert engine.runtime is not None and len(engine.runtime.locks) <= 5
        await engine.aclose()

    asyncio.run(main())
