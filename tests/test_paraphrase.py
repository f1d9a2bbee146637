"""The paraphrase space: commands composed from the morphology's classes on generated homes,
with the meaning known by construction, compile to that meaning; the same commands with one
slot replaced by an unrelated word send nothing.

A command is composed of a device (its room, then optionally 的 or "that one", then its bare
name), a verb form (any switching form the morphology composes: a stem with a complement and
an aspect, or a verb of doing with its result; a set verb with its 到/成/为 and a value said
in digits, in words, or as a percentage), a word order (verb first, 把 first, target first),
a request or a vocative before it and a tag or a final particle after it. The wrappers and
particles change nothing, so the command sent is the one the device and the verb say.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import LOCK_STEM, TABLES
from jiayu.home import Device, Home, parse_home

_SPEC = importlib.util.spec_from_file_location(
    "jiayu_bench_homegen", Path(__file__).resolve().parent.parent / "benchmarks" / "homegen.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_HOMEGEN = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_HOMEGEN)

SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Homes of a few sizes and seeds; each example draws one.
_HOMES = [(24, 1), (40, 7), (60, 3), (90, 11)]
# What a generated home holds that 打开/关闭 switch on and off (a cover, a lock, a valve
# open and close instead, behind other words or a confirmation).
_SWITCHED = frozenset(
    {"Light", "AirConditioner", "SmartPlug", "Fan", "Television", "Humidifier", "Heater"}
)


@cache
def _engine(index: int) -> Engine:
    size, seed = _HOMES[index]
    return Engine(parse_home(_HOMEGEN.generate_home(size, seed=seed), "generated"))


def _said(engine: Engine, text: str) -> tuple[str, list[tuple[str, str, dict[str, Any]]]]:
    fresh = engine.fresh(hub=SimulatedHub(engine.home, {}))
    result = fresh.turn(text, "paraphrase")
    return result.outcome, [
        (c["device"], c["command"], c.get("params") or {}) for c in result.commands
    ]


def _named(home: Home, device: Device) -> tuple[str, str] | None:
    """The device's room name and bare name, when it is said as room + bare name."""
    bare = home.bare_name(device)
    if bare is None:
        return None
    room = home.room(device.room).name
    if room + bare != device.name:
        return None
    return room, bare


def _devices(home: Home, test: Callable[[Device], bool]) -> list[tuple[Device, str, str]]:
    found = []
    for device in home.devices:
        named = _named(home, device)
        if named is not None and test(device):
            found.append((device, *named))
    return found


# --- the classes ----------------------------------------------------------------------

# The switching forms the lexicon keeps (a form another class lists keeps that class: 关着
# is a state), but 锁's, which only a lock is switched by.
_ON = sorted(w for w in derived()["ON"] if w in TABLES["ON"])
_OFF = sorted(w for w in derived()["OFF"] if w in TABLES["OFF"] and not w.startswith(LOCK_STEM))
_SET = sorted(w for w in derived()["SET"] if w in TABLES["SET"])
_REQUESTS = ("", "请", "麻烦", "劳驾", "帮我", "给我", "能不能", "可不可以", "麻烦你", "请你帮我")
_VOCATIVES = ("", "我说啊，", "喂，", "小爱同学，")
_TAGS = ("", "好吗", "行不", "好不好", "可以吗", "行不行")
_PARTICLES = ("", "吧", "啊", "呗", "嘛", "哈", "撒", "咧", "噻", "喔", "啦", "咯", "嘞")
_LINKS = ("", "的", "那个", "那一")  # 那一: the classifier of the device's kind follows
_CLASSIFIERS = {"Light": "盏"}
# Nothing in any home: each sounds like no word of the vocabulary or of the generated homes.
_UNRELATED = ("香蕉", "钢琴", "沙漠", "熊猫", "数学", "飞机", "跑步", "葡萄", "足球", "作业")


def _switched_devices(home: Home) -> list[tuple[Device, str, str]]:
    """The devices 打开/关闭 switch on and off, each with its room and its bare name."""
    return _devices(home, lambda d: d.type in _SWITCHED and "onoff" in d.capabilities)


# The on/off verbs that order it; 开着 / 关着 also say a state (书房灯开着 is asked).
_ORDER_ON = [v for v in _ON if not v.endswith("着")]
_ORDER_OFF = [v for v in _OFF if not v.endswith("着")]


def _target(room: str, link: str, device: Device, bare: str) -> str:
    """Room, link, bare name: 客厅灯, 客厅的灯, 客厅那个灯, 客厅那盏灯 (那台空调)."""
    if link == "那一":
        link = "那" + _CLASSIFIERS.get(device.type, "台")
    return room + link + bare


def _wrap(draw: st.DrawFn, command: str) -> str:
    return (
        draw(st.sampled_from(_VOCATIVES))
        + draw(st.sampled_from(_REQUESTS))
        + command
        + draw(st.sampled_from(_TAGS))
        + draw(st.sampled_from(_PARTICLES))
    )


def _noisy(
    draw: st.DrawFn, unrelated: bool, parts: dict[str, str], around: tuple[str, ...]
) -> tuple[dict[str, str], str | None, str]:
    """With `unrelated`, one slot (a part of the command, or a place around it) is given an
    unrelated word: the parts with it replaced, the slot, and the word."""
    slot = draw(st.sampled_from((*parts, *around))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot in parts:
        parts = {**parts, slot: noise}
    return parts, slot, noise


@st.composite
def _switch(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, tuple[str, str]]:
    """An on/off command on a switchable device: (home, text, (device, command))."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    on = draw(st.booleans())
    verb = draw(st.sampled_from(_ON if on else _OFF))
    link = draw(st.sampled_from(_LINKS))
    said, slot, noise = _noisy(draw, unrelated, {"verb": verb, "bare": bare}, ("wrapper", "tail"))
    verb, bare = said["verb"], said["bare"]
    target = _target(room, link, device, bare)
    order = draw(st.sampled_from(("verb first", "ba", "target first")))
    if order == "verb first":
        command = verb + target
    elif order == "ba":
        command = "把" + target + verb
    else:
        command = target + verb
    text = _wrap(draw, command)
    # 开着吧 / 开着就行 say "leave it on" after a set (所有灯关掉，书房灯开着吧); said alone
    # it is not understood yet (a known gap, nothing is sent), so it is not composed here.
    assume(not verb.endswith("着") or not text.endswith(("吧", "就行", "就好")))
    # 书房灯开着 after its target states a state (asked, never switched:
    # tests/test_paraphrase_s6.py), so a verb of being is composed first or after 把 only.
    assume(not verb.endswith("着") or order != "target first")
    if slot == "wrapper":
        text = noise + text
    if slot == "tail":
        text = text + noise
    return index, text, (device.id, "turn_on" if on else "turn_off")


@st.composite
def _value(
    draw: st.DrawFn, *, unrelated: bool = False
) -> tuple[int, str, tuple[str, str, dict[str, Any]]]:
    """A value set on a light's brightness or an air conditioner's set point."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(
        st.sampled_from(
            _devices(
                home,
                lambda d: (
                    (d.type == "Light" and "brightness" in d.capabilities)
                    or (d.type == "AirConditioner" and "target_temperature" in d.capabilities)
                ),
            )
        )
    )
    light = device.type == "Light"
    attribute = "brightness" if light else "target_temperature"
    limit = device.limits.get(attribute)
    low, high = (limit.min, limit.max) if limit is not None else ((1, 100) if light else (16, 30))
    number = draw(st.integers(max(int(low), 1), int(high)))
    said = str(number)
    words = _HOMEGEN.chinese_number(number)
    if light:
        value = draw(st.sampled_from((said, said + "%", "百分之" + words, words)))
        attr = draw(st.sampled_from(("亮度", "的亮度")))
    else:
        value = draw(st.sampled_from((said + "度", words + "度", said, words)))
        attr = draw(st.sampled_from(("温度", "的温度", "设定温度")))
    verb = draw(st.sampled_from(_SET))
    link = draw(st.sampled_from(_LINKS))
    said, slot, noise = _noisy(
        draw, unrelated, {"verb": verb, "bare": bare, "value": value}, ("tail",)
    )
    verb, bare, value = said["verb"], said["bare"], said["value"]
    target = _target(room, link, device, bare)
    order = draw(st.sampled_from(("ba", "target first", "setv")))
    if order == "ba":
        command = "把" + target + attr + verb + value
    elif order == "target first":
        command = target + attr + verb + value
    else:
        command = "设置" + target + attr.removeprefix("的") + "为" + value
        if slot == "verb":
            command = noise + target + attr.removeprefix("的") + "为" + value
    text = _wrap(draw, command)
    if slot == "tail":
        text = text + noise
    command_name = "set_brightness" if light else "set_temperature"
    return index, text, (device.id, command_name, {"value": number})


@settings(SETTINGS, max_examples=2400)
@given(_switch())
def test_a_composed_switch_command_means_what_it_was_made_of(
    case: tuple[int, str, tuple[str, str]],
) -> None:
    index, text, (device, command) = case
    outcome, sent = _said(_engine(index), text)
    assert (outcome, sent) == ("executed", [(device, command, {})]), text


@settings(SETTINGS, max_examples=1600)
@given(_value())
def test_a_composed_value_command_means_what_it_was_made_of(
    case: tuple[int, str, tuple[str, str, dict[str, Any]]],
) -> None:
    index, text, expected = case
    outcome, sent = _said(_engine(index), text)
    assert (outcome, sent) == ("executed", [expected]), text


@settings(SETTINGS, max_examples=1200)
@given(st.one_of(_switch(unrelated=True), _value(unrelated=True)))
def test_one_unrelated_word_in_any_slot_sends_nothing(case: tuple[int, str, Any]) -> None:
    index, text, _meant = case
    outcome, sent = _said(_engine(index), text)
    assert sent == [], (text, outcome)


@st.composite
def _listed(draw: st.DrawFn) -> tuple[int, str, set[str]]:
    """把A和B都关了 on a generated home: A said with its room, B said with its room or
    without one (then it is the B of A's room, which must exist), and the devices each listed
    target alone resolves to."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    switched = _switched_devices(home)
    first, room, bare = draw(st.sampled_from(switched))
    here = [(d, b) for d, r, b in switched if r == room and d.id != first.id]
    others = [(d, r + b) for d, r, b in switched if d.id != first.id]
    placeless = bool(here) and draw(st.booleans())
    second, said = draw(st.sampled_from(here if placeless else others))
    verb = draw(st.sampled_from(("关了", "关掉", "打开", "开了")))
    text = "把" + room + bare + "和" + said + "都" + verb
    return index, text, {first.id, second.id}


@settings(SETTINGS, max_examples=300)
@given(_listed())
def test_dou_after_a_list_acts_on_each_listed_target_and_no_more(
    case: tuple[int, str, set[str]],
) -> None:
    # 都 distributes: the devices acted on are the union of what each listed target alone
    # resolves to; a place-less B is the B of the place said before it, never every B.
    index, text, meant = case
    outcome, sent = _said(_engine(index), text)
    assert outcome == "executed" and {device for device, _, _ in sent} == meant, text
