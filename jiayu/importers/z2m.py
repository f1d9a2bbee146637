"""`jiayu home from-z2m`: a home file from zigbee2mqtt's `bridge/devices` and a rooms mapping.

zigbee2mqtt knows every device and what it exposes, but not which room it is in; the mapping
file says that. Its format (JSON; every key optional except as noted):

```json
{
  "floors": [{"id": "f1", "name": "一楼", "aliases": ["楼下"]}],
  "rooms":  [{"id": "living", "name": "客厅", "aliases": ["大厅"], "floor": "f1"}],
  "default_room": "living",
  "devices": {
    "客厅/吸顶灯":            {"room": "living", "name": "客厅灯", "aliases": ["大灯"]},
    "0x00158d00018255df":    {"room": "living", "type": "SmartPlug", "acts_as": ["Light"]},
    "走廊开关/l2":            {"name": "走廊筒灯", "type": "Light"},
    "旧遥控器":               {"skip": true}
  }
}
```

- `floors` and `rooms` are copied into the home as they are (the home's own rules apply).
- `devices` is keyed by friendly name or IEEE address; one endpoint of a multi-endpoint device
  is `<friendly name>/<endpoint>` (zigbee2mqtt's own way of naming one). An entry may set
  `room` (a room id), `name`, `aliases`, `type`, `acts_as`, or `skip`.
- A device's room is its entry's `room`; else the first segment of a friendly name like
  `客厅/吸顶灯` when it is a room's id, name or alias; else `default_room`; else the device is
  skipped (and said so).
- A device's name is its entry's `name`, else its friendly name without the `/`s
  (`客厅/吸顶灯` → `客厅吸顶灯`), plus the endpoint for one endpoint of several. Its id is
  `z2m_<ieee>[_<endpoint>]`, which the zigbee2mqtt hub recognises, so renaming a device in
  zigbee2mqtt does not break the home.

A device's capabilities are what its exposes offer, read as the zigbee2mqtt hub reads them
(`jiayu.executor.hubs.zigbee2mqtt`): a cover's `position` and `tilt` (a tilt-only cover gets
`tilt` alone), a climate's `swing_mode` on/off or a top-level binary `swing_mode` as
oscillation, a fan's non-speed modes and a climate's `preset` values as its presets. Its type is
guessed from the same exposes; a cover or relay whose name or description says garage door or
gate is a GarageDoor, so opening it wholly or partly (position or tilt) waits for 确认.

The coordinator, unsupported devices and devices with nothing we can control or read (remotes,
buttons) are skipped; the command says which on stderr, and which mapping entries matched no
device. The result always passes `jiayu.home.parse_home`; an invalid one raises
HomeError and is never written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jiayu.catalog import guard, schema_message
from jiayu.errors import InputError, Problem, json_pointer
from jiayu.executor.hubs.zigbee2mqtt import Z2mEntity, entities, friendly_name_error
from jiayu.home import parse_home, plain_name

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

_TYPES = {
    "light": "Light",
    "switch": "Switch",
    "valve": "Valve",
    "fan": "Fan",
    "cover": "Blind",
    "lock": "Lock",
    "sensor": "Sensor",
}
# Added to a device name that equals a room's, so 客厅 the lamp does not shadow 客厅 the room.
_TYPE_WORDS = {
    "Light": "灯",
    "Switch": "开关",
    "SmartPlug": "插座",
    "Valve": "阀门",
    "Fan": "风扇",
    "Blind": "窗帘",
    "Lock": "门锁",
    "Sensor": "传感器",
    "AirConditioner": "空调",
    "Heater": "取暖器",
}
_ENTRY_KEYS = {"room", "name", "aliases", "type", "acts_as", "skip"}
_NAME_LIMIT = 64


@dataclass(frozen=True)
class Conversion:
    """A home built from zigbee2mqtt, and what was left out of it."""

    home: dict[str, Any]
    """The home file's JSON, already checked by `parse_home`."""
    skipped: tuple[str, ...]
    """One line per device left out and why ("遥控器: nothing to control or read")."""
    unused: tuple[str, ...]
    """Mapping entries that matched no device (a typo, or a device since removed)."""


def build_home(
    devices: list[dict[str, Any]], rooms: Mapping[str, Any], *, name: str
) -> dict[str, Any]:
    """The home JSON for zigbee2mqtt's `bridge/devices` and a rooms mapping (see the module);
    raises InputError for a bad mapping, HomeError if the result would not be a valid home."""
    return convert(devices, rooms, name=name).home


def convert(
    devices: list[dict[str, Any]],
    rooms: object,
    *,
    name: str,
    source: str = "rooms mapping",
) -> Conversion:
    """`build_home`, also saying which devices were skipped; `source` names the mapping file in
    error messages."""
    mapping = _check_mapping(rooms, source)
    room_words: dict[str, str] = {}
    for room in mapping.get("rooms", []):
        for word in (room["id"], room["name"], *room.get("aliases", ())):
            room_words.setdefault(plain_name(word), room["id"])
    entries: Mapping[str, Mapping[str, Any]] = mapping.get("devices", {})
    default_room = mapping.get("default_room")
    out: list[dict[str, Any]] = []
    skipped: list[str] = []
    unused = set(entries)
    for device in devices:
        if not isinstance(device, Mapping):
            continue
        label = str(device.get("friendly_name") or device.get("ieee_address") or "?")
        unused -= {
            key
            for key in entries
            for known in (device.get("friendly_name"), device.get("ieee_address"))
            if isinstance(known, str) and (key == known or key.startswith(known + "/"))
        }
        found = entities(device)
        if not found:
            if device.get("type") != "Coordinator":
                skipped.append(f"{label}: {_why_not(device, label)}")
            continue
        several = len(found) > 1
        for entity in found:
            entry = _entry(entries, entity, several)
            where = f"{label}/{entity.endpoint}" if several else label
            if entry.get("skip") is True:
                skipped.append(f"{where}: skipped by the mapping")
                continue
            room = entry.get("room") or _room_from_name(entity.friendly_name, room_words)
            room = room or default_room
            if room is None:
                skipped.append(f"{where}: no room (give it one in the mapping, or default_room)")
                continue
            out.append(_device(entity, entry, room, several, room_words))
    home: dict[str, Any] = {"version": 1, "name": name}
    for section in ("floors", "rooms"):
        if section in mapping:
            home[section] = mapping[section]
    home["devices"] = _unique_ids(out)
    parse_home(home, f"home built from zigbee2mqtt with {source}")
    return Conversion(home, tuple(skipped), tuple(sorted(unused)))


def _why_not(device: Mapping[str, Any], label: str) -> str:
    if not isinstance(device.get("definition"), Mapping):
        return "not supported by zigbee2mqtt"
    if (error := friendly_name_error(label)) is not None:
        return f"its friendly name {error}"
    return "nothing to control or read"


def _entry(
    entries: Mapping[str, Mapping[str, Any]], entity: Z2mEntity, several: bool
) -> Mapping[str, Any]:
    """The mapping entry for an entity: its endpoint's own entry over its device's entry, of
    which one endpoint of several inherits only the room and skip (names are per endpoint)."""
    device = next((entries[k] for k in (entity.friendly_name, entity.ieee) if k in entries), {})
    if not several or entity.endpoint is None:
        return device
    inherited = {k: v for k, v in device.items() if k in ("room", "skip")}
    own = (f"{k}/{entity.endpoint}" for k in (entity.friendly_name, entity.ieee))
    return {**inherited, **next((entries[k] for k in own if k in entries), {})}


def _room_from_name(friendly_name: str, room_words: Mapping[str, str]) -> str | None:
    if "/" not in friendly_name:
        return None
    return room_words.get(plain_name(friendly_name.split("/", 1)[0]))


def _device(
    entity: Z2mEntity,
    entry: Mapping[str, Any],
    room: str,
    several: bool,
    room_words: Mapping[str, str],
) -> dict[str, Any]:
    kind = _guess_type(entity)
    kind = entry.get("type", kind)
    name = entry.get("name")
    if name is None:
        name = entity.friendly_name.replace("/", "")
        if several and entity.endpoint is not None:
            name = f"{name}{entity.endpoint}"
        if plain_name(name) in room_words:
            name += _TYPE_WORDS.get(kind, "设备")
        name = name[:_NAME_LIMIT]
    device: dict[str, Any] = {
        "id": entity.id,
        "name": name,
        "room": room,
        "type": kind,
        "capabilities": entity.capabilities(),
    }
    for key in ("aliases", "acts_as"):
        if key in entry:
            device[key] = entry[key]
    limits = entity.limits()
    if limits:
        device["limits"] = limits
    presets = entity.presets()
    if presets:
        device["presets"] = presets
    # What it opens in fact, by its names or zigbee2mqtt's description of it (a relay called
    # 车库门, "Gas valve controller"), whatever type was guessed or given in the mapping.
    guard(device, entity.friendly_name, entity.description)
    return device


def _guess_type(entity: Z2mEntity) -> str:
    if entity.kind == "climate":
        system_mode = entity.features.get("system_mode")
        cools = system_mode is not None and "cool" in system_mode.values
        return "AirConditioner" if cools else "Heater"
    if "target_humidity" in entity.features:
        dries = "dehumid" in entity.description.lower() or "除湿" in entity.description
        return "Dehumidifier" if dries else "Humidifier"
    if entity.kind == "switch":
        text = entity.description.lower()
        if any(word in text for word in ("plug", "socket", "outlet", "插座")):
            return "SmartPlug"
    return _TYPES.get(entity.kind, "Unknown")


def _unique_ids(devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Endpoint names are sanitised into ids, so two may meet ("l-1" and "l_1").
    seen: dict[str, int] = {}
    for device in devices:
        base = device["id"]
        if base in seen:
            seen[base] += 1
            device["id"] = f"{base[:60]}_{seen[base]}"
        else:
            seen[base] = 0
    return devices


def _check_mapping(data: object, source: str) -> dict[str, Any]:
    """The mapping's shape, every problem at once; the home's own check covers floors and rooms."""
    problems: list[Problem] = []

    def bad(pointer: str, message: str) -> None:
        problems.append(Problem(source, pointer, message))

    if not isinstance(data, Mapping):
        raise InputError([Problem(source, "", "is not a JSON object")])
    for key in data:
        if key not in ("floors", "rooms", "default_room", "devices"):
            bad(json_pointer([key]), f'unknown key "{key}"')
    for section, definition in (("floors", "floor"), ("rooms", "room")):
        items = data.get(section, [])
        if not isinstance(items, list):
            bad(f"/{section}", "is not a list")
            continue
        for error in _definition(f"{definition}s").iter_errors(items):
            bad(json_pointer([section, *error.absolute_path]), schema_message(error))
    rooms = data.get("rooms", [])
    room_ids = (
        {r.get("id") for r in rooms if isinstance(r, Mapping)} if isinstance(rooms, list) else set()
    )
    default = data.get("default_room")
    if default is not None and (not isinstance(default, str) or default not in room_ids):
        bad("/default_room", f"{json.dumps(default, ensure_ascii=False)} is not a room id")
    entries = data.get("devices", {})
    if not isinstance(entries, Mapping):
        bad("/devices", "is not an object keyed by friendly name")
        entries = {}
    for key, entry in entries.items():
        where = json_pointer(["devices", key])
        if not isinstance(entry, Mapping):
            bad(where, "is not an object")
            continue
        for field, value in entry.items():
            pointer = where + json_pointer([field])
            if field not in _ENTRY_KEYS:
                bad(pointer, f'unknown key "{field}"')
            elif field == "room" and (not isinstance(value, str) or value not in room_ids):
                bad(pointer, f"{json.dumps(value, ensure_ascii=False)} is not a room id")
            elif field == "skip" and not isinstance(value, bool):
                bad(pointer, "is not a boolean")
            elif field in _ENTRY_SCHEMAS:
                for error in _definition(_ENTRY_SCHEMAS[field]).iter_errors(value):
                    bad(pointer + json_pointer(error.absolute_path), schema_message(error))
    if problems:
        raise InputError(problems)
    return dict(data)


# What ends up in the home is checked against the home schema's own definitions, so a bad
# value is reported in the mapping file rather than in the home built from it.
_ENTRY_SCHEMAS = {"name": "name", "aliases": "aliases", "type": "type", "acts_as": "types"}


@cache
def _definition(name: str) -> Draft202012Validator:
    """A validator for one of the home schema's definitions, or a list of them ("rooms")."""
    from jsonschema import Draft202012Validator  # only when a mapping file is checked

    text = (files("jiayu") / "schemas" / "home.schema.json").read_text(encoding="utf-8")
    defs = json.loads(text)["$defs"]
    for one in ("floor", "room", "type"):
        defs[f"{one}s"] = {"type": "array", "items": {"$ref": f"#/$defs/{one}"}}
    return Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})


# ---- fetching bridge/devices from the broker ------------------------------------------------


def fetch_devices(
    host: str,
    port: int,
    base: str = "zigbee2mqtt",
    timeout: float = 5.0,
    *,
    username: str | None = None,
    password: str | None = None,
) -> list[dict[str, Any]]:
    """zigbee2mqtt's retained `<base>/bridge/devices`, read from the broker; InputError when the
    broker cannot be reached or says nothing within `timeout` seconds."""
    topic = f"{base.rstrip('/')}/bridge/devices"
    where = f"mqtt://{host}:{port}/{topic}"
    try:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
    except ImportError as exc:
        # The broker is read with the optional MQTT extra; a saved payload needs none.
        need = "reading the broker needs the MQTT extra: pip install 'jiayu[mqtt]'"
        raise InputError([Problem(where, "", f"{need} (or pass --devices FILE)")]) from exc
    got: list[bytes | bytearray] = []
    done = threading.Event()

    refused: list[str] = []

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            refused.append(str(reason))
            done.set()
        else:
            client.subscribe(topic, 1)

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        got.append(message.payload)
        done.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.connect_timeout = timeout
    if username is not None:
        client.username_pw_set(username, password)
    client.on_connect = on_connect
    client.on_message = on_message
    try:
        client.connect(host, port, keepalive=15)
    except (OSError, ValueError) as exc:
        raise InputError([Problem(where, "", f"cannot connect: {exc}")]) from exc
    client.loop_start()
    try:
        if not done.wait(timeout):
            raise InputError([Problem(where, "", f"no retained message within {timeout:g} s")])
        if refused:
            raise InputError([Problem(where, "", f"the broker refused: {refused[0]}")])
    finally:
        client.disconnect()
        client.loop_stop()
    return _device_list(got[0], where)


def _device_list(payload: bytes | bytearray, source: str) -> list[dict[str, Any]]:
    """The retained `bridge/devices` payload, as the broker holds it or as `mosquitto_sub -v`
    saves it (the topic, a space, then the payload)."""
    topic, space, rest = bytes(payload).lstrip().partition(b" ")
    if space and topic.endswith(b"/bridge/devices"):
        payload = rest
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        raise InputError([Problem(source, "", f"invalid JSON: {exc}")]) from exc
    if not isinstance(data, list):
        raise InputError([Problem(source, "", "is not a list of devices")])
    return [d for d in data if isinstance(d, dict)]


# ---- the command line ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `jiayu home from-z2m`."""
    parser.add_argument("--rooms", required=True, metavar="MAPPING.json", help="rooms mapping")
    parser.add_argument(
        "--devices",
        metavar="FILE.json",
        help="a saved bridge/devices payload, instead of reading it from the broker",
    )
    parser.add_argument("--host", default="127.0.0.1", help="MQTT broker (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=1883, help="MQTT port (default 1883)")
    parser.add_argument("--base-topic", default="zigbee2mqtt", help="zigbee2mqtt's base topic")
    parser.add_argument("--username", help="MQTT user name")
    parser.add_argument(
        "--password",
        default=os.environ.get("JIAYU_MQTT_PASSWORD"),
        help="MQTT password (default: $JIAYU_MQTT_PASSWORD, which keeps it out of ps)",
    )
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for it")
    parser.add_argument("--name", default="我的家", help="the home's name")
    parser.add_argument("--out", metavar="FILE", help="write the home here (default: stdout)")


def run(args: argparse.Namespace) -> int:
    """Build the home: 0 when written; 2 for bad input (as every `jiayu` command), 1 when it
    cannot be written; errors go to stderr, one line each."""
    try:
        rooms = _read_json(args.rooms)
        if args.devices is not None:
            devices = _device_list(_read_bytes(args.devices), args.devices)
        else:
            devices = fetch_devices(
                args.host,
                args.port,
                args.base_topic,
                args.timeout,
                username=args.username,
                password=args.password,
            )
        result = convert(devices, rooms, name=args.name, source=args.rooms)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    text = json.dumps(result.home, ensure_ascii=False, indent=2) + "\n"
    try:
        if args.out is None:
            sys.stdout.write(text)
        else:
            _write(args.out, text)
    except OSError as exc:
        print(f"{args.out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for line in result.skipped:
        print(f"skipped {line}", file=sys.stderr)
    for key in result.unused:
        print(f"{args.rooms}: {json_pointer(['devices', key])}: matches no device", file=sys.stderr)
    return 0


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InputError([Problem(path, "", f"cannot read: {exc.strerror or exc}")]) from exc


def _read_json(path: str) -> object:
    try:
        return json.loads(_read_bytes(path))
    except (ValueError, RecursionError) as exc:
        raise InputError([Problem(path, "", f"invalid JSON: {exc}")]) from exc


def _write(path: str, text: str) -> None:
    # Through a temporary file, so a failed write never leaves half a home behind.
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
