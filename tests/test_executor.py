"""Unit tests of planning and the simulated hub: steps, clamps, ranges, faults."""

from __future__ import annotations

import pytest

from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.home import Home
from jiayu.ir import Clause, Command, Value
from jiayu.planner.plan import Refusal, plan


def _plan(
    home: Home,
    device: str,
    value: Value,
    read: dict[str, object] | None = None,
    action: str = "set",
) -> Command | Refusal:
    return plan(Clause(action, value=value), home.device(device), read)  # type: ignore[arg-type]


def test_a_relative_brightness_change_steps_ten_from_the_live_value(demo_home: Home) -> None:
    cmd = _plan(
        demo_home,
        "light_living",
        Value("relative", "brightness", direction=1),
        {"brightness": 45},
        "adjust",
    )
    assert cmd == Command("light_living", "set_brightness", {"value": 55})


def test_a_relative_change_clamps_to_the_device_limit(demo_home: Home) -> None:
    cmd = _plan(
        demo_home,
        "light_kids_night",
        Value("relative", "brightness", direction=1),
        {"brightness": 28},
        "adjust",
    )
    assert cmd == Command("light_kids_night", "set_brightness", {"value": 30})


def test_warmer_is_lower_kelvin_on_a_light_and_a_higher_set_point_on_an_ac(
    demo_home: Home,
) -> None:
    warmer = Value("relative", warmth=1)
    assert _plan(demo_home, "light_living", warmer, {"color_temp": 4000}, "adjust") == Command(
        "light_living", "set_color_temp", {"value": 3500}
    )
    assert _plan(demo_home, "ac_living", warmer, {"target_temperature": 24}, "adjust") == Command(
        "ac_living", "set_temperature", {"value": 25}
    )


@pytest.mark.parametrize(
    ("number", "speed"),
    [(1, "low"), (33, "low"), (34, "medium"), (66, "medium"), (67, "high"), (100, "high")],
)
def test_a_fan_speed_said_as_a_number_maps_to_a_level(
    demo_home: Home, number: int, speed: str
) -> None:
    cmd = _plan(demo_home, "fan_living", Value("absolute", "fan_speed", float(number)))
    assert cmd == Command("fan_living", "set_fan_speed", {"speed": speed})


def test_fan_speed_steps_treat_auto_as_medium(demo_home: Home) -> None:
    cmd = _plan(
        demo_home,
        "ac_living",
        Value("relative", "fan_speed", direction=1),
        {"fan_speed": "auto"},
        "adjust",
    )
    assert cmd == Command("ac_living", "set_fan_speed", {"speed": "high"})


def test_an_absolute_value_out_of_range_is_refused_with_the_range_not_clamped(
    demo_home: Home,
) -> None:
    refusal = _plan(demo_home, "ac_master", Value("absolute", "target_temperature", 29.0))
    assert isinstance(refusal, Refusal)
    assert "17到28度" in refusal.reason


def test_an_extreme_goes_to_the_limit(demo_home: Home) -> None:
    cmd = _plan(demo_home, "ac_kids", Value("extreme", "target_temperature", direction=-1))
    assert cmd == Command("ac_kids", "set_temperature", {"value": 20})


def test_a_capability_the_device_lacks_is_refused(demo_home: Home) -> None:
    refusal = _plan(demo_home, "lamp_living_old", Value("absolute", "brightness", 50.0))
    assert isinstance(refusal, Refusal)
    assert "老伙计" in refusal.reason


def test_the_simulated_hub_applies_commands_to_its_state(demo_home: Home) -> None:
    hub = SimulatedHub(demo_home, {"curtain_master": {"position": 0}})
    hub.send("curtain_master", "set_position", {"value": 40})
    assert hub.read("curtain_master")["position"] == 40
    assert hub.sent == [("curtain_master", "set_position", {"value": 40})]


@pytest.mark.parametrize("fault", ["offline", "timeout", "refused"])
def test_the_simulated_hub_fails_on_demand_and_heals(demo_home: Home, fault: str) -> None:
    hub = SimulatedHub(demo_home)
    hub.fail("tv_living", fault)  # type: ignore[arg-type]
    with pytest.raises(HubError) as err:
        hub.send("tv_living", "turn_on", {})
    assert err.value.reason == fault
    hub.fail("tv_living", None)
    hub.send("tv_living", "turn_on", {})
    assert hub.read("tv_living")["on"] is True


def test_reads_are_copies_so_callers_cannot_change_the_hub(demo_home: Home) -> None:
    hub = SimulatedHub(demo_home)
    state = dict(hub.read("light_living"))
    state["on"] = "broken"
    assert hub.read("light_living")["on"] in (True, False)
