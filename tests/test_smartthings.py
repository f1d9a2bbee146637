"""SmartThings: the hub and `jiayu home from-smartthings` on a 30-device home in the API's own
shape (tests/data/smartthings: items of GET /v1/devices and GET /v1/locations/{id}/rooms),
against a loopback fake of the REST API that refuses what the real one refuses."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_smartthings import FakeSmartThings

from jiayu.catalog import CAPABILITIES
from jiayu.cli import main
from jiayu.engine import Engine
from jiayu.executor.hubs.base import HubError
from jiayu.executor.hubs.smartthings import CAPABILITY_MAP, SmartThingsHub, component_state
from jiayu.home import load_home, parse_home
from jiayu.importers.smartthings import UNASSIGNED_ROOM, build_home, describe, read_items
from jiayu.ir import Command

DATA = Path(__file__).parent / "data" / "smartthings"
DEVICES = DATA / "devices.json"
ROOMS = DATA / "rooms.jsonl"
TOKEN = "pat-secret"


def _devices() -> list[dict[str, Any]]:
    return read_items(str(DEVICES), "devices")


def _rooms() -> list[dict[str, Any]]:
    return read_items(str(ROOMS), "rooms")


BY_LABEL = {d["label"]: d["deviceId"] for d in _devices()}


@pytest.fixture
def fake() -> Iterator[FakeSmartThings]:
    with FakeSmartThings(_devices(), _rooms(), token=TOKEN) as server:
        yield server


@pytest.fixture
def hub(fake: FakeSmartThings) -> SmartThingsHub:
    return SmartThingsHub(TOKEN, base_url=fake.url, timeout=2.0)


# --- the importer -------------------------------------------------------------------------


def test_saved_answers_make_a_valid_home_of_all_30_devices(tmp_path: Path) -> None:
    out = tmp_path / "home.json"
    code = main(
        ["home", "from-smartthings", "--devices", str(DEVICES), "--rooms", str(ROOMS),
         "--name", "我的家", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    home = load_home(out)
    assert len(home.devices) == 30
    rooms = {r.id: r.name for r in home.rooms}
    assert sorted(rooms.values()) == sorted(
        ["客厅", "主卧", "次卧", "书房", "厨房", "卫生间", "阳台", "玄关", "未分区"]
    )
    by_name = {d.name: d for d in home.devices}
    assert rooms[by_name["客厅灯"].room] == "客厅"
    assert by_name["充电器"].room == UNASSIGNED_ROOM
    assert by_name["门锁"].type == "Lock" and by_name["门锁"].capabilities == {"lock"}
    # The user called the plug a Light in the app: it serves as one.
    assert by_name["台灯插座"].type == "SmartPlug"
    assert set(by_name["台灯插座"].acts_as) == {"Light"}
    ac = by_name["客厅空调"]
    assert set(ac.capabilities) == {
        "onoff", "hvac_mode", "target_temperature", "fan_speed",
        "temperature_sensor", "humidity_sensor",
    }  # fmt: skip
    assert by_name["阳台温湿度计"].type == "Sensor"


def test_the_api_gives_the_same_home_as_the_saved_answers(
    fake: FakeSmartThings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ten devices a page: the importer follows _links.next through three pages.
    code = main(["home", "from-smartthings", "--url", fake.url, "--token", TOKEN])
    assert code == 0
    from_api = json.loads(capsys.readouterr().out)
    saved = build_home(_devices(), _rooms(), "我的家").home
    assert from_api == saved
    assert sum(1 for _, path in fake.requests if path.startswith("/v1/devices")) == 3


def test_a_wrong_token_is_said_and_nothing_written(
    fake: FakeSmartThings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["home", "from-smartthings", "--url", fake.url, "--token", "wrong"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "HTTP 401" in captured.err


def test_a_next_page_on_another_host_is_not_followed(
    fake: FakeSmartThings, capsys: pytest.CaptureFixture[str]
) -> None:
    # The token must never go to another host, whatever a next link says.
    fake.link_base = fake.url.replace("127.0.0.1", "localhost")
    assert main(["home", "from-smartthings", "--url", fake.url, "--token", TOKEN]) == 2
    assert "another host" in capsys.readouterr().err
    assert sum(1 for _, path in fake.requests if path.startswith("/v1/devices")) == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[{"deviceId": "a"}, 3]', "devices.json: /1: is not a device object"),
        ('[{"label": "灯"}]', "devices.json: /0/deviceId: is missing or not a string"),
        ('[{"deviceId": "a", "components": {}}]', "devices.json: /0/components: is not an array"),
        ('{"deviceId": "a"}\n{"deviceId": 7}\n', "devices.json: line 2: /deviceId: is missing"),
        ('{"deviceId": "a"}\n{oops\n', "devices.json: line 2: /: invalid JSON at line 1"),
        ('[{"deviceId": "a"}', "devices.json: /: invalid JSON"),
    ],
)
def test_bad_saved_answers_name_file_pointer_and_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    devices = tmp_path / "devices.json"
    devices.write_text(content, encoding="utf-8")
    code = main(["home", "from-smartthings", "--devices", str(devices), "--rooms", str(ROOMS)])
    assert code == 2
    err = capsys.readouterr().err
    assert expected in err.replace(str(tmp_path) + "/", "")


def test_each_smartthings_capability_grants_ours_when_the_catalog_has_it() -> None:
    # Revision 3's capabilities (color, cycle, vacuum) activate when the catalog has them.
    for theirs, ours in CAPABILITY_MAP.items():
        device = {
            "deviceId": "d",
            "components": [{"id": "main", "capabilities": [{"id": theirs, "version": 1}]}],
        }
        described = describe(device)
        if ours in CAPABILITIES:
            assert described is not None and described["capabilities"] == [ours], theirs
        else:
            assert described is None, theirs


def test_devices_with_nothing_to_drive_and_clashing_names_are_left_out_and_said() -> None:
    hub_device = {
        "deviceId": "hub-1",
        "label": "Station",
        "components": [{"id": "main", "capabilities": [{"id": "bridge", "version": 1}]}],
    }
    twin = dict(_devices()[0], deviceId="twin")  # a second 客厅灯 in 客厅
    room_named = dict(_devices()[1], deviceId="roomy", label="客厅")
    built = build_home([*_devices(), hub_device, twin, room_named], _rooms())
    parse_home(built.home, "<built>")
    assert len(built.home["devices"]) == 30
    # Named as the app shows them (the label), never by UUID, with the reason.
    assert built.skipped == [
        '"Station": nothing jiayu can drive or read',
        '"客厅灯": the name is unusable (empty, too long or taken)',
        '"客厅": the name is unusable (empty, too long or taken)',
    ]


# --- the hub: every mapped capability, on the device of the home that has it --------------

# (device, command, params, what the device then reports, what the hub then reads)
CASES: list[tuple[str, str, dict[str, Any], tuple[str, str, Any], dict[str, Any]]] = [
    ("客厅灯", "turn_on", {}, ("switch", "switch", "on"), {"on": True}),
    ("客厅灯", "turn_off", {}, ("switch", "switch", "off"), {"on": False}),
    ("客厅灯", "set_brightness", {"value": 35}, ("switchLevel", "level", 35), {"brightness": 35}),
    ("客厅灯", "set_color_temp", {"value": 3000},
     ("colorTemperature", "colorTemperature", 3000), {"color_temp": 3000}),
    ("床头灯", "set_color", {"hue": 240, "saturation": 80},
     ("colorControl", "hue", 66.7), {"color": {"hue": 240, "saturation": 80}}),
    ("客厅空调", "set_temperature", {"value": 24},
     ("thermostatCoolingSetpoint", "coolingSetpoint", 24), {"target_temperature": 24}),
    ("客厅空调", "set_mode", {"mode": "fan"},
     ("airConditionerMode", "airConditionerMode", "wind"), {"mode": "fan"}),
    ("客厅空调", "set_mode", {"mode": "heat"},
     ("airConditionerMode", "airConditionerMode", "heat"), {"mode": "heat"}),
    ("落地扇", "set_fan_speed", {"speed": "medium"}, ("fanSpeed", "fanSpeed", 2),
     {"fan_speed": "medium"}),
    ("空气净化器", "set_fan_speed", {"speed": "high"}, ("fanSpeed", "fanSpeed", 3),
     {"fan_speed": "high"}),
    ("主卧窗帘", "open", {}, ("windowShade", "windowShade", "open"), {"position": 100}),
    ("主卧窗帘", "close", {}, ("windowShade", "windowShade", "closed"), {"position": 0}),
    ("客厅窗帘", "stop", {}, ("windowShade", "windowShade", "partially open"), {}),
    ("客厅窗帘", "set_position", {"value": 40}, ("windowShadeLevel", "shadeLevel", 40),
     {"position": 40}),
    ("门锁", "unlock", {}, ("lock", "lock", "unlocked"), {"locked": False}),
    ("门锁", "lock", {}, ("lock", "lock", "locked"), {"locked": True}),
    ("电视", "set_volume", {"value": 30}, ("audioVolume", "volume", 30), {"volume": 30}),
    ("电视", "mute", {}, ("audioMute", "mute", "muted"), {"muted": True}),
    ("客厅音箱", "unmute", {}, ("audioMute", "mute", "unmuted"), {"muted": False}),
    ("客厅音箱", "play", {}, ("mediaPlayback", "playbackStatus", "playing"), {"playing": True}),
    ("客厅音箱", "pause", {}, ("mediaPlayback", "playbackStatus", "paused"), {"playing": False}),
    ("电视", "next_track", {}, ("mediaPlayback", "playbackStatus", "stopped"), {}),
    ("电视", "previous_track", {}, ("mediaPlayback", "playbackStatus", "stopped"), {}),
    ("洗衣机", "start_cycle", {}, ("washerOperatingState", "machineState", "run"),
     {"status": "running"}),
    ("洗衣机", "pause_cycle", {}, ("washerOperatingState", "machineState", "pause"),
     {"status": "paused"}),
    ("洗衣机", "stop_cycle", {}, ("washerOperatingState", "machineState", "stop"),
     {"status": "idle"}),
    ("扫地机器人", "start_cleaning", {},
     ("robotCleanerMovement", "robotCleanerMovement", "cleaning"), {"status": "cleaning"}),
    ("扫地机器人", "pause_cleaning", {},
     ("robotCleanerMovement", "robotCleanerMovement", "pause"), {"status": "paused"}),
    ("扫地机器人", "return_to_base", {},
     ("robotCleanerMovement", "robotCleanerMovement", "homing"), {"status": "returning"}),
]  # fmt: skip


@pytest.mark.parametrize(("label", "command", "params", "reported", "read"), CASES)
def test_every_mapped_command_reaches_the_device_and_reads_back(
    fake: FakeSmartThings,
    hub: SmartThingsHub,
    label: str,
    command: str,
    params: dict[str, Any],
    reported: tuple[str, str, Any],
    read: dict[str, Any],
) -> None:
    device_id = BY_LABEL[label]
    hub.send(device_id, command, params)
    capability, attribute, value = reported
    assert fake.value(device_id, capability, attribute) == value
    state = hub.read(device_id)
    assert {k: state[k] for k in read} == read
    assert len(fake.received) == 1  # one request, never repeated


def test_the_sensors_read_back() -> None:
    with FakeSmartThings(_devices(), _rooms(), token=TOKEN) as fake:
        hub = SmartThingsHub(TOKEN, base_url=fake.url)
        sensor = BY_LABEL["阳台温湿度计"]
        fake.set_value(sensor, "temperatureMeasurement", "temperature", 31.5)
        fake.set_value(sensor, "relativeHumidityMeasurement", "humidity", 77)
        assert hub.read(sensor) == {"temperature": 31.5, "humidity": 77.0}
        ac = hub.read(BY_LABEL["客厅空调"])
        assert ac == {
            "on": False, "mode": "cool", "target_temperature": 26.0,
            "temperature": 24.5, "humidity": 48.0,
        }  # fmt: skip


def test_fahrenheit_locations_are_converted_both_ways(fake: FakeSmartThings) -> None:
    hub = SmartThingsHub(TOKEN, base_url=fake.url, temperature_scale="F")
    ac = BY_LABEL["客厅空调"]
    hub.send(ac, "set_temperature", {"value": 26})
    assert fake.value(ac, "thermostatCoolingSetpoint", "coolingSetpoint") == 79
    main = {"temperatureMeasurement": {"temperature": {"value": 77, "unit": "F"}}}
    assert component_state(main) == {"temperature": 25.0}


def test_a_capability_the_device_lacks_is_refused_before_sending(
    fake: FakeSmartThings, hub: SmartThingsHub
) -> None:
    # The bedroom curtain has windowShade but no windowShadeLevel: the server would say 422;
    # the list answer already says so, so nothing is posted.
    curtain = BY_LABEL["主卧窗帘"]
    with pytest.raises(HubError) as info:
        hub.send(curtain, "set_position", {"value": 50})
    assert info.value.reason == "refused"
    assert fake.received == []
    assert [m for m, _ in fake.requests] == ["GET"]
    body = {"commands": [{"component": "main", "capability": "windowShadeLevel",
                          "command": "setShadeLevel", "arguments": [50]}]}  # fmt: skip
    assert fake.command_error(curtain, body) is not None


def test_what_smartthings_cannot_do_is_refused_without_a_command_request(
    fake: FakeSmartThings, hub: SmartThingsHub
) -> None:
    # fanSpeed has no "auto" level: only the list request (health, capabilities) is made.
    with pytest.raises(HubError) as info:
        hub.send(BY_LABEL["落地扇"], "set_fan_speed", {"speed": "auto"})
    assert info.value.reason == "refused"
    assert [m for m, _ in fake.requests] == ["GET"]


def test_a_wrong_token_is_refused_and_changes_nothing(fake: FakeSmartThings) -> None:
    hub = SmartThingsHub("stolen", base_url=fake.url)
    light = BY_LABEL["客厅灯"]
    with pytest.raises(HubError) as info:
        hub.send(light, "turn_on", {})
    assert info.value.reason == "refused"
    assert fake.value(light, "switch", "switch") == "off"
    with pytest.raises(HubError):
        hub.read(light)


def test_an_unknown_device_is_offline(hub: SmartThingsHub) -> None:
    with pytest.raises(HubError) as info:
        hub.read("00000000-0000-0000-0000-000000000000")
    assert info.value.reason == "offline"


def test_a_server_that_cannot_be_reached_fails_at_once() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    hub = SmartThingsHub(TOKEN, base_url=f"http://127.0.0.1:{port}", timeout=5)
    start = time.monotonic()
    [failure] = hub.send_many([Command(BY_LABEL["客厅灯"], "turn_on", {})])
    assert failure is not None and failure.reason == "offline"
    assert time.monotonic() - start < 1


def test_a_command_without_an_answer_is_unconfirmed_and_never_sent_again(
    fake: FakeSmartThings,
) -> None:
    hub = SmartThingsHub(TOKEN, base_url=fake.url, timeout=0.5)
    light, fan = BY_LABEL["客厅灯"], BY_LABEL["落地扇"]
    fake.hang.add(light)
    fake.down.add(fan)
    failures = hub.send_many([Command(light, "turn_on", {}), Command(fan, "turn_on", {})])
    assert [f.reason if f else None for f in failures] == ["unconfirmed", "unconfirmed"]
    time.sleep(3)  # the hanging request ends; nothing is sent after it
    posts = [p for m, p in fake.requests if m == "POST"]
    assert sorted(posts) == sorted(f"/v1/devices/{d}/commands" for d in (light, fan))


def test_a_batch_goes_out_concurrently_one_request_per_device_in_order(
    fake: FakeSmartThings, hub: SmartThingsHub
) -> None:
    light, ac, lock = BY_LABEL["客厅灯"], BY_LABEL["客厅空调"], BY_LABEL["门锁"]
    commands = [
        Command(light, "turn_on", {}),
        Command(ac, "set_mode", {"mode": "cool"}),
        Command(light, "set_brightness", {"value": 80}),
        Command(ac, "set_temperature", {"value": 22}),
        Command(lock, "set_position", {"value": 3}),  # the lock has no shade: refused
    ]
    failures = hub.send_many(commands)
    assert [f.reason if f else None for f in failures] == [None, None, None, None, "refused"]
    bodies = dict((d, [c["command"] for c in cmds]) for d, cmds in fake.received)
    assert bodies == {
        light: ["on", "setLevel"],
        ac: ["setAirConditionerMode", "setCoolingSetpoint"],
    }
    # Sending was two round trips: the list request, then the two devices' posts together.
    assert [m for m, _ in fake.requests] == ["GET", "POST", "POST"]
    # Reading every device of the home is one list request per page (ten a page here).
    fake.requests.clear()
    ids = list(BY_LABEL.values())
    reads = hub.read_many(ids)
    assert all(not isinstance(r, HubError) for r in reads.values())
    assert len(fake.requests) == 3


def test_the_engine_drives_the_imported_home_through_the_hub(
    fake: FakeSmartThings, hub: SmartThingsHub
) -> None:
    home = parse_home(build_home(_devices(), _rooms(), "我的家").home, "<st>")
    engine = Engine(home, hub=hub)
    result = engine.turn("把客厅灯调到百分之三十")
    assert result.outcome == "executed", result.reply
    assert fake.value(BY_LABEL["客厅灯"], "switchLevel", "level") == 30
    result = engine.turn("客厅空调调到25度")
    assert result.outcome == "executed", result.reply
    assert fake.value(BY_LABEL["客厅空调"], "thermostatCoolingSetpoint", "coolingSetpoint") == 25
    result = engine.turn("打开门锁")
    assert result.outcome == "confirm"
    assert fake.value(BY_LABEL["门锁"], "lock", "lock") == "locked"
    assert engine.turn("确认").outcome == "executed"
    assert fake.value(BY_LABEL["门锁"], "lock", "lock") == "unlocked"
