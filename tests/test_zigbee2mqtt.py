"""The zigbee2mqtt hub against a real mosquitto and a fake zigbee2mqtt bridge on it.

The home is the one `jiayu home from-z2m` builds from the same `bridge/devices` the fake
bridge publishes, so the hub finds its devices the way it does in a real installation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fake_z2m import FakeZ2m
from mqtt_broker import Broker, running_broker

from jiayu.engine import Engine
from jiayu.executor.hubs import FAULT_WORDS, HubError
from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub
from jiayu.home import Home, parse_home
from jiayu.importers.z2m import build_home

DATA = Path(__file__).parent / "data" / "z2m"
DEVICES: list[dict[str, Any]] = json.loads((DATA / "bridge_devices.json").read_text("utf-8"))
ROOMS = json.loads((DATA / "rooms.json").read_text("utf-8"))

CEILING, STRIP = "z2m_0x0017880104e4a1b1", "z2m_0x0017880104e4a1b2"
SENSOR, SLEEPY = "z2m_0x00158d0001a2b3c4", "z2m_0x00158d0001a2b3d5"
AC, CURTAIN, LOCK = "z2m_0xa4c1380000ac0001", "z2m_0xa4c1380000ac0002", "z2m_0xa4c1380000ac0003"
VALVE, RIGHT = "z2m_0xa4c1380000ac0004", "z2m_0xa4c1380000ac0005_right"

STATES = {
    "客厅/吸顶灯": {"state": "OFF", "brightness": 254, "color_temp": 370},
    "客厅/灯带": {"state": "OFF", "brightness": 100, "color_temp": 250},
    "客厅/温湿度计": {"temperature": 28.5, "humidity": 61, "battery": 90},
    "卧室/温湿度计": {"temperature": 22.0, "humidity": 45},
    "客厅空调": {
        "system_mode": "off",
        "current_heating_setpoint": 24,
        "local_temperature": 27,
        "fan_mode": "auto",
    },
    "卧室窗帘": {"state": "CLOSE", "position": 0},
    "入户门锁": {"state": "LOCK", "lock_state": "locked"},
    "厨房水阀": {"state": "ON", "flow": 0.2},
    "走廊开关": {"state_left": "OFF", "state_right": "OFF", "power": 0},
    "书房插座": {"state": "OFF", "power": 0},
}


@pytest.fixture(scope="module")
def home() -> Home:
    return parse_home(build_home(DEVICES, ROOMS, name="测试之家"), "z2m home")


@pytest.fixture
def fake(broker: Broker) -> Iterator[FakeZ2m]:
    bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES)
    yield bridge
    bridge.close()


@pytest.fixture
def hub(broker: Broker, home: Home, fake: FakeZ2m) -> Iterator[Zigbee2MqttHub]:
    with Zigbee2MqttHub(
        home, host=broker.host, port=broker.port, read_timeout=0.5, send_timeout=0.5
    ) as connected:
        yield connected


def test_on_off_round_trip_on_a_chinese_name_with_a_slash(
    hub: Zigbee2MqttHub, fake: FakeZ2m
) -> None:
    hub.send(CEILING, "turn_on", {})
    assert fake.states["客厅/吸顶灯"]["state"] == "ON"
    assert "zigbee2mqtt/客厅/吸顶灯/set" in fake.topics()
    assert hub.read(CEILING)["on"] is True
    hub.send(CEILING, "turn_off", {})
    assert fake.states["客厅/吸顶灯"]["state"] == "OFF"
    assert hub.read(CEILING)["on"] is False


def test_brightness_and_colour_temperature_round_trip(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    assert hub.read(CEILING)["brightness"] == 100  # 254 of 254
    hub.send(CEILING, "set_brightness", {"value": 50})
    assert fake.states["客厅/吸顶灯"]["brightness"] == 127
    assert hub.read(CEILING)["brightness"] == 50
    hub.send(CEILING, "set_color_temp", {"value": 4000})
    assert fake.states["客厅/吸顶灯"]["color_temp"] == 250  # mired
    assert hub.read(CEILING)["color_temp"] == 4000


def test_a_fresh_read_decides_a_condition(hub: Zigbee2MqttHub, fake: FakeZ2m, home: Home) -> None:
    engine = Engine(home, hub=hub)
    result = engine.turn("如果客厅温度超过26度就打开空调")
    assert result.outcome == "executed", result.reply
    assert [c["device"] for c in result.commands] == [AC]
    assert fake.states["客厅空调"]["system_mode"] == "auto"
    # The temperature was asked of the sensor, not taken from a cache.
    assert "zigbee2mqtt/客厅/温湿度计/get" in fake.topics()


def test_a_false_condition_sends_nothing(hub: Zigbee2MqttHub, fake: FakeZ2m, home: Home) -> None:
    fake.report("客厅/温湿度计", {"temperature": 23.0})
    fake.report("客厅空调", {"local_temperature": 23.0})
    result = Engine(home, hub=hub).turn("如果客厅温度超过26度就打开空调")
    assert result.outcome == "noop", result.reply
    assert result.commands == []
    assert not [t for t in fake.topics() if t.endswith("/set")]


def test_a_whole_room_command(hub: Zigbee2MqttHub, fake: FakeZ2m, home: Home) -> None:
    result = Engine(home, hub=hub).turn("打开客厅的灯")
    assert result.outcome == "executed", result.reply
    assert {c["device"] for c in result.commands} == {CEILING, STRIP}
    assert fake.states["客厅/吸顶灯"]["state"] == "ON"
    assert fake.states["客厅/灯带"]["state"] == "ON"
    assert fake.states["书房插座"]["state"] == "OFF"


@pytest.mark.parametrize("legacy", [False, True], ids=["json", "legacy"])
def test_an_offline_device_is_a_failure_never_a_success(
    broker: Broker, home: Home, legacy: bool
) -> None:
    bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES, legacy_availability=legacy)
    try:
        bridge.go_offline("客厅/吸顶灯")
        with Zigbee2MqttHub(home, host=broker.host, port=broker.port, send_timeout=1.0) as hub:
            started = time.monotonic()
            with pytest.raises(HubError) as raised:
                hub.send(CEILING, "turn_on", {})
            assert raised.value.reason == "offline"
            assert time.monotonic() - started < 0.5  # known offline: no waiting
            result = Engine(home, hub=hub).turn("打开客厅的灯")
    finally:
        bridge.close()
    assert {"device": CEILING, "command": "turn_on", "reason": "offline"} in result.failures
    assert [c["device"] for c in result.commands] == [STRIP]
    claimed = result.reply.split("已打开", 1)[1].split("，", 1)[0]
    assert "灯带" in claimed
    assert "吸顶灯" not in claimed
    assert FAULT_WORDS["offline"] in result.reply


def test_a_device_going_offline_mid_command_fails(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.silence("客厅/灯带")
    fake.go_offline("客厅/灯带")
    with pytest.raises(HubError) as raised:
        hub.send(STRIP, "turn_on", {})
    # The bridge's `offline` races the send: taken in before the /set, nothing is written
    # (offline); taken in after it, the /set may have reached the device before it went
    # (unconfirmed, CONTRACTS §5). Either way a failure, never a success.
    assert raised.value.reason in ("offline", "unconfirmed")


def test_no_echo_is_unconfirmed(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.silence("客厅/灯带")
    with pytest.raises(HubError) as raised:
        hub.send(STRIP, "turn_on", {})
    assert raised.value.reason == "unconfirmed"  # it left: it may have happened
    with pytest.raises(HubError) as raised:
        hub.read(STRIP)
    assert raised.value.reason == "timeout"


def test_a_failure_logged_by_the_bridge_is_refused(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.fail("书房插座")
    started = time.monotonic()
    with pytest.raises(HubError) as raised:
        hub.send("z2m_0xa4c1380000ac0006", "turn_on", {})
    assert raised.value.reason == "refused"
    with pytest.raises(HubError) as raised:
        hub.read("z2m_0xa4c1380000ac0006")
    assert raised.value.reason == "refused"
    assert time.monotonic() - started < 0.5  # told, not timed out


def test_covers_locks_valves_climate_and_endpoints(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    hub.send(CURTAIN, "set_position", {"value": 30})
    assert fake.states["卧室窗帘"]["position"] == 30
    hub.send(CURTAIN, "open", {})
    assert hub.read(CURTAIN)["position"] == 100
    hub.send(LOCK, "unlock", {})
    assert fake.states["入户门锁"]["state"] == "UNLOCK"
    assert hub.read(LOCK)["locked"] is False
    hub.send(VALVE, "close_valve", {})
    assert hub.read(VALVE) == {"open": False}
    hub.send(AC, "set_mode", {"mode": "cool"})
    hub.send(AC, "set_temperature", {"value": 26})
    hub.send(AC, "set_fan_speed", {"speed": "high"})
    assert hub.read(AC) == {
        "on": True,
        "mode": "cool",
        "target_temperature": 26,
        "fan_speed": "high",
        "temperature": 27,
    }
    hub.send(RIGHT, "turn_on", {})
    assert fake.states["走廊开关"] == {"state_left": "OFF", "state_right": "ON", "power": 0}
    assert hub.read(RIGHT) == {"on": True}


def test_a_sleeping_sensor_is_read_from_what_it_publishes(
    hub: Zigbee2MqttHub, fake: FakeZ2m
) -> None:
    with pytest.raises(HubError):
        hub.read(SLEEPY)  # it has said nothing since the hub connected
    fake.report("卧室/温湿度计", {"temperature": 21.5})
    assert hub.read(SLEEPY) == {"temperature": 21.5, "humidity": 45}
    assert not [t for t in fake.topics() if t.startswith("zigbee2mqtt/卧室/温湿度计/")]


def test_what_the_device_cannot_do_is_refused_before_sending(
    hub: Zigbee2MqttHub, fake: FakeZ2m
) -> None:
    with pytest.raises(HubError) as raised:
        hub.send(SENSOR, "turn_on", {})
    assert raised.value.reason == "refused"
    with pytest.raises(HubError) as raised:
        hub.send("no_such_device", "turn_on", {})
    assert raised.value.reason == "unknown device"
    assert not fake.topics()


def test_names_map_ids_to_friendly_names(broker: Broker, fake: FakeZ2m) -> None:
    # A hand-written home: ids of its own, friendly names given, no help from bridge/devices
    # for the one zigbee2mqtt does not describe (the usual property names are used).
    doc = {
        "version": 1,
        "name": "手写的家",
        "rooms": [{"id": "living", "name": "客厅"}],
        "devices": [
            {
                "id": "ceiling",
                "name": "吸顶灯",
                "room": "living",
                "type": "Light",
                "capabilities": ["onoff", "brightness"],
            },
            {
                "id": "undescribed",
                "name": "台灯",
                "room": "living",
                "type": "Light",
                "capabilities": ["onoff", "brightness"],
            },
        ],
    }
    fake.states["书房/台灯"] = {"state": "OFF", "brightness": 10}
    names = {"ceiling": "客厅/吸顶灯", "undescribed": "书房/台灯"}
    home = parse_home(doc, "hand-written")
    with Zigbee2MqttHub(home, host=broker.host, port=broker.port, names=names) as hub:
        hub.send("ceiling", "set_brightness", {"value": 100})
        hub.send("undescribed", "turn_on", {})
        assert hub.read("undescribed") == {"on": True, "brightness": 4}
    assert fake.states["客厅/吸顶灯"]["brightness"] == 254
    assert "zigbee2mqtt/书房/台灯/set" in fake.topics()


def test_invalid_friendly_names_are_refused_up_front(broker: Broker, home: Home) -> None:
    with pytest.raises(HubError, match="wildcard"):
        Zigbee2MqttHub(home, host=broker.host, port=broker.port, names={CEILING: "客厅/#"})


def test_no_broker_is_offline_at_once(home: Home, tmp_path: Path) -> None:
    with running_broker(tmp_path) as gone:
        port = gone.port
    with pytest.raises(HubError) as raised:
        Zigbee2MqttHub(home, host="127.0.0.1", port=port, connect_timeout=1.0)
    assert raised.value.reason == "offline"


def test_a_lost_broker_fails_commands_instead_of_hanging(home: Home, tmp_path: Path) -> None:
    with running_broker(tmp_path) as own:
        bridge = FakeZ2m(own.host, own.port, DEVICES, STATES)
        hub = Zigbee2MqttHub(home, host=own.host, port=own.port, send_timeout=5.0)
        try:
            hub.send(CEILING, "turn_on", {})
        finally:
            bridge.close()
        own.stop()
        started = time.monotonic()
        try:
            with pytest.raises(HubError) as raised:
                hub.send(CEILING, "turn_off", {})
            waited = time.monotonic() - started
        finally:
            hub.close()
    assert raised.value.reason == "offline"
    assert waited < 1


def test_many_threads_share_one_hub(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    # The engine sends from many threads at once; each must get its own device's echo.
    jobs = [(CEILING, 10), (STRIP, 20), (CEILING, 30), (STRIP, 40)] * 4

    def dim(job: tuple[str, int]) -> int:
        device, value = job
        hub.send(device, "set_brightness", {"value": value})
        return int(hub.read(device)["brightness"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        seen = list(pool.map(dim, jobs))
    assert all(value in (10, 20, 30, 40) for value in seen)
    hub.send(CEILING, "set_brightness", {"value": 70})
    assert hub.read(CEILING)["brightness"] == 70
    assert hub.read(STRIP)["brightness"] in (20, 40)


def test_garbage_on_the_broker_never_stops_the_hub(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    junk: list[tuple[str, bytes]] = [
        ("zigbee2mqtt/客厅/灯带", b"\xff\xfe not utf-8"),
        ("zigbee2mqtt/客厅/灯带", b"[" * 100_000),
        ("zigbee2mqtt/客厅/灯带", b'{"state": ["ON"], "brightness": "bright", "color_temp": 0}'),
        ("zigbee2mqtt/客厅/灯带/availability", b'{"state": 1}'),
        ("zigbee2mqtt/bridge/devices", b'{"not": "a list"}'),
        ("zigbee2mqtt/bridge/logging", b'{"level": "error", "message": 7}'),
        ("zigbee2mqtt/bridge/state", b"[]"),
    ]
    for topic, payload in junk:
        fake.client.publish(topic, payload, qos=1).wait_for_publish(5)
    # The junk may still be on its way: the echo, which comes after it, is what confirms.
    hub.send(STRIP, "turn_on", {})
    assert hub.read(STRIP) == {"on": True, "brightness": 39, "color_temp": 4000}


def test_a_broker_that_refuses_us_is_refused(home: Home, tmp_path: Path) -> None:
    with running_broker(tmp_path, anonymous=False) as closed, pytest.raises(HubError) as raised:
        Zigbee2MqttHub(home, host=closed.host, port=closed.port, connect_timeout=2.0)
    assert raised.value.reason == "refused"


def test_unlocking_waits_for_the_confirmation(
    hub: Zigbee2MqttHub, fake: FakeZ2m, home: Home
) -> None:
    engine = Engine(home, hub=hub)
    asked = engine.turn("打开入户门锁")
    assert asked.outcome == "confirm", asked.reply
    assert fake.states["入户门锁"]["state"] == "LOCK"
    assert not fake.topics()
    done = engine.turn("确认")
    assert done.commands == [{"device": LOCK, "command": "unlock", "params": {}}], done.reply
    assert fake.states["入户门锁"]["lock_state"] == "unlocked"
