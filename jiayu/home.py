"""The home model (floors, rooms, groups, scenes, devices) and its loader.

A home is checked in two passes: the JSON Schema first (shape), then the references and
capabilities between its parts (meaning). Each pass reports every problem it finds, so a
hub author fixes a file in one round. The file itself is read by `jiayu.jsonfile`, within
the bounds CONTRACTS.md §1 sets.

Names and aliases are compared in their `plain_name` form, the normaliser utterances go
through, so what a home calls `書房檯燈` or `TV` is found when it is said.
"""

from __future__ import annotations

import gc
import json
import math
import os
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any, cast

from jiayu.catalog import (
    LIMIT_KEYS,
    guarded_plain,
    params_error,
    schema_message,
    state_error,
    supports,
)
from jiayu.errors import HomeError, Problem, json_pointer
from jiayu.jsonfile import load_schema, path_key, read_json
from jiayu.text import plain_name as plain_name  # re-exported: the lexicon keys names with it

TYPE_FAMILIES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        # 电源: what cuts a circuit's power, a wall switch or relay or a smart plug (开关 and
        # 通断器 name the switch, 插座 the plug).
        "Power": frozenset({"Switch", "SmartPlug"}),
    }
)
"""Families of types one type word names, by the types each holds; not types a device has
(the home file's schema lists those): a device serves as each family its type, or a type it
acts as, is in (`Device.serves`)."""


@dataclass(frozen=True)
class Floor:
    """A floor of the home."""

    id: str
    """Unique across the whole home file."""
    name: str
    """What people call it ("一楼")."""
    aliases: tuple[str, ...]
    """Other things people call it ("楼下")."""


@dataclass(frozen=True)
class Room:
    """A room of the home."""

    id: str
    """Unique across the whole home file."""
    name: str
    """What people call it ("客厅")."""
    aliases: tuple[str, ...]
    """Other things people call it ("大厅")."""
    floor: str | None
    """Id of the floor it is on, if the home says."""
    _words: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Its name and aliases in plain form, longest first, as `room_prefix` tries them:
        # made once, as the engine asks for every room's prefix in a turn.
        words = {plain_name(w) for w in (self.name, *self.aliases)} - {""}
        object.__setattr__(self, "_words", tuple(sorted(words, key=len, reverse=True)))


@dataclass(frozen=True)
class Group:
    """Devices the user named together ("阅读灯")."""

    id: str
    """Unique across the whole home file."""
    name: str
    """What people call it."""
    aliases: tuple[str, ...]
    """Other things people call it."""
    members: tuple[str, ...]
    """Ids of its devices."""


@dataclass(frozen=True)
class SceneStep:
    """One command a scene sends."""

    device: str
    """Id of the device it is sent to."""
    command: str
    """The catalog command."""
    params: Mapping[str, Any]
    """The command's params, valid for the device."""
    delay_s: float = 0.0
    """Seconds to wait before this step is sent."""

    # params is a read-only mapping, which cannot be hashed; equal steps still hash equal.
    def __hash__(self) -> int:
        return hash((self.device, self.command))


@dataclass(frozen=True)
class Scene:
    """Commands run together under one name ("回家模式")."""

    id: str
    """Unique across the whole home file."""
    name: str
    """What people call it."""
    aliases: tuple[str, ...]
    """Other things people call it ("我回来了")."""
    steps: tuple[SceneStep, ...]
    """The commands, in the order they are sent."""


@dataclass(frozen=True)
class Limit:
    """The range a device allows for one value."""

    min: float
    """Lowest allowed value."""
    max: float
    """Highest allowed value."""


@dataclass(frozen=True, slots=True)
class Device:
    """Something in the home that can be commanded or read."""

    id: str
    """Unique across the whole home file; what commands are addressed to."""
    name: str
    """What people call it ("客厅空调"); data, never instructions."""
    aliases: tuple[str, ...]
    """Other things people call it ("大厅空调")."""
    room: str
    """Id of the room it is in."""
    type: str
    """Its type, a ranking hint only: capabilities decide what it can do."""
    capabilities: frozenset[str]
    """Catalog capabilities; they decide the commands it accepts and the state it has."""
    limits: Mapping[str, Limit]
    """Ranges that replace the catalog's defaults, by limit key ("target_temperature")."""
    acts_as: frozenset[str]
    """Other types it serves as (a SmartPlug with a lamp on it acts as a Light)."""
    state: Mapping[str, Any]
    """Initial state for the simulated hub, by attribute."""
    presets: tuple[str, ...] = ()
    """Its presets in its own words (自然风, 睡眠模式): what set_preset takes."""

    kind: tuple[object, ...] = field(init=False, repr=False, compare=False)
    """What the catalog's checks of a command read of the device, but its id: its
    capabilities, limits, presets, type and acts_as. A check passed by one device is
    passed by every device of its kind (`catalog.check` remembers it so)."""
    serves: frozenset[str] = field(init=False, repr=False, compare=False)
    """The types a type word may name it by: its type, those it acts as, and their families
    (TYPE_FAMILIES)."""

    def __post_init__(self) -> None:
        # Worked out when made rather than as a cached_property: an attribute of the instance
        # is read on the interpreter's fast path, a cached one (shadowing its class's
        # descriptor) on the generic one, for every command checked.
        limits = tuple(sorted((key, limit.min, limit.max) for key, limit in self.limits.items()))
        kind = (self.capabilities, limits, self.presets, self.type, self.acts_as)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "serves", _served(self.type, self.acts_as))

    # limits and state are read-only mappings, which cannot be hashed; ids are unique anyway.
    def __hash__(self) -> int:
        return hash(self.id)

    def serves_as(self, type_name: str) -> bool:
        """Whether a type word for ``type_name`` ("灯" for Light, "电源" for the Power family)
        covers this device."""
        return type_name in self.serves


@cache
def _served(type_name: str, acts_as: frozenset[str]) -> frozenset[str]:
    """`Device.serves`, made once per type and acts_as: a big home has a few dozen."""
    types = {type_name, *acts_as}
    return frozenset(
        types | {family for family, held in TYPE_FAMILIES.items() if not held.isdisjoint(types)}
    )


@dataclass(frozen=True)
class _Index:
    devices: Mapping[str, Device]
    rooms: Mapping[str, Room]
    floors: Mapping[str, Floor]
    groups: Mapping[str, Group]
    scenes: Mapping[str, Scene]
    in_room: Mapping[str, tuple[Device, ...]]
    on_floor: Mapping[str, tuple[Room, ...]]
    room_words: frozenset[str]


@dataclass(frozen=True)
class Home:
    """A whole home, immutable, so one instance is shared by every session and thread."""

    name: str
    """What the home is called."""
    floors: tuple[Floor, ...]
    """Its floors, in file order."""
    rooms: tuple[Room, ...]
    """Its rooms, in file order."""
    groups: tuple[Group, ...]
    """Its groups, in file order."""
    scenes: tuple[Scene, ...]
    """Its scenes, in file order."""
    devices: tuple[Device, ...]
    """Its devices, in file order."""
    source: str
    """The file (or label) it was loaded from, for messages."""
    _index: _Index = field(init=False, repr=False, compare=False)
    device: Callable[[str], Device] = field(init=False, repr=False, compare=False)
    """The device with this id; KeyError if there is none. The index's own lookup, a C call:
    a whole-floor turn asks it a few times per device."""

    def __post_init__(self) -> None:
        in_room: dict[str, list[Device]] = {}
        for device in self.devices:
            in_room.setdefault(device.room, []).append(device)
        on_floor: dict[str, list[Room]] = {}
        for room in self.rooms:
            if room.floor is not None:
                on_floor.setdefault(room.floor, []).append(room)
        index = _Index(
            devices={d.id: d for d in self.devices},
            rooms={r.id: r for r in self.rooms},
            floors={f.id: f for f in self.floors},
            groups={g.id: g for g in self.groups},
            scenes={s.id: s for s in self.scenes},
            in_room={k: tuple(v) for k, v in in_room.items()},
            on_floor={k: tuple(v) for k, v in on_floor.items()},
            room_words=frozenset(w for r in self.rooms for w in r._words),
        )
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "device", index.devices.__getitem__)

    def has_device(self, device_id: str) -> bool:
        """Whether a device with this id exists (a schedule kept from before a home edit may
        name one that no longer does)."""
        return device_id in self._index.devices

    def room(self, room_id: str) -> Room:
        """The room with this id; KeyError if there is none."""
        return self._index.rooms[room_id]

    def floor(self, floor_id: str) -> Floor:
        """The floor with this id; KeyError if there is none."""
        return self._index.floors[floor_id]

    def group(self, group_id: str) -> Group:
        """The group with this id; KeyError if there is none."""
        return self._index.groups[group_id]

    def scene(self, scene_id: str) -> Scene:
        """The scene with this id; KeyError if there is none."""
        return self._index.scenes[scene_id]

    def devices_in_room(self, room_id: str) -> tuple[Device, ...]:
        """The devices in the room, in file order; empty for an unknown room."""
        return self._index.in_room.get(room_id, ())

    def rooms_on_floor(self, floor_id: str) -> tuple[Room, ...]:
        """The rooms on the floor, in file order; empty for an unknown floor."""
        return self._index.on_floor.get(floor_id, ())

    def leading_room_word(self, name: str) -> str | None:
        """The longest plain room name or alias, of any room, that the plain `name` starts
        with and is not all of; found by looking up `name`'s prefixes, never by scanning
        every room (a 10,000-device home has over a thousand)."""
        words = self._index.room_words
        return next((name[:n] for n in range(len(name) - 1, 0, -1) if name[:n] in words), None)

    def bare_name(self, device: Device) -> str | None:
        """The device's name without its room's name in front (客厅台灯 → 台灯), if it has one;
        in its plain form (`plain_name`), as names are compared."""
        room = self._index.rooms.get(device.room)
        if room is None:
            return None
        name = plain_name(device.name)
        prefix = room_prefix(room, name)
        if prefix is None:
            return None
        return name[len(prefix) :] or None


def room_prefix(room: Room, name: str) -> str | None:
    """The plain form (`plain_name`) of the room's name or alias that the plain name `name`
    starts with, longest first (so 主卧室空调 in a room called 主卧 with alias 主卧室 gives
    主卧室); None if it starts with neither."""
    return next((w for w in room._words if name.startswith(w)), None)


_SECTIONS = ("floors", "rooms", "groups", "scenes", "devices")


def load_home(path: str | os.PathLike[str], *, label: str | None = None) -> Home:
    """Read, check and build the home in a JSON file; HomeError lists every problem."""
    source = label if label is not None else os.fspath(path)
    with collector_paused():
        return parse_home(read_json(path, source, HomeError), source)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the garbage collector while a home or its indexes are built: they are millions of
    new objects that all live on, and the collector would rescan them again and again while
    they are made (a third of the time at 100,000 devices)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def parse_home(data: object, source: str) -> Home:
    """Check and build a home from parsed JSON; HomeError lists every problem."""
    errors = load_schema("home").errors(data)
    if errors:
        problems = (
            Problem(source, json_pointer(e.absolute_path), schema_message(e)) for e in errors
        )
        # jsonschema reports each missing required key apart, with the same message.
        raise HomeError(list(dict.fromkeys(problems)))
    found: list[tuple[tuple[str | int, ...], str]] = []

    def report(path: tuple[str | int, ...], message: str) -> None:
        found.append((path, message))

    home = _build(cast(Mapping[str, Any], data), source, report)
    if found:
        found.sort(key=lambda f: path_key(f[0]))
        raise HomeError([Problem(source, json_pointer(path), message) for path, message in found])
    return home


_Report = Callable[[tuple[str | int, ...], str], None]


def _build(doc: Mapping[str, Any], source: str, report: _Report) -> Home:
    """The home a schema-valid document describes, reporting what its parts get wrong."""
    _check_ids(doc, report)
    said = _check_names(doc, report)
    floors = tuple(
        Floor(f["id"], f["name"], tuple(f.get("aliases", ()))) for f in doc.get("floors", ())
    )
    floor_ids = {f.id for f in floors}
    rooms = []
    for i, r in enumerate(doc.get("rooms", ())):
        floor = r.get("floor")
        if floor is not None and floor not in floor_ids:
            report(("rooms", i, "floor"), f'"{floor}" is not a floor id')
        rooms.append(Room(r["id"], r["name"], tuple(r.get("aliases", ())), floor))
    room_ids = {r.id for r in rooms}
    state_check = _StateCheck()
    # Equal capability (and acts_as) sets made one object, and equal kinds too: the catalog's
    # checks and the planner's readings remember what they worked out by the device's kind,
    # and a lookup of an equal kind then compares by identity, reading none of the device's
    # own objects (its type string): in a whole-home turn those are thousands of scattered
    # reads (trusting the states of 20,000 lights went 1.23 → 0.84 µs a light so).
    shared: dict[Hashable, Any] = {}
    devices = tuple(
        _device(d, ("devices", i), room_ids, state_check, shared, said.get(i, ()), report)
        for i, d in enumerate(doc["devices"])
    )
    by_id = {d.id: d for d in devices}
    groups = []
    for i, g in enumerate(doc.get("groups", ())):
        for j, member in enumerate(g["members"]):
            if member not in by_id:
                report(("groups", i, "members", j), f'"{member}" is not a device id')
        members = tuple(g["members"])
        groups.append(Group(g["id"], g["name"], tuple(g.get("aliases", ())), members))
    scenes = []
    for i, s in enumerate(doc.get("scenes", ())):
        steps = []
        for j, step in enumerate(s["steps"]):
            device = by_id.get(step["device"])
            params = step["params"]
            bad = [k for k, v in params.items() if not _finite(v)]
            for key in bad:
                report(("scenes", i, "steps", j, "params", key), "not a finite number")
            if device is None:
                report(
                    ("scenes", i, "steps", j, "device"), f'"{step["device"]}" is not a device id'
                )
            elif not bad and (error := params_error(device, step["command"], params)) is not None:
                where = "params" if supports(device, step["command"]) else "command"
                report(("scenes", i, "steps", j, where), error)
            delay = step.get("delay_s", 0)
            if not _finite(delay):
                report(("scenes", i, "steps", j, "delay_s"), "not a finite number")
            frozen = MappingProxyType(dict(params))
            steps.append(SceneStep(step["device"], step["command"], frozen, float(delay)))
        scenes.append(Scene(s["id"], s["name"], tuple(s.get("aliases", ())), tuple(steps)))
    return Home(doc["name"], floors, tuple(rooms), tuple(groups), tuple(scenes), devices, source)


def _check_ids(doc: Mapping[str, Any], report: _Report) -> None:
    first: dict[str, tuple[str, int]] = {}
    # In document order, so "first" means first in the file whatever order its sections are in.
    for section in (key for key in doc if key in _SECTIONS):
        for i, item in enumerate(doc[section]):
            if item["id"] in first:
                where = json_pointer((*first[item["id"]], "id"))
                report((section, i, "id"), f'duplicate id "{item["id"]}" (first at {where})')
            else:
                first[item["id"]] = (section, i)


class _StateCheck:
    """`state_error`, remembered for one load: a big home repeats the same few states
    (on: false, brightness 80) on thousands of devices of the same kind, and each check
    runs a JSON Schema validator."""

    def __init__(self) -> None:
        self._by_kind: dict[tuple[object, ...], dict[tuple[object, ...], str | None]] = {}

    def errors(self, device: Device) -> Iterator[tuple[str, str]]:
        """(attribute, problem) for each state attribute the device cannot hold."""
        # Everything state_error reads of the device: its capabilities and limits.
        kind = (device.capabilities, *device.limits.items())
        seen = self._by_kind.setdefault(kind, {})
        for attribute, value in device.state.items():
            if not _finite(value):
                error: str | None = "not a finite number"
            elif isinstance(value, (dict, list)):
                error = state_error(device, attribute, value)
            else:
                # The type too, so True and 1 stay apart.
                key = (attribute, type(value), value)
                if key not in seen:
                    seen[key] = state_error(device, attribute, value)
                error = seen[key]
            if error is not None:
                yield attribute, error


def _device(
    d: Mapping[str, Any],
    path: tuple[str | int, ...],
    room_ids: set[str],
    check_state: _StateCheck,
    shared: dict[Hashable, Any],
    words: Iterable[str],
    report: _Report,
) -> Device:
    if d["room"] not in room_ids:
        report((*path, "room"), f'"{d["room"]}" is not a room id')
    capabilities = frozenset(d["capabilities"])
    capabilities = shared.setdefault(capabilities, capabilities)
    acts_as = frozenset(d.get("acts_as", ()))
    # What its words (its name and aliases as `_check_names` made them plain, and its id) say
    # it opens, it acts as, whatever type the file gives it: a hand-written relay called 车库门
    # is gated as a garage door, as an imported one is. An id is held by the schema to ASCII
    # letters, digits and _.:-, which normalisation only lower-cases.
    said = guarded_plain(d["type"], acts_as, (*words, d["id"].lower()))
    if said is not None:
        acts_as |= {said}
    limits = {}
    for key, limit in d.get("limits", {}).items():
        bad = [end for end in ("min", "max") if not _finite(limit[end])]
        for end in bad:
            report((*path, "limits", key, end), "not a finite number")
        if bad:
            continue
        if LIMIT_KEYS[key] not in capabilities:
            report((*path, "limits", key), f'limit "{key}" needs capability "{LIMIT_KEYS[key]}"')
        elif limit["min"] > limit["max"]:
            report((*path, "limits", key), f"min {limit['min']} is more than max {limit['max']}")
        else:
            limits[key] = Limit(limit["min"], limit["max"])
    device = Device(
        id=d["id"],
        name=d["name"],
        aliases=tuple(d.get("aliases", ())),
        room=d["room"],
        type=d["type"],
        capabilities=capabilities,
        limits=MappingProxyType(limits),
        acts_as=shared.setdefault(acts_as, acts_as),
        state=MappingProxyType(dict(d.get("state", {}))),
        presets=tuple(d.get("presets", ())),
    )
    object.__setattr__(device, "kind", shared.setdefault(device.kind, device.kind))
    if device.presets and "preset" not in capabilities:
        report((*path, "presets"), 'presets need capability "preset"')
    elif "preset" in capabilities and not device.presets:
        report((*path, "capabilities"), 'capability "preset" needs a list of "presets"')
    for attribute, error in check_state.errors(device):
        report((*path, "state", attribute), error)
    return device


def _check_names(doc: Mapping[str, Any], report: _Report) -> dict[int, list[str]]:
    # A room, floor, group or scene called like anything else would make one word mean two
    # things, and whichever the lexer preferred would win (a scene 厨房灯 over the device
    # 厨房灯). Devices may share names: the rooms tell them apart, and the clarify rules ask.
    # Returns each device's words in plain form, by its index, for the guard by words.
    first: dict[str, tuple[tuple[str, int], str]] = {}
    first_place: dict[str, tuple[tuple[str, int], str]] = {}
    plain: dict[int, list[str]] = {}
    # In document order, so the later of two clashing words is the one reported.
    for section in (key for key in doc if key in _SECTIONS):
        what = section[:-1]
        for i, item in enumerate(doc[section]):
            for path, kind, word in _words(section, i, item):
                key = plain_name(word)
                if section == "devices":
                    plain.setdefault(i, []).append(key)
                label = f"{what} {kind}"
                if not key:
                    report(path, f"{label} {_shown(word)} is empty once normalised")
                    continue
                other = first_place.get(key) if section == "devices" else first.get(key)
                if other is not None and other[0] != (section, i):
                    report(path, f"{label} {_shown(word)} equals a {other[1]}")
                first.setdefault(key, ((section, i), label))
                if section != "devices":
                    first_place.setdefault(key, ((section, i), label))
    return plain


def _words(
    section: str, index: int, item: Mapping[str, Any]
) -> Iterable[tuple[tuple[str | int, ...], str, str]]:
    yield (section, index, "name"), "name", item["name"]
    for j, alias in enumerate(item.get("aliases", ())):
        yield (section, index, "aliases", j), "alias", alias


def _shown(word: str) -> str:
    return json.dumps(word, ensure_ascii=False)


def _finite(value: object) -> bool:
    """False for NaN and the infinities, which no device value may be."""
    return not isinstance(value, float) or math.isfinite(value)
