"""read_many/send_many on every hub: several devices in as few round trips as the hub allows.

Home Assistant runs against the loopback fake of its WebSocket API (which logs every message
and can delay each answer), zigbee2mqtt against a real mosquitto and the fake bridge (which can
delay each device's echo). Wall-time bounds sit between one round trip and two, so a hub that
waits for its devices one after another fails them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import test_zigbee2mqtt as z2m_tests
from fake_ha import FakeHomeAssistant, ha_state
from fake_z2m import FakeZ2m
from test_zigbee2mqtt import AC, CEILING, RIGHT, SENSOR, SLEEPY, STRIP

from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.executor.hubs.base import Sends
from jiayu.executor.hubs.homeassistant import HomeAssistantHub
from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub
from jiayu.home import Home, parse_home
from jiayu.ir import Command

LIGHTS = [f"light.l{n:02}" for n in range(30)]
PLUG = "z2m_0xa4c1380000ac0006"


def _reasons(sends: Sends) -> list[str | None]:
    return [None if failure is None else failure.reason for failure in sends]


# --- SimulatedHub -------------------------------------------------------------------------


def _simulated_home() -> Home:
    devices = [
        {
            "id": f"lamp{n}",
            "name": f"台灯{n}",
            "room": "study",
            "type": "Light",
            "capabilities": ["onoff", "brightness"],
            "state": {"on": False, "brightness": 10},
        }
        for n in range(3)
    ]
    home = {"version": 1, "name": "家", "rooms": [{"id": "study", "name": "书房"}]}
    return parse_home({**home, "devices": devices}, "test home")


def test_simulated_reads_and_sends_many_with_failures_in_place() -> None:
    simulated = SimulatedHub(_simulated_home())
    simulated.fail("lamp1", "offline")
    sends = simulated.send_many(
        [
            Command("lamp0", "set_brightness", {"value": 60}),
            Command("lamp1", "turn_on"),
            Command("nope", "turn_on"),
            Command("lamp2", "turn_on"),
        ]
    )
    assert _reasons(sends) == [None, "offline", "unknown device", None]
    reads = simulated.read_many(["lamp0", "lamp1", "lamp2"])
    assert reads["lamp0"] == {"on": True, "brightness": 60}  # set_brightness lights it
    assert isinstance(reads["lamp1"], HubError) and reads["lamp1"].reason == "offline"
    assert reads["lamp2"] == {"on": True, "brightness": 10}
    assert [device for device, _, _ in simulated.sent] == ["lamp0", "lamp2"]


# --- Home Assistant -----------------------------------------------------------------------


def _ha_home(fake: FakeHomeAssistant) -> None:
    for number, entity_id in enumerate(LIGHTS):
        fake.add(ha_state(entity_id, "on" if number % 2 else "off", brightness=128))
    fake.add(ha_state("climate.bedroom", "cool", temperature=24, hvac_modes=["off", "cool"]))
    fake.add(ha_state("fan.study", "off", percentage=0))
    fake.add(ha_state("switch.kettle", "unavailable"))


@pytest.fixture
def ha_fake() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as running:
        _ha_home(running)
        yield running


@pytest.fixture
def ha_hub(ha_fake: FakeHomeAssistant) -> Iterator[HomeAssistantHub]:
    with HomeAssistantHub(ha_fake.url, ha_fake.token, timeout=1.0) as connected:
        yield connected


def _kinds(fake: FakeHomeAssistant) -> list[str]:
    return [message["type"] for message in fake.messages]


def _targets(call: dict[str, Any]) -> list[str]:
    target = call["target"]["entity_id"]
    return [target] if isinstance(target, str) else sorted(target)


def test_ha_read_many_is_the_one_snapshot_and_the_events_after_it(
    ha_fake: FakeHomeAssistant, ha_hub: HomeAssistantHub
) -> None:
    reads = ha_hub.read_many([*LIGHTS, "switch.kettle", "light.gone"])
    assert [reads[e] for e in LIGHTS] == [{"on": bool(n % 2), "brightness": 50} for n in range(30)]
    kettle, gone = reads["switch.kettle"], reads["light.gone"]
    assert isinstance(kettle, HubError) and kettle.reason == "offline"
    assert isinstance(gone, HubError) and gone.reason == "unknown device"
    # Thirty entities: the connection's one get_states, nothing per entity.
    assert _kinds(ha_fake) == ["subscribe_events", "get_states"]
    ha_fake.set_state(LIGHTS[0], "on", brightness=255)
    deadline = time.monotonic() + 2
    while ha_hub.read_many([LIGHTS[0]])[LIGHTS[0]] != {"on": True, "brightness": 100}:
        assert time.monotonic() < deadline, "the state_changed event never arrived"
        time.sleep(0.01)
    assert _kinds(ha_fake) == ["subscribe_events", "get_states"]


def test_ha_identical_commands_are_one_call_service(
    ha_fake: FakeHomeAssistant, ha_hub: HomeAssistantHub
) -> None:
    sends = ha_hub.send_many([Command(e, "turn_off") for e in LIGHTS])
    assert sends == [None] * len(LIGHTS)
    [call] = ha_fake.calls
    assert (call["domain"], call["service"], call["service_data"]) == ("light", "turn_off", {})
    assert call["target"]["entity_id"] == LIGHTS  # in the commands' order
    assert all(ha_fake.states[e]["state"] == "off" for e in LIGHTS)


def test_ha_mixed_commands_are_grouped_by_service_and_data(
    ha_fake: FakeHomeAssistant, ha_hub: HomeAssistantHub
) -> None:
    commands = [
        Command(LIGHTS[0], "turn_off"),
        Command(LIGHTS[1], "set_brightness", {"value": 40}),
        Command(LIGHTS[2], "turn_off"),
        Command(LIGHTS[3], "set_brightness", {"value": 60}),
        Command(LIGHTS[4], "turn_on"),
        Command(LIGHTS[5], "set_brightness", {"value": 40}),
        Command("climate.bedroom", "turn_off"),
        Command("fan.study", "set_fan_speed", {"speed": "low"}),
    ]
    assert ha_hub.send_many(commands) == [None] * len(commands)
    calls = sorted(
        (c["domain"], c["service"], sorted(c["service_data"].items()), _targets(c))
        for c in ha_fake.calls
    )
    assert calls == [
        ("climate", "turn_off", [], ["climate.bedroom"]),
        ("fan", "set_percentage", [("percentage", 33)], ["fan.study"]),
        ("light", "turn_off", [], [LIGHTS[0], LIGHTS[2]]),
        ("light", "turn_on", [], [LIGHTS[4]]),
        ("light", "turn_on", [("brightness_pct", 40)], [LIGHTS[1], LIGHTS[5]]),
        ("light", "turn_on", [("brightness_pct", 60)], [LIGHTS[3]]),
    ]


def test_ha_failures_are_reported_in_place(
    ha_fake: FakeHomeAssistant, ha_hub: HomeAssistantHub
) -> None:
    ha_fake.failing[LIGHTS[3]] = ("home_assistant_error", "Device did not respond")
    ha_fake.stalled.add("climate.bedroom")
    commands = [
        Command(LIGHTS[0], "turn_on"),
        Command("switch.kettle", "turn_on"),  # unavailable: offline, never sent
        Command(LIGHTS[1], "set_brightness", {"value": 70}),
        Command("fan.study", "set_fan_speed", {"speed": "auto"}),  # no HA service does it
        Command(LIGHTS[3], "set_brightness", {"value": 70}),  # fails its whole call
        Command("light.gone", "turn_on"),
        Command("climate.bedroom", "set_temperature", {"value": 25}),  # never answered
        Command(LIGHTS[4], "turn_on"),
    ]
    started = time.monotonic()
    sends = ha_hub.send_many(commands)
    assert _reasons(sends) == [
        None,
        "offline",
        "refused",
        "refused",
        "refused",
        "unknown device",
        "unconfirmed",  # it left, HA never answered: it may have happened (CONTRACTS §5)
        None,
    ]
    assert time.monotonic() - started < 1.5  # the one timeout of 1 s, not one per call
    assert [_targets(c) for c in ha_fake.calls if c["service_data"]] == [
        [LIGHTS[1], LIGHTS[3]],
        ["climate.bedroom"],
    ]
    assert ha_fake.states[LIGHTS[4]]["state"] == "on"
    # send raises what send_many reports.
    with pytest.raises(HubError) as raised:
        ha_hub.send("switch.kettle", "turn_on", {})
    assert raised.value.reason == "offline"


def test_ha_calls_go_out_together_and_are_awaited_together() -> None:
    latency = 0.2
    with FakeHomeAssistant(latency=latency) as fake:
        _ha_home(fake)
        with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
            hub.connect()
            commands = [
                Command(e, "set_brightness", {"value": 10 + n}) for n, e in enumerate(LIGHTS)
            ]
            started = time.monotonic()
            sends = hub.send_many(commands)
            took = time.monotonic() - started
    assert sends == [None] * len(LIGHTS)
    assert len(fake.calls) == len(LIGHTS)  # thirty different calls ...
    assert latency <= took < 2 * latency  # ... in one round trip, not thirty


# --- zigbee2mqtt --------------------------------------------------------------------------

# The zigbee2mqtt tests' fixtures: the fake bridge on mosquitto (conftest's `broker`) and a
# hub with 0.5 s timeouts, on the home `jiayu home from-z2m` builds.
home, fake, hub = z2m_tests.home, z2m_tests.fake, z2m_tests.hub
ECHO = 0.2
"""Each device's echo delay: `fake.echo_delay = ECHO` in a test; five in a row would take 1 s."""
TIMEOUT = 0.5
"""The hub fixture's read_timeout and send_timeout."""


def test_z2m_echoes_are_awaited_together(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.echo_delay = ECHO
    commands = [
        Command(CEILING, "turn_on"),
        Command(STRIP, "set_brightness", {"value": 50}),
        Command(PLUG, "turn_on"),
        Command(RIGHT, "turn_on"),
        Command(AC, "set_temperature", {"value": 26}),
    ]
    started = time.monotonic()
    sends = hub.send_many(commands)
    took = time.monotonic() - started
    assert sends == [None] * len(commands)
    assert ECHO <= took < 2 * ECHO  # one device's echo, not five in a row
    assert fake.states["客厅/吸顶灯"]["state"] == "ON"
    assert fake.states["客厅/灯带"]["brightness"] == 127
    assert fake.states["书房插座"]["state"] == "ON"
    assert fake.states["走廊开关"]["state_right"] == "ON"
    assert fake.states["客厅空调"]["current_heating_setpoint"] == 26


def test_z2m_failures_are_reported_in_place_under_one_deadline(
    hub: Zigbee2MqttHub, fake: FakeZ2m
) -> None:
    fake.silence("客厅/吸顶灯")
    fake.silence("客厅/灯带")
    fake.fail("书房插座")
    commands = [
        Command(CEILING, "turn_on"),  # no echo
        Command(AC, "set_temperature", {"value": 25}),
        Command(STRIP, "turn_on"),  # no echo either: the same deadline
        Command(PLUG, "turn_on"),  # the bridge logs it failed
        Command(SENSOR, "turn_on"),  # a sensor cannot: refused before sending
        Command("no_such_device", "turn_on"),
        Command(RIGHT, "turn_on"),
    ]
    started = time.monotonic()
    sends = hub.send_many(commands)
    took = time.monotonic() - started
    assert _reasons(sends) == [
        "unconfirmed",  # sent, never echoed: it may have happened (CONTRACTS §5)
        None,
        "unconfirmed",
        "refused",
        "refused",
        "unknown device",
        None,
    ]
    assert TIMEOUT <= took < 1.5 * TIMEOUT  # one send_timeout for both silent lights
    assert not [t for t in fake.topics() if t.startswith("zigbee2mqtt/客厅/温湿度计/")]


def test_z2m_read_many_asks_together(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.echo_delay = ECHO
    fake.go_offline("书房插座")
    time.sleep(0.1)  # the retained offline reaches the hub
    asked = [CEILING, STRIP, AC, RIGHT, SENSOR]
    started = time.monotonic()
    reads = hub.read_many([*asked, PLUG, SLEEPY, "no_such_device"])
    took = time.monotonic() - started
    assert reads[CEILING] == {"on": False, "brightness": 100, "color_temp": 2703}
    assert reads[SENSOR] == {"temperature": 28.5, "humidity": 61}
    assert reads[RIGHT] == {"on": False}
    reasons = {d: r.reason for d, r in reads.items() if isinstance(r, HubError)}
    # The sleeping sensor cannot be asked and has said nothing yet: it runs out the deadline.
    assert reasons == {PLUG: "offline", SLEEPY: "timeout", "no_such_device": "unknown device"}
    assert TIMEOUT <= took < 1.5 * TIMEOUT  # five /gets and a silent sensor: one read_timeout
    gets = [t for t in fake.topics() if t.endswith("/get")]
    assert len(gets) == len(asked)


def test_z2m_read_many_answers_together_within_one_echo(hub: Zigbee2MqttHub, fake: FakeZ2m) -> None:
    fake.echo_delay = ECHO
    asked = [CEILING, STRIP, AC, RIGHT, SENSOR, PLUG]
    started = time.monotonic()
    reads = hub.read_many(asked)
    took = time.monotonic() - started
    assert all(not isinstance(reads[d], HubError) for d in asked), reads
    assert ECHO <= took < 2 * ECHO
