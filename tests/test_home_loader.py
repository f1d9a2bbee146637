"""Loading a home: the demo home builds, and every kind of mistake is named with its place."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jiayu.errors import HomeError
from jiayu.home import Home, Limit, load_home, parse_home
from jiayu.jsonfile import load_schema

DEMO = Path(__file__).resolve().parents[1] / "corpus" / "homes" / "demo.json"
SCHEMA = Path(__file__).resolve().parents[1] / "jiayu" / "schemas" / "home.schema.json"

TYPES = (
    "AirConditioner, Blind, Charger, Fan, Hub, Light, NetworkAudio, Switch, Television, Washer,"
    " SmartPlug, Sensor, Lock, Valve, Heater, Humidifier, Purifier, Vacuum,"
    " Dehumidifier, WaterHeater, Dryer, GarageDoor, Unknown"
)
CAPABILITIES = (
    "onoff, brightness, color_temp, target_temperature, hvac_mode, fan_speed, cover, lock,"
    " valve, volume, media, color, oscillation, preset, target_humidity, tilt, vacuum, cycle,"
    " temperature_sensor, humidity_sensor, illuminance_sensor"
)


@cache
def demo_data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DEMO.read_text(encoding="utf-8"))
    return loaded


@cache
def demo() -> Home:
    return load_home(DEMO)


def problems(path: Path, mutate: Callable[[dict[str, Any]], object]) -> list[str]:
    """The lines of the HomeError for the demo home changed by ``mutate``, written to ``path``."""
    data = copy.deepcopy(demo_data())
    mutate(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(HomeError) as raised:
        load_home(path)
    assert [str(p) for p in raised.value.problems] == str(raised.value).splitlines()
    return str(raised.value).splitlines()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "home.json"


# --- the demo home ---------------------------------------------------------------------------


def test_demo_home_loads_with_all_its_parts() -> None:
    home = demo()
    assert home.name == "示范之家"
    assert home.source == str(DEMO)
    parts = (home.floors, home.rooms, home.groups, home.scenes, home.devices)
    sections = ("floors", "rooms", "groups", "scenes", "devices")
    assert [len(p) for p in parts] == [len(demo_data()[s]) for s in sections]
    assert len(home.devices) == 74


def test_devices_keep_what_the_file_says() -> None:
    ac = demo().device("ac_master")
    assert ac.name == "主卧空调"
    assert ac.aliases == ("主卧室空调",)
    assert ac.room == "master"
    assert ac.type == "AirConditioner"
    assert ac.capabilities == {"onoff", "target_temperature", "hvac_mode", "fan_speed"}
    assert dict(ac.limits) == {"target_temperature": Limit(17, 28)}
    assert dict(ac.state) == {
        "on": False,
        "target_temperature": 26,
        "mode": "auto",
        "fan_speed": "low",
    }


def test_optional_parts_default_to_empty() -> None:
    washer = demo().device("washer")
    assert (washer.aliases, dict(washer.limits), washer.acts_as) == ((), {}, frozenset())
    hub = demo().device("hub_living")
    assert (hub.capabilities, dict(hub.state)) == (frozenset(), {})


def test_lookups_by_id() -> None:
    home = demo()
    assert home.room("living").name == "客厅"
    assert home.floor("f2").aliases == ("楼上",)
    assert home.group("g_read").members == ("lamp_study", "light_study", "lamp_bedroom")
    scene = home.scene("scene_home")
    assert [(s.device, s.command, dict(s.params)) for s in scene.steps][-1] == (
        "ac_living",
        "set_temperature",
        {"value": 26},
    )
    with pytest.raises(KeyError):
        home.device("living")


def test_devices_in_room_and_rooms_on_floor_keep_file_order() -> None:
    home = demo()
    assert [d.id for d in home.devices_in_room("study")] == [
        "light_study",
        "lamp_study",
        "plug_study",
        "ac_study",
        "sensor_study",
        "curtain_study",
        "speaker_study",
        "charger_study",
    ]
    assert [r.id for r in home.rooms_on_floor("f1")] == [
        "living",
        "dining",
        "kitchen",
        "study",
        "bathroom1",
        "entrance",
    ]
    assert home.devices_in_room("garage") == ()
    assert home.rooms_on_floor("f9") == ()


def test_serves_as_covers_type_and_acts_as() -> None:
    plug = demo().device("plug_living_lamp")
    assert plug.serves_as("SmartPlug")
    assert plug.serves_as("Light")
    assert not plug.serves_as("Fan")


@pytest.mark.parametrize(
    ("device_id", "bare"),
    [
        ("lamp_study", "台灯"),
        ("light_living", "灯"),
        # The longest room word wins: 主卧室 (alias) before 主卧 (name).
        ("ac_master", "空调"),
        ("light_kids_night", "小夜灯"),
        ("washer", None),
        ("lamp_living_old", None),
    ],
)
def test_bare_name_drops_the_rooms_name_in_front(device_id: str, bare: str | None) -> None:
    home = demo()
    assert home.bare_name(home.device(device_id)) == bare


def test_bare_name_skips_de_and_is_none_when_nothing_is_left() -> None:
    home = demo()
    lamp, ceiling = home.device("light_living"), home.device("light_living_ceiling")
    # A loaded home refuses a device named like its room, so build this one directly.
    renamed = (replace(lamp, name="客厅的 吸顶灯"), replace(ceiling, name="大厅的"))
    home = replace(home, devices=renamed)
    assert home.bare_name(home.device("light_living")) == "吸顶灯"
    assert home.bare_name(home.device("light_living_ceiling")) is None


def test_the_home_is_read_only() -> None:
    home = demo()
    device = home.device("light_living")
    with pytest.raises(TypeError):
        device.state["on"] = True  # type: ignore[index]
    with pytest.raises(AttributeError):
        home.name = "x"  # type: ignore[misc]
    assert len({device, home.device("light_living"), home.device("ac_living")}) == 2


def test_label_replaces_the_path_in_messages(path: Path) -> None:
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(HomeError, match=r"^demo\.json: /: \[\] is not an object$"):
        load_home(path, label="demo.json")


# --- each kind of mistake, one exact line ----------------------------------------------------


def set_key(*keys: str | int, value: object) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return mutate


def delete_key(*keys: str | int) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return mutate


PLUG_BRIGHTNESS = {"device": "plug_kitchen", "command": "set_brightness", "params": {"value": 50}}


@pytest.mark.parametrize(
    ("mutate", "line"),
    [
        pytest.param(
            set_key("devices", 3, "room", value="garage"),
            '/devices/3/room: "garage" is not a room id',
            id="dangling room id",
        ),
        pytest.param(
            set_key("rooms", 2, "floor", value="f3"),
            '/rooms/2/floor: "f3" is not a floor id',
            id="dangling floor id",
        ),
        pytest.param(
            set_key("groups", 0, "members", 1, value="lamp_attic"),
            '/groups/0/members/1: "lamp_attic" is not a device id',
            id="dangling group member",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 1, "device", value="curtain_attic"),
            '/scenes/0/steps/1/device: "curtain_attic" is not a device id',
            id="dangling scene device",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 1, value=PLUG_BRIGHTNESS),
            '/scenes/0/steps/1/command: "set_brightness" needs capability "brightness",'
            ' which device "plug_kitchen" lacks',
            id="scene command not supported",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 3, "params", "value", value=31),
            "/scenes/0/steps/3/params: value 31 is not within 16–30",
            id="scene params out of range",
        ),
        pytest.param(
            set_key("scenes", 2, "steps", 5, "params", "value", value=29),
            "/scenes/2/steps/5/params: value 29 is not within 17–28",
            id="scene params outside the device's limits",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 0, "params", value={"value": 1}),
            '/scenes/0/steps/0/params: unknown key "value"',
            id="scene params unexpected",
        ),
        pytest.param(
            set_key("devices", 7, "id", value="living"),
            '/devices/7/id: duplicate id "living" (first at /rooms/0/id)',
            id="duplicate id",
        ),
        pytest.param(
            lambda data: data["devices"][0]["capabilities"].append("dimming"),
            f'/devices/0/capabilities/3: "dimming" is not one of the capabilities: {CAPABILITIES}',
            id="unknown capability",
        ),
        pytest.param(
            set_key("devices", 0, "capabilities", 1, value="onoff"),
            '/devices/0/capabilities: ["onoff", "onoff", "color_temp"] repeats an item',
            id="repeated capability",
        ),
        pytest.param(
            set_key("devices", 0, "type", value="Lamp"),
            f'/devices/0/type: "Lamp" is not one of the types: {TYPES}',
            id="unknown type",
        ),
        pytest.param(
            set_key("devices", 0, "colour", value="white"),
            '/devices/0: unknown key "colour"',
            id="unknown key",
        ),
        pytest.param(
            set_key("devices", 0, "limits", value={"brightness_max": {"min": 1, "max": 2}}),
            '/devices/0/limits: unknown key "brightness_max"',
            id="unknown limit key",
        ),
        pytest.param(
            delete_key("devices", 3, "room"),
            '/devices/3: missing required key "room"',
            id="missing required key",
        ),
        pytest.param(
            set_key(
                "devices", 3, value={"id": "light_study", "name": "书房灯", "capabilities": []}
            ),
            '/devices/3: missing required keys "room", "type"',
            id="two missing required keys, one line",
        ),
        pytest.param(
            set_key("version", value=2),
            "/version: 2 is not 1",
            id="unsupported version",
        ),
        pytest.param(
            set_key("devices", 0, "id", value="客厅灯"),
            '/devices/0/id: "客厅灯" does not match ^[A-Za-z0-9_.:-]{1,64}$',
            id="id with characters outside the pattern",
        ),
        pytest.param(
            set_key("devices", 0, "name", value=""),
            '/devices/0/name: "" is empty',
            id="empty name",
        ),
        pytest.param(
            set_key("devices", 0, "name", value="灯" * 65),
            f'/devices/0/name: "{"灯" * 38}… is longer than 64 characters',
            id="name too long, shown short",
        ),
        pytest.param(
            set_key("devices", 0, "aliases", value="客厅灯"),
            '/devices/0/aliases: "客厅灯" is not an array',
            id="aliases not an array",
        ),
        pytest.param(
            set_key("devices", 13, "state", "brightness", value=50),
            '/devices/13/state/brightness: attribute "brightness" needs capability "brightness"',
            id="state attribute without capability",
        ),
        pytest.param(
            set_key("devices", 0, "state", "brightness", value=120),
            "/devices/0/state/brightness: 120 is not within 0–100",
            id="state value out of range",
        ),
        pytest.param(
            set_key("devices", 15, "state", "brightness", value=50),
            "/devices/15/state/brightness: 50 is not within 1–30",
            id="state value outside the device's limits",
        ),
        pytest.param(
            set_key("devices", 29, "state", "mode", value="warm"),
            '/devices/29/state/mode: "warm" is not one of the modes: cool, heat, dry, fan, auto',
            id="state value not a choice",
        ),
        pytest.param(
            set_key("devices", 0, "state", "on", value="yes"),
            '/devices/0/state/on: "yes" is not a boolean',
            id="state value of the wrong type",
        ),
        pytest.param(
            set_key("devices", 0, "state", "colour", value="white"),
            '/devices/0/state/colour: unknown attribute "colour"',
            id="unknown state attribute",
        ),
        pytest.param(
            set_key("devices", 15, "limits", "brightness", value={"min": 30, "max": 1}),
            "/devices/15/limits/brightness: min 30 is more than max 1",
            id="limits min greater than max",
        ),
        pytest.param(
            set_key("devices", 13, "limits", value={"brightness": {"min": 1, "max": 50}}),
            '/devices/13/limits/brightness: limit "brightness" needs capability "brightness"',
            id="limit without capability",
        ),
        pytest.param(
            set_key("devices", 9, "name", value="客厅"),
            '/devices/9/name: device name "客厅" equals a room name',
            id="device named like a room",
        ),
        pytest.param(
            set_key("devices", 9, "aliases", value=["大 厅的"]),
            '/devices/9/aliases/0: device alias "大 厅的" equals a room alias',
            id="device alias like a room alias, ignoring 的 and spaces",
        ),
    ],
)
def test_each_mistake_is_one_exact_line(
    path: Path, mutate: Callable[[dict[str, Any]], None], line: str
) -> None:
    assert problems(path, mutate) == [f"{path}: {line}"]


def test_all_problems_are_reported_together_in_file_order(path: Path) -> None:
    def two_mistakes(data: dict[str, Any]) -> None:
        data["rooms"][2]["floor"] = "f3"
        data["devices"][10]["room"] = "garage"
        data["devices"][3]["room"] = "attic"

    assert problems(path, two_mistakes) == [
        f'{path}: /devices/3/room: "attic" is not a room id',
        f'{path}: /devices/10/room: "garage" is not a room id',
        f'{path}: /rooms/2/floor: "f3" is not a floor id',
    ]


def test_schema_problems_are_reported_together_and_before_any_meaning_check(path: Path) -> None:
    def mistakes(data: dict[str, Any]) -> None:
        data["devices"][0]["type"] = "Lamp"
        data["devices"][0]["colour"] = "white"
        # Not reported: references are checked only in a home of the right shape.
        data["devices"][3]["room"] = "garage"

    assert problems(path, mistakes) == [
        f'{path}: /devices/0: unknown key "colour"',
        f'{path}: /devices/0/type: "Lamp" is not one of the types: {TYPES}',
    ]


def test_duplicate_points_at_the_later_occurrence_in_file_order(path: Path) -> None:
    def devices_first(data: dict[str, Any]) -> None:
        reordered = {"devices": data.pop("devices"), **data}
        data.clear()
        data.update(reordered)
        data["rooms"][0]["id"] = "light_living"
        for device in data["devices"]:
            if device["room"] == "living":
                device["room"] = "light_living"

    assert problems(path, devices_first) == [
        f'{path}: /rooms/0/id: duplicate id "light_living" (first at /devices/0/id)',
    ]


def test_invalid_json_names_line_and_column(path: Path) -> None:
    path.write_text('{"version": 1,\n  "name": }', encoding="utf-8")
    with pytest.raises(HomeError) as raised:
        load_home(path)
    assert str(raised.value) == f"{path}: /: invalid JSON at line 2, column 11: Expecting value"


def test_text_that_is_not_utf8_is_a_home_error(path: Path) -> None:
    path.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(HomeError, match=r": /: not UTF-8 text: invalid start byte at byte 10$"):
        load_home(path)


def test_unreadable_file_is_a_home_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(HomeError) as raised:
        load_home(missing)
    assert str(raised.value) == f"{missing}: /: cannot read: No such file or directory"
    with pytest.raises(HomeError) as raised:
        load_home(tmp_path)
    assert str(raised.value) == f"{tmp_path}: /: not a regular file"


# --- names are compared normalised, and only devices may share them -------------------------


def kitchen_light() -> int:
    return next(i for i, d in enumerate(demo_data()["devices"]) if d["name"] == "厨房灯")


@pytest.mark.parametrize(
    ("mutate", "line"),
    [
        pytest.param(
            set_key("scenes", 0, "name", value="厨房灯"),
            f'/devices/{kitchen_light()}/name: device name "厨房灯" equals a scene name',
            id="scene named like a device",
        ),
        pytest.param(
            set_key("groups", 0, "aliases", value=["客厅灯"]),
            '/devices/0/name: device name "客厅灯" equals a group alias',
            id="group alias like a device name",
        ),
        pytest.param(
            set_key("floors", 0, "aliases", value=["廚房"]),
            '/rooms/2/name: room name "厨房" equals a floor alias',
            id="floor alias like a room name, traditional characters",
        ),
        pytest.param(
            set_key("rooms", 1, "aliases", value=["ＫＥＴＴ"]),
            None,
            id="unique full-width alias is fine",
        ),
        pytest.param(
            set_key("devices", 9, "name", value="客\u200b厅"),
            '/devices/9/name: device name "客\u200b厅" equals a room name',
            id="device named like a room behind a format character",
        ),
        pytest.param(
            set_key("devices", 0, "aliases", value=["的 "]),
            '/devices/0/aliases/0: device alias "的 " is empty once normalised',
            id="alias that normalises to nothing",
        ),
        pytest.param(
            set_key("rooms", 0, "name", value="\u200b"),
            '/rooms/0/name: room name "\u200b" is empty once normalised',
            id="room name that normalises to nothing",
        ),
    ],
)
def test_names_clash_after_normalisation(
    path: Path, mutate: Callable[[dict[str, Any]], None], line: str | None
) -> None:
    if line is None:
        data = copy.deepcopy(demo_data())
        mutate(data)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        load_home(path)
    else:
        assert problems(path, mutate) == [f"{path}: {line}"]


def test_the_later_of_two_clashing_words_is_reported(path: Path) -> None:
    def devices_first(data: dict[str, Any]) -> None:
        reordered = {"devices": data.pop("devices"), **data}
        data.clear()
        data.update(reordered)
        data["scenes"][0]["name"] = "厨 房 灯"

    assert problems(path, devices_first) == [
        f'{path}: /scenes/0/name: scene name "厨 房 灯" equals a device name'
    ]


def test_devices_may_share_names_and_a_place_may_repeat_its_own_words(path: Path) -> None:
    data = copy.deepcopy(demo_data())
    data["devices"][1]["name"] = data["devices"][0]["name"]
    data["rooms"][0]["aliases"] = [data["rooms"][0]["name"], "大 厅"]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    home = load_home(path)
    assert home.device(data["devices"][1]["id"]).name == data["devices"][0]["name"]


# --- numbers a device can never take -----------------------------------------------------------


@pytest.mark.parametrize(
    ("mutate", "line"),
    [
        pytest.param(
            set_key("devices", 15, "limits", "brightness", "max", value=float("nan")),
            "/devices/15/limits/brightness/max: not a finite number",
            id="NaN limit",
        ),
        pytest.param(
            set_key("devices", 29, "state", "target_temperature", value=float("inf")),
            "/devices/29/state/target_temperature: not a finite number",
            id="infinite state",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 3, "params", "value", value=float("-inf")),
            "/scenes/0/steps/3/params/value: not a finite number",
            id="infinite scene param",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 0, "delay_s", value=float("nan")),
            "/scenes/0/steps/0/delay_s: not a finite number",
            id="NaN delay",
        ),
        pytest.param(
            set_key("scenes", 0, "steps", 0, "delay_s", value=-1),
            "/scenes/0/steps/0/delay_s: -1 is not within 0–86400",
            id="negative delay",
        ),
    ],
)
def test_non_finite_numbers_built_in_python_are_refused(
    mutate: Callable[[dict[str, Any]], None], line: str
) -> None:
    # Python data can hold NaN, which a file cannot (the reader refuses it); both must fail.
    data = copy.deepcopy(demo_data())
    mutate(data)
    with pytest.raises(HomeError) as raised:
        parse_home(data, "built")
    assert str(raised.value) == f"built: {line}"


def test_scene_steps_keep_their_delay() -> None:
    data = copy.deepcopy(demo_data())
    data["scenes"][0]["steps"][1]["delay_s"] = 2.5
    scene = parse_home(data, "built").scenes[0]
    assert [s.delay_s for s in scene.steps[:3]] == [0.0, 2.5, 0.0]


# --- files that must not be read whole, or at all ----------------------------------------------


def one_line(path: Path | str) -> str:
    with pytest.raises(HomeError) as raised:
        load_home(path)
    assert "\n" not in str(raised.value)
    return str(raised.value)


def test_nan_and_infinity_in_the_file_are_refused_with_their_place(path: Path) -> None:
    text = json.dumps(demo_data(), ensure_ascii=False)
    text = text.replace('"target_temperature": 26', '"target_temperature": NaN', 1)
    path.write_text(text, encoding="utf-8")
    for number in ("NaN", "Infinity", "-Infinity", "1e400", "-1" + "0" * 400 + ".5"):
        path.write_text(text.replace("NaN", number), encoding="utf-8")
        assert one_line(path).endswith("/state/target_temperature: not a finite number")


@pytest.mark.parametrize("digits", [21, 5000])
def test_integers_of_more_than_20_digits_are_refused(path: Path, digits: int) -> None:
    path.write_text('{"version": 1, "name": "x", "devices": [], "n": %s}' % ("9" * digits))
    assert one_line(path) == f"{path}: /n: integer of more than 20 digits"


def test_twenty_digit_integers_are_read(path: Path) -> None:
    path.write_text('{"version": 1, "name": "x", "devices": [], "n": -%s}' % ("9" * 20))
    assert one_line(path) == f'{path}: /: unknown key "n"'


@pytest.mark.parametrize("depth", [65, 1000, 100_000])
def test_deep_nesting_is_refused(path: Path, depth: int) -> None:
    path.write_text("[" * depth + "]" * depth)
    assert one_line(path) == f"{path}: /: nests deeper than 64 levels"


def test_64_levels_are_read(path: Path) -> None:
    path.write_text("[" * 64 + "]" * 64)
    assert one_line(path) == f"{path}: /: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[… is not an object"


def test_a_lone_surrogate_is_refused(path: Path) -> None:
    data = copy.deepcopy(demo_data())
    data["devices"][2]["name"] = "X"
    text = json.dumps(data, ensure_ascii=False).replace('"name": "X"', '"name": "灯\\ud800"')
    path.write_text(text, encoding="utf-8")
    assert (
        one_line(path) == f"{path}: /devices/2/name: lone surrogate in a string (not Unicode text)"
    )
    # A pair is one character, not a lone surrogate.
    path.write_text(text.replace("\\ud800", "\\ud83d\\udca1"), encoding="utf-8")
    assert load_home(path).devices[2].name == "灯💡"


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "home.fifo"
    os.mkfifo(fifo)
    assert one_line(fifo) == f"{fifo}: /: not a regular file"


def test_a_device_file_is_refused_without_reading_it() -> None:
    assert one_line("/dev/zero") == "/dev/zero: /: not a regular file"


def test_a_file_over_64_mb_is_refused(path: Path) -> None:
    with path.open("wb") as file:
        file.truncate(64 * 1024 * 1024 + 1)  # sparse: no disk, no time
    assert one_line(path) == f"{path}: /: larger than 64 MB"


def test_a_bom_is_skipped(path: Path) -> None:
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(demo_data()).encode())
    assert load_home(path).name == "示范之家"


# --- the fast schema check never passes what jsonschema refuses -------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=70),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
_KEYS = st.sampled_from(
    [
        "id",
        "name",
        "aliases",
        "room",
        "type",
        "capabilities",
        "limits",
        "acts_as",
        "state",
        "members",
        "steps",
        "floor",
        "min",
        "max",
        "device",
        "command",
        "params",
        "delay_s",
        "x",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema(data: st.DataObject) -> None:
    doc = copy.deepcopy(demo_data())
    # Walk down a few levels from the top, then put any JSON value at a key there.
    target: Any = doc
    for _ in range(data.draw(st.integers(0, 4))):
        children = list(target.items()) if isinstance(target, dict) else list(enumerate(target))
        children = [(k, v) for k, v in children if isinstance(v, (dict, list)) and v]
        if not children:
            break
        target = data.draw(st.sampled_from(children))[1]
    value = data.draw(_JSON)
    if isinstance(target, dict):
        target[data.draw(_KEYS)] = value
    elif target:
        target[data.draw(st.integers(0, len(target) - 1))] = value
    full = Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert (load_schema("home").errors(doc) == []) == full.is_valid(doc)
