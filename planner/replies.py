"""Short, natural Chinese replies: 好的，已打开客厅灯和电视 / 客厅现在27.5度."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from jiayu.catalog import format_number
from jiayu.grammar.phrases import attribute_word
from jiayu.home import Device, Home
from jiayu.ir import Clause, Command
from jiayu.text import shown

COMMAND_VERBS = {
    "turn_on": "打开",
    "turn_off": "关闭",
    "open": "打开",
    "close": "关闭",
    "stop": "停下",
    "lock": "锁上",
    "unlock": "解锁",
    "open_valve": "打开",
    "close_valve": "关闭",
    "mute": "静音",
    "unmute": "取消静音",
    "play": "播放",
    "pause": "暂停",
    "next_track": "切到下一首",
    "previous_track": "切到上一首",
}
_MODES = {"cool": "制冷", "heat": "制热", "dry": "除湿", "fan": "送风", "auto": "自动"}
_SPEEDS = {"low": "低速", "medium": "中速", "high": "高速", "auto": "自动"}
_CLASSIFIER = {"Light": "盏", "AirConditioner": "台", "Television": "台", "Washer": "台"}
_MAX_LISTED = 3


def names_phrase(home: Home, device_ids: Sequence[str], clause: Clause | None = None) -> str:
    """客厅灯和电视 / 客厅灯、卧室灯和书房灯 / 5 盏灯 (the type word said, if any)."""
    unique = list(dict.fromkeys(device_ids))
    if len(unique) > _MAX_LISTED:  # counted, not looked up: 所有的灯 may be thousands
        target = clause.target if clause is not None else None
        if target is not None and target.type_word:
            kind, noun = target.device_type or "", target.type_word
        else:
            kind, noun = "", "设备"
        return f" {len(unique)} {_CLASSIFIER.get(kind, '个')}{noun}"
    names = [shown(home.device(d).name) for d in unique]
    return names[0] if len(names) == 1 else "、".join(names[:-1]) + "和" + names[-1]


def value_phrase(attribute: str, value: Any) -> str:
    """26度 / 50% / 4500K / 制热 / 高速."""
    if attribute == "mode":
        return _MODES.get(str(value), str(value))
    if attribute == "fan_speed":
        return _SPEEDS.get(str(value), str(value))
    number = format_number(value) if isinstance(value, int | float) else str(value)
    unit = {
        "target_temperature": "度",
        "temperature": "度",
        "color_temp": "K",
        "humidity": "%",
        "brightness": "%",
        "position": "%",
        "illuminance": "勒克斯",
    }
    return f"{number}{unit.get(attribute, '')}"


def done_phrase(home: Home, clause: Clause | None, sent: Sequence[Command]) -> str:
    """What was done, grouped by command: 已打开客厅灯 / 已把客厅空调温度调到26度."""
    parts: list[str] = []
    groups: dict[tuple[str, str], list[str]] = {}
    for command in sent:
        key = (command.command, command.params_text)
        groups.setdefault(key, []).append(command.device)
    for (name, _), devices in groups.items():
        params = next(c.params for c in sent if c.command == name and c.device == devices[0])
        who = names_phrase(home, devices, clause)
        if name in COMMAND_VERBS:
            parts.append(f"已{COMMAND_VERBS[name]}{who}")
            continue
        attribute = {
            "set_brightness": "brightness",
            "set_color_temp": "color_temp",
            "set_temperature": "target_temperature",
            "set_mode": "mode",
            "set_fan_speed": "fan_speed",
            "set_position": "position",
            "set_volume": "volume",
        }[name]
        value = next(iter(params.values()))
        parts.append(f"已把{who}{attribute_word(attribute)}调到{value_phrase(attribute, value)}")
    return "，".join(parts)


def answer_phrase(home: Home, device: Device, attribute: str, value: Any) -> str:
    """客厅温湿度计温度27.5度 / 客厅空调开着 / 入户门锁已上锁."""
    name = shown(device.name)
    if value is None:
        return f"{name}没有报告{attribute_word(attribute)}"
    if attribute == "on":
        return f"{name}{'开着' if value else '关着'}"
    if attribute == "locked":
        return f"{name}{'已上锁' if value else '没有上锁'}"
    if attribute == "open":
        return f"{name}{'开着' if value else '关着'}"
    if attribute == "playing":
        return f"{name}{'正在播放' if value else '没有在播放'}"
    if attribute == "muted":
        return f"{name}{'已静音' if value else '没有静音'}"
    return f"{name}{attribute_word(attribute)}{value_phrase(attribute, value)}"


def reading_phrase(where: str, attribute: str, value: float) -> str:
    """客厅现在27.5度 (what a condition read), or just 26度 for the threshold."""
    shown_value = value_phrase(attribute, round(value, 1))
    if not where:
        return shown_value
    if attribute == "temperature":
        return f"{where}现在{shown_value}"
    return f"{where}{attribute_word(attribute)}现在{shown_value}"


_STATE_WORDS = {
    "on": ("开着", "关着"),
    "open": ("开着", "关着"),
    "position": ("开着", "关着"),
    "locked": ("锁着", "没锁"),
    "playing": ("在播放", "没在播放"),
    "muted": ("静音了", "没静音"),
}


def state_word(attribute: str, value: Any) -> str:
    """The word for whether a device is in a state (开着 / 关着 / 锁着 / 没锁), so a question's
    expected value and a read compare by meaning: a cover at 30% is 开着, like True."""
    yes, no = _STATE_WORDS.get(attribute, ("是", "不是"))
    if isinstance(value, bool) or value is None:
        return yes if value else no
    if isinstance(value, int | float):
        return yes if value > 0 else no
    return yes if value else no


def when_phrase(at: datetime, now: datetime) -> str:
    """半小时后 / 今天22:00 / 明天07:00: when a delayed command fires, as said back."""
    ahead = (at - now).total_seconds()
    if ahead < 3600:
        minutes = max(1, round(ahead / 60))
        return "半小时后" if minutes == 30 else f"{minutes}分钟后"
    days = (at.date() - now.date()).days
    day = {0: "今天", 1: "明天", 2: "后天"}.get(days, f"{at.month}月{at.day}日")
    return f"{day}{at:%H:%M}"
