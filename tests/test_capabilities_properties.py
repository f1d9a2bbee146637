"""Properties of the capabilities of revision 3 and of the risk gate (issues 19 and 20).

1. A command never reaches a device without the capability it needs, nor with params its
   schema refuses, over generated utterances about every new capability.
2. Family 1 of issue 19: no Lock-, Valve- or GarageDoor-acting device is ever sent an opening
   command (turn_on, open, unlock, open_valve, set_position or set_tilt above 0) in a turn
   without 确认 — over generated utterances (with conditions, delays and several clauses),
   over LLM answers in the compact form, over scenes, and over the schedules those turns keep,
   fired later.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.catalog import params_error, supports
from jiayu.compiler.llm import OpenAICompatClient
from jiayu.engine import Engine
from jiayu.home import Home, parse_home

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# --- 1. capabilities --------------------------------------------------------------------

# Every device of the demo home that is a target of a new capability, and some that cannot.
_TARGETS = [
    "客厅灯带",
    "书房台灯",
    "厨房灯",
    "灯",
    "客厅风扇",
    "卧室风扇",
    "风扇",
    "大白",
    "加湿器",
    "主卧除湿机",
    "除湿机",
    "扫地机器人",
    "洗衣机",
    "烘干机",
    "书房窗帘",
    "客厅窗帘",
    "百叶窗",
    "热水器",
    "客厅音箱",
    "客厅电视",
    "它",
    "所有的灯",
    "客厅的设备",
    "",
]
_ACTIONS = [
    "调成红色",
    "调成蓝光",
    "调成暖白色",
    "颜色调成绿色",
    "摇头",
    "别摇了",
    "调成睡眠风",
    "开自然风",
    "调成婴儿模式",
    "湿度调到50%",
    "湿度调高一点",
    "调到55%",
    "角度调到30%",
    "百叶调到一半",
    "开始扫地",
    "暂停扫地",
    "回去充电",
    "开始洗衣服",
    "开始烘干",
    "暂停",
    "停止",
    "开始工作",
    "调暗一点",
    "调亮一点",
    "打开",
    "关掉",
    "取消静音",
]


@pytest.fixture(scope="module")
def demo(demo_home: Home) -> Engine:
    return Engine(demo_home)


def _sent(result: Any) -> list[dict[str, Any]]:
    return list(result.commands)


@SETTINGS
@given(
    parts=st.lists(
        st.tuples(st.sampled_from(_TARGETS), st.sampled_from(_ACTIONS)), min_size=1, max_size=3
    ),
    history=st.sampled_from(["", "打开客厅风扇", "扫地机器人开始扫地", "打开客厅灯带"]),
)
def test_no_command_reaches_a_device_without_its_capability(
    demo: Engine, parts: list[tuple[str, str]], history: str
) -> None:
    engine = demo.fresh()
    home = engine.home
    text = "，".join(f"{target}{action}" for target, action in parts)
    for said in (history, text) if history else (text,):
        result = engine.turn(said, "s")
        for command in _sent(result):
            device = home.device(command["device"])
            assert supports(device, command["command"]), (said, command)
            assert params_error(device, command["command"], command["params"]) is None, (
                said,
                command,
            )


# --- 2. the risk gate -------------------------------------------------------------------

_GUARDED_HOME = {
    "version": 1,
    "name": "门禁之家",
    "rooms": [
        {"id": "garage", "name": "车库"},
        {"id": "yard", "name": "院子"},
        {"id": "living", "name": "客厅"},
    ],
    "scenes": [
        {
            "id": "scene_air",
            "name": "通风模式",
            "steps": [
                {"device": "garage_door", "command": "set_position", "params": {"value": 30}},
                {"device": "light", "command": "turn_on", "params": {}},
            ],
        },
        {
            "id": "scene_tilt",
            "name": "透气",
            "steps": [
                {"device": "garage_door", "command": "set_tilt", "params": {"value": 20}},
                {"device": "relay", "command": "turn_on", "params": {}, "delay_s": 5},
            ],
        },
    ],
    "devices": [
        {
            "id": "garage_door",
            "name": "车库门",
            "aliases": ["卷帘门"],
            "room": "garage",
            "type": "GarageDoor",
            "capabilities": ["cover", "tilt"],
            "state": {"position": 0, "tilt": 0},
        },
        {
            "id": "gate",
            "name": "院门",
            "aliases": ["电动门"],
            "room": "yard",
            "type": "Blind",
            "acts_as": ["GarageDoor"],
            "capabilities": ["cover"],
            "state": {"position": 0},
        },
        {
            "id": "door",
            "name": "入户门",
            "room": "living",
            "type": "Lock",
            "capabilities": ["lock", "cover"],
            "state": {"locked": True, "position": 0},
        },
        {
            "id": "valve",
            "name": "水阀",
            "aliases": ["总阀"],
            "room": "yard",
            "type": "Valve",
            "capabilities": ["cover"],
            "state": {"position": 0},
        },
        {
            "id": "relay",
            "name": "门禁",
            "room": "yard",
            "type": "Switch",
            "acts_as": ["Lock"],
            "capabilities": ["onoff"],
            "state": {"on": False},
        },
        {
            "id": "gas",
            "name": "燃气阀",
            "room": "living",
            "type": "Valve",
            "capabilities": ["valve", "onoff"],
            "state": {"open": False, "on": False},
        },
        {
            "id": "light",
            "name": "客厅灯",
            "room": "living",
            "type": "Light",
            "capabilities": ["onoff", "brightness"],
            "state": {"on": False, "brightness": 50},
        },
        {
            "id": "sensor",
            "name": "温度计",
            "room": "living",
            "type": "Sensor",
            "capabilities": ["temperature_sensor"],
            "state": {"temperature": 28},
        },
    ],
}
_GUARDED_WORDS = [
    "车库门",
    "卷帘门",
    "院门",
    "电动门",
    "入户门",
    "水阀",
    "总阀",
    "门禁",
    "燃气阀",
    "车库的门",
    "院子的门",
    "所有的门",
    "门",
    "它",
    "全部设备",
]
_OPENING_TAILS = [
    "打开",
    "开一点",
    "开到一半",
    "开到最大",
    "开到50%",
    "开到百分之三十",
    "位置调到20",
    "调到最大",
    "开一半",
    "打开一半",
    "拉开",
    "升起来",
    "调高一点",
    "再开一点",
    "角度调到30%",
    "百叶调到最大",
    "调到1",
    "开合度调到60",
    "解锁",
    "打开来",
    "开满",
    "关一点",
]
_HEADS = ["打开", "解锁", "开启", "把"]
_PREFIXES = ["", "帮我", "请", "半小时后", "如果温度超过20度就", "明天早上七点", "先"]
_SUFFIXES = ["", "吧", "一下", "，谢谢", "，然后打开客厅灯"]


# Written out apart from the gate's own set, so a gate that forgets one is caught.
GUARDED_TYPES = frozenset({"Lock", "Valve", "GarageDoor"})


def _opening(home: Home, command: dict[str, Any]) -> bool:
    """Whether a sent command opens a guarded device, wholly or partly: the contract's words,
    written out here apart from the gate itself."""
    device = home.device(command["device"])
    if device.type not in GUARDED_TYPES and GUARDED_TYPES.isdisjoint(device.acts_as):
        return command["command"] in ("unlock", "open_valve")
    name = command["command"]
    if name in ("turn_on", "open", "unlock", "open_valve"):
        return True
    value = command["params"].get("value")
    return name in ("set_position", "set_tilt") and not (
        isinstance(value, int | float) and value <= 0
    )


@pytest.fixture(scope="module")
def guarded() -> Engine:
    return Engine(parse_home(_GUARDED_HOME, "guarded.json"))


def _no_opening_without_confirmation(engine: Engine, turns: Sequence[str]) -> None:
    home = engine.home
    for said in turns:
        result = engine.turn(said, "s")
        opened = [c for c in _sent(result) if _opening(home, c)]
        assert not opened, (turns, said, opened, result.reply)
    # Whatever the turns kept for later fires later, unconfirmed: it must not open either.
    later = engine.clock.now() + timedelta(days=3)
    for fired in engine.run_due(later):
        opened = [c for c in _sent(fired) if _opening(home, c)]
        assert not opened, (turns, opened, fired.reply)


@SETTINGS
@given(
    clauses=st.lists(
        st.one_of(
            st.tuples(
                st.sampled_from(_PREFIXES),
                st.sampled_from(_GUARDED_WORDS),
                st.sampled_from(_OPENING_TAILS),
                st.sampled_from(_SUFFIXES),
            ).map(lambda t: "".join(t)),
            st.tuples(st.sampled_from(_HEADS), st.sampled_from(_GUARDED_WORDS)).map(
                lambda t: "".join(t)
            ),
            st.sampled_from(["执行通风模式", "透气", "打开通风模式", "进入透气"]),
        ),
        min_size=1,
        max_size=3,
    ),
    history=st.sampled_from(["", "打开客厅灯", "车库门关上", "查一下门禁", "水阀开了吗"]),
    # Questions that must not confirm (确认吗, 对吗？) are issue 19's family 2, another branch's:
    # today they still confirm, so they are left out here rather than failing this property.
    follow=st.sampled_from(["", "再来一次", "它也开一下", "算了", "都打开"]),
)
def test_no_guarded_device_opens_without_confirmation(
    guarded: Engine, clauses: list[str], history: str, follow: str
) -> None:
    text = "，".join(clauses)
    turns = [t for t in (history, text, follow) if t]
    _no_opening_without_confirmation(guarded.fresh(), turns)


def test_the_gate_is_not_vacuous(guarded: Engine) -> None:
    # The property above could pass by never understanding anything: each of these asks,
    # and only 确认 sends.
    engine = guarded.fresh()
    for text in ("车库门开到一半", "院门开一点", "水阀开到50%", "车库门角度调到30%", "打开门禁"):
        result = engine.turn(text, "s")
        assert result.outcome == "confirm", (text, result.reply)
        confirmed = engine.turn("确认", "s")
        assert confirmed.outcome == "executed", (text, confirmed.reply)
        assert [c for c in confirmed.commands if _opening(engine.home, c)], text
    # Closing is never held: a set_position of 0 goes at once.
    assert engine.fresh().turn("车库门开到0").outcome == "executed"


# --- the LLM's answers ------------------------------------------------------------------

_LLM_ACTIONS = [
    "打开",
    "设置位置=50",
    "设置位置=1",
    "设置位置=100",
    "设置位置=+10",
    "设置位置=最大",
    "设置开合度=30",
    "设置数值=60",
    "设置数值=最大",
    "设置开关=开",
    "设置开关=on",
    "设置位置=0",
    # Revision 3's vocabulary: a tilt opens partly too; the others open nothing.
    "设置角度=30",
    "设置角度=50%",
    "设置角度=最大",
    "设置角度=+10",
    "设置角度=调高",
    "设置百叶=1",
    "设置运行=开始",
    "设置洗衣=开始",
    "设置扫地=开始",
    "设置摇头=开",
]


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@SETTINGS
@given(
    items=st.lists(
        st.fixed_dictionaries(
            {
                "a": st.sampled_from(_LLM_ACTIONS),
                "s": st.sampled_from(["*", "车库", "院子", "客厅"]),
                "n": st.sampled_from([*_GUARDED_WORDS[:9], "*"]),
                "t": st.sampled_from(["Unknown", "Lock", "Valve", "Blind", "Switch", "GarageDoor"]),
                "q": st.sampled_from(["one", "all"]),
            }
        ),
        min_size=1,
        max_size=4,
    )
)
def test_no_llm_answer_opens_a_guarded_device_without_confirmation(
    guarded: Engine, llm_server: FakeLLMServer, items: list[dict[str, str]]
) -> None:
    import json

    engine = Engine(guarded.home, llm=OpenAICompatClient(llm_server.openai_url, timeout=2))
    llm_server.script(json.dumps(items, ensure_ascii=False))
    # Words the grammar does not take, so the model is asked.
    _no_opening_without_confirmation(engine, ["整点新鲜空气进来呗"])


def test_an_llm_tilt_of_a_garage_door_waits_for_confirmation(
    guarded: Engine, llm_server: FakeLLMServer
) -> None:
    # The property above could pass by refusing every answer: this one asks, and 确认 sends.
    engine = Engine(guarded.home, llm=OpenAICompatClient(llm_server.openai_url, timeout=2))
    llm_server.script('[{"a":"设置角度=30%","s":"车库","n":"车库门","t":"GarageDoor","q":"one"}]')
    result = engine.turn("整点新鲜空气进来呗", "s")
    assert (result.source, result.outcome, result.commands) == ("llm", "confirm", [])
    assert result.pending == [
        {"device": "garage_door", "command": "set_tilt", "params": {"value": 30}}
    ]
    confirmed = engine.turn("确认", "s")
    assert confirmed.commands == result.pending
