"""`jiayu home from-ha` against a loopback fake of HA's WebSocket API, and a turn through
the imported home and the HA hub."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_ha import (
    FakeHomeAssistant,
    area_entry,
    device_entry,
    entity_entry,
    floor_entry,
    ha_state,
)

from jiayu.engine import Engine
from jiayu.executor.hubs.homeassistant import HomeAssistantHub
from jiayu.home import Home, load_home
from jiayu.importers import ha


@pytest.fixture
def fake() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as running:
        running.floors = [
            floor_entry("ground", "一楼", "楼下"),
            floor_entry("first", "二楼", "楼上"),
        ]
        running.areas = [
            area_entry("living_room", "客厅", "大厅", floor="ground"),
            area_entry("bedroom", "卧室", floor="first"),
            # An alias equal to a floor's name would make 楼下 mean two places.
            area_entry("study", "书房", "楼下", floor="first"),
        ]
        running.devices = [device_entry("dev1", "吸顶灯", "living_room")]
        running.entities = [
            # Its area comes from its device.
            entity_entry("light.ceiling", "大灯", device="dev1"),
            entity_entry("climate.bedroom_ac", area="bedroom"),
            entity_entry("lock.front_door", "门锁", area="living_room"),
            entity_entry("sensor.study_temp", area="study", device_class="temperature"),
            entity_entry("switch.lamp", "客厅", area="study"),  # an alias equal to a room
            entity_entry("camera.door", area="living_room"),
            entity_entry("light.not_exposed", area="bedroom"),
            entity_entry("media_player.speaker"),  # no area
        ]
        running.add(
            ha_state(
                "light.ceiling",
                "off",
                friendly_name="客厅吸顶灯",
                supported_color_modes=["color_temp"],
                min_color_temp_kelvin=2700,
                max_color_temp_kelvin=6000,
            )
        )
        running.add(
            ha_state(
                "climate.bedroom_ac",
                "off",
                friendly_name="卧室空调",
                supported_features=1 | 8 | 128,
                hvac_modes=["off", "cool", "heat", "fan_only"],
                fan_modes=["low", "medium", "high"],
                min_temp=16,
                max_temp=30,
                temperature=24,
                current_temperature=28,
            )
        )
        running.add(ha_state("lock.front_door", "locked", friendly_name="前门"))
        running.add(
            ha_state(
                "sensor.study_temp", "22.5", friendly_name="书房温度计", device_class="temperature"
            )
        )
        running.add(ha_state("switch.lamp", "off", friendly_name="台灯"))
        running.add(ha_state("camera.door", "idle", friendly_name="门口摄像头"))
        running.add(ha_state("light.not_exposed", "off", friendly_name="秘密灯"))
        running.add(
            ha_state(
                "media_player.speaker",
                "idle",
                friendly_name="音箱",
                supported_features=4 | 8 | 16384 | 1,
                volume_level=0.2,
            )
        )
        running.exposed = {
            e: {"conversation": True, "cloud.alexa": True}
            for e in (
                "light.ceiling",
                "climate.bedroom_ac",
                "lock.front_door",
                "sensor.study_temp",
                "switch.lamp",
                "camera.door",
                "media_player.speaker",
            )
        }
        running.exposed["light.not_exposed"] = {"cloud.google_assistant": True}
        yield running


def _import(fake: FakeHomeAssistant, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Home:
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    out = tmp_path / "home.json"
    http_url = fake.url.replace("ws://", "http://").removesuffix("/api/websocket")
    args = parser.parse_args(["--url", http_url, "--token", fake.token, "--out", str(out)])
    assert ha.run(args) == 0, capsys.readouterr().err
    return load_home(out)


def test_registries_become_a_valid_home(
    fake: FakeHomeAssistant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _import(fake, tmp_path, capsys)
    assert home.name == "我的家"
    assert [(f.id, f.name, f.aliases) for f in home.floors] == [
        ("floor.ground", "一楼", ("楼下",)),
        ("floor.first", "二楼", ("楼上",)),
    ]
    rooms = {r.id: (r.name, r.aliases, r.floor) for r in home.rooms}
    assert rooms == {
        "area.living_room": ("客厅", ("大厅",), "floor.ground"),
        "area.bedroom": ("卧室", (), "floor.first"),
        "area.study": ("书房", (), "floor.first"),
        "area._unassigned": ("未分区", (), None),
    }
    devices = {d.id: d for d in home.devices}
    assert set(devices) == {
        "light.ceiling",
        "climate.bedroom_ac",
        "lock.front_door",
        "sensor.study_temp",
        "switch.lamp",
        "media_player.speaker",
    }
    light = devices["light.ceiling"]
    assert (light.name, light.aliases, light.room, light.type) == (
        "客厅吸顶灯",
        ("大灯",),
        "area.living_room",
        "Light",
    )
    assert light.capabilities == {"onoff", "brightness", "color_temp"}
    assert (light.limits["color_temp"].min, light.limits["color_temp"].max) == (2700, 6000)
    ac = devices["climate.bedroom_ac"]
    assert ac.type == "AirConditioner"
    assert ac.capabilities == {
        "onoff",
        "target_temperature",
        "hvac_mode",
        "fan_speed",
        "temperature_sensor",
    }
    assert devices["sensor.study_temp"].capabilities == {"temperature_sensor"}
    assert devices["lock.front_door"].capabilities == {"lock"}
    assert devices["switch.lamp"].aliases == ()
    assert devices["media_player.speaker"].room == "area._unassigned"
    assert devices["media_player.speaker"].capabilities == {"volume", "media"}
    err = capsys.readouterr().err
    assert "camera.door" in err
    assert '"楼下" is unusable' in err
    assert '"客厅" is unusable' in err


def test_a_turn_on_the_imported_home_calls_the_service(
    fake: FakeHomeAssistant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _import(fake, tmp_path, capsys)
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        engine = Engine(home, hub=hub)
        result = engine.turn("把大灯调到40%", "s1")
        assert result.outcome == "executed", result.reply
        [call] = fake.calls
        assert (call["domain"], call["service"], call["service_data"]) == (
            "light",
            "turn_on",
            {"brightness_pct": 40},
        )
        assert call["target"] == {"entity_id": "light.ceiling"}
        # Unlocking waits for 确认, and HA hears nothing until then.
        assert engine.turn("打开前门", "s2").outcome == "confirm"
        assert len(fake.calls) == 1


def test_a_wrong_token_is_one_line_and_exit_2(
    fake: FakeHomeAssistant, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    assert ha.run(parser.parse_args(["--url", fake.url, "--token", "nope"])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "auth_invalid" in err


def test_the_token_comes_from_ha_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIAYU_HA_TOKEN", raising=False)
    monkeypatch.setenv("HA_TOKEN", "from-env")
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    assert parser.parse_args(["--url", "http://ha:8123"]).token == "from-env"


def test_url_and_token_come_from_the_same_variables_as_hub_ha(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JIAYU_HA_URL", "http://ha:8123")
    monkeypatch.setenv("JIAYU_HA_TOKEN", "jiayu-token")
    monkeypatch.setenv("HA_TOKEN", "ha-token")  # the jiayu name wins, as with --hub ha
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    args = parser.parse_args([])
    assert (args.url, args.token) == ("http://ha:8123", "jiayu-token")


def test_no_home_assistant_named_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("JIAYU_HA_URL", raising=False)
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    assert ha.run(parser.parse_args(["--token", "t"])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "JIAYU_HA_URL" in err


def test_urls_people_type_become_the_websocket_address() -> None:
    assert ha.websocket_url("http://ha.local:8123/") == "ws://ha.local:8123/api/websocket"
    assert ha.websocket_url("https://ha.example") == "wss://ha.example/api/websocket"
    assert ha.websocket_url("ws://h:1/api/websocket") == "ws://h:1/api/websocket"


def test_odd_area_ids_still_make_valid_ids() -> None:
    assert ha.room_id("kitchen") == "area.kitchen"
    odd = ha.room_id("厨房 " * 30)
    assert odd.startswith("area.") and len(odd) <= 64
    assert json.dumps(odd).isascii()


def test_answers_shaped_unlike_has_are_one_line_and_exit_2(
    fake: FakeHomeAssistant, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.areas = [{"name": "客厅"}]  # no area_id
    parser = argparse.ArgumentParser()
    ha.add_arguments(parser)
    assert ha.run(parser.parse_args(["--url", fake.url, "--token", fake.token])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "unexpected answer" in err


@pytest.mark.parametrize(
    ("entity_id", "attributes", "expected"),
    [
        (
            "switch.plug",
            {"device_class": "outlet"},
            {"type": "SmartPlug", "capabilities": ["onoff"]},
        ),
        (
            "fan.f",
            {"supported_features": 1},
            {"type": "Fan", "capabilities": ["onoff", "fan_speed"]},
        ),
        ("cover.blind", {}, {"type": "Blind", "capabilities": ["cover"]}),
        # A garage door opens the house: a GarageDoor, which the risk gate guards.
        (
            "cover.garage",
            {"device_class": "garage"},
            {"type": "GarageDoor", "capabilities": ["cover"]},
        ),
        ("valve.water", {}, {"type": "Valve", "capabilities": ["valve"]}),
        (
            "media_player.tv",
            {"device_class": "tv", "supported_features": 128 | 256 | 4},
            {"type": "Television", "capabilities": ["onoff", "volume"]},
        ),
        (
            "climate.heater",
            {"supported_features": 1, "hvac_modes": ["off", "heat"], "min_temp": 5, "max_temp": 35},
            {
                "type": "Heater",
                "capabilities": ["onoff", "target_temperature", "hvac_mode"],
                "limits": {"target_temperature": {"min": 5, "max": 35}},
            },
        ),
        (
            "light.dumb",
            {"supported_color_modes": ["onoff"]},
            {"type": "Light", "capabilities": ["onoff"]},
        ),
        ("sensor.power", {"device_class": "power"}, None),
        ("media_player.bare", {"supported_features": 0}, None),
        ("automation.x", {}, None),
    ],
)
def test_what_an_entity_can_do(
    entity_id: str, attributes: dict[str, object], expected: dict[str, object] | None
) -> None:
    assert ha.describe(entity_id, attributes) == expected
