"""Readings as the planner trusts them: a hub's state is checked where it enters a turn, and
an attribute whose value the device could not have (NaN or infinity, a word where a number
is due, a number out of the catalog's range for this device) is left out, so everything
after it sees that attribute as unreadable, said as such, and never computes with it."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

from jiayu.catalog import has_attribute, state_error
from jiayu.home import Device

_SIZE = 4096
_CHECKED: dict[tuple[object, ...], bool] = {}
"""Whether a reading is trusted, by the device's kind (all `state_error` reads of it), the
attribute, the value's type and the value: a whole-home read repeats a few states."""


def trusted(device: Device, state: Mapping[str, Any]) -> dict[str, Any]:
    """The state with every attribute the device cannot have at that value left out."""
    kept: dict[str, Any] = {}
    for attribute, value in state.items():
        if _trusted(device, attribute, value):
            kept[attribute] = value
    return kept


def _trusted(device: Device, attribute: str, value: object) -> bool:
    if isinstance(value, float) and not math.isfinite(value):
        return False  # NaN passes a JSON Schema's bounds: every comparison with it is false
    if not isinstance(value, Hashable) or isinstance(value, tuple):
        return _judged(device, attribute, value)  # a colour's object: judged each time
    key = (device.kind, attribute, type(value), value)
    known = _CHECKED.get(key)
    if known is None:
        if len(_CHECKED) >= _SIZE:
            _CHECKED.clear()  # bounded; refilled by the next reads
        known = _CHECKED[key] = _judged(device, attribute, value)
    return known


def _judged(device: Device, attribute: str, value: object) -> bool:
    if not has_attribute(device.capabilities, attribute):
        return True  # not a state the catalog gives this device: nothing plans with it
    if isinstance(value, Mapping) and any(
        isinstance(v, float) and not math.isfinite(v) for v in value.values()
    ):
        return False
    return state_error(device, attribute, value) is None
