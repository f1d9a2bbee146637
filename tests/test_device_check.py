"""`catalog.check` remembers a passed check by the command, the device's `kind` and the params'
key: the kind must hold everything `params_error` and `is_high_risk` read of a device but its
id. Property: for any device and its neighbours (each differing from it in one part), and
commands with params of every JSON type, each check, made afresh or remembered, is exactly
`params_error`'s reason, else `is_high_risk`'s answer."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.catalog import COMMANDS, check, is_high_risk, params_error
from jiayu.home import Device, Limit

CAPABILITIES = (
    frozenset({"onoff", "brightness", "preset"}),
    frozenset({"onoff", "brightness", "color", "preset"}),
    frozenset({"cover"}),
    frozenset({"lock", "onoff"}),
    frozenset({"valve", "hvac_mode"}),
)
"""A few sets, so that devices often share one and differ in another part."""

PARTS: dict[str, tuple[Any, ...]] = {
    "id": ("a", "b"),
    "capabilities": CAPABILITIES,
    "limits": tuple(
        MappingProxyType(limits)
        for limits in (
            {},
            {"brightness": Limit(10, 60)},
            {"brightness": Limit(10.0, 60.0)},
            {"position": Limit(10, 60)},
        )
    ),
    "presets": ((), ("睡眠",), ("睡眠", "自然")),
    "type": ("Light", "Lock", "Valve", "Cover", "GarageDoor"),
    "acts_as": (frozenset(), frozenset({"Lock"}), frozenset({"GarageDoor", "Light"})),
}
"""A few values of each part of a device a check might read."""
devices = st.builds(
    lambda **parts: Device(name="灯", aliases=(), room="room", state=MappingProxyType({}), **parts),
    **{part: st.sampled_from(values) for part, values in PARTS.items()},
)
scalars = st.sampled_from((0, 70, 50.0, -5, True, None, "cool", "睡眠", ""))
OWN_VALUES = {"preset": ("睡眠", "自然"), "mode": ("cool", "sleep"), "value": (70, 0, -5)}
"""Values a command's own param is often given, some fitting some devices only."""
junk = st.one_of(
    st.dictionaries(st.sampled_from(("value", "hue", "saturation", "x")), scalars, max_size=2),
    st.sampled_from(({"value": [50]}, {1: 50}, MappingProxyType({"value": 50}), None)),
)
commands = st.one_of(
    st.sampled_from(("turn_on", "set_brightness", "set_position", "set_preset", "set_mode")),
    st.sampled_from((*COMMANDS, "explode")),
)
"""Mostly commands whose check reads a part of the device, then any."""


@st.composite
def sent(draw: st.DrawFn) -> tuple[str, Any]:
    """A command and params: mostly none or its own param, else anything."""
    command = draw(commands)
    spec = COMMANDS.get(command)
    param = spec.writes[0] if spec is not None and spec.writes is not None else "value"
    values = st.sampled_from(OWN_VALUES.get(param, ("",))) | scalars
    params = draw(st.one_of(st.just({}), values.map(lambda v: {param: v}), junk))
    return command, params


def neighbours(device: Device) -> list[Device]:
    """The device and every device that differs from it in one part: each shares its kind
    exactly when the kind deems that part irrelevant, which is what is under test."""
    return [device] + [
        replace(device, **{part: value}) for part, values in PARTS.items() for value in values
    ]


@settings(max_examples=500, deadline=None)
@given(devices, sent())
def test_a_check_is_the_checks_asked_afresh(first: Device, said: tuple[str, Any]) -> None:
    command, given_params = said
    for device in neighbours(first):
        for _ in range(2):  # checked, then remembered
            error = params_error(device, command, given_params)
            expected = error if error is not None else is_high_risk(device, command, given_params)
            assert check(device, command, given_params) == expected
