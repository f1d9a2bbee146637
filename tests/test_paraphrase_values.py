"""Values, extents and places composed on generated homes, with the meaning known by
construction; the same commands with one slot replaced by an unrelated word send nothing.

The families: a value said with no device (设定音量为五十, 调高音量到18%, 这边的亮度调为最高),
which the speaker's room places on every device there that can take it, as 这里 does; a change
verb whose 到 says where the value ends (调高客厅电视的音量到六十); 打开/关闭 a cover to a value,
which is how far (关闭客厅窗帘的位置为93%); a place said after the clause (关窗帘在这里); a
room said with 这边/这里 after it (客厅这边的灯), which is that room wherever the speaker is;
电源, a family of types (a switch or a plug); and a verb said as a state before a device (打开的
灯: the light that is on), which is no command and sends nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMEGEN,
    _HOMES,
    _LINKS,
    _ORDER_OFF,
    _ORDER_ON,
    _SWITCHED,
    SETTINGS,
    _devices,
    _engine,
    _noisy,
    _switched_devices,
    _target,
    _wrap,
)

from jiayu.catalog import value_range
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import TABLES
from jiayu.home import Device, Home

Sent = list[tuple[str, str, dict[str, Any]]]

# What a value is set on: the attribute's words, the capability, the command.
_ATTRIBUTES = {
    "brightness": (("亮度",), "brightness", "set_brightness"),
    "volume": (("音量",), "volume", "set_volume"),
    "target_temperature": (("温度", "设定温度"), "target_temperature", "set_temperature"),
}
_SETV = sorted(TABLES["SETV"])
_TO = ("为", "到", "至", "成")
_RAISE = ("调高", "调低", "提高", "降低", "升高", "调大", "调小")
_HERE = ("", "这边的", "这里的", "的")  # 的 alone: the place before it was not said
_PLACE_WORDS = ("这里", "这边", "这儿")


def _said_in(engine: Engine, text: str, area: str | None = None) -> tuple[str, Sent]:
    fresh = engine.fresh(hub=SimulatedHub(engine.home, {}))
    result = fresh.turn(text, "paraphrase", area=area)
    return result.outcome, [
        (c["device"], c["command"], c.get("params") or {}) for c in result.commands
    ]


def _range(device: Device, command: str) -> tuple[int, int]:
    found = value_range(device, command)
    assert found is not None, (device.id, command)
    return int(found[0]), int(found[1])


def _number(draw: st.DrawFn, low: int, high: int, attribute: str) -> tuple[int, str]:
    """A value in [low, high] and how it is said: in digits or words, as a percentage
    (%, 趴 with or without a space, 百分之) or in degrees."""
    number = draw(st.integers(max(low, 1), high))
    digits, words = str(number), _HOMEGEN.chinese_number(number)
    if attribute == "target_temperature":
        forms: tuple[str, ...] = (digits + "度", words + "度")
    else:
        forms = (digits, words, digits + "%", words + " %", digits + "趴", "百分之" + words)
        if number == 1:
            forms = forms[:1] + forms[2:]  # 一 alone, then 哈 or 下: the softener 一哈, 一下
    return number, draw(st.sampled_from(forms))


def _able(home: Home, room: str, capability: str) -> list[Device]:
    return [d for d in home.devices_in_room(room) if capability in d.capabilities]


@st.composite
def _placeless(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str, Sent]:
    """A value said with no device, in the speaker's room: (home, room, text, what is sent:
    the value on every device of the room that takes it)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    attribute = draw(st.sampled_from(sorted(_ATTRIBUTES)))
    words, capability, command = _ATTRIBUTES[attribute]
    rooms = [r.id for r in home.rooms if _able(home, r.id, capability)]
    assume(rooms)
    room = draw(st.sampled_from(rooms))
    able = _able(home, room, capability)
    ranges = [_range(d, command) for d in able]
    low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
    assume(low <= high)
    number, value = _number(draw, low, high, attribute)
    word = draw(st.sampled_from(words))
    here = draw(st.sampled_from(_HERE))
    form = draw(st.sampled_from(("setv", "ba", "raise first", "raise after")))
    verb = draw(
        st.sampled_from(
            _SETV if form == "setv" else _RAISE if form.startswith("raise") else ("调到", "设为")
        )
    )
    parts, slot, noise = _noisy(
        draw, unrelated, {"verb": verb, "attribute": word, "value": value}, ("tail",)
    )
    verb, word, value = parts["verb"], parts["attribute"], parts["value"]
    to = draw(st.sampled_from(_TO if form == "setv" else ("到", "至", "为")))
    if form == "setv":
        command_text = verb + here + word + draw(st.sampled_from((to, ""))) + value
    elif form == "ba":
        command_text = draw(st.sampled_from(("把", "将", ""))) + here + word + verb + value
    elif form == "raise first":
        command_text = verb + here.removeprefix("的") + word + to + value
    else:
        command_text = here.removeprefix("的") + word + verb + to + value
    text = _wrap(draw, command_text)
    # 帮我设定的亮度: 我设定的 is "the one I set" (a preference), no dropped place.
    assume("我" + verb + "的" not in text)
    if slot == "tail":
        text += noise
    sent = sorted((d.id, command, {"value": number}) for d in able)
    return index, room, text, sent


@settings(SETTINGS, max_examples=600)
@given(_placeless())
def test_a_value_said_without_a_device_sets_it_on_the_speakers_room(
    case: tuple[int, str, str, Sent],
) -> None:
    index, room, text, sent = case
    outcome, got = _said_in(_engine(index), text, room)
    assert (outcome, sorted(got)) == ("executed", sent), text


@st.composite
def _ending(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, Sent]:
    """调高客厅电视的音量到六十 / 关闭客厅窗帘的位置为93%: a value said after a change verb or
    打开/关闭 with its 到/为/至, on one device."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    cover = draw(st.booleans())
    if cover:
        device, room, bare = draw(
            st.sampled_from(_devices(home, lambda d: "cover" in d.capabilities))
        )
        attribute, word, command = (
            "position",
            draw(st.sampled_from(("位置", "的位置", "", "的"))),
            "set_position",
        )
        verb = draw(st.sampled_from(("打开", "开启", "开", "拉开", "关闭", "关", "关上", "拉上")))
    else:
        attribute = draw(st.sampled_from(sorted(_ATTRIBUTES)))
        words, capability, command = _ATTRIBUTES[attribute]
        device, room, bare = draw(
            st.sampled_from(_devices(home, lambda d: capability in d.capabilities))
        )
        word = draw(st.sampled_from(("", "的"))) + draw(st.sampled_from(words))
        verb = draw(st.sampled_from(_RAISE))
    low, high = _range(device, command)
    number, value = _number(draw, low, high, attribute)
    link = draw(st.sampled_from(_LINKS))
    parts, slot, noise = _noisy(
        draw, unrelated, {"verb": verb, "bare": bare, "value": value}, ("tail",)
    )
    verb, bare, value = parts["verb"], parts["bare"], parts["value"]
    text = _wrap(
        draw,
        verb
        + _target(room, link, device, bare)
        + word
        + draw(st.sampled_from(("到", "至", "为")))
        + value,
    )
    if slot == "tail":
        text += noise
    return index, text, [(device.id, command, {"value": number})]


@settings(SETTINGS, max_examples=500)
@given(_ending())
def test_a_value_after_a_change_verb_or_open_and_close_is_where_it_ends(
    case: tuple[int, str, Sent],
) -> None:
    index, text, sent = case
    assert _said_in(_engine(index), text) == ("executed", sent), text


@st.composite
def _placed(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str | None, str, Sent]:
    """关窗帘在这里 / 打开台灯在书房 (the place after the clause), and 客厅这边的灯 (a room, then
    这边: that room, wherever the speaker is): (home, speaker's room, text, what is sent)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    on = draw(st.booleans())
    verb = draw(st.sampled_from(_ORDER_ON if on else _ORDER_OFF))
    here = draw(st.booleans())
    area = device.room if here else draw(st.sampled_from([r.id for r in home.rooms]))
    after = draw(st.booleans())
    said = (
        {"verb": verb, "bare": bare}
        if after and here
        else {"verb": verb, "bare": bare, "room": room}
    )
    parts, _slot, _noise = _noisy(draw, unrelated, said, ())
    verb, bare, room = parts["verb"], parts["bare"], parts.get("room", room)
    if after:
        place = draw(st.sampled_from(_PLACE_WORDS)) if here else room
        command_text = verb + bare + "在" + place
    else:
        said = room + draw(st.sampled_from(("这边", "这里"))) + draw(st.sampled_from(("的", "")))
        command_text = draw(st.sampled_from((verb + said + bare, "把" + said + bare + verb)))
    text = _wrap(draw, command_text)
    return index, area, text, [(device.id, "turn_on" if on else "turn_off", {})]


@settings(SETTINGS, max_examples=500)
@given(_placed())
def test_a_place_after_the_clause_or_before_this_is_where_it_acts(
    case: tuple[int, str | None, str, Sent],
) -> None:
    index, area, text, sent = case
    assert _said_in(_engine(index), text, area) == ("executed", sent), text


@st.composite
def _power(draw: st.DrawFn) -> tuple[int, str, Sent]:
    """电源 of a room: every switch and plug there (a family of types)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    rooms = [r for r in home.rooms if any(d.serves_as("Power") for d in home.devices_in_room(r.id))]
    room = draw(st.sampled_from(rooms))
    on = draw(st.booleans())
    verb = "打开" if on else draw(st.sampled_from(("关掉", "关闭")))
    text = draw(
        st.sampled_from(
            (
                verb + room.name + "所有的电源",
                "把" + room.name + "的电源都" + verb,
                verb + room.name + "全部电源",
            )
        )
    )
    command = "turn_on" if on else "turn_off"
    powered = [d for d in home.devices_in_room(room.id) if d.serves_as("Power")]
    assert {d.type for d in powered} <= {"Switch", "SmartPlug"}
    return index, text, sorted((d.id, command, {}) for d in powered)


@settings(SETTINGS, max_examples=150)
@given(_power())
def test_dianyuan_is_every_switch_and_plug_of_the_place(case: tuple[int, str, Sent]) -> None:
    index, text, sent = case
    outcome, got = _said_in(_engine(index), text)
    assert (outcome, sorted(got)) == ("executed", sent), text


@settings(SETTINGS, max_examples=700)
@given(
    st.one_of(
        _placeless(unrelated=True).map(lambda c: (c[0], c[1], c[2])),
        _ending(unrelated=True).map(lambda c: (c[0], None, c[1])),
        _placed(unrelated=True).map(lambda c: (c[0], c[1], c[2])),
    )
)
def test_one_unrelated_word_in_a_value_or_place_slot_sends_nothing(
    case: tuple[int, str | None, str],
) -> None:
    index, area, text = case
    outcome, sent = _said_in(_engine(index), text, area)
    assert sent == [], (text, outcome)


@settings(SETTINGS, max_examples=200)
@given(st.data())
def test_a_verb_said_as_a_state_before_a_device_is_no_command(data: st.DataObject) -> None:
    # 打开的灯 / 关闭的风扇 is "the light that is on", a noun phrase, not an order: alone it
    # sends nothing, in the speaker's room or not (a place dropped before 的 is not guessed).
    index = data.draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, _room, bare = data.draw(
        st.sampled_from(_devices(home, lambda d: d.type in _SWITCHED or "cover" in d.capabilities))
    )
    verb = data.draw(st.sampled_from(("打开", "开启", "关闭", "关上", "关了", "开了")))
    text = verb + "的" + bare + data.draw(st.sampled_from(("", "的")))
    area = data.draw(st.sampled_from((None, device.room)))
    assert _said_in(_engine(index), text, area)[1] == [], text


@settings(SETTINGS, max_examples=300)
@given(_placeless(), st.data())
def test_a_value_said_with_no_verb_and_asked_orders_nothing(
    case: tuple[int, str, str, Sent], data: st.DataObject
) -> None:
    # 温度为24度吗 / 客厅灯的亮度是五十吗 / 空调26度吗 ask whether it is so; said with a verb
    # (能把温度调到24度吗) it is a polite order, and acts.
    index, room, _text, sent = case
    home = _engine(index).home
    command, number = sent[0][1], sent[0][2]["value"]
    word = {"set_brightness": "亮度", "set_volume": "音量", "set_temperature": "温度"}[command]
    value = str(number) + ("度" if command == "set_temperature" else "")
    named = [
        r + link + b for _d, r, b in _devices(home, lambda d: d.room == room) for link in _LINKS[:2]
    ]
    subject = data.draw(st.sampled_from(("", "这边的", *named)))
    said = data.draw(st.sampled_from((word, "的" + word if subject else word, "")))
    assume(subject or said)
    ending = data.draw(st.sampled_from(("吗", "吗？", "么")))
    asked = subject + said + data.draw(st.sampled_from(("为", "是", ""))) + value + ending
    assert _said_in(_engine(index), asked, room)[1] == [], asked
    polite = data.draw(st.sampled_from(("能", "可以", "能不能"))) + "把" + word + "调到" + value
    polite += ending.replace("么", "吗")
    outcome, got = _said_in(_engine(index), polite, room)
    assert (outcome, sorted(got)) == ("executed", sent), polite
