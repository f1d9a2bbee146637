"""Readings are distrusted where they enter the planner (Draft.states): a value the device
cannot have — NaN, infinity, a word where a number is due, a number out of the catalog's
range for it — is unreadable, said, and never computed with. Each attribute kind the planner
reads (a percentage, a set point, a position, a volume, a sensor in a condition, a query)
with each kind of bad value."""

from __future__ import annotations

import math
from typing import Any

import pytest

from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home
from jiayu.planner.readings import trusted

BAD = [math.nan, math.inf, -math.inf, "abc", 1e9]
"""Not a number, not finite, a word, out of every range below."""


def _turn(home: Home, text: str, state: dict[str, dict[str, Any]]) -> Any:
    engine = Engine(home, hub=SimulatedHub(home, state))
    return engine, engine.turn(text)


@pytest.mark.parametrize("bad", BAD, ids=repr)
@pytest.mark.parametrize(
    ("text", "device", "attribute", "extra"),
    [
        ("把客厅灯调亮一点", "light_living", "brightness", {"on": True}),
        ("把客厅空调调高一度", "ac_living", "target_temperature", {"on": True}),
        ("把客厅窗帘开大一点", "curtain_living", "position", {}),
        ("把客厅电视音量调大一点", "tv_living", "volume", {"on": True}),
        ("客厅风扇调快一点", "fan_living", "fan_speed", {"on": True}),
        ("把客厅灯调暖一点", "light_living", "color_temp", {"on": True}),
    ],
)
def test_a_bad_reading_is_unreadable_and_nothing_is_sent(
    demo_home: Home, text: str, device: str, attribute: str, extra: dict[str, Any], bad: Any
) -> None:
    engine, result = _turn(demo_home, text, {device: {**extra, attribute: bad}})
    assert result.outcome == "rejected", result.reply
    assert result.commands == [], result.reply
    assert engine.hub.sent == []
    assert "读不到" in result.reply and "nan" not in result.reply.casefold()


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_condition_on_a_bad_reading_does_nothing(demo_home: Home, bad: Any) -> None:
    engine, result = _turn(
        demo_home, "如果客厅温度超过26度就打开客厅空调", {"sensor_living": {"temperature": bad}}
    )
    if isinstance(bad, float) and math.isfinite(bad):
        # A thermometer has no range in the catalog: 1e9 degrees is a number it can report.
        return
    assert result.commands == [] and engine.hub.sent == [], result.reply
    assert result.outcome == "rejected", result.reply


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_query_of_a_bad_reading_never_says_it(demo_home: Home, bad: Any) -> None:
    _engine, result = _turn(
        demo_home, "客厅灯亮度多少", {"light_living": {"on": True, "brightness": bad}}
    )
    assert "nan" not in result.reply.casefold() and "inf" not in result.reply.casefold()
    assert all(a["value"] is None for a in result.answers), result.answers


def test_a_good_reading_is_kept_whole(demo_home: Home) -> None:
    light = demo_home.device("light_living")
    state = {"on": True, "brightness": 40, "vendor_extra": "x"}
    assert trusted(light, state) == state
    assert trusted(light, {"on": "yes", "brightness": math.nan}) == {}


def test_a_number_is_no_on_off_state_even_after_a_true_one(demo_home: Home) -> None:
    light = demo_home.device("light_living")
    assert trusted(light, {"on": True}) == {"on": True}
    assert trusted(light, {"on": 1}) == {}
