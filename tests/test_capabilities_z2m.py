"""The capabilities of revision 3 on zigbee2mqtt, against a real mosquitto and the fake
bridge: a colour light's `color` as hue/saturation, a fan's modes as its presets, a
humidifier's target humidity; the home is the one `jiayu home from-z2m` builds from the
same `bridge/devices`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_z2m import FakeZ2m, bridge_device, eventually
from mqtt_broker import Broker

from jiayu.engine import Engine
from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub
from jiayu.home import Home, parse_home
from jiayu.importers.z2m import build_home


def _binary(prop: str) -> dict[str, Any]:
    return {
        "type": "binary",
        "name": "state",
        "property": prop,
        "access": 7,
        "value_on": "ON",
        "value_off": "OFF",
    }


_XY = [{"type": "numeric", "name": n, "property": n, "access": 7} for n in ("x", "y")]
_HS = [{"type": "numeric", "name": n, "property": n, "access": 7} for n in ("hue", "saturation")]
DEVICES = [
    # A Hue colour bulb exposes both colour forms; a white one neither.
    bridge_device(
        "0x0017880100000001",
        "客厅/彩灯",
        "9290022166",
        "Hue white and color ambiance E26/E27",
        {
            "type": "light",
            "features": [
                _binary("state"),
                {"type": "numeric", "name": "brightness", "property": "brightness", "access": 7},
                {"type": "composite", "name": "color_xy", "property": "color", "access": 7},
                {"type": "composite", "name": "color_hs", "property": "color", "access": 7},
            ],
        },
    ),
    bridge_device(
        "0x0017880100000002",
        "客厅/台灯",
        "LWB010",
        "Hue white",
        {
            "type": "light",
            "features": [
                _binary("state"),
                {"type": "numeric", "name": "brightness", "property": "brightness", "access": 7},
            ],
        },
    ),
    bridge_device(
        "0xa4c1380000000003",
        "客厅/风扇",
        "TS0601_fan",
        "Smart fan",
        {
            "type": "fan",
            "features": [
                _binary("fan_state"),
                {
                    "type": "enum",
                    "name": "mode",
                    "property": "fan_mode",
                    "access": 7,
                    "values": ["off", "low", "medium", "high", "on", "auto", "smart", "sleep"],
                },
            ],
        },
    ),
    bridge_device(
        "0xa4c1380000000004",
        "卧室/加湿器",
        "TS0601_humidifier",
        "Smart humidifier",
        {"type": "switch", "features": [_binary("state")]},
        {"type": "numeric", "name": "humidity", "property": "humidity", "access": 1},
        {
            "type": "numeric",
            "name": "target_humidity",
            "property": "target_humidity",
            "access": 7,
            "value_min": 40,
            "value_max": 80,
        },
    ),
]
# Relays whose names or descriptions say what they open (issue 19).
DEVICES += [
    bridge_device(
        "0xa4c1380000000005",
        "车库/开门器",
        "TS0001",
        "Garage door opener relay",
        {"type": "switch", "features": [_binary("state")]},
    ),
    bridge_device(
        "0xa4c1380000000006",
        "厨房/燃气开关",
        "TS0001",
        "1 gang switch",
        {"type": "switch", "features": [_binary("state")]},
    ),
]
ROOMS = {
    "rooms": [
        {"id": "living", "name": "客厅"},
        {"id": "bedroom", "name": "卧室"},
        {"id": "garage", "name": "车库"},
        {"id": "kitchen", "name": "厨房"},
    ],
}
STATES = {
    "客厅/彩灯": {"state": "ON", "brightness": 200, "color": {"x": 0.3, "y": 0.3}},
    "客厅/台灯": {"state": "ON", "brightness": 200},
    "客厅/风扇": {"fan_state": "ON", "fan_mode": "low"},
    "卧室/加湿器": {"state": "ON", "humidity": 35, "target_humidity": 50},
    "车库/开门器": {"state": "OFF"},
    "厨房/燃气开关": {"state": "OFF"},
}
COLOUR, WHITE = "z2m_0x0017880100000001", "z2m_0x0017880100000002"
FAN, HUMIDIFIER = "z2m_0xa4c1380000000003", "z2m_0xa4c1380000000004"


@pytest.fixture(scope="module")
def home() -> Home:
    return parse_home(build_home(DEVICES, ROOMS, name="测试之家"), "z2m home")


@pytest.fixture
def fake(broker: Broker) -> Iterator[FakeZ2m]:
    bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES)
    yield bridge
    bridge.close()


@pytest.fixture
def engine(broker: Broker, home: Home, fake: FakeZ2m) -> Iterator[tuple[Engine, Zigbee2MqttHub]]:
    with Zigbee2MqttHub(
        home, host=broker.host, port=broker.port, read_timeout=1.0, send_timeout=1.0
    ) as hub:
        yield Engine(home, hub=hub), hub


def test_the_importer_reads_colour_fan_modes_and_target_humidity(home: Home) -> None:
    devices = {d.id: d for d in home.devices}
    assert devices[COLOUR].capabilities == {"onoff", "brightness", "color"}
    assert devices[WHITE].capabilities == {"onoff", "brightness"}
    # Its modes that are speeds stay speeds; the others are its presets.
    assert devices[FAN].capabilities == {"onoff", "fan_speed", "preset"}
    assert devices[FAN].presets == ("smart", "sleep")
    assert devices[HUMIDIFIER].type == "Humidifier"
    assert devices[HUMIDIFIER].capabilities == {"onoff", "target_humidity", "humidity_sensor"}
    assert devices[HUMIDIFIER].limits["target_humidity"].min == 40


def test_the_importer_types_relays_by_what_they_open(home: Home) -> None:
    types = {d.id: d.type for d in home.devices}
    assert types["z2m_0xa4c1380000000005"] == "GarageDoor"
    assert types["z2m_0xa4c1380000000006"] == "Valve"


def test_opening_a_relay_that_opens_something_waits_for_confirmation(
    engine: tuple[Engine, Zigbee2MqttHub], fake: FakeZ2m
) -> None:
    turns, _ = engine
    for text in ("打开车库开门器", "打开燃气开关"):
        assert turns.turn(text, "s1").outcome == "confirm", text
        assert [t for t, _ in fake.received if t.endswith("/set")] == []
        assert turns.turn("算了", "s1").outcome != "executed"


@pytest.mark.parametrize(
    ("text", "topic", "payload", "device", "reads"),
    [
        (
            "客厅彩灯调成红色",
            "客厅/彩灯",
            {"color": {"hue": 0, "saturation": 100}},
            COLOUR,
            ("color", {"hue": 0, "saturation": 100}),
        ),
        (
            "把彩灯调成紫色",
            "客厅/彩灯",
            {"color": {"hue": 280, "saturation": 100}},
            COLOUR,
            ("color", {"hue": 280, "saturation": 100}),
        ),
        ("风扇调成睡眠风", "客厅/风扇", {"fan_mode": "sleep"}, FAN, ("preset", "sleep")),
        (
            "加湿器湿度调到60%",
            "卧室/加湿器",
            {"target_humidity": 60.0},
            HUMIDIFIER,
            ("target_humidity", 60),
        ),
        (
            "加湿器湿度调高一点",
            "卧室/加湿器",
            {"target_humidity": 60.0},
            HUMIDIFIER,
            ("target_humidity", 60),
        ),
    ],
)
def test_each_capability_is_one_set_zigbee2mqtt_takes(
    engine: tuple[Engine, Zigbee2MqttHub],
    fake: FakeZ2m,
    text: str,
    topic: str,
    payload: dict[str, Any],
    device: str,
    reads: tuple[str, Any],
) -> None:
    turns, hub = engine
    result = turns.turn(text, "s1")
    assert result.outcome == "executed", result.reply
    sets = [(t, p) for t, p in fake.received if t.endswith("/set")]
    assert sets == [(f"zigbee2mqtt/{topic}/set", payload)]
    attribute, value = reads
    eventually(lambda: hub.read(device).get(attribute) == value)


def test_what_a_device_cannot_do_never_reaches_the_bridge(
    engine: tuple[Engine, Zigbee2MqttHub], fake: FakeZ2m
) -> None:
    turns, _ = engine
    for text in ("台灯调成红色", "风扇调成自然风", "加湿器湿度调到90%", "风扇摇头"):
        assert turns.turn(text, "s1").outcome == "rejected", text
    assert [t for t, _ in fake.received if t.endswith("/set")] == []
