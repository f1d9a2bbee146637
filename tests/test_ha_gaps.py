"""Home Assistant gaps a real instance showed: a tilt-only cover is not offered open/close
(HA refuses them), and a thermostat that takes only a low/high range gets a target
temperature (the range around it). The real-HA test drives both on HA's demo entities."""

from __future__ import annotations

from typing import Any

import pytest

from jiayu.executor.hubs.homeassistant import device_state, service_call
from jiayu.importers.ha import describe

# HA's ClimateEntityFeature and CoverEntityFeature bits.
TARGET, RANGE = 1, 2
OPEN, CLOSE, POSITION, STOP, OPEN_TILT, CLOSE_TILT, TILT_POSITION = 1, 2, 4, 8, 16, 32, 128
ECOBEE: dict[str, Any] = {
    "supported_features": RANGE | 8 | 128,
    "hvac_modes": ["heat_cool", "cool", "heat"],
    "target_temp_low": 21,
    "target_temp_high": 24,
    "min_temp": 7,
    "max_temp": 35,
}


@pytest.mark.parametrize(
    ("features", "offered"),
    [
        (OPEN_TILT | CLOSE_TILT | TILT_POSITION | 64, False),  # HA demo's pergola roof
        (OPEN | CLOSE | STOP, True),
        (POSITION, True),
        (OPEN | CLOSE | OPEN_TILT | CLOSE_TILT, True),
        (None, True),  # no features reported: HA's default cover opens and closes
    ],
)
def test_a_cover_is_offered_open_close_only_when_it_moves(
    features: int | None, offered: bool
) -> None:
    attributes = {} if features is None else {"supported_features": features}
    described = describe("cover.roof", attributes)
    assert (described is not None and "cover" in described["capabilities"]) is offered


def test_a_range_thermostat_gets_a_target_temperature() -> None:
    described = describe("climate.ecobee", ECOBEE)
    assert described is not None
    assert "target_temperature" in described["capabilities"]
    assert described["limits"]["target_temperature"] == {"min": 7, "max": 35}


@pytest.mark.parametrize(
    ("value", "attributes", "data"),
    [
        (26, ECOBEE, {"target_temp_low": 24.5, "target_temp_high": 27.5}),
        (34, ECOBEE, {"target_temp_low": 32.5, "target_temp_high": 35}),
        (20, {"supported_features": RANGE}, {"target_temp_low": 19, "target_temp_high": 21}),
    ],
)
def test_a_range_thermostat_is_set_to_the_range_around_the_target(
    value: float, attributes: dict[str, Any], data: dict[str, float]
) -> None:
    call = service_call("climate.ecobee", "set_temperature", {"value": value}, attributes)
    assert (call.domain, call.service, dict(call.data)) == ("climate", "set_temperature", data)


def test_a_thermostat_that_takes_a_target_is_given_one() -> None:
    both = {**ECOBEE, "supported_features": TARGET | RANGE, "temperature": 22}
    for attributes in (both, None):
        call = service_call("climate.ac", "set_temperature", {"value": 25}, attributes)
        assert dict(call.data) == {"temperature": 25}


def test_a_range_thermostat_reads_its_ranges_middle_as_its_target() -> None:
    assert device_state("climate.ecobee", "heat_cool", ECOBEE)["target_temperature"] == 22.5
    one = {**ECOBEE, "temperature": 20}
    assert device_state("climate.ecobee", "heat_cool", one)["target_temperature"] == 20
