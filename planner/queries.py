"""Queries (客厅温度多少, 哪些灯开着, 门窗都关好了吗): every device asked about is read in one
round trip, and the reply answers the question that was asked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jiayu.actions import query_attribute
from jiayu.grammar.phrases import say
from jiayu.home import Device
from jiayu.ir import Clause
from jiayu.planner.draft import Draft
from jiayu.planner.replies import answer_phrase, in_state, reading_phrase, state_word
from jiayu.text import shown


def query(draft: Draft, clause: Clause, devices: Sequence[str]) -> None:
    """Read what the clause asks of each device and say it."""
    home = draft.ctx.home
    asked, ids = _asked(draft, clause, devices)
    states = draft.states(ids)
    parts: list[str] = []
    unread: list[str] = []  # the devices that could not be read, said after any summary
    found: list[tuple[str, str, Any]] = []
    # A set or yes/no question is answered by one summary: no phrase per device is made
    # (哪些灯开着 over thousands of lights).
    summarised = clause.question is not None
    place_only = clause.target is not None and clause.target.is_place_only
    for device, attribute in asked:
        device_id = device.id
        got = states[device_id]
        if not isinstance(got, dict):  # a state the draft read is a dict of its own
            unread.append(say("answer.unreadable", name=shown(device.name), reason=got.reason))
            parts.append(unread[-1])
            continue
        value = got.get(attribute)
        draft.answers.append((device_id, attribute, value))
        draft.devices.append(device_id)
        found.append((device_id, attribute, value))
        if summarised:
            continue
        if place_only and isinstance(value, (int, float)) and not isinstance(value, bool):
            # 客厅温度多少 asks about the room, so the room answers: 客厅现在27.5度.
            room = shown(home.room(device.room).name)
            parts.append(reading_phrase(room, attribute, float(value)))
        else:
            parts.append(answer_phrase(home, device, attribute, value))
    if clause.question is not None and found:
        parts = [_summary(draft, clause, found), *unread]
    reply = say("answer.all", parts=parts) if parts else say("refuse.no_state")
    draft.say("answered" if found else "rejected", reply)


def _asked(
    draft: Draft, clause: Clause, devices: Sequence[str]
) -> tuple[list[tuple[Device, str]], list[str]]:
    """The devices that can answer the clause, each with the attribute read of it, and their
    ids; worked out once per turn, not again on the pass after the read."""
    key = ("query", id(clause), id(devices))
    worked = draft.memo.worked
    found = worked.get(key)
    if found is None:
        # What is read depends on a device's capabilities alone: worked out once per kind of
        # device, not once per device (哪些灯开着 over thousands of lights of a few kinds).
        by_kind: dict[frozenset[str], str | None] = {}
        asked: list[tuple[Device, str]] = []
        ids: list[str] = []
        device_of = draft.ctx.home.device
        for device_id in devices:
            device = device_of(device_id)
            caps = device.capabilities
            if caps not in by_kind:
                by_kind[caps] = query_attribute(device, clause)
            attribute = by_kind[caps]
            if attribute is not None:
                asked.append((device, attribute))
                ids.append(device_id)
        found = worked[key] = ((clause, devices), (asked, ids))
    return found[1]


def _summary(draft: Draft, clause: Clause, found: Sequence[tuple[str, str, Any]]) -> str:
    """A set or yes/no question answered in one phrase: 有，客厅灯和卧室灯开着."""
    expected = True if clause.expected is None else clause.expected
    # The state asked about depends on the attribute read alone (worked out once for each);
    # each device is in it or not.
    wants: dict[str, Any] = {}
    matching: list[str] = []
    others: list[str] = []
    for device_id, attribute, value in found:
        if attribute not in wants:
            wants[attribute] = _wanted(clause.attribute, attribute, expected)
        (matching if _same_state(value, wants[attribute]) else others).append(device_id)
    attribute = found[0][1]
    word = state_word(attribute, wants[attribute])
    other_word = state_word(attribute, not wants[attribute])
    noun = noun_of(clause)
    listing = _listing(draft, matching)
    none = say("answer.count_none", noun=noun, state=word)
    if clause.question == "count":
        if not matching:
            return none
        return say("answer.count_some", count=len(matching), noun=noun, state=word, listing=listing)
    if clause.question == "which":
        return say("answer.which", listing=listing, state=word) if matching else none
    if clause.question == "any":
        if matching:
            return say("answer.any_yes", listing=listing, state=word)
        return say("answer.any_no", noun=noun, state=other_word)
    # all / yes_no: every device asked about is in the state asked about
    if not others:
        return say(
            "answer.all_yes_many" if len(matching) > 1 else "answer.all_yes",
            listing=listing,
            state=word,
        )
    if isinstance(expected, str):  # 扫地机器人在扫吗: a "no" says the status each is in
        read = {d: v for d, _, v in found}
        states = [f"{_listing(draft, [d])}{state_word(attribute, read[d])}" for d in others]
        return say("answer.status_no", states=states)
    return say("answer.all_no", listing=_listing(draft, others), state=other_word)


def _listing(draft: Draft, devices: Sequence[str]) -> str:
    """Up to four names; more are counted, not read out."""
    listed = list(dict.fromkeys(devices))
    if len(listed) > 4:
        return say("names.some", names=_names(draft, listed[:3]), count=len(listed))
    return say("names.listed", names=_names(draft, listed))


def _names(draft: Draft, devices: Sequence[str]) -> list[str]:
    return [shown(draft.ctx.home.device(d).name) for d in devices]


def noun_of(clause: Clause) -> str:
    """What the clause called its devices: its type word or name, else 设备."""
    target = clause.target
    if target is None:
        return say("word.device")
    return target.type_word or (shown(target.name.said) if target.name else say("word.device"))


def _wanted(asked: str | None, read: str, expected: Any) -> Any:
    """The state a question asks about, in the attribute actually read: 门关好了吗 asks
    about on/open, and a lock that is closed is locked."""
    if read == "locked" and asked != "locked":
        return not expected
    return expected


def _same_state(read: Any, wanted: Any) -> bool:
    """Whether a device is in the state asked about: a status (cleaning, docked) must be that
    status; anything else compares as on/off."""
    if isinstance(wanted, str) or isinstance(read, str):
        return bool(read == wanted)
    return in_state(read) == in_state(wanted)
