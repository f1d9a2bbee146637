"""The capabilities of revision 3 on Home Assistant: the importer reads them from HA's
states (colour modes, preset modes, vacuums, humidifiers, tilt, water heaters), types what
is a lock or valve in fact, and the hub's service calls carry them out on the loopback fake
of HA's WebSocket API, which checks each service's data as HA does."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fake_ha import FakeHomeAssistant, area_entry, entity_entry, ha_state

from jiayu.engine import Engine
from jiayu.executor.hubs.homeassistant import HomeAssistantHub
from jiayu.home import Home, parse_home
from jiayu.importers import ha

# Entity: (its state, its attributes, its registry aliases).
_ENTITIES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "light.colour": (
        "on",
        {
            "friendly_name": "彩灯",
            "supported_color_modes": ["hs", "color_temp"],
            "brightness": 128,
            "hs_color": [30.0, 60.0],
        },
        (),
    ),
    "light.white": ("off", {"friendly_name": "台灯", "supported_color_modes": ["brightness"]}, ()),
    "fan.swing": (
        "on",
        {
            "friendly_name": "风扇",
            "supported_features": 1 | 2 | 8,
            "preset_modes": ["nature", "sleep", "auto"],
            "preset_mode": "nature",
            "oscillating": False,
            "percentage": 50,
        },
        (),
    ),
    "vacuum.robot": (
        "docked",
        {"friendly_name": "扫地机器人", "supported_features": 8192 | 4 | 16 | 4096},
        (),
    ),
    "humidifier.kids": (
        "on",
        {
            "friendly_name": "加湿器",
            "supported_features": 1,
            "available_modes": ["normal", "sleep"],
            "mode": "normal",
            "humidity": 45,
            "min_humidity": 30,
            "max_humidity": 70,
        },
        (),
    ),
    "humidifier.dry": (
        "off",
        {"friendly_name": "除湿机", "device_class": "dehumidifier", "humidity": 50},
        (),
    ),
    "water_heater.boiler": (
        "eco",
        {
            "friendly_name": "热水器",
            "supported_features": 1 | 8,
            "temperature": 50,
            "min_temp": 35,
            "max_temp": 75,
        },
        (),
    ),
    "cover.slats": (
        "open",
        {
            "friendly_name": "百叶帘",
            "supported_features": 16 | 32 | 128,
            "current_tilt_position": 0,
        },
        (),
    ),
    "cover.garage": (
        "closed",
        {"friendly_name": "车库门", "device_class": "garage", "supported_features": 1 | 2 | 4},
        (),
    ),
    "cover.gate": ("closed", {"friendly_name": "院门", "device_class": "gate"}, ()),
    # Locks and valves behind a plain switch, known by name, alias, id or class only.
    "switch.relay_1": ("off", {"friendly_name": "厨房燃气"}, ()),
    "switch.relay_2": ("off", {"friendly_name": "一号继电器"}, ("门禁",)),
    "switch.front_door_strike": ("off", {"friendly_name": "Front door strike"}, ()),
    "switch.relay_3": ("off", {"friendly_name": "二号继电器", "device_class": "gas"}, ()),
    "switch.relay_4": ("off", {"friendly_name": "煤气开关"}, ()),
    "valve.main": ("closed", {"friendly_name": "总阀", "device_class": "water"}, ()),
    "switch.kettle": ("off", {"friendly_name": "烧水壶"}, ()),
    # A garage door on a relay, and a cover with no class whose name says what it is.
    "switch.shelly_1": ("off", {"friendly_name": "Garage opener"}, ()),
    "cover.roller": ("closed", {"friendly_name": "车库卷帘"}, ()),
}


@pytest.fixture
def fake() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as running:
        running.areas = [area_entry("home", "家")]
        running.entities = [
            entity_entry(entity_id, *aliases, area="home")
            for entity_id, (_, _, aliases) in _ENTITIES.items()
        ]
        for entity_id, (state, attributes, _) in _ENTITIES.items():
            running.add(ha_state(entity_id, state, **attributes))
        running.exposed = {e: {"conversation": True} for e in _ENTITIES}
        yield running


def _home(fake: FakeHomeAssistant) -> Home:
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        built = ha.build_home(ha.fetch_registries(hub))
    return parse_home(built.home, "ha.json")


def test_the_importer_reads_the_new_capabilities_and_types(fake: FakeHomeAssistant) -> None:
    devices = {d.id: d for d in _home(fake).devices}
    described = {i: (d.type, set(d.capabilities), d.presets) for i, d in devices.items()}
    assert described["light.colour"] == (
        "Light",
        {"onoff", "brightness", "color", "color_temp"},
        (),
    )
    assert described["light.white"] == ("Light", {"onoff", "brightness"}, ())
    assert described["fan.swing"] == (
        "Fan",
        {"onoff", "fan_speed", "oscillation", "preset"},
        ("nature", "sleep", "auto"),
    )
    assert described["vacuum.robot"] == ("Vacuum", {"vacuum"}, ())
    assert described["humidifier.kids"] == (
        "Humidifier",
        {"onoff", "target_humidity", "preset"},
        ("normal", "sleep"),
    )
    assert devices["humidifier.kids"].limits["target_humidity"].max == 70
    assert described["humidifier.dry"] == ("Dehumidifier", {"onoff", "target_humidity"}, ())
    assert described["water_heater.boiler"] == (
        "WaterHeater",
        {"onoff", "target_temperature"},
        (),
    )
    # A tilt-only cover is offered its tilt alone: HA refuses open/close on it.
    assert described["cover.slats"] == ("Blind", {"tilt"}, ())


def test_the_importer_types_what_is_a_lock_or_valve_in_fact(fake: FakeHomeAssistant) -> None:
    types = {d.id: d.type for d in _home(fake).devices}
    assert types["cover.garage"] == "GarageDoor"
    assert types["cover.gate"] == "GarageDoor"
    assert types["switch.relay_1"] == "Valve"  # 燃气 in its name
    assert types["switch.relay_2"] == "Lock"  # 门禁 in its alias
    assert types["switch.front_door_strike"] == "Lock"  # a door strike, by name and id
    assert types["switch.relay_3"] == "Valve"  # device class gas
    assert types["switch.relay_4"] == "Valve"  # 煤气
    assert types["valve.main"] == "Valve"
    assert types["switch.kettle"] == "Switch"
    assert types["switch.shelly_1"] == "GarageDoor"
    assert types["cover.roller"] == "GarageDoor"


def _eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 2.0
    while not check():
        assert time.monotonic() < deadline, "the state never arrived"
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("text", "service", "data", "entity", "reads"),
    [
        ("彩灯调成红色", ("light", "turn_on"), {"hs_color": [0, 100]}, "light.colour", None),
        (
            "把彩灯调成蓝光",
            ("light", "turn_on"),
            {"hs_color": [240, 100]},
            "light.colour",
            ("color", {"hue": 240, "saturation": 100}),
        ),
        (
            "风扇摇头",
            ("fan", "oscillate"),
            {"oscillating": True},
            "fan.swing",
            ("oscillating", True),
        ),
        # The preset as said (睡眠风) reaches HA as the entity's own preset_mode.
        (
            "风扇调成睡眠风",
            ("fan", "set_preset_mode"),
            {"preset_mode": "sleep"},
            "fan.swing",
            ("preset", "sleep"),
        ),
        ("扫地机器人开始扫地", ("vacuum", "start"), {}, "vacuum.robot", ("status", "cleaning")),
        ("扫地机器人暂停扫地", ("vacuum", "pause"), {}, "vacuum.robot", ("status", "paused")),
        ("让扫地机器人回去充电", ("vacuum", "return_to_base"), {}, "vacuum.robot", None),
        (
            "加湿器湿度调到50%",
            ("humidifier", "set_humidity"),
            {"humidity": 50},
            "humidifier.kids",
            ("target_humidity", 50),
        ),
        (
            "加湿器调成睡眠模式",
            ("humidifier", "set_mode"),
            {"mode": "sleep"},
            "humidifier.kids",
            ("preset", "sleep"),
        ),
        (
            "百叶帘角度调到30%",
            ("cover", "set_cover_tilt_position"),
            {"tilt_position": 30},
            "cover.slats",
            ("tilt", 30),
        ),
        (
            "热水器温度调到45度",
            ("water_heater", "set_temperature"),
            {"temperature": 45},
            "water_heater.boiler",
            ("target_temperature", 45),
        ),
        ("打开热水器", ("water_heater", "turn_on"), {}, "water_heater.boiler", None),
    ],
)
def test_each_capability_is_one_service_call_ha_accepts(
    fake: FakeHomeAssistant,
    text: str,
    service: tuple[str, str],
    data: dict[str, Any],
    entity: str,
    reads: tuple[str, Any] | None,
) -> None:
    home = _home(fake)
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        result = Engine(home, hub=hub).turn(text, "s1")
        assert result.outcome == "executed", result.reply
        [call] = fake.calls
        assert (call["domain"], call["service"]) == service
        assert call["service_data"] == data
        assert call["target"] == {"entity_id": entity}
        if reads is not None:
            attribute, value = reads
            _eventually(lambda: hub.read(entity).get(attribute) == value)


def test_a_hue_on_a_white_only_lamp_is_refused_and_ha_hears_nothing(
    fake: FakeHomeAssistant,
) -> None:
    home = _home(fake)
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        result = Engine(home, hub=hub).turn("台灯调成红色", "s1")
    assert result.outcome == "rejected"
    assert "不支持调颜色" in result.reply
    assert fake.calls == []


def test_dimming_a_light_that_is_off_says_it_is_off(fake: FakeHomeAssistant) -> None:
    # HA reports no brightness for an off light (issue 23): 调暗 has nothing to dim and says
    # so; 调亮 counts from 0, the contract's relative rule, and lights it at one step.
    home = _home(fake)
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        engine = Engine(home, hub=hub)
        dim = engine.turn("台灯调暗一点", "s1")
        assert dim.outcome == "rejected"
        assert "关着" in dim.reply and "读不到" not in dim.reply
        assert fake.calls == []
        brighter = engine.turn("台灯调亮一点", "s1")
    assert brighter.outcome == "executed", brighter.reply
    [call] = fake.calls
    assert call["service_data"] == {"brightness_pct": 10}


@pytest.mark.parametrize(
    "text",
    [
        "车库门开到一半",
        "打开车库门",
        "院门开一点",
        "打开厨房燃气",
        "打开门禁",
        "打开Front door strike",
        "煤气开关打开",
        "打开总阀",
        "打开Garage opener",
        "车库卷帘开到一半",
    ],
)
def test_opening_a_guarded_entity_waits_for_confirmation(
    fake: FakeHomeAssistant, text: str
) -> None:
    home = _home(fake)
    with HomeAssistantHub(fake.url, fake.token, timeout=2.0) as hub:
        engine = Engine(home, hub=hub)
        result = engine.turn(text, "s1")
        assert result.outcome == "confirm", result.reply
        assert fake.calls == []
        assert engine.turn("确认", "s1").outcome == "executed"
    assert len(fake.calls) == 1
