"""Conditions (如果客厅温度超过26度就…): which sensors a condition reads, and whether it holds
against a fresh read. Checked once, when the turn runs (or when its schedule fires)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jiayu.actions import reading_attribute
from jiayu.compiler.understand import said_words
from jiayu.grammar.phrases import say
from jiayu.ir import Clause, Condition, Target
from jiayu.planner.draft import Draft
from jiayu.planner.replies import in_state, reading_phrase, state_word
from jiayu.resolver.resolve import Found

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}


def holds(draft: Draft, condition: Condition | None, focus: Sequence[str]) -> bool:
    """Check a condition once against a fresh read; False records why."""
    if condition is None:
        return True
    if condition.op == "==":
        return _state_holds(draft, condition)
    found = sources(draft, condition, focus)
    if found is None:
        draft.say("rejected", say("refuse.where_to_read", attribute=condition.attribute))
        return False
    return _check(
        draft,
        found,
        condition.attribute,
        condition.op,
        condition.number,
        place_words(condition.subject),
    )


def guard_holds(draft: Draft, guard: Mapping[str, Any]) -> bool:
    """A schedule's kept condition (see `guard`), checked when it fires."""
    found = [d for d in guard.get("sources", ()) if draft.ctx.home.has_device(d)]
    return _check(
        draft, found, guard["attribute"], guard["op"], float(guard["number"]), guard["where"]
    )


def guard(draft: Draft, condition: Condition, focus: Sequence[str]) -> dict[str, Any]:
    """A condition kept with a schedule: which sensors to read and what to compare, so it is
    checked against fresh reads when the schedule fires (even after a restart)."""
    return {
        "sources": sources(draft, condition, focus) or [],
        "attribute": condition.attribute,
        "op": condition.op,
        "number": condition.number,
        "where": place_words(condition.subject),
    }


def sources(draft: Draft, condition: Condition, focus: Sequence[str]) -> list[str] | None:
    """The devices whose reading a condition compares; None when no place is known."""
    home = draft.ctx.home
    if condition.subject is None:
        room = (
            focus[-1]
            if focus
            else draft.ctx.area or next(iter(draft.ctx.session.recent_rooms), None)
        )
        if room is None:
            return None
        return [
            d.id
            for d in home.devices_in_room(room)
            if reading_attribute(d, condition.attribute) == condition.attribute
        ]
    resolution = draft.resolve(
        Clause("query", _as_set(condition.subject), attribute=condition.attribute)
    )
    found = list(resolution.devices) if isinstance(resolution, Found) else []
    return [
        d
        for d in found
        if reading_attribute(home.device(d), condition.attribute) == condition.attribute
    ]


def _check(
    draft: Draft, devices: Sequence[str], attribute: str, op: str, number: float, where: str
) -> bool:
    """Whether the devices' readings pass the comparison; the reply says what was read."""
    values: list[float] = []
    for got in draft.states(devices).values():
        value = got.get(attribute) if isinstance(got, Mapping) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values.append(float(value))
    if not values:
        draft.say("rejected", say("refuse.unread_condition", where=where, attribute=attribute))
        return False
    reading = sum(values) / len(values)
    phrase = reading_phrase(where, attribute, reading)
    if not _OPS[op](reading, number):
        threshold = reading_phrase("", attribute, number)
        draft.say("noop", say("refuse.condition_unmet", reading=phrase, op=op, threshold=threshold))
        return False
    draft.parts.append(phrase)
    return True


def _state_holds(draft: Draft, condition: Condition) -> bool:
    """A condition on a device's own state (要是后门还没锁): every device it names is read
    fresh, and it holds when each is in the state said; the reply says what was read."""
    assert condition.subject is not None  # the grammar reads one device
    resolution = draft.resolve(Clause("query", condition.subject, attribute=condition.attribute))
    home = draft.ctx.home
    read = {
        d: attribute
        for d in (resolution.devices if isinstance(resolution, Found) else ())
        if (attribute := reading_attribute(home.device(d), condition.attribute)) is not None
    }
    where = place_words(condition.subject)
    if not read:
        draft.say("rejected", say("refuse.unread_condition", where=where, attribute="state"))
        return False
    wanted = condition.number > 0
    states = draft.states(list(read))
    attribute = next(iter(read.values()))
    for device, attr in read.items():
        got = states.get(device)
        value = got.get(attr) if isinstance(got, Mapping) else None
        if value is None:
            draft.say("rejected", say("refuse.unread_condition", where=where, attribute=attr))
            return False
        if in_state(value) != wanted:
            shown = say("reading.state", where=where, state=state_word(attr, value))
            draft.say("noop", say("refuse.state_unmet", reading=shown))
            return False
    draft.parts.append(say("reading.state", where=where, state=state_word(attribute, wanted)))
    return True


def place_words(target: Target | None) -> str:
    """The words that named a place (and what in it), for a reply; 这里 when none."""
    return (said_words(target) if target is not None else "") or say("word.here")


def _as_set(target: Target) -> Target:
    # A condition reads every sensor of the place, not one of them.
    if target.places and not target.name and not target.type_word:
        return Target(places=target.places, quantifier="all")
    return target
