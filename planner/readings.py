"""Readings as the planner trusts them: a hub's state is checked where it enters a turn, and
an attribute whose value the device could not have (NaN or infinity, a word where a number
is due, a number out of the catalog's range for this device) is left out, so everything
after it sees that attribute as unreadable, said as such, and never computes with it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from jiayu.catalog import has_attribute, state_error
from jiayu.home import Device

_SIZE = 4096
_KEPT: dict[tuple[object, ...], dict[str, Any]] = {}
"""What is kept of a state, by the device's kind (all `state_error` reads of a device) and the
state's items and their types: a whole-home read repeats a few states on thousands of
devices."""


def trusted(device: Device, state: Mapping[str, Any]) -> dict[str, Any]:
    """The state (a new dict) with every attribute the device cannot have at that value left
    out."""
    try:
        # With the types: 1, 1.0 and True are equal keys, but only True is an on/off state.
        key = (device.kind, *state.items(), *map(type, state.values()))
        kept = _KEPT.get(key)
    except TypeError:  # a value that is no key (a colour's object): judged every time
        return _kept(device, state)
    if kept is None:
        if len(_KEPT) >= _SIZE:
            _KEPT.clear()  # bounded; refilled by the next reads
        kept = _KEPT[key] = _kept(device, state)
    return dict(kept)


def _kept(device: Device, state: Mapping[str, Any]) -> dict[str, Any]:
    return {a: v for a, v in state.items() if _trusted(device, a, v)}


def _trusted(device: Device, attribute: str, value: object) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return False  # NaN passes a JSON Schema's bounds: every comparison with it is false
    if not has_attribute(device.capabilities, attribute):
        return True  # not a state the catalog gives this device: nothing plans with it
    if isinstance(value, Mapping) and any(
        isinstance(v, float) and not math.isfinite(v) for v in value.values()
    ):
        return False
    return state_error(device, attribute, value) is None
