"""A loaded home's devices share one object per equal capability set, acts_as set and kind, so
the catalog's remembered checks and the planner's readings find a kind by identity; and a
device's `kind` is made with it, so a device changed by `dataclasses.replace` has the kind of
what it now is."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from jiayu.home import load_home

DEMO = Path(__file__).resolve().parent.parent / "corpus" / "homes" / "demo.json"


def test_equal_sets_are_one_object_and_kinds_follow_them() -> None:
    home = load_home(DEMO)
    raw = {d["id"]: d for d in json.loads(DEMO.read_text("utf-8"))["devices"]}
    alike = 0
    for first in home.devices:
        for other in home.devices:
            if set(raw[first.id]["capabilities"]) == set(raw[other.id]["capabilities"]):
                assert first.capabilities is other.capabilities
                alike += first is not other
            if first.acts_as == other.acts_as:
                assert first.acts_as is other.acts_as
            if first.kind == other.kind:
                assert first.kind is other.kind
            assert first.kind[0] is first.capabilities and first.kind[-1] is first.acts_as
    assert alike  # the demo home has devices alike, or this test proves nothing


def test_a_replaced_device_has_its_own_kind() -> None:
    device = load_home(DEMO).devices[0]
    assert replace(device).kind == device.kind
    other = replace(device, type="Other", capabilities=frozenset({"cover"}))
    assert other.kind == (
        frozenset({"cover"}),
        device.kind[1],
        device.presets,
        "Other",
        device.acts_as,
    )
    assert other == replace(device, type="Other", capabilities=frozenset({"cover"}))
    assert "kind" not in repr(device)
