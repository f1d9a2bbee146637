"""The capability catalog: which commands exist, what their params must be, what they change.

One table (``COMMANDS``) drives the params schemas, the simulated hub's state changes and the
checks on a home's initial state, so the three cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from jiayu.jsonfile import Schema
from jiayu.text import plain_name

if TYPE_CHECKING:
    from jsonschema import ValidationError

    from jiayu.home import Device


@dataclass(frozen=True)
class CommandSpec:
    """One command a device can be sent, what its params must be and what it changes."""

    name: str
    """The command as the hub receives it ("set_brightness")."""
    capability: str
    """The capability a device needs to accept the command."""
    params_schema: Mapping[str, Any]
    """JSON Schema of the params object at the default range; a device's limits narrow it."""
    limit_key: str | None
    """The key of a device's ``limits`` that replaces ``default_range``; None without a value."""
    default_range: tuple[float, float] | None
    """Allowed ``value`` for a device without limits; None when the command takes no value."""
    writes: tuple[str, str] | None
    """(param, state attribute): the attribute that takes the param's value, if any; the
    param "" means the whole params object (set_color → color {hue, saturation})."""
    effect: Mapping[str, Any]
    """State attributes the command sets to fixed values."""
    choices_from: str | None = None
    """The Device field whose words are the only allowed values of the param (set_preset
    takes one of the device's own ``presets``), narrowing the schema per device."""


def _object(properties: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def _plain(name: str, capability: str, **effect: Any) -> CommandSpec:
    return CommandSpec(name, capability, _object({}), None, None, None, MappingProxyType(effect))


def _value(
    name: str,
    capability: str,
    attribute: str,
    kind: str,
    default_range: tuple[float, float],
    **effect: Any,
) -> CommandSpec:
    low, high = default_range
    schema = _object({"value": {"type": kind, "minimum": low, "maximum": high}})
    return CommandSpec(
        name,
        capability,
        schema,
        attribute,
        default_range,
        ("value", attribute),
        MappingProxyType(effect),
    )


def _choice(
    name: str, capability: str, param: str, attribute: str, title: str, choices: tuple[str, ...]
) -> CommandSpec:
    schema = _object({param: {"title": title, "enum": list(choices)}})
    return CommandSpec(
        name, capability, schema, None, None, (param, attribute), MappingProxyType({})
    )


def _own_choice(name: str, capability: str, param: str, field: str) -> CommandSpec:
    # The allowed words are the device's own; the schema here only says "a word".
    schema = _object({param: {"title": field, "type": "string", "minLength": 1}})
    return CommandSpec(
        name, capability, schema, None, None, (param, param), MappingProxyType({}), field
    )


_COLOR = _object(
    {
        "hue": {"type": "integer", "minimum": 0, "maximum": 359},
        "saturation": {"type": "integer", "minimum": 0, "maximum": 100},
    }
)


COMMANDS: Mapping[str, CommandSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in (
            _plain("turn_on", "onoff", on=True),
            _plain("turn_off", "onoff", on=False),
            # A light set to a brightness is lit, as on every real hub.
            _value("set_brightness", "brightness", "brightness", "integer", (0, 100), on=True),
            _value("set_color_temp", "color_temp", "color_temp", "integer", (2700, 6500)),
            _value(
                "set_temperature",
                "target_temperature",
                "target_temperature",
                "number",
                (16, 30),
            ),
            _choice(
                "set_mode",
                "hvac_mode",
                "mode",
                "mode",
                "modes",
                ("cool", "heat", "dry", "fan", "auto"),
            ),
            _choice(
                "set_fan_speed",
                "fan_speed",
                "speed",
                "fan_speed",
                "fan speeds",
                ("low", "medium", "high", "auto"),
            ),
            _plain("open", "cover", position=100),
            _plain("close", "cover", position=0),
            _plain("stop", "cover"),
            _value("set_position", "cover", "position", "integer", (0, 100)),
            _plain("lock", "lock", locked=True),
            _plain("unlock", "lock", locked=False),
            _plain("open_valve", "valve", open=True),
            _plain("close_valve", "valve", open=False),
            # Choosing a volume is asking to hear it.
            _value("set_volume", "volume", "volume", "integer", (0, 100), muted=False),
            _plain("mute", "volume", muted=True),
            _plain("unmute", "volume", muted=False),
            _plain("play", "media", playing=True),
            _plain("pause", "media", playing=False),
            _plain("next_track", "media", playing=True),
            _plain("previous_track", "media", playing=True),
            # A coloured light is a lit one, as set_brightness.
            CommandSpec(
                "set_color",
                "color",
                _COLOR,
                None,
                None,
                ("", "color"),
                MappingProxyType({"on": True}),
            ),
            _plain("oscillate_on", "oscillation", oscillating=True),
            _plain("oscillate_off", "oscillation", oscillating=False),
            _own_choice("set_preset", "preset", "preset", "presets"),
            _value("set_humidity", "target_humidity", "target_humidity", "integer", (30, 80)),
            _value("set_tilt", "tilt", "tilt", "integer", (0, 100)),
            _plain("start_cleaning", "vacuum", status="cleaning"),
            _plain("pause_cleaning", "vacuum", status="paused"),
            _plain("return_to_base", "vacuum", status="returning"),
            _plain("start_cycle", "cycle", status="running"),
            _plain("pause_cycle", "cycle", status="paused"),
            _plain("stop_cycle", "cycle", status="idle"),
        )
    }
)
"""Every command, by name."""
_SPECS: dict[str, CommandSpec] = dict(COMMANDS)
_EFFECTS: dict[str, dict[str, Any]] = {spec.name: dict(spec.effect) for spec in COMMANDS.values()}
# COMMANDS and each effect as plain dicts, read where every command sent reads them: a
# read-only mapping is looked up, and merged into a state, by the slow generic path.

CAPABILITIES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        capability: tuple(s.name for s in COMMANDS.values() if s.capability == capability)
        for capability in (
            "onoff",
            "brightness",
            "color_temp",
            "target_temperature",
            "hvac_mode",
            "fan_speed",
            "cover",
            "lock",
            "valve",
            "volume",
            "media",
            "color",
            "oscillation",
            "preset",
            "target_humidity",
            "tilt",
            "vacuum",
            "cycle",
            "temperature_sensor",
            "humidity_sensor",
            "illuminance_sensor",
        )
    }
)
"""Every capability and the commands it allows (none for sensors)."""

STATE_ATTRIBUTES: Mapping[str, str] = MappingProxyType(
    {
        "on": "onoff",
        "brightness": "brightness",
        "color_temp": "color_temp",
        "target_temperature": "target_temperature",
        "mode": "hvac_mode",
        "fan_speed": "fan_speed",
        "position": "cover",
        "locked": "lock",
        "open": "valve",
        "volume": "volume",
        "muted": "volume",
        "playing": "media",
        "color": "color",
        "oscillating": "oscillation",
        "preset": "preset",
        "target_humidity": "target_humidity",
        "tilt": "tilt",
        # Also a cycle's: see ATTRIBUTE_CAPABILITIES.
        "status": "vacuum",
        "temperature": "temperature_sensor",
        "humidity": "humidity_sensor",
        "illuminance": "illuminance_sensor",
    }
)
"""Every state attribute and the (first) capability that has it."""

ATTRIBUTE_CAPABILITIES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        attribute: frozenset({capability, "cycle"} if attribute == "status" else {capability})
        for attribute, capability in STATE_ATTRIBUTES.items()
    }
)
"""Every state attribute and every capability that has it (a vacuum's and a washer's
`status`)."""


def has_attribute(capabilities: frozenset[str], attribute: str | None) -> bool:
    """Whether a device with these capabilities has this state attribute."""
    owners = ATTRIBUTE_CAPABILITIES.get(attribute or "")
    return owners is not None and not owners.isdisjoint(capabilities)


LIMIT_KEYS: Mapping[str, str] = MappingProxyType(
    {s.limit_key: s.capability for s in COMMANDS.values() if s.limit_key is not None}
)
"""Every key a device's ``limits`` may have, and the capability it needs."""

HIGH_RISK: frozenset[str] = frozenset({"unlock", "open_valve"})
"""Commands sent only after the user confirms them, on any device."""
_OPENING = frozenset({"turn_on", "open", "unlock", "open_valve"})
# Commands that open partly: any value above 0 lets someone through (CONTRACTS §1).
_OPENING_BY_VALUE = frozenset({"set_position", "set_tilt"})
GUARDED_TYPES = frozenset({"Lock", "Valve", "GarageDoor"})
"""Types whose opening, whole or partial, waits for 确认."""


# What a device opens in fact, said by its words whatever its type: a relay called 车库门 is a
# garage door, one called 門禁鎖 or "Front Door Lock" a lock, a plug called 燃气阀 a gas valve.
# The rule is by morphemes, never whole names: a word of a class anywhere in a device's id,
# name or aliases, as names are matched (`plain_name`: traditional → simplified, full-width →
# ASCII, format characters and spaces gone, case-folded), so every script and spelling that
# reaches the device by voice is judged in the one form. The first class found wins (燃气阀门
# is a Valve, 门锁 a Lock). Over-reaching is the safe side (an "Outdoor Plug" or a 温控阀
# asks 确认), with one exception: a run of door words that modifies a thing at the door after
# it (门口灯, 门铃, "Doorbell", "Gateway") names that thing, not the door. The garage (车库,
# garage) is a place, so it counts only for a relay, a plug, a motor (a Blind) or a device of
# unknown type, whose type says nothing of what it works: a relay called 车库 or "Garage" opens
# the garage door as likely as it lights the garage, and a 车库卷帘 is the garage's door,
# while a 车库空调 is an air conditioner.
_GUARDED_MORPHEMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Valve", ("阀", "燃气", "煤气", "天然气", "瓦斯", "valve", "gas")),
    ("Lock", ("锁", "门禁", "lock", "latch", "strike", "deadbolt")),
    ("GarageDoor", ("门", "闸", "door", "gate")),
)
_GARAGE = ("车库", "garage")
_AT_THE_DOOR = ("灯", "铃", "口", "厅", "廊", "帘", "light", "lamp", "bell", "way")
_RETYPED = frozenset({"Switch", "SmartPlug", "Unknown", "Blind"})
"""Types that say only how a device is wired (a relay, a plug, a motor), which its words then
replace: a Switch called 燃气阀 is a Valve. Any other type stays, acting as the guarded one."""


def _patterns(garage: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    def door_run(words: tuple[str, ...]) -> str:
        # Possessive, so a run freed by what follows it is not matched again in part.
        return f"(?:{'|'.join(words)})++(?!{'|'.join(_AT_THE_DOOR)})"

    return tuple(
        (
            kind,
            re.compile(
                door_run(words + _GARAGE if garage else words)
                if kind == "GarageDoor"
                else "|".join(words)
            ),
        )
        for kind, words in _GUARDED_MORPHEMES
    )


_PATTERNS = {True: _patterns(garage=True), False: _patterns(garage=False)}


def guarded_plain(device_type: str, acts_as: Iterable[str], words: Iterable[str]) -> str | None:
    """The guarded type (Valve, Lock, GarageDoor) a device of this type, acting as these, must
    act as too because its words (in `plain_name` form) say so; None when it is guarded
    already or its words say nothing."""
    if device_type in GUARDED_TYPES or not GUARDED_TYPES.isdisjoint(acts_as):
        return None
    said = "|".join(words)  # no morpheme holds "|": two words never run into one
    patterns = _PATTERNS[device_type in _RETYPED]
    return next((kind for kind, pattern in patterns if pattern.search(said)), None)


def guarded(device_type: str, acts_as: Iterable[str], *texts: str) -> str | None:
    """`guarded_plain` for texts as written: the one guard of every importer and of home
    loading, so a hand-written home is judged as an imported one."""
    return guarded_plain(device_type, acts_as, (plain_name(text) for text in texts))


def guard(device: dict[str, Any], *texts: str) -> None:
    """Make a device document (a home file's device) what its id, name, aliases and `texts`
    (a description, an entity id) say it opens: a relay's type becomes the guarded one, any
    other type acts as it (`guarded`)."""
    words = (device["id"], device["name"], *device.get("aliases", ()), *texts)
    said = guarded(device["type"], device.get("acts_as", ()), *words)
    if said is None:
        return
    if device["type"] in _RETYPED:
        device["type"] = said
    else:
        device["acts_as"] = [*device.get("acts_as", ()), said]


def is_high_risk(device: Device, command: str, params: Mapping[str, Any] | None = None) -> bool:
    """Whether a command waits for 确认: unlock and open_valve anywhere, and anything that
    opens a Lock-, Valve- or GarageDoor-typed device (or one acting as one) wholly or partly,
    whatever its capabilities: a door lock wired as a plain on/off relay still opens the door,
    and a garage door at 50% lets a car in. A value that is not a number is risky: the gate
    does not trust what it cannot read."""
    if command in HIGH_RISK:
        return True
    if command in _OPENING_BY_VALUE:
        value = (params or {}).get("value")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            return False
    elif command not in _OPENING:
        return False
    # Asked of every command a whole-home turn plans: no set is built for the question.
    return device.type in GUARDED_TYPES or not GUARDED_TYPES.isdisjoint(device.acts_as)


_RISKY: dict[tuple[object, ...], bool] = {}
"""Whether a command that passed `params_error` is high-risk, by the command, the device's
`kind` and the params' `_params_key`: all the two checks read (tests/test_device_check.py)."""
_RISKY_SIZE = 4096


def check(device: Device, command: str, params: object) -> str | bool:
    """Why the device cannot be sent this command with these params (`params_error`), else
    whether it waits for 确认 (`is_high_risk`). A command passed is remembered by its kind,
    so the lights of a floor, or a light said again, are checked once."""
    key = _params_key(params)  # None when not a flat object of scalars: never remembered
    known = (command, device.kind, key)
    risky = _RISKY.get(known) if key is not None else None
    if risky is None:
        error = params_error(device, command, params)
        if error is not None:
            return error  # not remembered: it may name the device
        assert isinstance(params, Mapping)  # what passes a params schema is an object
        risky = is_high_risk(device, command, params)
        if key is not None:
            if len(_RISKY) >= _RISKY_SIZE:
                _RISKY.clear()  # bounded; refilled by what is sent next
            _RISKY[known] = risky
    return risky


# Attributes a command writes are checked with that command's params schema, so a state the
# hub could never reach by a command is refused in a home file too.
_SETTERS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {s.writes[1]: (s.name, s.writes[0]) for s in COMMANDS.values() if s.writes is not None}
)

# Readings no command writes: checked on their own.
_READING_SCHEMAS: Mapping[str, Mapping[str, Any]] = {
    "on": {"type": "boolean"},
    "locked": {"type": "boolean"},
    "open": {"type": "boolean"},
    "muted": {"type": "boolean"},
    "playing": {"type": "boolean"},
    "oscillating": {"type": "boolean"},
    "status": {
        "title": "statuses",
        "enum": ["cleaning", "paused", "returning", "docked", "idle", "error", "running"],
    },
    "temperature": {"type": "number"},
    "humidity": {"type": "number", "minimum": 0, "maximum": 100},
    "illuminance": {"type": "number", "minimum": 0},
}


@cache
def _reading(attribute: str) -> Schema:
    return Schema(_READING_SCHEMAS[attribute])


def supports(device: Device, command: str) -> bool:
    """Whether the device has the capability the command needs."""
    spec = _SPECS.get(command)
    return spec is not None and spec.capability in device.capabilities


def value_range(device: Device, command: str) -> tuple[float, float] | None:
    """The range of the command's ``value`` on this device; raises KeyError for no such command."""
    return _range(_SPECS[command], device)


def _range(spec: CommandSpec, device: Device) -> tuple[float, float] | None:
    if spec.limit_key is None:
        return None
    limit = device.limits.get(spec.limit_key)
    return spec.default_range if limit is None else (limit.min, limit.max)


def params_validator(device: Device, command: str) -> Schema:
    """The compiled params schema of the command on this device; KeyError for no such command."""
    return _validator(command, value_range(device, command), _choices(_SPECS[command], device))


def _choices(spec: CommandSpec, device: Device) -> tuple[str, ...] | None:
    if spec.choices_from is None:
        return None
    words: tuple[str, ...] = getattr(device, spec.choices_from)
    return words


@cache
def _validator(
    command: str, bounds: tuple[float, float] | None, choices: tuple[str, ...] | None = None
) -> Schema:
    # Keyed by the range and the words rather than the device, so devices alike share one.
    spec = _SPECS[command]
    schema: Mapping[str, Any] = spec.params_schema
    if bounds is not None:
        value = {**schema["properties"]["value"], "minimum": bounds[0], "maximum": bounds[1]}
        schema = {**schema, "properties": {"value": value}}
    if choices is not None and spec.writes is not None:
        param = spec.writes[0]
        words = {**schema["properties"][param], "enum": list(choices)}
        schema = {**schema, "properties": {param: words}}
    return Schema(schema)


def params_error(device: Device, command: str, params: object) -> str | None:
    """Why the device cannot be sent this command with these params, in one line; None if it can."""
    spec = _SPECS.get(command)
    if spec is None:
        return f"unknown command {_show(command)}"
    if spec.capability not in device.capabilities:
        return f'"{command}" needs capability "{spec.capability}", which device "{device.id}" lacks'
    plain = spec.limit_key is None and spec.choices_from is None
    if plain and type(params) is dict and not params:
        # turn_on {}, open {}…: most of the thousands a whole-home turn validates; the
        # answer depends on the command alone (as _range and _choices would say: None).
        return _checked(command, None, None, ())
    bounds = _range(spec, device)
    choices = _choices(spec, device)
    key = _params_key(params)
    if key is None:  # not a flat object of scalars: checked every time (and refused)
        errors = _validator(command, bounds, choices).iter_errors(params)
        return _explain(errors, name_keys=True)
    return _checked(command, bounds, choices, key)


@lru_cache(maxsize=4096)
def _checked(
    command: str,
    bounds: tuple[float, float] | None,
    choices: tuple[str, ...] | None,
    key: tuple[tuple[str, type, Any], ...],
) -> str | None:
    # A whole-home turn validates thousands of identical commands (turn_on {}); the answer
    # depends only on the command, the range, the words and the params, so it is computed once.
    params = {name: value for name, _, value in key}
    return _explain(_validator(command, bounds, choices).iter_errors(params), name_keys=True)


def _params_key(params: object) -> tuple[tuple[str, type, Any], ...] | None:
    """A hashable key for flat params; the type is part of it, since 1, 1.0 and True differ
    to a JSON Schema. (The type itself, not its name: a name is a new string each time.)"""
    if type(params) is not dict and not isinstance(params, Mapping):  # (a dict: no ABC check)
        return None
    if not params:
        return ()  # turn_on, turn_off, open…: most commands a whole-home turn sends
    key: list[tuple[str, type, Any]] = []
    for name, value in params.items():
        if not isinstance(name, str) or not isinstance(value, _SCALARS):
            return None
        key.append((name, type(value), value))  # sorted by name alone: names differ
    return tuple(key) if len(key) == 1 else tuple(sorted(key))


_SCALARS = (str, int, float, bool, type(None))
"""What a flat params value may be; a tuple, which isinstance checks faster than a union."""


def state_error(device: Device, attribute: str, value: object) -> str | None:
    """Why the device cannot have this attribute at this value, in one line; None if it can."""
    capability = STATE_ATTRIBUTES.get(attribute)
    if capability is None:
        return f"unknown attribute {_show(attribute)}"
    if not has_attribute(device.capabilities, attribute):
        return f'attribute "{attribute}" needs capability "{capability}"'
    if attribute in _SETTERS:
        command, param = _SETTERS[attribute]
        whole = value if param == "" else {param: value}  # color is set_color's whole params
        errors = params_validator(device, command).iter_errors(whole)
    else:
        errors = _reading(attribute).iter_errors(value)
    return _explain(errors, name_keys=False)


def apply_command(
    state: Mapping[str, Any], command: str, params: Mapping[str, Any]
) -> dict[str, Any]:
    """The state after the command, as the simulated hub applies it; params must be valid."""
    spec = _SPECS[command]
    new = {**state, **_EFFECTS[command]}
    if spec.writes is not None:
        param, attribute = spec.writes
        new[attribute] = dict(params) if param == "" else params[param]
    return new


def schema_message(error: ValidationError) -> str:
    """Say what a JSON Schema failure means, in one line a person can act on."""
    # The stubs allow "unset" for errors made by hand; errors from a validator always have one.
    instance: Any = error.instance
    expected: Any = error.validator_value
    schema = error.schema
    if not isinstance(schema, Mapping):
        return error.message
    match error.validator:
        case "enum":
            title = schema.get("title")
            among = f"one of the {title}" if title else "one of"
            return f"{_show(instance)} is not {among}: {', '.join(map(str, expected))}"
        case "const":
            return f"{_show(instance)} is not {_show(expected)}"
        case "type":
            kinds = [expected] if isinstance(expected, str) else expected
            return f"{_show(instance)} is not {' or '.join(_KINDS.get(k, k) for k in kinds)}"
        case "minimum" | "maximum" if "minimum" in schema and "maximum" in schema:
            low, high = format_number(schema["minimum"]), format_number(schema["maximum"])
            return f"{_show(instance)} is not within {low}–{high}"
        case "minimum":
            return f"{_show(instance)} is less than {format_number(expected)}"
        case "maximum":
            return f"{_show(instance)} is more than {format_number(expected)}"
        case "minLength" | "minItems" if expected == 1:
            return f"{_show(instance)} is empty"
        case "maxLength":
            return f"{_show(instance)} is longer than {expected} characters"
        case "pattern":
            return f"{_show(instance)} does not match {expected}"
        case "uniqueItems":
            return f"{_show(instance)} repeats an item"
        case "required":
            # jsonschema reports each missing key apart but cannot say which one; list them all
            # (the repeats are equal lines, which callers drop).
            return _keys("missing required key", [k for k in expected if k not in instance])
        case "additionalProperties" if expected is False:
            known = schema.get("properties", {})
            return _keys("unknown key", [k for k in instance if k not in known])
    return error.message


_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "integer": "an integer",
        "number": "a number",
        "string": "a string",
        "boolean": "a boolean",
        "object": "an object",
        "array": "an array",
        "null": "null",
    }
)


def _explain(errors: Iterable[ValidationError], *, name_keys: bool) -> str | None:
    lines = []
    for error in errors:
        where = ".".join(map(str, error.path))
        message = schema_message(error)
        lines.append(f"{where} {message}" if name_keys and where else message)
    return "; ".join(dict.fromkeys(lines)) or None


def _keys(what: str, keys: list[str]) -> str:
    plural = "s" if len(keys) > 1 else ""
    return f"{what}{plural} {', '.join(_show(k) for k in keys)}"


def _show(value: object) -> str:
    # Values come from users' files and an LLM: show them as JSON, and never at length.
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


def format_number(value: float) -> str:
    """26.0 → "26", 26.5 → "26.5": how numbers appear in messages and replies."""
    return str(int(value)) if float(value).is_integer() else str(value)
