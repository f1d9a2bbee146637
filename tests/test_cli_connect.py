"""`--hub` and its connection settings (jiayu/connect.py): each hub built from flags or the
environment, against the loopback fakes and a real mosquitto; a missing setting is one line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from fake_ha import FakeHomeAssistant, ha_state
from fake_z2m import FakeZ2m
from mqtt_broker import Broker

from jiayu.connect import add_hub_arguments, close_hub, hub_from_args
from jiayu.errors import JiayuError
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, parse_home
from jiayu.importers.z2m import build_home

Z2M = Path(__file__).parent / "data" / "z2m"
ENV = (
    "JIAYU_HUB",
    "JIAYU_HA_URL",
    "JIAYU_HA_TOKEN",
    "HA_TOKEN",
    "JIAYU_MQTT_URL",
    "JIAYU_MQTT_PASSWORD",
    "JIAYU_Z2M_TOPIC",
    "JIAYU_SMARTTHINGS_TOKEN",
    "SMARTTHINGS_TOKEN",
    "JIAYU_SMARTTHINGS_URL",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_hub_arguments(parser)
    return parser.parse_args(argv)


def test_the_simulated_hub_is_the_default(demo_home: Home) -> None:
    assert isinstance(hub_from_args(_args(), demo_home), SimulatedHub)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIAYU_HUB", "ha")
    monkeypatch.setenv("JIAYU_HA_URL", "http://ha.local:8123")
    monkeypatch.setenv("HA_TOKEN", "from-ha-token")
    monkeypatch.setenv("JIAYU_Z2M_TOPIC", "z2m-home")
    args = _args()
    assert (args.hub, args.ha_url, args.ha_token, args.z2m_topic) == (
        "ha",
        "http://ha.local:8123",
        "from-ha-token",
        "z2m-home",
    )
    monkeypatch.setenv("JIAYU_HA_TOKEN", "jiayu-token")  # the jiayu name wins
    assert _args().ha_token == "jiayu-token"
    assert _args("--ha-token", "flag").ha_token == "flag"  # and a flag wins over both


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--hub", "ha"], "Home Assistant's URL is not set: give --ha-url or set JIAYU_HA_URL"),
        (
            ["--hub", "ha", "--ha-url", "http://127.0.0.1:1"],
            "Home Assistant's access token is not set: give --ha-token or set JIAYU_HA_TOKEN",
        ),
        (
            ["--hub", "z2m"],
            "the MQTT broker's URL is not set: give --mqtt-url or set JIAYU_MQTT_URL",
        ),
        (
            ["--hub", "z2m", "--mqtt-url", "http://u:secret@broker"],
            "--mqtt-url: not mqtt://host[:port]: http://broker",
        ),
        (
            ["--hub", "smartthings"],
            "SmartThings' access token is not set: give --smartthings-token or set "
            "JIAYU_SMARTTHINGS_TOKEN",
        ),
        (
            ["--hub", "smartthings", "--smartthings-token", "t", "--smartthings-url", "ftp://x"],
            "--smartthings-url: not an http(s) URL: 'ftp://x'",
        ),
    ],
)
def test_a_missing_or_bad_setting_is_one_line(
    demo_home: Home, argv: list[str], message: str
) -> None:
    with pytest.raises(JiayuError) as caught:
        hub_from_args(_args(*argv), demo_home)
    assert str(caught.value) == message


def test_home_assistant_from_its_http_url() -> None:
    home = parse_home(
        {
            "version": 1,
            "name": "家",
            "rooms": [{"id": "living", "name": "客厅"}],
            "devices": [
                {
                    "id": "light.living",
                    "name": "客厅灯",
                    "type": "Light",
                    "room": "living",
                    "capabilities": ["onoff"],
                }
            ],
        },
        "ha home",
    )
    with FakeHomeAssistant() as fake:
        fake.add(ha_state("light.living", "off"))
        http_url = fake.url.replace("ws://", "http://").removesuffix("/api/websocket")
        hub = hub_from_args(
            _args("--hub", "ha", "--ha-url", http_url, "--ha-token", "good-token"), home
        )
        try:
            hub.send("light.living", "turn_on", {})
            assert fake.states["light.living"]["state"] == "on"
        finally:
            close_hub(hub)


def test_home_assistant_refusing_the_token_is_one_line_without_it(demo_home: Home) -> None:
    with FakeHomeAssistant() as fake, pytest.raises(JiayuError) as caught:
        hub_from_args(
            _args("--hub", "ha", "--ha-url", fake.url, "--ha-token", "wrong-secret"), demo_home
        )
    assert "wrong-secret" not in str(caught.value)
    assert "\n" not in str(caught.value)


def test_zigbee2mqtt_through_a_real_broker(broker: Broker) -> None:
    devices: list[dict[str, Any]] = json.loads((Z2M / "bridge_devices.json").read_text("utf-8"))
    rooms = json.loads((Z2M / "rooms.json").read_text("utf-8"))
    home = parse_home(build_home(devices, rooms, name="测试之家"), "z2m home")
    fake = FakeZ2m(broker.host, broker.port, devices, {"书房插座": {"state": "OFF", "power": 0}})
    try:
        url = f"mqtt://{broker.host}:{broker.port}"
        hub = hub_from_args(_args("--hub", "z2m", "--mqtt-url", url), home)
        try:
            plug = next(d.id for d in home.devices if d.name.endswith("插座"))
            hub.send(plug, "turn_on", {})
            assert fake.states["书房插座"]["state"] == "ON"
        finally:
            close_hub(hub)
    finally:
        fake.close()


def test_no_broker_is_one_line_without_the_password(demo_home: Home) -> None:
    with pytest.raises(JiayuError) as caught:
        hub_from_args(
            _args("--hub", "z2m", "--mqtt-url", "mqtt://me:secret@127.0.0.1:1"), demo_home
        )
    assert str(caught.value) == "cannot reach zigbee2mqtt at mqtt://127.0.0.1:1: offline"
