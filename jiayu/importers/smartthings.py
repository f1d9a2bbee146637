"""`jiayu home from-smartthings`: a home file from what SmartThings knows.

From the REST API (a personal access token: `GET /v1/devices`, `GET /v1/locations` and each
location's `GET /v1/locations/{id}/rooms`), or from saved answers (`--devices FILE --rooms
FILE`: those two endpoints' answers as saved, `{"items": [...], "_links": ...}` pages, bare
arrays of items, one item, or several of these in a row (JSON Lines), pretty-printed or not).

- Rooms are SmartThings rooms (`room.<roomId>`); a device without a room goes to 未分区.
- A device's id is its deviceId, as `SmartThingsHub` addresses it; its name is its label (the
  name the SmartThings app shows), else its name.
- Capabilities come from its `main` component, through `SmartThingsHub`'s table
  (`CAPABILITY_MAP`): a device gets one of ours only when it has the SmartThings capability the
  hub drives it with, and only when jiayu's catalog has that capability.
- Its type comes from the main component's manufacturer category, when jiayu has that type;
  else Unknown. A category the user gave it in the app is what it acts as (a SmartPlug the
  user calls a Light acts as a Light).
- Each other component with a capability jiayu can command (a power strip's outlets
  `switch1`…, a washer's second drum `sub`) is a device of its own, with id
  `<deviceId>:<component>` (as `SmartThingsHub` addresses it) and the device's name followed
  by the component's label (else its id): 插排 + 插座2 → 插排插座2, "Power Strip" + "Outlet 2" →
  "Power Strip Outlet 2". Its type comes from its own categories, else the device's. A device
  with only `main` is one device, as it always was. A component that only measures (an AC's
  `sub` thermometer) adds no device.
- A fridge's (category Refrigerator) set points are never granted: the catalog's
  target_temperature range cannot hold them, so its compartments only measure.

Devices with nothing jiayu can drive or read (a hub, a contact sensor), and names the home's
rules cannot take, are left out and said so. The result always passes `parse_home`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from jiayu.catalog import CAPABILITIES, guard
from jiayu.deadline import Deadline
from jiayu.errors import HomeError, InputError, Problem, json_pointer
from jiayu.executor.hubs.smartthings import (
    API_URL,
    CAPABILITY_MAP,
    MAIN,
    StApiError,
    StClient,
)
from jiayu.home import parse_home, plain_name
from jiayu.importers.ha import write_home
from jiayu.jsonfile import parse_json, read_text

UNASSIGNED_ROOM = "room._unassigned"
_UNASSIGNED_NAME = "未分区"
_NAME_MAX = 64

# SmartThings device categories in our type words; a category of a type this jiayu lacks
# (the catalog's revision may not have it yet) is Unknown, by `_known_types`.
_TYPES: Mapping[str, str] = {
    "Light": "Light",
    "Switch": "Switch",
    "SmartPlug": "SmartPlug",
    "AirConditioner": "AirConditioner",
    "Blind": "Blind",
    "Fan": "Fan",
    "Television": "Television",
    "NetworkAudio": "NetworkAudio",
    "Speaker": "NetworkAudio",
    "Washer": "Washer",
    "Dryer": "Dryer",
    "Charger": "Charger",
    "Hub": "Hub",
    "SmartLock": "Lock",
    "WaterValve": "Valve",
    "Humidifier": "Humidifier",
    "AirPurifier": "Purifier",
    "Dehumidifier": "Dehumidifier",
    "RobotCleaner": "Vacuum",
    "GarageDoor": "GarageDoor",
    "WaterHeater": "WaterHeater",
    "Thermostat": "Heater",
    "MultiFunctionalSensor": "Sensor",
    "TempSensor": "Sensor",
    "HumiditySensor": "Sensor",
}


_NO_SET_POINT = frozenset({"Refrigerator"})
"""Categories whose thermostatCoolingSetpoint jiayu must not drive (see describe_component)."""


@cache
def _known_types() -> frozenset[str]:
    schema = json.loads(files("jiayu.schemas").joinpath("home.schema.json").read_text("utf-8"))
    return frozenset(schema["$defs"]["type"]["enum"])


@dataclass(frozen=True)
class Built:
    """A home document and what was left out of it, one line per thing."""

    home: dict[str, Any]
    skipped: list[str] = field(default_factory=list)


def _components(device: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [
        c
        for c in device.get("components") or []
        if isinstance(c, Mapping) and isinstance(c.get("id"), str) and c["id"]
    ]


def _main(device: Mapping[str, Any]) -> Mapping[str, Any]:
    return next((c for c in _components(device) if c["id"] == MAIN), {})


def _ids(entries: Any, key: str) -> list[str]:
    return [
        str(e[key]) for e in entries or [] if isinstance(e, Mapping) and isinstance(e.get(key), str)
    ]


def describe(device: Mapping[str, Any]) -> dict[str, Any] | None:
    """A device's `type`, `capabilities` (and `acts_as`) from its main component; None when
    it has nothing jiayu drives or reads."""
    main = _main(device)
    return describe_component(main, main)


def describe_component(
    component: Mapping[str, Any], main: Mapping[str, Any]
) -> dict[str, Any] | None:
    """One component's `type`, `capabilities` (and `acts_as`), its type from its own
    categories, else the main component's; None when it has nothing jiayu drives or reads."""
    theirs = _ids(component.get("capabilities"), "id")
    ours = [
        CAPABILITY_MAP[c]
        for c in theirs
        if c in CAPABILITY_MAP and CAPABILITY_MAP[c] in CAPABILITIES
    ]
    categories = [
        c
        for c in component.get("categories") or main.get("categories") or []
        if isinstance(c, Mapping)
    ]
    every = [*(component.get("categories") or []), *(main.get("categories") or [])]
    if any(isinstance(c, Mapping) and c.get("name") in _NO_SET_POINT for c in every):
        # Our set point's range (16–30 °C, which a device's limits only narrow) cannot hold a
        # fridge's (1–7) or a freezer's (-23…-15): every value it allows would spoil the food.
        ours = [c for c in ours if c != "target_temperature"]
    if not ours:
        return None
    # The maker's category says what the device is; a user's own (set in the app) says what
    # it serves as: a SmartPlug the user calls a Light has a lamp on it.
    categories.sort(key=lambda c: c.get("categoryType") == "user")
    kinds = [_TYPES.get(str(c.get("name"))) for c in categories]
    usable = [k for k in kinds if k is not None and k in _known_types()]
    kind = usable[0] if usable else "Unknown"
    out: dict[str, Any] = {"type": kind, "capabilities": list(dict.fromkeys(ours))}
    acts_as = [k for k in dict.fromkeys(usable[1:]) if k != kind]
    if acts_as:
        out["acts_as"] = acts_as
    return out


def _joined(left: str, right: str) -> str:
    # Chinese runs on without a space (插排插座2); two Latin words keep one (Strip Outlet 2).
    space = left[-1:].isascii() and left[-1:].isalnum() and right[:1].isascii()
    return f"{left} {right}" if space else left + right


def _parts(
    device: Mapping[str, Any], device_id: str, label: str
) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, name, description) of each jiayu device a SmartThings device makes: its main
    component, as always, and every other component jiayu can command."""
    main = _main(device)
    parts: list[tuple[str, str, dict[str, Any]]] = []
    described = describe_component(main, main)
    if described is not None:
        parts.append((device_id, label, described))
    for component in _components(device):
        if component["id"] == MAIN:
            continue
        described = describe_component(component, main)
        if described is None or not any(CAPABILITIES[c] for c in described["capabilities"]):
            continue  # a component that only measures adds nothing the main one cannot say
        suffix = str(component.get("label") or "").strip() or component["id"]
        parts.append((f"{device_id}:{component['id']}", _joined(label, suffix), described))
    return parts


def build_home(
    devices: Sequence[Mapping[str, Any]],
    rooms: Sequence[Mapping[str, Any]],
    name: str = "SmartThings",
) -> Built:
    """The home file for these devices and rooms; what the home's rules cannot take is left
    out (and said so), so the result passes `parse_home`."""
    skipped: list[str] = []
    taken: set[str] = set()
    out_rooms: list[dict[str, Any]] = []
    for room in rooms:
        room_name = str(room.get("name") or "").strip()
        key = plain_name(room_name)
        if not key or len(room_name) > _NAME_MAX or key in taken:
            skipped.append(
                f"room {_shown(room_name)}: the name is unusable (empty, too long or taken)"
            )
            continue
        taken.add(key)
        out_rooms.append({"id": f"room.{room['roomId']}", "name": room_name, "aliases": []})
    known_rooms = {r["id"] for r in out_rooms}
    names_in_room: set[tuple[str, str]] = set()
    out_devices: list[dict[str, Any]] = []
    for device in devices:
        device_id = str(device.get("deviceId"))
        label = next(
            (
                str(v).strip()
                for v in (device.get("label"), device.get("name"))
                if str(v or "").strip()
            ),
            device_id,
        )
        room_id = f"room.{device.get('roomId')}" if device.get("roomId") else UNASSIGNED_ROOM
        where = room_id if room_id in known_rooms else UNASSIGNED_ROOM
        found = False
        for our_id, name, described in _parts(device, device_id, label):
            found = True
            key = plain_name(name)
            if not key or len(name) > _NAME_MAX or key in taken or (where, key) in names_in_room:
                skipped.append(f"{_shown(name)}: the name is unusable (empty, too long or taken)")
                continue
            names_in_room.add((where, key))
            out = {"id": our_id, "name": name, "aliases": [], "room": where, **described}
            # Its maker's name too ("Garage Door Opener" under a label such as 车库).
            guard(out, str(device.get("name") or ""))
            out_devices.append(out)
        if not found:
            skipped.append(f"{_shown(label)}: nothing jiayu can drive or read")
    if any(d["room"] == UNASSIGNED_ROOM for d in out_devices):
        if plain_name(_UNASSIGNED_NAME) in taken:
            skipped += [
                f"{_shown(d['name'])}: no room" for d in out_devices if d["room"] == UNASSIGNED_ROOM
            ]
            out_devices = [d for d in out_devices if d["room"] != UNASSIGNED_ROOM]
        else:
            out_rooms.append({"id": UNASSIGNED_ROOM, "name": _UNASSIGNED_NAME, "aliases": []})
    home = {
        "version": 1,
        "name": name[:_NAME_MAX] or "SmartThings",
        "rooms": out_rooms,
        "devices": out_devices,
    }
    return Built(home, skipped)


def _shown(name: str) -> str:
    # Skipped things are named as the SmartThings app shows them (a label, not a UUID), quoted
    # so an empty or odd one is still seen.
    return json.dumps(name, ensure_ascii=False)


# --- saved answers -----------------------------------------------------------------------

_REQUIRED = {"devices": ("deviceId",), "rooms": ("roomId", "name")}


def read_items(path: str, kind: str) -> list[dict[str, Any]]:
    """The items in a saved answer, as the API gives it or as people keep it: a page
    (`{"items": [...], "_links": ...}`), a bare array of items, one item, or several of
    these one after another (JSON Lines, or pages saved in a row), pretty-printed or not.
    InputError names the file, the item's JSON pointer and what is wrong."""
    text = read_text(path, path, InputError)
    values = _json_values(text, path)
    items: list[tuple[str, str, object]] = []
    for source, value in values:
        if isinstance(value, list):
            items += [(source, json_pointer([i]), v) for i, v in enumerate(value)]
        elif isinstance(value, dict) and isinstance(value.get("items"), list):
            items += [(source, json_pointer(["items", i]), v) for i, v in enumerate(value["items"])]
        else:
            items.append((source, "", value))
    problems: list[Problem] = []
    good: list[dict[str, Any]] = []
    for source, pointer, item in items:
        if not isinstance(item, dict):
            problems.append(Problem(source, pointer, f"is not a {kind[:-1]} object"))
            continue
        missing = [k for k in _REQUIRED[kind] if not isinstance(item.get(k), str) or not item[k]]
        if missing:
            missed = f"{pointer}/{missing[0]}"
            problems.append(Problem(source, missed, "is missing or not a string"))
            continue
        if kind == "devices" and not isinstance(item.get("components", []), list):
            problems.append(Problem(source, f"{pointer}/components", "is not an array"))
            continue
        good.append(item)
    if problems:
        raise InputError(problems)
    return good


def _json_values(text: str, path: str) -> list[tuple[str, object]]:
    """Each JSON value in `text`, one after another, with the source that names it in an
    error: the file for a file of one value, `FILE: line N` for one of several."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    at = _after_space(text, 0)
    while at < len(text):
        try:
            end = decoder.raw_decode(text, at)[1]
        except (ValueError, RecursionError):
            end = len(text)  # the rest: parse_json below says what is wrong with it
        spans.append((at, end))
        at = _after_space(text, end)
    values: list[tuple[str, object]] = []
    for start, end in spans:
        line = text.count("\n", 0, start) + 1
        source = f"{path}: line {line}" if len(spans) > 1 else path
        values.append((source, parse_json(text[start:end], source, InputError)))
    return values


def _after_space(text: str, at: int) -> int:
    # JSON's own whitespace, the only kind allowed between values.
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


# --- the API -----------------------------------------------------------------------------


def fetch(
    client: StClient, location: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """Devices, rooms and the location's name from the API (one location's, or all), every
    request within the client's timeout from now: a listing that trickles or pages for ever
    ends there (StApiError)."""
    with Deadline(client.timeout) as deadline:
        locations = client.pages("/v1/locations", deadline=deadline)
        if location is not None:
            locations = [loc for loc in locations if loc.get("locationId") == location]
        rooms: list[dict[str, Any]] = []
        for loc in locations:
            rooms += client.pages(f"/v1/locations/{loc['locationId']}/rooms", deadline=deadline)
        devices = client.pages("/v1/devices", deadline=deadline)
    wanted = {loc["locationId"] for loc in locations}
    devices = [d for d in devices if d.get("locationId") in wanted]
    name = str(locations[0].get("name") or "SmartThings") if len(locations) == 1 else "SmartThings"
    return devices, rooms, name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `jiayu home from-smartthings`."""
    parser.add_argument(
        "--token",
        default=os.environ.get("SMARTTHINGS_TOKEN"),
        help="a personal access token (default: the SMARTTHINGS_TOKEN environment variable)",
    )
    parser.add_argument("--url", default=API_URL, help=f"the API root (default {API_URL})")
    parser.add_argument("--location", help="only this locationId (default: every location)")
    parser.add_argument("--devices", help="saved items of GET /v1/devices, instead of the API")
    parser.add_argument("--rooms", help="saved items of GET /v1/locations/{id}/rooms")
    parser.add_argument("--name", default="SmartThings", help="the home's name (with --devices)")
    parser.add_argument("--out", help="write the home file here (default: standard output)")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds the whole import may take"
    )


def run(args: argparse.Namespace) -> int:
    """Build the home file; 0 when written, 2 when the input could not be read or is invalid."""
    where = "jiayu home from-smartthings"
    try:
        if args.devices or args.rooms:
            if not (args.devices and args.rooms):
                print(f"{where}: --devices and --rooms go together", file=sys.stderr)
                return 2
            devices, rooms = read_items(args.devices, "devices"), read_items(args.rooms, "rooms")
            name = args.name
        else:
            if not args.token:
                print(f"{where}: no token: pass --token or set SMARTTHINGS_TOKEN", file=sys.stderr)
                return 2
            client = StClient(args.token, base_url=args.url, timeout=args.timeout)
            devices, rooms, name = fetch(client, args.location)
        built = build_home(devices, rooms, name)
        parse_home(built.home, args.out or "<stdout>")
    except (InputError, HomeError) as err:
        print(str(err), file=sys.stderr)
        return 2
    except (StApiError, ValueError) as exc:
        print(f"{where}: {exc}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, AttributeError) as exc:
        print(f"{where}: {args.url}: unexpected answer: {exc!r}", file=sys.stderr)
        return 2
    write_home(built.home, built.skipped, args.out, where)
    return 0
