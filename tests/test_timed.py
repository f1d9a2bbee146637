"""Delayed commands, long scenes and user preferences through the engine, on real asyncio
with the injectable clock (and one real sub-second timer)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock, SystemClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, parse_home

NOON = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_a_delayed_command_is_resolved_now_and_sent_when_due(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = Engine(demo_home, clock=clock)
    result = engine.turn("半小时后关书房空调")
    assert result.outcome == "scheduled"
    assert result.commands == []
    [entry] = result.scheduled
    assert entry["at"] == "2026-11-23T12:30:00+00:00"
    assert entry["commands"] == [{"device": "ac_study", "command": "turn_off", "params": {}}]
    assert engine.run_due() == []  # not yet
    clock.advance(1800)
    [fired] = engine.run_due()
    assert fired.commands == [{"device": "ac_study", "command": "turn_off", "params": {}}]
    assert "定时" in engine.turn("客厅温度多少").reply  # told in the next reply


def test_an_ambiguous_delayed_command_asks_now(demo_home: Home) -> None:
    engine = Engine(demo_home, clock=ManualClock(NOON))
    assert engine.turn("半小时后关空调").outcome == "clarify"
    assert engine.turn("书房的").outcome == "scheduled"


def test_a_risky_delayed_command_is_confirmed_now(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = Engine(demo_home, clock=clock)
    asked = engine.turn("十分钟后打开门锁")
    assert asked.outcome == "confirm"
    assert engine.turn("确认").outcome == "scheduled"
    clock.advance(600)
    [fired] = engine.run_due()
    assert fired.commands == [{"device": "lock_front", "command": "unlock", "params": {}}]


def test_schedules_are_cancelled_and_asked_about(demo_home: Home) -> None:
    engine = Engine(demo_home, clock=ManualClock(NOON))
    engine.turn("半小时后关书房空调")
    engine.turn("晚上十点关客厅灯")
    assert "半小时后" in engine.turn("还有多久关空调").reply
    assert engine.turn("取消关空调的定时").outcome == "executed"
    assert engine.turn("还有多久关空调").reply == "现在没有这样的定时。"
    assert len(engine.schedules) == 1
    engine.turn("取消定时")
    assert len(engine.schedules) == 0


def test_schedules_survive_a_restart(demo_home: Home, tmp_path: Path) -> None:
    state = tmp_path / "schedules.json"
    clock = ManualClock(NOON)
    Engine(demo_home, clock=clock, schedules_path=state).turn("晚上十点关客厅灯")
    assert json.loads(state.read_text("utf-8"))["schedules"]
    hub = SimulatedHub(demo_home, {"light_living": {"on": True}})
    again = Engine(demo_home, hub=hub, clock=clock, schedules_path=state)
    clock.advance(10 * 3600)
    [fired] = again.run_due()
    assert fired.commands == [{"device": "light_living", "command": "turn_off", "params": {}}]
    assert hub.read("light_living")["on"] is False


def test_a_schedule_fires_by_itself_under_the_asyncio_runtime(demo_home: Home) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = Engine(demo_home, clock=clock)
        handled = await engine.handle("十分钟后把书房灯关了", "s")
        assert handled.outcome == "scheduled"
        hub = engine.hub
        hub.send("light_study", "turn_on", {})  # type: ignore[union-attr]
        await clock.wait_for_sleepers()
        clock.advance(600)
        for _ in range(200):
            if not hub.read("light_study")["on"]:  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.01)
        assert hub.read("light_study")["on"] is False  # type: ignore[union-attr]

    asyncio.run(main())


def test_one_real_sub_second_timer(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home, clock=SystemClock(UTC))
        hub = engine.hub
        hub.send("light_study", "turn_on", {})  # type: ignore[union-attr]
        handled = await engine.handle("半秒后关书房灯")
        assert handled.outcome == "scheduled"
        await asyncio.sleep(0.2)
        assert hub.read("light_study")["on"] is True  # type: ignore[union-attr]
        await asyncio.sleep(1.0)
        assert hub.read("light_study")["on"] is False  # type: ignore[union-attr]

    asyncio.run(main())


def test_a_long_scene_runs_in_the_background_and_cancel_stops_it(demo_home: Home) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = Engine(demo_home, clock=clock)
        hub: SimulatedHub = engine.hub  # type: ignore[assignment]
        handled = await engine.handle("帮我放松一下", "s")
        assert "放松模式" in handled.reply
        for _ in range(100):
            if hub.sent:
                break
            await asyncio.sleep(0.01)
        assert [s[:2] for s in hub.sent] == [("strip_living", "set_brightness")]
        stopped = await engine.handle("算了", "s")
        assert "停下" in stopped.reply
        clock.advance(60)
        await asyncio.sleep(0.05)
        assert [s[:2] for s in hub.sent] == [("strip_living", "set_brightness")]

    asyncio.run(main())


def test_a_long_scene_finishes_and_is_told_next_time(demo_home: Home) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = Engine(demo_home, clock=clock)
        hub: SimulatedHub = engine.hub  # type: ignore[assignment]
        await engine.handle("帮我放松一下", "s")
        for _ in range(2):  # two steps wait (3 s, then 5 s)
            await clock.wait_for_sleepers()
            clock.advance(10)
            await asyncio.sleep(0.05)
        assert [s[:2] for s in hub.sent] == [
            ("strip_living", "set_brightness"),
            ("light_living", "turn_off"),
            ("speaker_kitchen", "play"),
        ]
        later = await engine.handle("客厅温度多少", "s")
        assert later.reply.startswith("放松模式已经执行完了")

    asyncio.run(main())


def test_a_preference_is_remembered_used_and_asked_for(demo_home: Home, tmp_path: Path) -> None:
    state = tmp_path / "preferences.json"
    engine = Engine(demo_home, preferences_path=state)
    assert engine.turn("记住我喜欢26度", user="小明").outcome == "executed"
    used = engine.turn("把客厅空调调到我喜欢的温度", user="小明")
    assert used.commands == [
        {"device": "ac_living", "command": "set_temperature", "params": {"value": 26}}
    ]
    asked = engine.turn("把主卧灯调到我喜欢的亮度", user="小红")
    assert asked.outcome == "clarify" and asked.commands == []
    answered = engine.turn("60", user="小红")
    assert answered.commands == [
        {"device": "light_master", "command": "set_brightness", "params": {"value": 60}}
    ]
    stored = json.loads(state.read_text("utf-8"))["users"]
    assert stored == {"小明": {"target_temperature": 26}, "小红": {"brightness": 60}}


def test_named_colours_use_each_lights_own_limits(demo_home: Home) -> None:
    engine = Engine(demo_home)
    warm = engine.turn("把客厅灯调成暖光")
    assert warm.commands == [
        {"device": "light_living", "command": "set_color_temp", "params": {"value": 2700}}
    ]
    natural = engine.turn("客厅灯调成自然光")
    assert natural.commands[0]["params"] == {"value": 4000}


def test_two_steps_of_a_scene_on_one_device_keep_their_own_delays(demo_home: Home) -> None:
    # Two steps may send one device one command: each keeps its own time from the scene's
    # start (now, then +10 min), never the other's (+10 and +20 min).
    doc = json.loads(Path(demo_home.source).read_text("utf-8"))
    relax = next(s for s in doc["scenes"] if s["name"] == "放松模式")
    relax["steps"] = [
        {"device": "strip_living", "command": "set_brightness", "params": {"value": 80}},
        {
            "device": "strip_living",
            "command": "set_brightness",
            "params": {"value": 20},
            "delay_s": 600,
        },
    ]
    home = parse_home(doc, "home.json")
    engine = Engine(home, clock=ManualClock(NOON))
    result = engine.turn("放松模式")
    assert result.commands == [
        {"device": "strip_living", "command": "set_brightness", "params": {"value": 80}}
    ]
    [step] = result.scheduled
    assert step["at"] == "2026-11-23T12:10:00+00:00"
    assert step["commands"][0]["params"] == {"value": 20}
