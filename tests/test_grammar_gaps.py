"""Two phrasings the grammar learnt: a swing said as a feature switched (把风扇的摇头打开,
关闭空调扫风), and a name with a number in it said with 的 inside (打开插排的插座2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import TABLES
from jiayu.home import Home, load_home, parse_home
from jiayu.result import Result

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
HOMES = Path(__file__).parent.parent / "corpus" / "homes"


def _sent(result: Result) -> list[tuple[str, str]]:
    return [(c["device"], c["command"]) for c in result.commands]


# --- a swing said as a feature switched ------------------------------------------

STEMS = ("摇头", "摆头", "扫风", "摆风")
ON_VERBS = ("打开", "开启")
OFF_VERBS = ("关闭", "关掉", "停掉")
STOP_VERBS = ("停止",)  # a stop word before the feature ends it too (停止空调的扫风)


@st.composite
def _swing(draw: st.DrawFn, home: Home) -> tuple[str, str, bool]:
    """(utterance, device id, switched on?) for a feature word said of one named device."""
    device = draw(st.sampled_from(home.devices))
    feature = draw(st.sampled_from(STEMS)) + draw(st.sampled_from(("", "功能")))
    de = draw(st.sampled_from(("", "的")))
    on = draw(st.booleans())
    verb = draw(st.sampled_from(ON_VERBS if on else OFF_VERBS + STOP_VERBS))
    after = draw(st.sampled_from(ON_VERBS if on else OFF_VERBS))
    text = draw(
        st.sampled_from(
            (
                f"{verb}{device.name}{de}{feature}",
                f"把{device.name}{de}{feature}{after}",
                f"{device.name}{de}{feature}{after}",
            )
        )
    )
    return text, device.id, on


@pytest.fixture(scope="module", params=["demo.json", "z2m_rev3.json"])
def swing_engine(request: pytest.FixtureRequest) -> Engine:
    return Engine(load_home(HOMES / request.param))


@SETTINGS
@given(data=st.data())
def test_a_swing_word_switches_the_swing_never_the_device(
    swing_engine: Engine, data: st.DataObject
) -> None:
    engine = swing_engine.fresh()
    text, device_id, on = data.draw(_swing(engine.home))
    device = next(d for d in engine.home.devices if d.id == device_id)
    result = engine.turn(text)
    sent = _sent(result)
    assert not any(command in ("turn_on", "turn_off") for _, command in sent), (text, sent)
    if "oscillation" in device.capabilities:
        action = "oscillate_on" if on else "oscillate_off"
        assert result.outcome in ("executed", "noop"), (text, result.reply)
        assert set(sent) <= {(device_id, action)}, (text, sent)
    else:
        assert (result.outcome, sent) == ("rejected", []), (text, result.reply)
        assert "不支持" in result.reply, (text, result.reply)


@pytest.mark.parametrize(
    ("text", "state", "expected"),
    [
        ("把客厅风扇摇头打开", False, [("fan_living", "oscillate_on")]),
        ("打开客厅风扇的摇头功能", False, [("fan_living", "oscillate_on")]),
        ("关掉风扇的摇头", True, [("fan_living", "oscillate_off")]),
        ("客厅风扇的摇头停了", True, [("fan_living", "oscillate_off")]),
        ("取消客厅风扇的摇头功能", True, [("fan_living", "oscillate_off")]),
        ("打开客厅风扇", False, [("fan_living", "turn_on")]),
    ],
)
def test_the_feature_switched_on_the_demo_fan(
    engine: Engine, text: str, state: bool, expected: list[tuple[str, str]]
) -> None:
    fan = {"on": True, "fan_speed": "medium", "oscillating": state, "preset": "自然风"}
    engine = engine.fresh(hub=SimulatedHub(engine.home, {"fan_living": fan}))
    result = engine.turn(text)
    assert (result.outcome, _sent(result)) == ("executed", expected), result.reply


@pytest.mark.parametrize("text", ["关掉卧室风扇的摇头功能", "把卧室风扇的摇头打开", "书房空调扫风"])
def test_a_swing_asked_of_a_device_that_cannot_swing_is_refused(engine: Engine, text: str) -> None:
    # 关掉卧室风扇的摇头功能 turned the bedroom fan off before (功能 was left over).
    result = engine.turn(text)
    assert (result.outcome, _sent(result)) == ("rejected", []), result.reply
    assert "不支持" in result.reply


# --- a name with a number in it, said with 的 inside ---------------------------------

PREFIXES = ("插排", "书桌", "电脑桌", "床头", "排插", "阳台")
OUTLETS = ("插座", "插孔", "口")
CHINESE = {1: "一", 2: "二", 3: "三"}


def _numbered_home(prefix: str, outlet: str) -> Home:
    def device(id_: str, name: str, type_: str, caps: list[str]) -> dict[str, Any]:
        state: dict[str, Any] = {"on": False}
        if "brightness" in caps:
            state["brightness"] = 50
        return {"id": id_, "name": name, "room": "study", "type": type_, "capabilities": caps,
                "state": state}  # fmt: skip

    devices = [device("strip", prefix, "SmartPlug", ["onoff"])]
    devices += [device(f"out{n}", f"{prefix}{outlet}{n}", "SmartPlug", ["onoff"]) for n in CHINESE]
    devices += [
        device("lamp", f"{prefix}灯", "Light", ["onoff", "brightness"]),
        device("lamp2", f"{prefix}灯2", "Light", ["onoff", "brightness"]),
        device("lamp305", "305房间台灯", "Light", ["onoff", "brightness"]),
        device("no2", "2号灯", "Light", ["onoff", "brightness"]),
    ]
    doc = {"version": 1, "name": "数字", "rooms": [{"id": "study", "name": "书房"}],
           "devices": devices}  # fmt: skip
    return parse_home(doc, "numbered")


@SETTINGS
@given(
    prefix=st.sampled_from(PREFIXES),
    outlet=st.sampled_from(OUTLETS),
    n=st.sampled_from(sorted(CHINESE)),
    chinese=st.booleans(),
    on=st.booleans(),
    ba=st.booleans(),
)
def test_a_numbered_name_said_with_de_is_that_device(
    prefix: str, outlet: str, n: int, chinese: bool, on: bool, ba: bool
) -> None:
    home = _numbered_home(prefix, outlet)
    engine = Engine(home, hub=SimulatedHub(home, {f"out{n}": {"on": not on}}))
    said = f"{prefix}的{outlet}{CHINESE[n] if chinese else n}"
    text = f"把{said}{'打开' if on else '关掉'}" if ba else f"{'打开' if on else '关掉'}{said}"
    result = engine.turn(text)
    expected = [(f"out{n}", "turn_on" if on else "turn_off")]
    assert (result.outcome, _sent(result)) == ("executed", expected), (text, result.reply)


@SETTINGS
@given(prefix=st.sampled_from(PREFIXES), value=st.integers(1, 100), attr=st.booleans())
def test_a_value_after_a_name_stays_a_value(prefix: str, value: int, attr: bool) -> None:
    # 的 and a number after a name are joined only when nothing comes between that sets.
    engine = Engine(_numbered_home(prefix, "插座"))
    said = "亮度" if attr else ""
    for text, device in (
        (f"把{prefix}的灯{said}调到{value}", "lamp"),
        (f"把{prefix}的灯2{said}调到{value}", "lamp2"),
        (f"{prefix}灯{said}调到{value}", "lamp"),
    ):
        result = engine.fresh().turn(text)
        assert result.outcome == "executed", (text, result.reply)
        assert result.commands == [
            {"device": device, "command": "set_brightness", "params": {"value": value}}
        ], text


def test_every_de_word_has_a_character_the_lexer_looks_for() -> None:
    # Lexicon.lex looks for a name split by 的 only in a text with 的, 里 or 嘅.
    assert all(any(mark in word for mark in "的里嘅") for word in TABLES["DE"])


@pytest.mark.parametrize(
    ("text", "device"),
    [("打开305房间的台灯", "lamp305"), ("打开2号灯", "no2"), ("打开书房的2号灯", "no2")],
)
def test_other_names_with_digits(text: str, device: str) -> None:
    result = Engine(_numbered_home("插排", "插座")).turn(text)
    assert _sent(result) == [(device, "turn_on")], result.reply
