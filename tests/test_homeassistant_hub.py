"""HomeAssistantHub against a loopback fake of HA's WebSocket API, and the command table."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fake_ha import FakeHomeAssistant, ha_state

from jiayu.executor.hubs import HubError
from jiayu.executor.hubs.homeassistant import (
    HaConnectionError,
    HomeAssistantHub,
    device_state,
    service_call,
)


@pytest.fixture
def fake() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as running:
        running.add(ha_state("light.living", "off", supported_color_modes=["color_temp"]))
        running.add(
            ha_state(
                "climate.bedroom",
                "cool",
                temperature=24,
                current_temperature=27.5,
                fan_mode="high",
                hvac_modes=["off", "cool", "heat"],
            )
        )
        running.add(ha_state("lock.front_door", "locked"))
        running.add(ha_state("cover.study", "open", current_position=70))
        running.add(ha_state("switch.kettle", "unavailable"))
        yield running


@pytest.fixture
def hub(fake: FakeHomeAssistant) -> Iterator[HomeAssistantHub]:
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as connected:
        yield connected


def _eventually(check: Callable[[], bool]) -> None:
    # State changes arrive as events on the hub's reader thread.
    deadline = time.monotonic() + 2.0
    while not check():
        assert time.monotonic() < deadline, "the state never arrived"
        time.sleep(0.01)


def test_a_wrong_token_is_refused_and_every_device_is_offline(fake: FakeHomeAssistant) -> None:
    hub = HomeAssistantHub(fake.url, "wrong-token", timeout=2.0)
    with pytest.raises(HaConnectionError, match="auth_invalid"):
        hub.connect()
    with pytest.raises(HubError) as caught:
        hub.read("light.living")
    assert (caught.value.device, caught.value.reason) == ("light.living", "offline")
    assert fake.calls == []


def test_nothing_listening_is_offline() -> None:
    hub = HomeAssistantHub("ws://127.0.0.1:9/api/websocket", "t", timeout=1.0)
    with pytest.raises(HubError, match="offline"):
        hub.send("light.living", "turn_on", {})


def test_brightness_calls_light_turn_on_on_the_entity(
    fake: FakeHomeAssistant, hub: HomeAssistantHub
) -> None:
    hub.send("light.living", "set_brightness", {"value": 40})
    [call] = fake.calls
    assert call["type"] == "call_service"
    assert (call["domain"], call["service"]) == ("light", "turn_on")
    assert call["service_data"] == {"brightness_pct": 40}
    assert call["target"] == {"entity_id": "light.living"}
    # The fake answered with state_changed: the next read sees it without asking.
    _eventually(lambda: hub.read("light.living").get("brightness") == 40)
    assert hub.read("light.living")["on"] is True


def test_each_call_gets_its_own_message_id(fake: FakeHomeAssistant, hub: HomeAssistantHub) -> None:
    hub.send("lock.front_door", "unlock", {})
    hub.send("cover.study", "set_position", {"value": 30})
    ids = [call["id"] for call in fake.calls]
    assert len(set(ids)) == 2
    assert [(c["domain"], c["service"]) for c in fake.calls] == [
        ("lock", "unlock"),
        ("cover", "set_cover_position"),
    ]
    _eventually(lambda: hub.read("lock.front_door") == {"locked": False})
    _eventually(lambda: hub.read("cover.study") == {"position": 30})


def test_threads_sharing_one_hub_each_get_their_own_answer(fake: FakeHomeAssistant) -> None:
    # Not connected yet: the threads race to connect, and none may read an empty cache.
    hub = HomeAssistantHub(fake.url, fake.token, timeout=2.0)
    values = list(range(10, 90, 10))
    with ThreadPoolExecutor(len(values)) as pool:
        reads = list(pool.map(lambda _: hub.read("lock.front_door"), values))
        list(pool.map(lambda v: hub.send("light.living", "set_brightness", {"value": v}), values))
    hub.close()
    assert reads == [{"locked": True}] * len(values)
    assert sorted(c["service_data"]["brightness_pct"] for c in fake.calls) == values
    assert len({c["id"] for c in fake.calls}) == len(values)


def test_reads_map_ha_states_to_ours(hub: HomeAssistantHub) -> None:
    assert hub.read("climate.bedroom") == {
        "on": True,
        "mode": "cool",
        "target_temperature": 24.0,
        "fan_speed": "high",
        "temperature": 27.5,
    }
    assert hub.read("lock.front_door") == {"locked": True}
    assert hub.read("light.living") == {"on": False}


def test_a_state_changed_event_updates_the_next_read(
    fake: FakeHomeAssistant, hub: HomeAssistantHub
) -> None:
    hub.read("lock.front_door")
    fake.set_state("lock.front_door", "unlocked")
    _eventually(lambda: hub.read("lock.front_door") == {"locked": False})


def test_an_unavailable_entity_is_offline_and_nothing_is_sent(
    fake: FakeHomeAssistant, hub: HomeAssistantHub
) -> None:
    for attempt in (
        lambda: hub.read("switch.kettle"),
        lambda: hub.send("switch.kettle", "turn_off", {}),
    ):
        with pytest.raises(HubError) as caught:
            attempt()
        assert caught.value.reason == "offline"
    assert fake.calls == []


def test_an_entity_ha_does_not_have_is_an_unknown_device(hub: HomeAssistantHub) -> None:
    with pytest.raises(HubError, match="unknown device"):
        hub.read("light.nowhere")


def test_no_answer_in_time_is_a_timeout(fake: FakeHomeAssistant) -> None:
    fake.stalled.add("light.living")
    with HomeAssistantHub(fake.url, fake.token, timeout=0.3) as hub:
        with pytest.raises(HubError) as caught:
            hub.send("light.living", "turn_on", {})
        assert caught.value.reason == "unconfirmed"  # it left: HA may still run it
        # The late caller is forgotten; the connection still serves others.
        assert hub.read("lock.front_door") == {"locked": True}


def test_an_error_result_is_refused(fake: FakeHomeAssistant, hub: HomeAssistantHub) -> None:
    fake.failing["climate.bedroom"] = ("service_validation_error", "Temperature out of range")
    with pytest.raises(HubError) as caught:
        hub.send("climate.bedroom", "set_temperature", {"value": 26})
    assert caught.value.reason == "refused"


def test_a_lost_connection_is_reopened(fake: FakeHomeAssistant, hub: HomeAssistantHub) -> None:
    hub.read("light.living")
    hub.close()
    hub.send("light.living", "turn_on", {})
    assert len(fake.calls) == 1


def test_ha_dropping_the_connection_fails_the_waiting_send_as_offline(
    fake: FakeHomeAssistant, hub: HomeAssistantHub
) -> None:
    fake.stalled.add("light.living")
    threading.Timer(0.2, fake.disconnect).start()
    with pytest.raises(HubError) as caught:
        hub.send("light.living", "turn_on", {})
    assert caught.value.reason == "unconfirmed"  # it left: never a success it cannot know
    fake.stalled.clear()
    # The next use connects again, with a fresh snapshot.
    fake.set_state("lock.front_door", "unlocked")
    assert hub.read("lock.front_door") == {"locked": False}


@pytest.mark.parametrize(
    ("entity_id", "command", "params", "expected"),
    [
        ("light.a", "turn_on", {}, ("light", "turn_on", {})),
        ("switch.a", "turn_off", {}, ("switch", "turn_off", {})),
        ("fan.a", "turn_off", {}, ("fan", "turn_off", {})),
        (
            "light.a",
            "set_color_temp",
            {"value": 3000},
            ("light", "turn_on", {"color_temp_kelvin": 3000}),
        ),
        (
            "climate.a",
            "set_temperature",
            {"value": 26.5},
            ("climate", "set_temperature", {"temperature": 26.5}),
        ),
        (
            "climate.a",
            "set_mode",
            {"mode": "fan"},
            ("climate", "set_hvac_mode", {"hvac_mode": "fan_only"}),
        ),
        (
            "climate.a",
            "set_fan_speed",
            {"speed": "low"},
            ("climate", "set_fan_mode", {"fan_mode": "low"}),
        ),
        (
            "fan.a",
            "set_fan_speed",
            {"speed": "medium"},
            ("fan", "set_percentage", {"percentage": 66}),
        ),
        ("cover.a", "open", {}, ("cover", "open_cover", {})),
        ("cover.a", "close", {}, ("cover", "close_cover", {})),
        ("cover.a", "stop", {}, ("cover", "stop_cover", {})),
        ("valve.a", "open_valve", {}, ("valve", "open_valve", {})),
        ("valve.a", "close_valve", {}, ("valve", "close_valve", {})),
        ("lock.a", "lock", {}, ("lock", "lock", {})),
        (
            "media_player.a",
            "set_volume",
            {"value": 35},
            ("media_player", "volume_set", {"volume_level": 0.35}),
        ),
        ("media_player.a", "mute", {}, ("media_player", "volume_mute", {"is_volume_muted": True})),
        (
            "media_player.a",
            "unmute",
            {},
            ("media_player", "volume_mute", {"is_volume_muted": False}),
        ),
        ("media_player.a", "play", {}, ("media_player", "media_play", {})),
        ("media_player.a", "pause", {}, ("media_player", "media_pause", {})),
        ("media_player.a", "next_track", {}, ("media_player", "media_next_track", {})),
        ("media_player.a", "previous_track", {}, ("media_player", "media_previous_track", {})),
    ],
)
def test_the_command_table(
    entity_id: str, command: str, params: dict[str, Any], expected: tuple[str, str, dict[str, Any]]
) -> None:
    call = service_call(entity_id, command, params)
    assert (call.domain, call.service, dict(call.data)) == expected


@pytest.mark.parametrize(
    ("entity_id", "command", "params"),
    [
        # Another domain's service would skip the entity and still report success.
        ("light.a", "open", {}),
        ("lock.a", "turn_on", {}),
        ("switch.a", "set_brightness", {"value": 50}),
        # HA fans have no "auto" percentage.
        ("fan.a", "set_fan_speed", {"speed": "auto"}),
        ("light.a", "self_destruct", {}),
    ],
)
def test_what_ha_cannot_do_for_that_entity_is_refused(
    entity_id: str, command: str, params: dict[str, Any]
) -> None:
    with pytest.raises(HubError, match="refused"):
        service_call(entity_id, command, params)


def test_states_back_to_ours() -> None:
    assert device_state("light.a", "on", {"brightness": 255, "color_temp_kelvin": 4000}) == {
        "on": True,
        "brightness": 100,
        "color_temp": 4000,
    }
    assert device_state("fan.a", "on", {"percentage": 50}) == {"on": True, "fan_speed": "medium"}
    assert device_state(
        "media_player.a", "playing", {"volume_level": 0.3, "is_volume_muted": False}
    ) == {
        "on": True,
        "playing": True,
        "volume": 30,
        "muted": False,
    }
    assert device_state("sensor.t", "21.5", {"device_class": "temperature"}) == {
        "temperature": 21.5
    }
    assert device_state("sensor.t", "unknown", {"device_class": "temperature"}) == {}
    assert device_state("valve.a", "closed", {}) == {"open": False}
    assert device_state("climate.a", "heat_cool", {}) == {"on": True, "mode": "auto"}
    with pytest.raises(HubError, match="offline"):
        device_state("cover.a", "unavailable", {})
