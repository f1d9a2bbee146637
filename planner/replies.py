"""Short, natural Chinese replies: 好的，已打开客厅灯和电视 / 客厅现在27.5度."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from jiayu.catalog import COMMANDS, format_number
from jiayu.grammar.phrases import WORDS, phrase, say
from jiayu.grammar.vocab import HUES
from jiayu.home import Device, Home
from jiayu.ir import Clause, Command
from jiayu.text import shown

_MAX_LISTED = 3
# Said in nearly every reply: the phrases' functions, called directly.
_ALL = phrase("done.all")
_LISTED = phrase("names.listed")
_NUMBER = phrase("value.number")
# What was done (已打开客厅灯), is being done (正在…) or will be (半小时后…): a command said
# before its devices, after them (扫地机器人已开始打扫), or a value set (已把…调到26度).
_DONE_COMMAND = phrase("done.command")
_DONE_AFTER = phrase("done.after")
_DONE_SET = phrase("done.set")
_DOING_COMMAND = phrase("doing.command")
_DOING_AFTER = phrase("doing.after")
_DOING_SET = phrase("doing.set")
_LATER_COMMAND = phrase("later.command")
_LATER_AFTER = phrase("later.after")
_LATER_SET = phrase("later.set")
# Commands said after the device (扫地机器人已开始打扫), not before it (已打开客厅灯).
_SAID_AFTER = frozenset(
    {
        "oscillate_on",
        "oscillate_off",
        "start_cleaning",
        "pause_cleaning",
        "return_to_base",
        "start_cycle",
        "pause_cycle",
        "stop_cycle",
    }
)

Tense = Literal["done", "doing", "later"]


class Acknowledged(str):
    """A phrase that already says 好的 (好的，记住了…): a turn's reply opening with one is not
    led by another. Marked where the phrase is chosen, so no code looks at the words."""


def names_phrase(home: Home, device_ids: Sequence[str], clause: Clause | None = None) -> str:
    """客厅灯和电视 / 客厅灯、卧室灯和书房灯 / 5 盏灯 (the type word said, if any)."""
    if len(device_ids) == 1:  # most replies: one name, said as it is (a list of one is it)
        return shown(home.device(device_ids[0]).name)
    unique = list(dict.fromkeys(device_ids))
    if len(unique) > _MAX_LISTED:  # counted, not looked up: 所有的灯 may be thousands
        target = clause.target if clause is not None else None
        if target is not None and target.type_word:
            kind, noun = target.device_type or "", target.type_word
        else:
            kind, noun = "", say("word.device")
        return say("names.counted", count=len(unique), kind=kind, noun=noun)
    return _LISTED(names=[shown(home.device(d).name) for d in unique])


def value_phrase(attribute: str, value: Any) -> str:
    """26度 / 50% / 4500K / 制热 / 高速."""
    if attribute == "mode":
        return say("value.mode", mode=value)
    if attribute == "fan_speed":
        return say("value.speed", speed=value)
    if attribute == "status":
        return say("value.status", status=value)
    if attribute == "color" and isinstance(value, dict):
        return say("value.hue", hue=_nearest_hue(value))
    number = format_number(value) if isinstance(value, (int, float)) else str(value)
    return _NUMBER(number=number, attribute=attribute)


def done_phrase(
    home: Home, clause: Clause | None, sent: Sequence[Command], tense: Tense = "done"
) -> str:
    """What was done, grouped by command: 已打开客厅灯 / 已把客厅空调温度调到26度; or, by
    `tense`, what is being done (正在打开客厅灯) or will be (半小时后打开客厅灯)."""
    doing, later = tense == "doing", tense == "later"
    parts: list[str] = []
    for name, params, devices in grouped(sent):
        who = names_phrase(home, devices, clause)
        writes = COMMANDS[name].writes
        if writes is None:  # a command that takes no value
            if name in _SAID_AFTER:  # 扫地机器人已开始打扫: the device first
                said = (
                    _DOING_AFTER(command=name, devices=who)
                    if doing
                    else _LATER_AFTER(command=name, devices=who)
                    if later
                    else _DONE_AFTER(command=name, devices=who)
                )
            else:
                said = (
                    _DOING_COMMAND(command=name, devices=who)
                    if doing
                    else _LATER_COMMAND(command=name, devices=who)
                    if later
                    else _DONE_COMMAND(command=name, devices=who)
                )
            parts.append(said)
            continue
        param, attribute = writes
        value = value_phrase(attribute, dict(params) if param == "" else params[param])
        parts.append(
            _DOING_SET(devices=who, attribute=attribute, value=value)
            if doing
            else _LATER_SET(devices=who, attribute=attribute, value=value)
            if later
            else _DONE_SET(devices=who, attribute=attribute, value=value)
        )
    return parts[0] if len(parts) == 1 else _ALL(parts=parts)  # (one part is said as it is)


Group = tuple[str, Mapping[str, object], list[str]]
"""A command, its params, and the devices it went to."""


def grouped(sent: Sequence[Command]) -> list[Group]:
    """The commands grouped by command and params, in the order first sent; a phrase of one
    command needs no params text to group by, nor does a command with no params."""
    found: dict[tuple[str, str], Group] = {}
    by_params = len(sent) > 1
    for command in sent:
        key = (command.command, command.params_text if by_params and command.params else "")
        group = found.get(key)
        if group is None:
            found[key] = (command.command, command.params, [command.device])
        else:
            group[2].append(command.device)
    return list(found.values())


def _nearest_hue(color: dict[str, Any]) -> str:
    """The named hue closest round the colour wheel (a hub may report 4°, not 0°)."""
    hue = color.get("hue")
    if not isinstance(hue, int | float):
        return ""
    return min(HUES, key=lambda name: min(abs(HUES[name][0] - hue), 360 - abs(HUES[name][0] - hue)))


def answer_phrase(home: Home, device: Device, attribute: str, value: Any) -> str:
    """客厅温湿度计温度27.5度 / 客厅空调开着 / 入户门锁已上锁."""
    name = shown(device.name)
    if value is None:
        return say("answer.unreported", name=name, attribute=attribute)
    if attribute in WORDS["answer_yes"]:  # said as a state (开着 / 关着), not as a value
        return say("answer.yes" if value else "answer.no", name=name, attribute=attribute)
    said = value_phrase(attribute, value)
    return say("answer.value", name=name, attribute=attribute, value=said)


def reading_phrase(where: str, attribute: str, value: float) -> str:
    """客厅现在27.5度 (what a condition read), or just 26度 for the threshold."""
    shown_value = value_phrase(attribute, round(value, 1))
    if not where:
        return shown_value
    if attribute == "temperature":
        return say("reading.temperature", where=where, value=shown_value)
    return say("reading.other", where=where, attribute=attribute, value=shown_value)


def state_word(attribute: str, value: Any) -> str:
    """The word for whether a device is in a state (开着 / 关着 / 锁着 / 没锁), so a question's
    expected value and a read compare by meaning: a cover at 30% is 开着, like True."""
    if isinstance(value, str):  # a status (cleaning, running): the word for that status
        return value_phrase(attribute, value)
    return say("word.state_yes" if in_state(value) else "word.state_no", attribute=attribute)


def in_state(value: Any) -> bool:
    """Whether a read or expected value means the device is in the state asked about."""
    return value > 0 if isinstance(value, int | float) else bool(value)


def when_phrase(at: datetime, now: datetime) -> str:
    """半小时后 / 今天22:00 / 明天07:00: when a delayed command fires, as said back."""
    ahead = (at - now).total_seconds()
    if ahead < 3600:
        minutes = max(1, round(ahead / 60))
        return say("when.half_hour") if minutes == 30 else say("when.minutes", minutes=minutes)
    days = (at.date() - now.date()).days
    return say(
        {0: "when.today", 1: "when.tomorrow", 2: "when.day_after"}.get(days, "when.date"), at=at
    )


def asked_verb(command: str) -> str:
    """The command a confirmation question names: a partial opening (车库门开到一半) is asked
    about as the opening it is."""
    return "open" if command in ("set_position", "set_tilt") else command
