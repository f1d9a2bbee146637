"""The seed-001 compact form of what was understood: one object per action and target.

Fields a,s,n,t,q,c in that order. a is 打开/关闭/静音/取消静音, 设置<属性>=<值> or
查询<属性> (seed 001's action rule admits nothing else, so the actions that take no value are
written 设置<what>=<verb>: see `ACTION_FORMS`); s the rooms ("*" unknown, "!" for an excluded
room); n the device word without its room; t the type; q one/all/any/except; c an explicit count.
Conditions, repeats, answers to questions, negated clauses (别开灯 asks for nothing),
preferences and schedule requests have no compact form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jiayu.grammar.vocab import HUES, TABLES
from jiayu.home import TYPE_FAMILIES
from jiayu.ir import Action, Clause, Parse, Place, Value

UNKNOWN = [{"a": "UNKNOWN", "s": "*", "n": "*", "t": "Unknown", "q": "one"}]
_ATTRIBUTE_WORDS = {
    "brightness": "亮度",
    "color_temp": "色温",
    "target_temperature": "温度",
    "temperature": "温度",
    "mode": "模式",
    "fan_speed": "风速",
    "position": "位置",
    "volume": "音量",
    "humidity": "湿度",
    "illuminance": "光照",
    "on": "开关",
    "locked": "门锁",
    "state": "状态",
    "playing": "播放",
    # Revision 3. 模式 is what people call a fan's preset too (把风扇的模式调成强劲风), and
    # the reader tells a preset from an air conditioner's mode by the value.
    "color": "颜色",
    "tilt": "角度",
    "target_humidity": "湿度",
    "preset": "模式",
    None: "状态",
}
# A query reads these attributes by other words than a setting writes them: 湿度 asked is
# what a sensor measures, 模式 asked an air conditioner's mode.
_QUERY_WORDS = {
    **_ATTRIBUTE_WORDS,
    "target_humidity": "设定湿度",
    "preset": "预设",
    "oscillating": "摇头",
    "status": "工作状态",
}
_TYPE_ATTRIBUTE = {
    "Light": "brightness",
    "AirConditioner": "target_temperature",
    "Blind": "position",
    "NetworkAudio": "volume",
    "Television": "volume",
    "Fan": "fan_speed",
    "Heater": "target_temperature",
    "Purifier": "fan_speed",
    "Humidifier": "target_humidity",
    "Dehumidifier": "target_humidity",
    "WaterHeater": "target_temperature",
    "GarageDoor": "position",
}
ACTION_FORMS: dict[Action, tuple[str, str]] = {
    "play": ("播放", "播放"),
    "pause": ("播放", "暂停"),
    "next_track": ("播放", "下一首"),
    "previous_track": ("播放", "上一首"),
    "stop": ("位置", "停止"),
    # Revision 3: oscillation, a vacuum's cleaning, a washer's or dryer's cycle.
    "oscillate_on": ("摇头", "开"),
    "oscillate_off": ("摇头", "关"),
    "clean": ("扫地", "开始"),
    "pause_cleaning": ("扫地", "暂停"),
    "return_to_base": ("扫地", "回充"),
    "run_cycle": ("洗衣", "开始"),  # a washer's or dryer's cycle (开始洗衣服)
    "start": ("运行", "开始"),  # 开始运行: whichever of the two the device has
}
"""How an action that takes no value is written: 设置<what>=<verb>. The reader
(compiler/llm/to_ir.py) takes these and a few synonyms of each."""
_WORDED: dict[Action, str] = {
    "mute": "静音",
    "unmute": "取消静音",
    **{action: f"设置{what}={verb}" for action, (what, verb) in ACTION_FORMS.items()},
}
# 暂停 and 停止 are chosen per device (a washer's cycle, a vacuum, what plays, a curtain);
# written for an appliance that runs, they say so (and a dryer's cycle is 烘干), and each
# reads back as the same action.
_KIND_FORMS: dict[tuple[str, str], str] = {
    **{("pause", kind): "设置运行=暂停" for kind in ("Washer", "Dryer", "Vacuum")},
    **{("stop", kind): "设置运行=停止" for kind in ("Washer", "Dryer", "Vacuum")},
    ("run_cycle", "Dryer"): "设置烘干=开始",
}
HUE_WORDS: dict[str, str] = {}
"""A hue's word (red → 红色): the first colour word said for it."""
for _word, _colour in TABLES["COLOR"].items():
    if _colour in HUES:
        HUE_WORDS.setdefault(_colour, _word)


def compact(
    parsed: Parse,
    split_room: Callable[[str], tuple[str | None, str]],
    type_of: Callable[[str], str],
    is_name: Callable[[Place, str], bool],
) -> list[dict[str, Any]]:
    """The compact form. `split_room` splits 客厅灯 into (客厅, 灯); `type_of` gives a
    device name's type (Unknown when its devices differ); `is_name` tells whether a place
    and a type word spell one device's name (客厅的灯)."""
    out: list[dict[str, Any]] = []
    for clause in parsed.clauses:
        if clause.negated:
            continue  # 别开灯: its compact form would say 打开
        target = _target(clause, split_room, type_of, is_name)
        action = _action(clause, target["t"])
        if action is None:
            continue
        out.append({"a": action, **target})
    return out


def _attribute(value: Value, kind: str) -> str | None:
    """The attribute a value sets; when only the device can tell, the usual one of its type."""
    if value.attribute is not None:
        return value.attribute
    if value.warmth:
        return "color_temp" if kind == "Light" else "target_temperature"
    if value.unit == "°C":
        return "target_temperature"
    return _TYPE_ATTRIBUTE.get(kind)


def _action(clause: Clause, kind: str) -> str | None:
    if clause.action == "on" or clause.action == "scene":
        return "打开"
    if clause.action == "off":
        return "关闭"
    worded = _KIND_FORMS.get((clause.action, kind)) or _WORDED.get(clause.action)
    if worded is not None:
        return worded
    if clause.action == "query":
        return "查询" + _QUERY_WORDS.get(clause.attribute, clause.attribute or "状态")
    if clause.action in ("set", "adjust") and clause.value is not None:
        value = clause.value
        attribute = _attribute(value, kind)
        word = "数值" if attribute is None else _ATTRIBUTE_WORDS.get(attribute, "数值")
        return f"设置{word}={_value(value)}"
    return None


def _value(value: Value) -> str:
    if value.kind == "preferred":
        return "偏好"
    if value.kind == "extreme":
        return "最大" if value.direction > 0 else "最小"
    if value.kind == "relative":
        direction = value.direction or value.warmth
        word = (
            ("调暖" if value.warmth > 0 else "调冷")
            if value.warmth
            else ("调高" if direction > 0 else "调低")
        )
        return word if value.number is None else f"{'+' if direction > 0 else '-'}{_num(value)}"
    if value.word is not None:
        return HUE_WORDS.get(value.word, value.word) if value.attribute == "color" else value.word
    return _num(value)


def _num(value: Value) -> str:
    n = value.number or 0
    text = str(int(n)) if float(n).is_integer() else str(n)
    return text + ("%" if value.unit == "%" else "")


def _target(
    clause: Clause,
    split_room: Callable[[str], tuple[str | None, str]],
    type_of: Callable[[str], str],
    is_name: Callable[[Place, str], bool],
) -> dict[str, Any]:
    target = clause.target
    if clause.action == "scene" and target is not None and target.name is not None:
        return {"s": "*", "n": target.name.text, "t": "Unknown", "q": "one"}
    if target is None or target.reference is not None:
        return {"s": "*", "n": "*", "t": "Unknown", "q": "one"}
    rooms = [p.text for p in target.places]
    name = "*"
    kind = target.device_type or "Unknown"
    if kind in TYPE_FAMILIES:
        kind = "Unknown"  # a family of types (电源) is no one type
    if target.name is not None:
        room, name = split_room(target.name.text)
        if room is not None and room not in rooms:  # 客厅 said and in the name: once
            rooms.append(room)
        kind = type_of(target.name.text)
    elif target.type_word:
        name = target.type_word
    excluded = [p.text for e in target.exclude for p in e.places if not (e.name or e.type_word)]
    s = ",".join(rooms) or "*"
    if excluded:
        s = ",".join([*(rooms or ["*"]), *("!" + r for r in excluded)])
    quantifier: str = target.quantifier
    if (
        target.places
        and not target.name
        and target.type_word
        and not (len(target.places) == 1 and is_name(target.places[0], target.type_word))
    ):
        quantifier = "all"  # places and a type word make a set, unless they spell a name
    if any(e.name or e.type_word for e in target.exclude):
        quantifier = "except"  # a device excluded: the compact form cannot name it
    out: dict[str, Any] = {"s": s, "n": name, "t": kind, "q": quantifier}
    if target.count is not None:
        out["q"] = "all"  # a count is a set; c says how many of it
        out["c"] = target.count
    return out
