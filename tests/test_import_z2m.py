"""`jiayu home from-z2m`: zigbee2mqtt's bridge/devices plus a rooms mapping → a valid home."""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fake_z2m import FakeZ2m
from mqtt_broker import Broker, running_broker

from jiayu.errors import InputError
from jiayu.home import load_home
from jiayu.importers.z2m import add_arguments, build_home, convert, fetch_devices, run

DATA = Path(__file__).parent / "data" / "z2m"
DEVICES: list[dict[str, Any]] = json.loads((DATA / "bridge_devices.json").read_text("utf-8"))
ROOMS: dict[str, Any] = json.loads((DATA / "rooms.json").read_text("utf-8"))


def by_id(home: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in home["devices"]}


def test_exposes_become_capabilities_limits_types_and_rooms() -> None:
    devices = by_id(build_home(DEVICES, ROOMS, name="测试之家"))
    ceiling = devices["z2m_0x0017880104e4a1b1"]
    # The room from the friendly name's first segment; the name without its slash.
    assert (ceiling["name"], ceiling["room"], ceiling["type"]) == ("客厅吸顶灯", "living", "Light")
    # Its exposes include color_xy: a colour light (issue 20).
    assert ceiling["capabilities"] == ["onoff", "brightness", "color_temp", "color"]
    # 153–454 mired is 2203–6535 K.
    assert ceiling["limits"] == {"color_temp": {"min": 2203, "max": 6535}}
    ac = devices["z2m_0xa4c1380000ac0001"]
    assert ac["type"] == "AirConditioner"
    assert ac["capabilities"] == [
        "onoff",
        "target_temperature",
        "hvac_mode",
        "fan_speed",
        "temperature_sensor",
    ]
    assert ac["limits"] == {"target_temperature": {"min": 16, "max": 30}}
    sensor = devices["z2m_0x00158d0001a2b3c4"]
    assert sensor["capabilities"] == ["temperature_sensor", "humidity_sensor"]
    assert devices["z2m_0xa4c1380000ac0002"]["capabilities"] == ["cover"]
    assert devices["z2m_0xa4c1380000ac0003"]["capabilities"] == ["lock"]
    # A switch that zigbee2mqtt describes as a valve is a valve, with the valve's risk rule.
    valve = devices["z2m_0xa4c1380000ac0004"]
    assert (valve["type"], valve["capabilities"], valve["aliases"]) == (
        "Valve",
        ["valve"],
        ["水阀"],
    )
    plug = devices["z2m_0xa4c1380000ac0006"]  # mapped by IEEE address
    assert (plug["room"], plug["type"], plug["acts_as"]) == ("study", "SmartPlug", ["Light"])


def test_each_endpoint_of_a_multi_gang_switch_is_a_device() -> None:
    devices = by_id(build_home(DEVICES, ROOMS, name="测试之家"))
    left, right = devices["z2m_0xa4c1380000ac0005_left"], devices["z2m_0xa4c1380000ac0005_right"]
    # The endpoint's own entry names it; the device's entry gives both their room.
    assert (left["name"], left["type"], left["room"]) == ("走廊筒灯", "Light", "hall")
    assert (right["name"], right["type"], right["room"]) == ("走廊开关right", "Switch", "hall")


def test_the_coordinator_remotes_and_unsupported_devices_are_left_out() -> None:
    result = convert(DEVICES, ROOMS, name="测试之家")
    names = {d["name"] for d in result.home["devices"]}
    assert not names & {"Coordinator", "遥控器", "未知设备"}
    assert result.skipped == (
        "遥控器: nothing to control or read",
        "未知设备: not supported by zigbee2mqtt",
    )


def test_a_device_without_a_room_is_skipped_or_goes_to_the_default_room() -> None:
    rooms = {**ROOMS, "devices": {}}
    result = convert(DEVICES, rooms, name="测试之家")
    assert "客厅空调: no room (give it one in the mapping, or default_room)" in result.skipped
    assert "z2m_0xa4c1380000ac0001" not in by_id(result.home)
    with_default = convert(DEVICES, {**rooms, "default_room": "living"}, name="测试之家")
    assert by_id(with_default.home)["z2m_0xa4c1380000ac0001"]["room"] == "living"


def test_a_device_named_like_a_room_gets_its_type_word() -> None:
    devices = copy.deepcopy(DEVICES)
    devices[1]["friendly_name"] = "客厅"
    rooms = {**ROOMS, "devices": {"客厅": {"room": "living"}}}
    home = build_home(devices, rooms, name="测试之家")
    assert by_id(home)["z2m_0x0017880104e4a1b1"]["name"] == "客厅灯"


def test_a_bad_mapping_names_the_file_and_the_pointer() -> None:
    rooms = copy.deepcopy(ROOMS)
    rooms["devices"]["客厅空调"] = {"room": "garage", "type": "Lamp", "colour": "red"}
    rooms["devices"]["a/b"] = {"skip": "yes"}
    with pytest.raises(InputError) as raised:
        convert(DEVICES, rooms, name="测试之家", source="rooms.json")
    assert str(raised.value).splitlines() == [
        'rooms.json: /devices/客厅空调/room: "garage" is not a room id',
        'rooms.json: /devices/客厅空调/type: "Lamp" is not one of the types: '
        "AirConditioner, Blind, Charger, Fan, Hub, Light, NetworkAudio, Switch, Television, "
        "Washer, SmartPlug, Sensor, Lock, Valve, Heater, Humidifier, Purifier, Vacuum, "
        "Dehumidifier, WaterHeater, Dryer, GarageDoor, Unknown",
        'rooms.json: /devices/客厅空调/colour: unknown key "colour"',
        "rooms.json: /devices/a~1b/skip: is not a boolean",
    ]


def test_garbage_devices_never_crash_the_import() -> None:
    junk: list[Any] = [
        None,
        {"friendly_name": "x", "ieee_address": "0x1", "definition": {"exposes": "nope"}},
        {"friendly_name": "+bad", "ieee_address": "0x2", "definition": {"exposes": []}},
        {"friendly_name": "y", "ieee_address": "0x3", "definition": {"exposes": [1, {"type": 2}]}},
        {
            "friendly_name": "z",
            "ieee_address": "0x4",
            "definition": {"exposes": [{"type": "light", "features": [{"name": "state"}]}]},
        },
    ]
    home = build_home(junk, ROOMS, name="测试之家")
    assert home["devices"] == []


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_command_writes_a_home_that_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "home.json"
    code = run(
        _args(
            "--devices",
            str(DATA / "bridge_devices.json"),
            "--rooms",
            str(DATA / "rooms.json"),
            "--name",
            "测试之家",
            "--out",
            str(out),
        )
    )
    assert code == 0
    home = load_home(out)
    assert len(home.devices) == 11
    assert "skipped 遥控器: nothing to control or read" in capsys.readouterr().err


def test_the_command_reports_bad_input_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rooms = tmp_path / "rooms.json"
    rooms.write_text('{"rooms": [{"id": "living", "name": "客厅"}], "default_room": "attic"}')
    out = tmp_path / "home.json"
    devices = str(DATA / "bridge_devices.json")
    code = run(_args("--devices", devices, "--rooms", str(rooms), "--out", str(out)))
    assert code == 2
    assert capsys.readouterr().err == f'{rooms}: /default_room: "attic" is not a room id\n'
    assert not out.exists()
    code = run(_args("--devices", str(tmp_path / "missing.json"), "--rooms", str(rooms)))
    assert code == 2
    assert "missing.json: /: cannot read" in capsys.readouterr().err
    nowhere = str(tmp_path / "no such folder" / "home.json")
    good = str(DATA / "rooms.json")
    assert run(_args("--devices", devices, "--rooms", good, "--out", nowhere)) == 1
    assert capsys.readouterr().err.startswith(f"{nowhere}: cannot write")


def test_without_out_the_home_goes_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    devices, rooms = str(DATA / "bridge_devices.json"), str(DATA / "rooms.json")
    assert run(_args("--devices", devices, "--rooms", rooms)) == 0
    assert json.loads(capsys.readouterr().out) == build_home(DEVICES, ROOMS, name="我的家")


def test_bridge_devices_are_read_from_the_broker(broker: Broker, tmp_path: Path) -> None:
    bridge = FakeZ2m(broker.host, broker.port, DEVICES, {})
    try:
        assert fetch_devices(broker.host, broker.port, "zigbee2mqtt", timeout=2) == DEVICES
        out = tmp_path / "home.json"
        rooms = str(DATA / "rooms.json")
        port = str(broker.port)
        assert run(_args("--port", port, "--rooms", rooms, "--out", str(out))) == 0
    finally:
        bridge.close()
    assert len(load_home(out).devices) == 11


def test_a_silent_base_topic_is_an_error(broker: Broker) -> None:
    with pytest.raises(InputError, match=r"no retained message within 0\.2 s"):
        fetch_devices(broker.host, broker.port, "elsewhere", timeout=0.2)


def test_a_broker_that_refuses_us_is_an_error(tmp_path: Path) -> None:
    refusal = pytest.raises(InputError, match="the broker refused: Not authorized")
    with running_broker(tmp_path, anonymous=False) as closed, refusal:
        fetch_devices(closed.host, closed.port, timeout=2)


def test_mapping_entries_that_match_no_device_are_reported() -> None:
    rooms = copy.deepcopy(ROOMS)
    rooms["devices"]["客厅/吸顶灯 "] = {"room": "living"}  # a stray space
    result = convert(DEVICES, rooms, name="测试之家")
    assert result.unused == ("客厅/吸顶灯 ",)
    assert convert(DEVICES, ROOMS, name="测试之家").unused == ()


def test_a_friendly_name_zigbee2mqtt_would_refuse_is_skipped_and_said_so() -> None:
    devices = copy.deepcopy(DEVICES)
    devices[1]["friendly_name"] = "客厅/#"
    assert "客厅/#: its friendly name holds an MQTT wildcard (+ or #)" in (
        convert(devices, ROOMS, name="测试之家").skipped
    )


def test_a_fan_and_a_lux_sensor() -> None:
    def feature(kind: str, name: str, prop: str, **more: Any) -> dict[str, Any]:
        return {"type": kind, "name": name, "property": prop, "access": 7, **more}

    fan = {
        "ieee_address": "0xfan",
        "friendly_name": "卧室/吊扇",
        "type": "Router",
        "definition": {
            "description": "Ceiling fan",
            "exposes": [
                {
                    "type": "fan",
                    "features": [
                        feature("binary", "state", "fan_state", value_on="ON", value_off="OFF"),
                        feature(
                            "enum", "mode", "fan_mode", values=["off", "low", "medium", "high"]
                        ),
                    ],
                }
            ],
        },
    }
    lux = {
        "ieee_address": "0xlux",
        "friendly_name": "卧室/光照",
        "type": "EndDevice",
        "definition": {
            "description": "Light sensor",
            "exposes": [
                feature("numeric", "illuminance", "illuminance", unit="lx", access=1),
                feature("numeric", "illuminance_raw", "illuminance_raw", access=1),
            ],
        },
    }
    devices = by_id(build_home([fan, lux], ROOMS, name="测试之家"))
    assert devices["z2m_0xfan"]["type"] == "Fan"
    assert devices["z2m_0xfan"]["capabilities"] == ["onoff", "fan_speed"]
    assert devices["z2m_0xlux"]["capabilities"] == ["illuminance_sensor"]
