"""Cantonese relative words (快啲, 凍啲, 光啲, 大聲啲 …), hurry (快啲開燈), and stopping what a
washer or dryer is doing (停止洗衣服, 别洗了) as properties (issue 21 and 20 leftovers).

1. A relative word acts only through its own attribute, on a device that has it: 快啲 is only
   ever a fan speed, 光啲 only brightness; a device without the attribute gets nothing.
2. 快啲/快点 before a command urges it: the command sends exactly what it sends alone.
3. 快啲/慢啲 said of what another domain does (快啲講, 慢啲食) never becomes a command.
4. Stopping or pausing an activity reaches only the appliance that does it, and washing
   something else (洗澡, 洗碗) reaches none.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import COMPOUNDS, TABLES
from jiayu.result import Result

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Each relative word, with the one command it may send and the capability it needs.
PACES = sorted(w for w in TABLES["PACE"] if w[0] in "快慢")
RELATIVE = {
    **dict.fromkeys(PACES, ("set_fan_speed", "fan_speed")),
    "光啲": ("set_brightness", "brightness"),
    "光少少": ("set_brightness", "brightness"),
    "暗啲": ("set_brightness", "brightness"),
    "大声啲": ("set_volume", "volume"),
    "细声啲": ("set_volume", "volume"),
    "较细声啲": ("set_volume", "volume"),
    "冻啲": ("set_temperature", "target_temperature"),
    "开冻啲": ("set_temperature", "target_temperature"),
}


def _sent(result: Result) -> list[tuple[str, str]]:
    return [(c["device"], c["command"]) for c in result.commands]


@SETTINGS
@given(data=st.data(), word=st.sampled_from(sorted(RELATIVE)), again=st.sampled_from(["", "再"]))
def test_a_relative_word_acts_only_through_its_own_attribute(
    engine: Engine, data: st.DataObject, word: str, again: str
) -> None:
    device = data.draw(st.sampled_from(engine.home.devices), label="device")
    text = f"{device.name}{again}{word}"
    result = engine.turn(text, session_id=f"rel-{text}")
    command, capability = RELATIVE[word]
    if capability not in device.capabilities:
        assert result.commands == [], text
        assert result.outcome != "executed", text
    else:
        assert set(_sent(result)) <= {(device.id, command), (device.id, "turn_on")}, text


# Commands said alone that act at once in the demo home, each with a verb first.
COMMANDS = [
    "开客厅灯",
    "閂書房燈",
    "把卧室窗帘拉上",
    "关掉客厅空调",
    "打开儿童房插座",
    "客厅灯调到50%",
]
HURRY = sorted(w for w, (_, d, _w) in TABLES["PACE"].items() if w[0] == "快" and d > 0)


@SETTINGS
@given(hurry=st.sampled_from(HURRY), command=st.sampled_from(COMMANDS))
def test_hurry_before_a_command_sends_what_the_command_sends(
    engine: Engine, hurry: str, command: str
) -> None:
    alone = engine.fresh().turn(command, session_id="alone")
    urged = engine.fresh().turn(hurry + command, session_id="urged")
    assert alone.outcome == "executed"
    assert (urged.outcome, urged.commands) == (alone.outcome, alone.commands), hurry + command


@SETTINGS
@given(
    pace=st.sampled_from(PACES),
    doing=st.sampled_from(["讲", "講", "食", "吃", "行", "走", "写", "做", "瞓", "跑", "读书"]),
    before=st.booleans(),
)
def test_pace_of_another_domains_doing_is_no_command(
    engine: Engine, pace: str, doing: str, before: bool
) -> None:
    text = pace + doing if before else doing + pace
    result = engine.turn(text, session_id=f"other-{text}")
    assert result.commands == [], text
    assert result.outcome in ("unknown", "clarify"), (text, result.outcome)


def test_slow_or_a_verb_before_a_command_is_not_hurry(engine: Engine) -> None:
    for text in ("慢啲开灯", "慢点关灯", "调快啲开灯"):
        result = engine.turn(text, session_id=text)
        assert (result.outcome, result.commands) == ("unknown", []), text


# The stop and pause words said of an activity, and which appliance does it.
STOPPED = {
    word: parts[1][2]
    for word, parts in COMPOUNDS.items()
    if parts[0][0] == "MEDIA" and parts[0][2] in ("stop", "pause")
}


@SETTINGS
@given(word=st.sampled_from(sorted(STOPPED)))
def test_stopping_an_activity_reaches_only_its_appliance(engine: Engine, word: str) -> None:
    kind = STOPPED[word]
    home = engine.home
    running = {d.id: {"on": True, "status": "running"} for d in home.devices if d.type == kind}
    result = engine.fresh(hub=SimulatedHub(home, running)).turn(word, session_id=word)
    assert result.outcome == "executed", word
    devices = {c["device"] for c in result.commands}
    assert devices and devices <= set(running), word
    pause = COMPOUNDS[word][0][2] == "pause"
    assert {c["command"] for c in result.commands} == {"pause_cycle" if pause else "stop_cycle"}


@SETTINGS
@given(
    stop=st.sampled_from(["别{}了", "不要{}了", "停止{}", "暂停{}", "唔好{}喇"]),
    washing=st.sampled_from(["洗澡", "洗碗", "洗头", "洗车", "洗菜", "烘焙", "烘蛋糕"]),
)
def test_washing_something_else_stops_nothing(engine: Engine, stop: str, washing: str) -> None:
    text = stop.format(washing)
    result = engine.turn(text, session_id=f"else-{text}")
    assert result.commands == [], text
