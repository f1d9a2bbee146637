"""The capability catalog: params schemas per device, state checks, and what commands change."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jiayu.catalog import (
    CAPABILITIES,
    COMMANDS,
    HIGH_RISK,
    LIMIT_KEYS,
    STATE_ATTRIBUTES,
    apply_command,
    params_error,
    params_validator,
    state_error,
    supports,
    value_range,
)
from jiayu.home import Device, Home, load_home
from jiayu.jsonfile import Schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "jiayu" / "schemas"


@cache
def demo() -> Home:
    return load_home(ROOT / "corpus" / "homes" / "demo.json")


def device(device_id: str) -> Device:
    return demo().device(device_id)


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return loaded


MODES = "cool, heat, dry, fan, auto"
SPEEDS = "low, medium, high, auto"


@pytest.mark.parametrize(
    ("device_id", "command", "params", "error"),
    [
        ("light_living", "set_brightness", {"value": 0}, None),
        ("light_living", "set_brightness", {"value": 100}, None),
        ("light_living", "set_brightness", {"value": 101}, "value 101 is not within 0–100"),
        ("light_living", "set_brightness", {"value": -1}, "value -1 is not within 0–100"),
        ("light_living", "set_brightness", {"value": "50"}, 'value "50" is not an integer'),
        ("light_living", "set_brightness", {"value": 50.5}, "value 50.5 is not an integer"),
        ("light_living", "set_brightness", {"value": True}, "value true is not an integer"),
        ("light_kids_night", "set_brightness", {"value": 31}, "value 31 is not within 1–30"),
        ("ac_living", "set_temperature", {"value": 26.5}, None),
        ("ac_living", "set_temperature", {"value": 31}, "value 31 is not within 16–30"),
        ("ac_master", "set_temperature", {"value": 29}, "value 29 is not within 17–28"),
        ("ac_master", "set_temperature", {"value": 17}, None),
        ("ac_master", "set_temperature", {"value": 16.5}, "value 16.5 is not within 17–28"),
        ("heater_water", "set_temperature", {"value": 60}, None),
        ("light_living", "set_color_temp", {"value": 2700}, None),
        ("light_living", "set_color_temp", {"value": 2000}, "value 2000 is not within 2700–6500"),
        ("lamp_study", "set_color_temp", {"value": 6000}, "value 6000 is not within 3000–5700"),
        ("ac_living", "set_mode", {"mode": "cool"}, None),
        (
            "ac_living",
            "set_mode",
            {"mode": "warm"},
            f'mode "warm" is not one of the modes: {MODES}',
        ),
        ("fan_living", "set_fan_speed", {"speed": "high"}, None),
        (
            "fan_living",
            "set_fan_speed",
            {"speed": 3},
            f"speed 3 is not one of the fan speeds: {SPEEDS}",
        ),
        ("curtain_living", "set_position", {"value": 30}, None),
        ("speaker_kids", "set_volume", {"value": 90}, "value 90 is not within 0–80"),
        ("light_living", "set_brightness", {"value": 50, "fade": 2}, 'unknown key "fade"'),
        ("light_living", "set_brightness", {}, 'missing required key "value"'),
        ("light_living", "turn_on", {}, None),
        ("light_living", "turn_on", {"x": 1}, 'unknown key "x"'),
        ("light_living", "turn_on", [], "[] is not an object"),
        ("lock_front", "unlock", {}, None),
        (
            "plug_kitchen",
            "set_brightness",
            {"value": 50},
            '"set_brightness" needs capability "brightness", which device "plug_kitchen" lacks',
        ),
        (
            "sensor_living",
            "turn_on",
            {},
            '"turn_on" needs capability "onoff", which device "sensor_living" lacks',
        ),
        ("light_living", "explode", {}, 'unknown command "explode"'),
    ],
)
def test_params_are_checked_against_the_devices_schema(
    device_id: str, command: str, params: object, error: str | None
) -> None:
    assert params_error(device(device_id), command, params) == error


def test_every_params_error_is_reported_on_one_line() -> None:
    error = params_error(device("light_living"), "set_brightness", {"value": 101, "x": 1})
    assert error == 'value 101 is not within 0–100; unknown key "x"'


@pytest.mark.parametrize(
    ("device_id", "command", "expected"),
    [
        ("light_living", "set_brightness", (0, 100)),
        ("light_kids_night", "set_brightness", (1, 30)),
        ("ac_master", "set_temperature", (17, 28)),
        # Limits replace the default range, they can widen it too: a water heater goes to 75.
        ("heater_water", "set_temperature", (35, 75)),
        ("light_living", "set_color_temp", (2700, 6500)),
        ("curtain_living", "set_position", (0, 100)),
        ("light_living", "turn_on", None),
        ("ac_living", "set_mode", None),
    ],
)
def test_value_range_is_the_devices_limit_or_the_default(
    device_id: str, command: str, expected: tuple[float, float] | None
) -> None:
    assert value_range(device(device_id), command) == expected


def test_value_range_of_an_unknown_command_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        value_range(device("light_living"), "explode")


@pytest.mark.parametrize(
    ("device_id", "command", "expected"),
    [
        ("light_living", "set_brightness", True),
        ("plug_kitchen", "set_brightness", False),
        ("plug_living_lamp", "turn_on", True),
        ("lock_front", "unlock", True),
        ("lock_front", "turn_on", False),
        ("sensor_living", "turn_on", False),
        ("light_living", "explode", False),
    ],
)
def test_supports_follows_capabilities_not_type(
    device_id: str, command: str, expected: bool
) -> None:
    assert supports(device(device_id), command) is expected


def test_validators_are_compiled_once_per_command_and_range() -> None:
    first = params_validator(device("light_living"), "set_brightness")
    assert params_validator(device("light_living"), "set_brightness") is first
    # Same range, other device: still the same compiled validator.
    assert params_validator(device("light_dining"), "set_brightness") is first
    assert params_validator(device("light_kids_night"), "set_brightness") is not first
    assert params_validator(device("ac_living"), "set_temperature") is not params_validator(
        device("ac_master"), "set_temperature"
    )


@pytest.mark.parametrize(
    ("device_id", "attribute", "value", "error"),
    [
        ("light_living", "on", True, None),
        ("light_living", "on", "yes", '"yes" is not a boolean'),
        ("light_living", "brightness", 100, None),
        ("light_living", "brightness", 101, "101 is not within 0–100"),
        ("light_kids_night", "brightness", 31, "31 is not within 1–30"),
        ("light_living", "color_temp", 2000, "2000 is not within 2700–6500"),
        ("ac_master", "target_temperature", 28.5, "28.5 is not within 17–28"),
        ("ac_living", "mode", "warm", f'"warm" is not one of the modes: {MODES}'),
        ("ac_living", "fan_speed", "auto", None),
        ("curtain_living", "position", 50, None),
        ("lock_front", "locked", False, None),
        ("valve_gas", "open", 1, "1 is not a boolean"),
        ("tv_living", "volume", 30, None),
        ("tv_living", "muted", False, None),
        ("tv_living", "playing", True, None),
        ("sensor_living", "temperature", -5.5, None),
        ("sensor_living", "temperature", "hot", '"hot" is not a number'),
        ("sensor_living", "humidity", 120, "120 is not within 0–100"),
        ("sensor_living_lux", "illuminance", -1, "-1 is less than 0"),
        ("plug_kitchen", "brightness", 50, 'attribute "brightness" needs capability "brightness"'),
        ("light_living", "colour", "white", 'unknown attribute "colour"'),
    ],
)
def test_state_values_are_checked_against_capabilities_and_limits(
    device_id: str, attribute: str, value: object, error: str | None
) -> None:
    assert state_error(device(device_id), attribute, value) == error


@pytest.mark.parametrize(
    ("command", "params", "before", "after"),
    [
        ("turn_on", {}, {"on": False}, {"on": True}),
        ("turn_off", {}, {"on": True}, {"on": False}),
        (
            "set_brightness",
            {"value": 40},
            {"on": False, "brightness": 80},
            {"on": True, "brightness": 40},
        ),
        (
            "set_color_temp",
            {"value": 3000},
            {"on": False, "color_temp": 4000},
            {"on": False, "color_temp": 3000},
        ),
        (
            "set_temperature",
            {"value": 26.5},
            {"target_temperature": 24},
            {"target_temperature": 26.5},
        ),
        ("set_mode", {"mode": "heat"}, {"mode": "cool"}, {"mode": "heat"}),
        ("set_fan_speed", {"speed": "high"}, {"fan_speed": "low"}, {"fan_speed": "high"}),
        ("open", {}, {"position": 0}, {"position": 100}),
        ("close", {}, {"position": 60}, {"position": 0}),
        ("stop", {}, {"position": 60}, {"position": 60}),
        ("set_position", {"value": 30}, {"position": 0}, {"position": 30}),
        ("lock", {}, {"locked": False}, {"locked": True}),
        ("unlock", {}, {"locked": True}, {"locked": False}),
        ("open_valve", {}, {"open": False}, {"open": True}),
        ("close_valve", {}, {"open": True}, {"open": False}),
        (
            "set_volume",
            {"value": 20},
            {"volume": 50, "muted": True},
            {"volume": 20, "muted": False},
        ),
        ("mute", {}, {"muted": False}, {"muted": True}),
        ("unmute", {}, {"muted": True}, {"muted": False}),
        ("play", {}, {"playing": False}, {"playing": True}),
        ("pause", {}, {"playing": True}, {"playing": False}),
        ("next_track", {}, {"playing": False}, {"playing": True}),
        ("previous_track", {}, {"playing": False}, {"playing": True}),
    ],
)
def test_apply_command_changes_state_as_the_simulated_hub_does(
    command: str, params: dict[str, Any], before: dict[str, Any], after: dict[str, Any]
) -> None:
    assert apply_command(before, command, params) == after


def test_apply_command_leaves_other_attributes_and_the_old_state_alone() -> None:
    before = {"on": True, "volume": 30, "muted": False, "playing": False}
    assert apply_command(before, "play", {}) == {**before, "playing": True}
    assert before["playing"] is False


def test_every_command_belongs_to_one_capability_and_is_covered() -> None:
    listed = [name for commands in CAPABILITIES.values() for name in commands]
    assert sorted(listed) == sorted(COMMANDS)
    assert len(CAPABILITIES) == 21
    assert CAPABILITIES["onoff"] == ("turn_on", "turn_off")
    assert CAPABILITIES["temperature_sensor"] == ()
    assert set(STATE_ATTRIBUTES.values()) <= set(CAPABILITIES)
    assert set(COMMANDS) >= HIGH_RISK


def test_limit_keys_name_the_capability_they_narrow() -> None:
    assert dict(LIMIT_KEYS) == {
        "brightness": "brightness",
        "color_temp": "color_temp",
        "target_temperature": "target_temperature",
        "position": "cover",
        "volume": "volume",
        "target_humidity": "target_humidity",
        "tilt": "tilt",
    }


def test_every_commands_base_schema_is_a_valid_schema() -> None:
    for spec in COMMANDS.values():
        Draft202012Validator.check_schema(spec.params_schema)


def test_shipped_schemas_are_valid_and_agree_with_the_catalog() -> None:
    home, case, result = (schema(f"{n}.schema.json") for n in ("home", "case", "result"))
    for loaded in (home, case, result):
        Draft202012Validator.check_schema(loaded)
    assert home["$defs"]["command"]["enum"] == list(COMMANDS)
    assert case["$defs"]["command"]["enum"] == list(COMMANDS)
    assert result["$defs"]["command"]["enum"] == list(COMMANDS)
    assert home["$defs"]["capability"]["enum"] == list(CAPABILITIES)
    assert set(home["$defs"]["device"]["properties"]["limits"]["properties"]) == set(LIMIT_KEYS)
    assert case["$defs"]["attribute"]["enum"] == list(STATE_ATTRIBUTES)
    answer = result["properties"]["answers"]["items"]["properties"]["attribute"]
    assert answer["enum"] == list(STATE_ATTRIBUTES)
    types = home["$defs"]["type"]["enum"]
    assert case["$defs"]["compact"]["properties"]["t"]["enum"] == types
    assert result["$defs"]["compact"] == case["$defs"]["compact"]


def test_the_contracts_examples_fit_the_case_and_result_schemas() -> None:
    case = {
        "id": "excl-001",
        "home": "homes/demo.json",
        "text": "打开除卧室以外所有的灯",
        "history": ["把卧室灯打开"],
        "state": {"light_living": {"on": False}},
        "expect": {
            "outcome": "executed",
            "commands": [{"device": "light_living", "command": "turn_on"}],
        },
        "tags": ["exclusion", "quantifier"],
    }
    result = {
        "text": "打开除卧室以外所有的灯",
        "outcome": "executed",
        "commands": [{"device": "light_living", "command": "turn_on", "params": {}}],
        "answers": [],
        "options": [],
        "reply": "好的，已打开 5 盏灯",
        "source": "grammar",
        "compact": [{"a": "打开", "s": "*,!卧室", "n": "灯", "t": "Light", "q": "all"}],
        "ir": {},
    }
    assert list(Draft202012Validator(schema("case.schema.json")).iter_errors(case)) == []
    assert list(Draft202012Validator(schema("result.schema.json")).iter_errors(result)) == []


@pytest.mark.parametrize(
    ("change", "valid"),
    [
        ({"expect": {"outcome": ["clarify", "rejected"]}}, True),
        ({"expect": {"outcome": []}}, False),
        ({"expect": {"outcome": "maybe"}}, False),
        ({"expect": {"outcome": ["executed", "maybe"]}}, False),
        ({"expect": {"outcome": 3}}, False),
        ({"expect": {"outcome": "answered", "reply_contains": "26"}}, True),
        ({"expect": {"outcome": "executed", "compact": [{"a": "打开", "s": "*"}]}}, False),
        ({"expect": {"outcome": "executed", "extra": 1}}, False),
        ({"note": "why this case exists"}, True),
        ({"colour": "red"}, False),
    ],
)
def test_case_schema_accepts_and_refuses(change: dict[str, Any], valid: bool) -> None:
    case = {"id": "c1", "home": "homes/demo.json", "text": "开灯", "expect": {"outcome": "clarify"}}
    assert Draft202012Validator(schema("case.schema.json")).is_valid({**case, **change}) is valid


_PARAM_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 10000),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1000, max_value=10000),
    st.sampled_from(["cool", "heat", "low", "high", "auto", "medium", "x", ""]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(COMMANDS)),
    st.sampled_from([None, (16.0, 30.0), (1.0, 30.0), (2700.0, 6500.0)]),
    st.dictionaries(st.sampled_from(["value", "mode", "speed", "x"]), _PARAM_VALUES, max_size=3),
)
def test_the_fast_params_check_agrees_with_jsonschema(
    command: str, bounds: tuple[float, float] | None, params: dict[str, object]
) -> None:
    # Commands are validated by a check compiled from the schema; jsonschema only explains.
    schema = dict(COMMANDS[command].params_schema)
    if bounds is not None and "value" in schema.get("properties", {}):
        value = {**schema["properties"]["value"], "minimum": bounds[0], "maximum": bounds[1]}
        schema = {**schema, "properties": {"value": value}}
    fast = Schema(schema).valid(params)
    assert fast == Draft202012Validator(schema).is_valid(params)
