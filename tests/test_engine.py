"""The engine across stages: sessions, risk gate, faults, conditions, audit, concurrency."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from jiayu import drivers
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub


def _sent(result: object) -> list[tuple[str, str]]:
    return [(c["device"], c["command"]) for c in result.commands]  # type: ignore[attr-defined]


def test_unlock_waits_for_confirmation_then_is_sent(engine: Engine) -> None:
    held = engine.turn("打开门锁")
    assert held.outcome == "confirm"
    assert _sent(held) == []
    assert [(c["device"], c["command"]) for c in held.pending] == [("lock_front", "unlock")]
    assert engine.hub.read("lock_front")["locked"] is True
    done = engine.turn("确认")
    assert done.outcome == "executed"
    assert engine.hub.read("lock_front")["locked"] is False


def test_anything_but_a_confirmation_drops_the_held_command(engine: Engine) -> None:
    engine.turn("打开燃气阀")
    other = engine.turn("打开客厅灯")
    assert _sent(other) == [("light_living", "turn_on")]
    late = engine.turn("确认")
    assert late.commands == []
    assert engine.hub.read("valve_gas")["open"] is False


def test_cancel_drops_a_held_command(engine: Engine) -> None:
    engine.turn("打开燃气阀")
    assert engine.turn("算了").outcome == "noop"
    assert engine.turn("确认").commands == []


def test_a_clarify_is_answered_by_the_distinguishing_words(engine: Engine) -> None:
    asked = engine.turn("把台灯打开")
    assert asked.outcome == "clarify"
    assert set(asked.options) == {"lamp_study", "lamp_bedroom"}
    assert asked.reply == "书房还是卧室的台灯？"
    assert _sent(engine.turn("卧室的")) == [("lamp_bedroom", "turn_on")]


def test_an_ordinal_answers_a_clarify_in_the_order_offered(engine: Engine) -> None:
    asked = engine.turn("打开台灯")
    result = engine.turn("第二个")
    assert _sent(result) == [(asked.options[1], "turn_on")]


def test_a_reference_binds_to_the_most_recent_capable_device(engine: Engine) -> None:
    engine.turn("打开书房空调")
    engine.turn("打开客厅灯")
    # 它 + a temperature: the light cannot, so the air conditioner is meant.
    result = engine.turn("把它调到24度")
    assert result.commands == [
        {"device": "ac_study", "command": "set_temperature", "params": {"value": 24}}
    ]


def test_an_ambiguous_mention_means_the_one_acted_on_recently(engine: Engine) -> None:
    engine.turn("打开书房空调")
    result = engine.turn("把空调温度调低两度")
    assert result.commands == [
        {"device": "ac_study", "command": "set_temperature", "params": {"value": 23}}
    ]


def test_this_room_binds_to_the_most_recent_room(engine: Engine) -> None:
    engine.turn("打开书房空调")
    result = engine.turn("这个房间的灯也打开")
    assert {d for d, _ in _sent(result)} == {"light_study", "lamp_study"}


def test_repeat_sends_the_last_commands_again(engine: Engine) -> None:
    engine.turn("关掉客厅灯")
    engine.turn("打开客厅灯")
    result = engine.turn("再来一次")
    assert _sent(result) == [("light_living", "turn_on")]


def test_sessions_never_see_each_others_references(engine: Engine) -> None:
    engine.turn("打开书房空调", session_id="a")
    result = engine.turn("把它关掉", session_id="b")
    assert result.outcome == "clarify"
    assert result.commands == []


def test_many_sessions_on_many_threads_keep_their_own_state(engine: Engine) -> None:
    rooms = ["书房", "主卧", "卧室", "儿童房"]
    errors: list[str] = []

    def talk(i: int) -> None:
        room = rooms[i % len(rooms)]
        sid = f"s{i}"
        for _ in range(20):
            engine.turn(f"打开{room}空调", session_id=sid)
            result = engine.turn("把它调到25度", session_id=sid)
            device = engine.home.device(result.commands[0]["device"])
            if engine.home.room(device.room).name != room:
                errors.append(f"{sid} got {device.id}")

    threads = [threading.Thread(target=talk, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_relative_change_reads_live_state_and_clamps_to_the_limit(engine: Engine) -> None:
    engine.turn("主卧空调调到28度")
    result = engine.turn("主卧空调调高一点")
    assert result.commands == [
        {"device": "ac_master", "command": "set_temperature", "params": {"value": 28}}
    ]


def test_an_absolute_value_out_of_range_is_rejected_with_the_range(engine: Engine) -> None:
    result = engine.turn("书房空调调到35度")
    assert result.outcome == "rejected"
    assert result.commands == []
    assert "16到30" in result.reply


def test_a_capability_the_device_lacks_is_rejected_naming_it(engine: Engine) -> None:
    result = engine.turn("把老伙计调亮一点")
    assert result.outcome == "rejected"
    assert "老伙计" in result.reply


def test_a_false_condition_is_noop_and_says_what_was_read(engine: Engine) -> None:
    result = engine.turn("如果客厅温度超过30度就打开空调")
    assert result.outcome == "noop"
    assert result.commands == []
    assert "27.5" in result.reply


def test_a_condition_with_no_sensor_is_rejected(engine: Engine) -> None:
    result = engine.turn("如果厨房温度超过26度就打开厨房灯")
    assert result.outcome == "rejected"
    assert result.commands == []


def test_an_offline_device_is_reported_while_the_others_run(demo_engine: Engine) -> None:
    hub = SimulatedHub(demo_engine.home)
    hub.fail("tv_living", "offline")
    engine = demo_engine.fresh(hub=hub)
    result = engine.turn("打开客厅灯，然后打开客厅电视")
    assert _sent(result) == [("light_living", "turn_on")]
    assert result.failures == [{"device": "tv_living", "command": "turn_on", "reason": "offline"}]
    assert "已打开客厅灯" in result.reply
    assert "客厅电视没有执行" in result.reply
    assert "已打开客厅电视" not in result.reply


def test_a_timeout_on_the_only_command_is_rejected_not_claimed(demo_engine: Engine) -> None:
    hub = SimulatedHub(demo_engine.home)
    hub.fail("light_living", "timeout")
    result = demo_engine.fresh(hub=hub).turn("打开客厅灯")
    assert result.outcome == "rejected"
    assert "已打开" not in result.reply


def test_multi_clause_outcome_is_the_most_blocking(engine: Engine) -> None:
    result = engine.turn("打开客厅灯然后打开门锁")
    assert result.outcome == "confirm"
    assert _sent(result) == [("light_living", "turn_on")]  # sent: only what was sent
    assert [(c["device"], c["command"]) for c in result.pending] == [("lock_front", "unlock")]


def test_every_sent_command_is_audited_as_one_json_line(
    demo_engine: Engine, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    engine = Engine(demo_engine.home, audit_path=audit)
    engine.turn("打开客厅灯和卧室灯", session_id="s1")
    lines = [json.loads(line) for line in audit.read_text("utf-8").splitlines()]
    # Write-ahead: an intent line before each send, then its result. The two lights go out
    # in one hub call (the simulated hub has send_many), so both intents come first.
    assert [(r["device"], r["command"], r["result"]) for r in lines] == [
        ("light_living", "turn_on", "sending"),
        ("light_bedroom", "turn_on", "sending"),
        ("light_living", "turn_on", "ok"),
        ("light_bedroom", "turn_on", "ok"),
    ]
    assert {r["session"] for r in lines} == {"s1"}
    assert all(r["text"] == "打开客厅灯和卧室灯" and "time" in r for r in lines)


def test_queries_answer_from_a_fresh_read(engine: Engine) -> None:
    engine.hub.send("sensor_living", "set_brightness", {}) if False else None
    result = engine.turn("客厅湿度是多少")
    assert result.outcome == "answered"
    assert result.answers == [{"device": "sensor_living", "attribute": "humidity", "value": 55}]


def test_a_scene_expands_into_its_steps(engine: Engine) -> None:
    result = engine.turn("晚安")
    assert result.outcome == "executed"
    assert ("lock_front", "lock") in _sent(result)
    assert len(result.commands) == len(engine.home.scene("scene_sleep").steps)


def test_a_yes_word_starting_a_new_command_does_not_confirm(engine: Engine) -> None:
    engine.turn("打开门锁")
    result = engine.turn("好的，打开客厅灯")
    assert _sent(result) == [("light_living", "turn_on")]
    assert engine.hub.read("lock_front")["locked"] is True


def test_an_ordinal_answers_nothing_when_nothing_was_offered(engine: Engine) -> None:
    asked = engine.turn("把它调到50")
    assert asked.outcome == "clarify" and asked.options == []
    assert engine.turn("第一个").commands == []


def test_a_missing_target_is_answered_by_naming_it(engine: Engine) -> None:
    engine.turn("调到26度")
    result = engine.turn("书房空调")
    assert result.commands == [
        {"device": "ac_study", "command": "set_temperature", "params": {"value": 26}}
    ]


def test_a_clause_after_a_failed_one_does_not_guess_from_older_turns(engine: Engine) -> None:
    engine.turn("打开客厅电视")
    result = engine.turn("打开前门灯，调到30")
    assert result.commands == []


def test_one_question_is_asked_per_turn(engine: Engine) -> None:
    asked = engine.turn("打开台灯和电视")
    assert set(asked.options) == {"lamp_study", "lamp_bedroom"}
    assert _sent(engine.turn("第一个")) == [("lamp_study", "turn_on")]


def test_a_target_found_only_fuzzily_is_asked_back_before_acting(engine: Engine) -> None:
    asked = engine.turn("打开老伙")
    assert asked.outcome == "clarify" and asked.options == ["lamp_living_old"]
    assert asked.reply == "没太听清，你是要打开老伙计吗？"
    assert _sent(engine.turn("对")) == [("lamp_living_old", "turn_on")]


def test_the_same_command_is_sent_once_per_turn(engine: Engine) -> None:
    assert _sent(engine.turn("打开客厅灯和客厅灯")) == [("light_living", "turn_on")]


def test_a_number_too_long_to_mean_anything_is_not_a_number(engine: Engine) -> None:
    result = engine.turn("客厅灯调到" + "1" * 400)
    assert result.commands == []
    assert result.outcome in ("unknown", "rejected", "clarify")


def test_home_names_never_shadow_grammar_words(demo_engine: Engine) -> None:
    import dataclasses

    from jiayu.home import Scene

    home = demo_engine.home
    scenes = tuple(
        dataclasses.replace(s, aliases=("确认",)) if s.id == "scene_home" else s
        for s in home.scenes
    )
    engine = Engine(dataclasses.replace(home, scenes=scenes))
    assert isinstance(engine.home.scenes[0], Scene)
    engine.turn("打开门锁")
    assert _sent(engine.turn("确认")) == [("lock_front", "unlock")]


def test_sessions_beyond_the_cap_forget_the_least_recently_used(engine: Engine) -> None:
    engine.sessions.limit = 2
    engine.turn("打开书房空调", session_id="a")
    engine.turn("打开客厅灯", session_id="b")
    engine.turn("打开卧室灯", session_id="c")
    assert engine.turn("把它关掉", session_id="a").outcome == "clarify"


def test_a_partial_opening_is_asked_about_as_an_opening(engine: Engine) -> None:
    asked = engine.turn("车库门开到一半")
    assert asked.outcome == "confirm" and "确定要打开车库门吗" in asked.reply
    assert "set_position" not in asked.reply


def test_the_demo_engine_runs_on_the_bundled_home() -> None:
    engine = Engine.demo()
    assert engine.home.name == "示范之家"
    assert engine.turn("打开客厅灯").commands == [
        {"device": "light_living", "command": "turn_on", "params": {}}
    ]


def test_a_warm_engine_freezes_what_its_turns_built(
    demo_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen: list[int] = []
    monkeypatch.setattr(drivers.gc, "freeze", lambda: frozen.append(1))
    monkeypatch.setattr(drivers, "warm_in_background", lambda lexicon, names: None)
    engine = demo_engine.fresh()
    engine._warming = drivers.Warming()
    for _ in range(drivers.WARM_TURNS - 1):
        engine.warm()
    assert frozen == []
    engine.warm()
    assert frozen == [1]
    for _ in range(drivers.WARM_TURNS - 1):
        engine.warm()
    assert frozen == [1]
    engine.warm()
    assert frozen == [1, 1]  # again at twice as many turns
