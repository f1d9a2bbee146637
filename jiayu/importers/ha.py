"""`jiayu home from-ha`: a home file from what Home Assistant knows.

Floors, areas, devices and entities come from HA's registries over the WebSocket API
(`config/floor_registry/list`, `config/area_registry/list`, `config/device_registry/list`,
`config/entity_registry/list`), the entities from those exposed to Assist
(`homeassistant/expose_entity/list`, assistant "conversation": the set HA's own matcher
answers for), their aliases from `config/entity_registry/get_entries`, and what each entity
can do from its domain, `supported_features` and attributes in `get_states`.

Or from a saved answer of the REST API's `GET /api/states` (`--states FILE`): every entity in
it, all in one room, as a file holds no areas.

A device's id is its entity_id, as `HomeAssistantHub` addresses it. `build_home` is pure, so
the conversation agent builds the same home from HA's registries in process.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jiayu.catalog import guard
from jiayu.deadline import Deadline
from jiayu.errors import HomeError, InputError, Problem
from jiayu.home import parse_home, plain_name
from jiayu.jsonfile import parse_json, read_text

if TYPE_CHECKING:
    from jiayu.executor.hubs.homeassistant import HomeAssistantHub

ASSISTANT = "conversation"
"""HA's assistant id for Assist, whose exposed entities a home is built from."""
UNASSIGNED_ROOM = "area._unassigned"
"""The room of exposed entities with no area in HA (our devices must have a room)."""
# Its name, the first that no HA area or floor already uses.
_UNASSIGNED_NAMES = ("未分区", "未分区设备", "其他区域")
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_NAME_MAX = 64

# HA's feature bits (ClimateEntityFeature, FanEntityFeature, MediaPlayerEntityFeature).
_CLIMATE_TARGET_TEMPERATURE, _CLIMATE_FAN_MODE, _CLIMATE_TURN_OFF = 1, 8, 128
_FAN_SET_SPEED, _FAN_OSCILLATE, _FAN_PRESET_MODE = 1, 2, 8
_CLIMATE_PRESET_MODE = 16
_HUMIDIFIER_MODES = 1
_WATER_HEATER_ON_OFF = 8
_VACUUM_START = 8192
_COVER_OPEN, _COVER_CLOSE, _COVER_SET_POSITION, _COVER_SET_TILT_POSITION = 1, 2, 4, 128
_COLOR_MODES = {"hs", "xy", "rgb", "rgbw", "rgbww"}
_CLIMATE_TARGET_RANGE = 2
_MEDIA_PAUSE, _MEDIA_VOLUME_SET, _MEDIA_TURN_ON, _MEDIA_TURN_OFF, _MEDIA_PLAY = (
    1,
    4,
    128,
    256,
    16384,
)
_OUR_HVAC = {"cool", "heat", "dry", "fan_only", "auto", "heat_cool"}
_OUR_FAN_MODES = {"low", "medium", "high", "auto"}
_SENSORS = {
    "temperature": "temperature_sensor",
    "humidity": "humidity_sensor",
    "illuminance": "illuminance_sensor",
}
# Covers that are doors: opening one, wholly or partly, is as risky as unlocking, so the
# risk gate asks for 确认 before opening them: garage doors and gates are GarageDoors, a
# door acts as a Lock.
_GARAGE_COVERS = {"garage", "gate"}
# What a switch or valve is in fact when its device class says so; its words are read by
# the shared guard.
_GUARDED_CLASSES = {"gas": "Valve", "water": "Valve"}


def room_id(area_id: str) -> str:
    """Our room id for an HA area id (the conversation agent maps a satellite's area so)."""
    return _safe_id("area", area_id)


def floor_id(ha_floor_id: str) -> str:
    """Our floor id for an HA floor id."""
    return _safe_id("floor", ha_floor_id)


def _safe_id(kind: str, ha_id: str) -> str:
    # HA's ids are slugs, but old installs have other shapes; a digest keeps ours valid.
    candidate = f"{kind}.{ha_id}"
    if _ID.match(candidate):
        return candidate
    return f"{kind}.{hashlib.sha256(ha_id.encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class Registries:
    """What `build_home` reads, in the shapes HA's WebSocket commands answer with."""

    floors: Sequence[Mapping[str, Any]]
    """config/floor_registry/list."""
    areas: Sequence[Mapping[str, Any]]
    """config/area_registry/list."""
    devices: Sequence[Mapping[str, Any]]
    """config/device_registry/list."""
    entities: Mapping[str, Mapping[str, Any] | None]
    """config/entity_registry/get_entries for the exposed entities, by entity_id (None for
    an entity without a registry entry)."""
    states: Sequence[Mapping[str, Any]]
    """get_states."""
    exposed: Mapping[str, Mapping[str, Any]]
    """homeassistant/expose_entity/list's `exposed_entities`."""
    name: str = "Home Assistant"
    """The home's name (get_config's location_name)."""


@dataclass(frozen=True)
class Built:
    """A home document and what was left out of it, one line per thing."""

    home: dict[str, Any]
    """The home file's JSON."""
    skipped: list[str] = field(default_factory=list)
    """Entities, names and aliases left out, and why."""


def build_home(registries: Registries) -> Built:
    """The home file for HA's exposed entities; every name rule of the home file is kept by
    leaving out what would break it (and saying so), so the result passes `parse_home`."""
    skipped: list[str] = []
    taken: set[str] = set()  # plain forms of every room and floor word kept so far

    def usable(what: str, name: str) -> bool:
        key = plain_name(name)
        if key and len(name) <= _NAME_MAX and key not in taken:
            return True
        skipped.append(f"{what}: name {json.dumps(name, ensure_ascii=False)} is unusable")
        return False

    def usable_aliases(what: str, name: str, aliases: Iterable[str]) -> list[str]:
        kept = []
        for alias in dict.fromkeys(aliases):
            key = plain_name(alias)
            if key and len(alias) <= _NAME_MAX and key not in taken:
                kept.append(alias)
            elif key != plain_name(name):  # an alias that repeats the name is just dropped
                shown = json.dumps(alias, ensure_ascii=False)
                skipped.append(f"{what}: alias {shown} is unusable")
        return kept

    # Places' names are claimed before any alias, so an alias never costs a room its name;
    # floors' aliases before rooms' (楼下 is a floor's word before it is a room's nickname).
    places: list[tuple[str, dict[str, Any], list[str]]] = []
    sources: tuple[tuple[str, Sequence[Mapping[str, Any]], str, Callable[[str], str]], ...] = (
        ("area", registries.areas, "area_id", room_id),
        ("floor", registries.floors, "floor_id", floor_id),
    )
    for kind, entries, key, make_id in sources:
        for entry in entries:
            what, place_name = f"{kind} {entry.get(key)}", str(entry.get("name", ""))
            if usable(what, place_name):
                taken.add(plain_name(place_name))
                place: dict[str, Any] = {
                    "id": make_id(str(entry[key])),
                    "name": place_name,
                    "aliases": [],
                }
                if kind == "area" and entry.get("floor_id") is not None:
                    place["floor"] = floor_id(str(entry["floor_id"]))
                places.append((what, place, _strs(entry.get("aliases"))))
    for what, place, said in sorted(places, key=lambda p: not p[1]["id"].startswith("floor.")):
        place["aliases"] = usable_aliases(what, place["name"], said)
        taken.update(plain_name(a) for a in place["aliases"])
    floors = [p for _, p, _ in places if p["id"].startswith("floor.")]
    rooms = [p for _, p, _ in places if p["id"].startswith("area.")]
    known_floors = {f["id"] for f in floors}
    for room in rooms:
        if room.get("floor") not in known_floors:
            room.pop("floor", None)

    device_area = {
        str(d.get("id")): d.get("area_id") for d in registries.devices if isinstance(d, Mapping)
    }
    states = {str(s.get("entity_id")): s for s in registries.states if isinstance(s, Mapping)}
    known_rooms = {r["id"] for r in rooms}
    devices: list[dict[str, Any]] = []
    for entity_id in sorted(registries.exposed):
        to = registries.exposed[entity_id]
        if not isinstance(to, Mapping) or not to.get(ASSISTANT):
            continue
        state = states.get(entity_id)
        if state is None or not _ID.match(entity_id):
            skipped.append(f"{entity_id}: no state in Home Assistant, or an id too long")
            continue
        # What HA answers is read as data, never trusted to have its shape: an entity whose
        # attributes are not an object is left out and said so, the others still come in.
        attributes = state.get("attributes")
        attributes = {} if attributes is None else attributes
        if not isinstance(attributes, Mapping):
            skipped.append(f"{entity_id}: its attributes are {_shape(attributes)}, not an object")
            continue
        described = describe(entity_id, attributes)
        if described is None:
            skipped.append(f"{entity_id}: nothing jiayu can do with this kind of entity")
            continue
        entry = registries.entities.get(entity_id) or {}
        if not isinstance(entry, Mapping):
            skipped.append(f"{entity_id}: its registry entry is {_shape(entry)}, not an object")
            continue
        name = _entity_name(entity_id, entry, attributes)
        if not usable(entity_id, name):
            continue
        aliases = usable_aliases(entity_id, name, _strs(entry.get("aliases")))
        area = entry.get("area_id") or device_area.get(str(entry.get("device_id")))
        where = room_id(str(area)) if area is not None else UNASSIGNED_ROOM
        if where not in known_rooms:
            where = UNASSIGNED_ROOM
        device = {"id": entity_id, "name": name, "aliases": aliases, "room": where, **described}
        # The aliases left out too: a word HA knows the entity by still says what it is.
        guard(device, *_strs(entry.get("aliases")))
        devices.append(device)
    if any(d["room"] == UNASSIGNED_ROOM for d in devices):
        used = taken | {plain_name(w) for d in devices for w in (d["name"], *d["aliases"])}
        free = next((n for n in _UNASSIGNED_NAMES if plain_name(n) not in used), None)
        if free is None:
            skipped += [f"{d['id']}: no area" for d in devices if d["room"] == UNASSIGNED_ROOM]
            devices = [d for d in devices if d["room"] != UNASSIGNED_ROOM]
        else:
            rooms.append({"id": UNASSIGNED_ROOM, "name": free, "aliases": []})
    home = {
        "version": 1,
        "name": registries.name[:_NAME_MAX] or "Home Assistant",
        "floors": floors,
        "rooms": rooms,
        "devices": devices,
    }
    return Built(home, skipped)


def describe(entity_id: str, attributes: Mapping[str, Any]) -> dict[str, Any] | None:
    """An entity's `type`, `capabilities` and `limits` (and `acts_as`) from its domain,
    supported features and attributes; None for kinds jiayu does not drive."""
    domain = entity_id.partition(".")[0]
    features = attributes.get("supported_features")
    features = features if isinstance(features, int) else 0
    device_class = attributes.get("device_class")
    caps: list[str] = []
    limits: dict[str, dict[str, float]] = {}
    acts_as: list[str] = []
    presets: list[str] = []

    def limit(key: str, low: Any, high: Any) -> None:
        if _finite(low) and _finite(high) and low <= high:
            limits[key] = {"min": low, "max": high}

    if domain == "light":
        kind = "Light"
        modes = set(_strs(attributes.get("supported_color_modes")))
        caps.append("onoff")
        if modes - {"onoff", "unknown"}:
            caps.append("brightness")
        if modes & _COLOR_MODES:
            caps.append("color")
        if "color_temp" in modes:
            caps.append("color_temp")
            limit(
                "color_temp",
                attributes.get("min_color_temp_kelvin"),
                attributes.get("max_color_temp_kelvin"),
            )
    elif domain in {"switch", "input_boolean"}:
        # A gas or water switch is a valve in fact: the risk gate then sees what "on" opens.
        kind = _GUARDED_CLASSES.get(str(device_class)) or (
            "SmartPlug" if device_class == "outlet" else "Switch"
        )
        caps.append("onoff")
    elif domain == "fan":
        kind = "Fan"
        caps.append("onoff")
        if features & _FAN_SET_SPEED:
            caps.append("fan_speed")
        if features & _FAN_OSCILLATE:
            caps.append("oscillation")
        if features & _FAN_PRESET_MODE:
            presets = _presets(attributes.get("preset_modes"))
    elif domain == "humidifier":
        kind = "Dehumidifier" if device_class == "dehumidifier" else "Humidifier"
        caps += ["onoff", "target_humidity"]
        limit("target_humidity", attributes.get("min_humidity"), attributes.get("max_humidity"))
        if features & _HUMIDIFIER_MODES:
            presets = _presets(attributes.get("available_modes"))
        if attributes.get("current_humidity") is not None:
            caps.append("humidity_sensor")
    elif domain == "vacuum":
        kind = "Vacuum"
        if features & _VACUUM_START:
            caps.append("vacuum")
    elif domain == "climate":
        hvac = set(_strs(attributes.get("hvac_modes")))
        kind = "AirConditioner" if "cool" in hvac else "Heater"
        if "off" in hvac or features & _CLIMATE_TURN_OFF:
            caps.append("onoff")
        # A range-only thermostat is given the range around the target (the hub's doing).
        if features & (_CLIMATE_TARGET_TEMPERATURE | _CLIMATE_TARGET_RANGE):
            caps.append("target_temperature")
            limit("target_temperature", attributes.get("min_temp"), attributes.get("max_temp"))
        if hvac & _OUR_HVAC:
            caps.append("hvac_mode")
        if (
            features & _CLIMATE_FAN_MODE
            and set(_strs(attributes.get("fan_modes"))) & _OUR_FAN_MODES
        ):
            caps.append("fan_speed")
        if attributes.get("current_temperature") is not None:
            caps.append("temperature_sensor")
        if attributes.get("current_humidity") is not None:
            caps.append("humidity_sensor")
        if features & _CLIMATE_PRESET_MODE:
            presets = _presets(attributes.get("preset_modes"))
    elif domain == "water_heater":
        kind = "WaterHeater"
        if features & _WATER_HEATER_ON_OFF:
            caps.append("onoff")
        caps.append("target_temperature")
        limit("target_temperature", attributes.get("min_temp"), attributes.get("max_temp"))
    elif domain == "cover":
        kind = "GarageDoor" if device_class in _GARAGE_COVERS else "Blind"
        # A cover that reports no features is taken to open and close; a tilt-only one
        # (a venetian blind's slats) is offered its tilt alone.
        if not features or features & (_COVER_OPEN | _COVER_CLOSE | _COVER_SET_POSITION):
            caps.append("cover")
        if features & _COVER_SET_TILT_POSITION:
            caps.append("tilt")
        if device_class == "door":
            acts_as.append("Lock")
    elif domain == "lock":
        kind = "Lock"
        caps.append("lock")
    elif domain == "valve":
        kind = "Valve"
        caps.append("valve")
    elif domain == "media_player":
        kind = "Television" if device_class == "tv" else "NetworkAudio"
        if features & (_MEDIA_TURN_ON | _MEDIA_TURN_OFF):
            caps.append("onoff")
        if features & _MEDIA_VOLUME_SET:
            caps.append("volume")
        if features & (_MEDIA_PLAY | _MEDIA_PAUSE):
            caps.append("media")
    elif domain == "sensor" and device_class in _SENSORS:
        kind = "Sensor"
        caps.append(_SENSORS[str(device_class)])
    else:
        return None
    if not caps:
        return None
    if presets:
        caps.append("preset")
    out: dict[str, Any] = {"type": kind, "capabilities": caps}
    if presets:
        out["presets"] = presets
    if limits:
        out["limits"] = limits
    if acts_as:
        out["acts_as"] = acts_as
    return out


def _presets(value: Any) -> list[str]:
    """HA's preset or mode names as a device's presets: each usable as a name, once."""
    return list(dict.fromkeys(p for p in _strs(value) if plain_name(p) and len(p) <= _NAME_MAX))


def _entity_name(entity_id: str, entry: Mapping[str, Any], attributes: Mapping[str, Any]) -> str:
    # The friendly name is what HA shows and its own matcher answers to; the registry's
    # names stand in when the state has none.
    for candidate in (
        attributes.get("friendly_name"),
        entry.get("name"),
        entry.get("original_name"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    return entity_id.partition(".")[2]


def _shape(value: object) -> str:
    """A value HA should not have sent, shown short (a reason names it, never at length)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 20 else text[:19] + "…"


def _strs(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple | set) else []


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# --- the command ------------------------------------------------------------------------


def fetch_registries(hub: HomeAssistantHub, timeout: float | None = None) -> Registries:
    """Ask a connected `HomeAssistantHub` for everything `build_home` reads, all within
    `timeout` seconds (the hub's own when None): TimeoutError past it, however many answers
    came just in time."""
    with Deadline(hub.timeout if timeout is None else timeout) as deadline:

        def ask(message: Mapping[str, Any]) -> Any:
            return hub.command(message, deadline=deadline)

        exposed = ask({"type": "homeassistant/expose_entity/list"})["exposed_entities"]
        wanted = sorted(e for e, to in exposed.items() if to.get(ASSISTANT))
        entries = (
            ask({"type": "config/entity_registry/get_entries", "entity_ids": wanted})
            if wanted
            else {}
        )
        config = ask({"type": "get_config"}) or {}
        return Registries(
            floors=ask({"type": "config/floor_registry/list"}),
            areas=ask({"type": "config/area_registry/list"}),
            devices=ask({"type": "config/device_registry/list"}),
            entities=entries,
            states=ask({"type": "get_states"}),
            exposed=exposed,
            name=str(config.get("location_name") or "Home Assistant"),
        )


def websocket_url(url: str) -> str:
    """HA's WebSocket address for what a user types: http://ha:8123 → ws://ha:8123/api/websocket."""
    url = url.rstrip("/")
    url = re.sub(r"^http(s?)://", r"ws\1://", url)
    return url if url.endswith("/api/websocket") else url + "/api/websocket"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `jiayu home from-ha`."""
    # The same settings as `--hub ha` (jiayu/connect.py), so one environment serves both.
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--url",
        default=os.environ.get("JIAYU_HA_URL") or None,
        help="Home Assistant, e.g. http://homeassistant.local:8123 (default: JIAYU_HA_URL)",
    )
    source.add_argument(
        "--states",
        metavar="FILE.json",
        help="a saved answer of GET /api/states instead (no areas: every device goes to one room)",
    )
    parser.add_argument("--name", default="Home Assistant", help="the home's name (with --states)")
    parser.add_argument(
        "--token",
        default=os.environ.get("JIAYU_HA_TOKEN") or os.environ.get("HA_TOKEN"),
        help="a long-lived access token (default: JIAYU_HA_TOKEN, then HA_TOKEN)",
    )
    parser.add_argument("--out", help="write the home file here (default: standard output)")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds the whole import may take"
    )


def run(args: argparse.Namespace) -> int:
    """Build the home file; 0 when written, 2 when HA could not be read or the home is invalid."""
    from jiayu.executor.hubs.homeassistant import (
        HaCommandError,
        HaConnectionError,
        HomeAssistantHub,
    )

    if args.states:
        try:
            built = build_home(saved_states(args.states, args.name))
        except InputError as err:
            print(str(err), file=sys.stderr)
            return 2
        return _written(built, args.out)
    if not args.url:
        print(
            "jiayu home from-ha: no Home Assistant: pass --url (or set JIAYU_HA_URL) or --states",
            file=sys.stderr,
        )
        return 2
    if not args.token:
        print(
            "jiayu home from-ha: no token: pass --token or set JIAYU_HA_TOKEN (or HA_TOKEN)",
            file=sys.stderr,
        )
        return 2
    url = websocket_url(args.url)
    try:
        with HomeAssistantHub(url, args.token, timeout=args.timeout) as hub:
            built = build_home(fetch_registries(hub, args.timeout))
    except (HaConnectionError, HaCommandError, TimeoutError) as exc:
        print(f"jiayu home from-ha: {exc}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        # Answers shaped unlike HA's (another server, another version): say so, never crash.
        print(f"jiayu home from-ha: {url}: unexpected answer: {exc!r}", file=sys.stderr)
        return 2
    return _written(built, args.out)


def _written(built: Built, out: str | None) -> int:
    try:
        parse_home(built.home, out or "<stdout>")
    except HomeError as err:
        print(str(err), file=sys.stderr)
        return 2
    write_home(built.home, built.skipped, out, "jiayu home from-ha")
    return 0


def saved_states(path: str, name: str = "Home Assistant") -> Registries:
    """Registries from a saved answer of HA's REST `GET /api/states` (a JSON array of state
    objects, pretty-printed or not): every entity in it is taken as exposed, and with no
    registries there are no areas, floors or aliases. InputError when it is not such an
    array; an item that is not a state is left for `build_home` to pass over."""
    data = parse_json(read_text(path, path, InputError), path, InputError)
    if not isinstance(data, list):
        raise InputError([Problem(path, "", "is not an array of states (GET /api/states)")])
    ids = [
        s["entity_id"] for s in data if isinstance(s, dict) and isinstance(s.get("entity_id"), str)
    ]
    return Registries(
        floors=[],
        areas=[],
        devices=[],
        entities={},
        states=data,
        exposed={entity_id: {ASSISTANT: True} for entity_id in ids},
        name=name,
    )


def write_home(
    home: Mapping[str, Any], skipped: Sequence[str], out: str | None, where: str
) -> None:
    """An importer's result: what was skipped on stderr, the home to `out` (or stdout)."""
    for line in skipped:
        print(f"{where}: skipped {line}", file=sys.stderr)
    text = json.dumps(home, ensure_ascii=False, indent=2) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as file:
            file.write(text)
    else:
        sys.stdout.write(text)
