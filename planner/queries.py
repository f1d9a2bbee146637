"""Queries (客厅温度多少, 哪些灯开着, 门窗都关好了吗): every device asked about is read in one
round trip, and the reply answers the question that was asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jiayu.actions import query_attribute
from jiayu.ir import Clause
from jiayu.planner.draft import Draft
from jiayu.planner.replies import answer_phrase, reading_phrase, state_word
from jiayu.planner.words import fault_words
from jiayu.text import shown


def query(draft: Draft, clause: Clause, devices: Sequence[str]) -> None:
    """Read what the clause asks of each device and say it."""
    home = draft.home
    asked = [(d, query_attribute(home.device(d), clause)) for d in devices]
    draft.prefetch([d for d, attribute in asked if attribute is not None])
    parts: list[str] = []
    found: list[tuple[str, str, Any]] = []
    for device_id, attribute in asked:
        if attribute is None:
            continue
        device = home.device(device_id)
        got = draft.read(device_id)
        if not isinstance(got, Mapping):
            parts.append(f"{shown(device.name)}读不到：{fault_words(got.reason)}")
            continue
        value = got.get(attribute)
        draft.answers.append({"device": device_id, "attribute": attribute, "value": value})
        draft.devices.append(device_id)
        found.append((device_id, attribute, value))
        place_only = clause.target is not None and clause.target.is_place_only
        if place_only and isinstance(value, int | float) and not isinstance(value, bool):
            # 客厅温度多少 asks about the room, so the room answers: 客厅现在27.5度.
            room = shown(home.room(device.room).name)
            parts.append(reading_phrase(room, attribute, float(value)))
        else:
            parts.append(answer_phrase(home, device, attribute, value))
    if clause.question is not None and found:
        parts = [_summary(draft, clause, found)] + [p for p in parts if "读不到" in p]
    draft.say("answered" if found else "rejected", "，".join(parts) or "读不到这个状态")


def _summary(draft: Draft, clause: Clause, found: Sequence[tuple[str, str, Any]]) -> str:
    """A set or yes/no question answered in one phrase: 有，客厅灯和卧室灯开着."""
    expected = True if clause.expected is None else clause.expected
    wants = {d: _wanted(clause.attribute, a, expected) for d, a, _ in found}
    matching = [d for d, a, v in found if state_word(a, v) == state_word(a, wants[d])]
    others = [d for d, _, _ in found if d not in matching]
    attribute = found[0][1]
    word = state_word(attribute, wants[found[0][0]])
    other_word = state_word(attribute, not wants[found[0][0]])
    noun = noun_of(clause)
    listing = _listing(draft, matching)
    if clause.question == "count":
        return f"有{len(matching)}个{noun}{word}：{listing}" if matching else f"没有{noun}{word}"
    if clause.question == "which":
        return f"{listing}{word}" if matching else f"没有{noun}{word}"
    if clause.question == "any":
        return f"有，{listing}{word}" if matching else f"没有，{noun}都{other_word}"
    # all / yes_no: every device asked about is in the state asked about
    if not others:
        both = "都" if len(matching) > 1 else ""
        return f"是的，{listing}{both}{word}"
    if isinstance(expected, str):  # 扫地机器人在扫吗: a "no" says the status each is in
        read = {d: v for d, _, v in found}
        return "没有，" + "，".join(
            f"{_listing(draft, [d])}{state_word(attribute, read[d])}" for d in others
        )
    return f"没有，{_listing(draft, others)}{other_word}"


def _listing(draft: Draft, devices: Sequence[str]) -> str:
    """Up to four names; more are counted, not read out."""
    names = [shown(draft.home.device(d).name) for d in dict.fromkeys(devices)]
    if not names:
        return ""
    if len(names) > 4:
        return "、".join(names[:3]) + f"等{len(names)}个"
    return names[0] if len(names) == 1 else "、".join(names[:-1]) + "和" + names[-1]


def noun_of(clause: Clause) -> str:
    """What the clause called its devices: its type word or name, else 设备."""
    target = clause.target
    if target is None:
        return "设备"
    return target.type_word or (shown(target.name.said) if target.name else "设备")


def _wanted(asked: str | None, read: str, expected: Any) -> Any:
    """The state a question asks about, in the attribute actually read: 门关好了吗 asks
    about on/open, and a lock that is closed is locked."""
    if read == "locked" and asked != "locked":
        return not expected
    return expected
