"""`Zigbee2MqttHub`: devices behind zigbee2mqtt, reached over a real MQTT broker (paho-mqtt).

zigbee2mqtt's MQTT API (base topic `zigbee2mqtt` unless configured otherwise):

- `<base>/<friendly_name>`: the device's state as a JSON object, published on every change;
- `<base>/<friendly_name>/set` and `/get`: JSON objects of properties to write or to read;
- `<base>/<friendly_name>/availability`: `online`/`offline`, or `{"state": "offline"}` when the
  legacy payload is off (retained);
- `<base>/bridge/devices` (retained): every device with its `definition.exposes`;
- `<base>/bridge/state`: the bridge itself online/offline; `<base>/bridge/logging`: its log,
  where a failed command shows up as `Publish 'set' 'state' to 'NAME' failed: ...`.

Decisions the protocol leaves open:

- **Which device is which.** A home device is found by its id: first in `names` (id → friendly
  name), then among the ids `jiayu home from-z2m` gives (`z2m_<ieee>[_<endpoint>]`, learned from the
  retained `bridge/devices`, so renaming a device in zigbee2mqtt does not break the home), and
  otherwise the id itself is taken as the friendly name.
- **Which properties.** `bridge/devices` says which properties a device has (`state` or
  `fan_state`, `occupied_heating_setpoint` or `current_heating_setpoint`, `state_l1` on a
  two-gang switch ...). A device zigbee2mqtt has not described falls back to the usual names
  (`state`, `brightness` 0–254, `color_temp`, `position`, `tilt`, `occupied_heating_setpoint`,
  `system_mode`, `fan_mode`) for the capabilities the home gives it.
- **How our commands map.** `state` ON/OFF (`fan_state` on a fan, `state_<endpoint>` on one
  endpoint of several); `brightness` 0–254 (the expose's value_max) ↔ our 0–100; `color_temp`
  in mired ↔ our kelvin, clamped to the expose's range; covers `state` OPEN/CLOSE/STOP,
  `position` and `tilt` (0–100, as ours; a cover that exposes tilt and no position is offered
  tilt only); oscillation is a climate expose's `swing_mode` when its values are just on and
  off, or a top-level binary `swing_mode` of a fan or climate device (zigbee2mqtt's fan expose
  has none of its own, so a device it has not described is never sent one); locks `state`
  LOCK/UNLOCK, read from `lock_state` when the lock reports it (`not_fully_locked` is not
  locked); climate `occupied_heating_setpoint` or
  `current_heating_setpoint` (whichever it has; a cooling-only device's
  `occupied_cooling_setpoint`), `system_mode` (our `fan` is its `fan_only`) and `fan_mode`.
  Presets are a fan's `fan_mode` values that are not speeds, or a climate's `preset` values
  (a radiator valve's manual, schedule, eco ...) but for off and on.
  A climate device without a power switch is turned off with `system_mode: off` and on with
  the first of auto, cool, heat, dry, fan_only it offers. zigbee2mqtt exposes a water or gas
  valve as a plain `switch`; a switch whose definition says "valve" is our `valve` (ON is open),
  so it keeps the valve's confirmation rule.
- **A send waits for its echo, and is delivered at most once.** zigbee2mqtt publishes the new
  state once the device has taken a command; a send returns only when a state message confirms
  it, fails with `refused` when the bridge logs the command as failed or the device reports a
  different value, and with `offline`, before anything is written, when the device, the bridge
  or the broker is offline — a broker that does not answer a round trip within `probe_timeout`
  (frozen, or gone unnoticed) included. A /set that was written but not confirmed within
  `send_timeout` is `unconfirmed`: it may have happened. It is written at QoS 0, so it is never
  sent again later. A reply therefore never claims what the device did not confirm.
  `send_many` publishes every /set first and then awaits all the echoes against one
  deadline, each judged as `send` judges it; `read_many` does the same with /get.
- **A fresh read** publishes `/get` for the properties the device can be asked for and returns the
  first state message after it; a device that cannot be asked (a sleeping sensor) answers with
  the last state it published, or with the next one within `read_timeout`.
"""

from __future__ import annotations

import json
import math
import re
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from jiayu.executor.hubs.base import HubError, Reads, Sends
from jiayu.home import Device, Home
from jiayu.ir import Command

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

# Access bits of an expose (zigbee2mqtt docs, "Exposes"): in the published state, settable with
# /set, readable with /get.
_PUBLISHED, _SETTABLE, _GETTABLE = 1, 2, 4

# Our hvac modes and zigbee2mqtt's `system_mode` values.
_MODES_OUT = MappingProxyType(
    {"cool": "cool", "heat": "heat", "dry": "dry", "fan": "fan_only", "auto": "auto"}
)
_MODES_IN = MappingProxyType({z: ours for ours, z in _MODES_OUT.items()})
# turn_on of a climate device without a power switch picks the first mode it has, in this order.
_ON_MODES = ("auto", "cool", "heat", "dry", "fan_only")
_FAN_SPEEDS = ("low", "medium", "high", "auto")
# A fan's modes that are not speeds (smart, sleep, nature …) are its presets (issue 20).
_POWER_WORDS = frozenset({"off", "on"})
_NOT_PRESETS = frozenset({*_POWER_WORDS, *_FAN_SPEEDS})
# Top-level numerics that set a humidifier's target humidity.
_HUMIDITY_SETPOINTS = frozenset({"target_humidity", "humidity_setting", "humidity_target"})
# Only fans and climate devices sway: a climate expose's `swing_mode` on/off, or a top-level
# binary `swing_mode` (Sinope HP6000ZB); zigbee2mqtt's fan expose itself has no oscillation.
_SWAYS = frozenset({"fan", "climate"})


@dataclass(frozen=True)
class Feature:
    """One property of a zigbee2mqtt device, as its expose describes it."""

    key: str
    """Its `property`: the key in its state, /set and /get payloads ("state", "state_l1")."""
    access: int
    """The expose's access bitmask (1 published, 2 settable, 4 readable with /get)."""
    value_on: Any = None
    """A binary's "on" value ("ON", "LOCK", "OPEN", true)."""
    value_off: Any = None
    """A binary's "off" value."""
    low: float | None = None
    """A numeric's value_min."""
    high: float | None = None
    """A numeric's value_max."""
    values: tuple[str, ...] = ()
    """An enum's values."""

    @property
    def settable(self) -> bool:
        return bool(self.access & _SETTABLE)

    @property
    def gettable(self) -> bool:
        return bool(self.access & _GETTABLE)

    @property
    def published(self) -> bool:
        return bool(self.access & (_PUBLISHED | _GETTABLE))


@dataclass(frozen=True)
class Z2mEntity:
    """One controllable thing of a zigbee2mqtt device: the device, or one of its endpoints."""

    ieee: str
    """The device's IEEE address ("0x00158d00018255df")."""
    friendly_name: str
    """Its friendly name: the middle of its topics."""
    endpoint: str | None
    """The endpoint ("l1", "left") when the device has several controllable ones."""
    kind: str
    """light, switch, valve, fan, cover, lock, climate or sensor."""
    features: Mapping[str, Feature] = field(default_factory=dict)
    """By role: switch, brightness, color_temp, color, cover, position, tilt, lock, lock_state,
    setpoint, system_mode, fan_mode, oscillation, target_humidity, temperature, humidity,
    illuminance."""
    description: str = ""
    """The definition's description ("Mi power plug ZigBee")."""

    @property
    def id(self) -> str:
        """The home device id `jiayu home from-z2m` gives this entity."""
        base = f"z2m_{self.ieee}"
        if self.endpoint is not None:
            base += "_" + self.endpoint
        return _ID_UNSAFE.sub("_", base)[:64]

    def capabilities(self) -> list[str]:
        """Our catalog capabilities for what it exposes, in catalog order."""
        f = self.features
        caps: list[str] = []

        def settable(role: str) -> bool:
            return role in f and f[role].settable

        if settable("switch"):
            caps.append("valve" if self.kind == "valve" else "onoff")
        elif settable("system_mode") and "off" in f["system_mode"].values:
            caps.append("onoff")
        if settable("brightness"):
            caps.append("brightness")
        if settable("color_temp"):
            caps.append("color_temp")
        if settable("color"):
            caps.append("color")
        if settable("setpoint"):
            caps.append("target_temperature")
        if settable("system_mode") and set(f["system_mode"].values) & set(_MODES_IN):
            caps.append("hvac_mode")
        if settable("fan_mode") and {"low", "medium", "high"} <= set(f["fan_mode"].values):
            caps.append("fan_speed")
        # A tilt-only cover (venetian blinds) cannot go to a position: it is offered tilt only.
        if settable("position") or (settable("cover") and not settable("tilt")):
            caps.append("cover")
        if settable("lock"):
            caps.append("lock")
        if settable("oscillation") and self.kind in _SWAYS:
            caps.append("oscillation")
        if self.presets():
            caps.append("preset")
        if settable("target_humidity"):
            caps.append("target_humidity")
        if settable("tilt"):
            caps.append("tilt")
        for role in ("temperature", "humidity", "illuminance"):
            if role in f and f[role].published:
                caps.append(f"{role}_sensor")
        # A valve is never also a plain switch: `valve` alone carries its risk rule.
        return [c for c in caps if not (c == "onoff" and "valve" in caps)]

    @property
    def preset_role(self) -> str:
        """The feature its presets are values of: a fan's `fan_mode`, a climate's `preset`."""
        return "preset" if self.kind == "climate" else "fan_mode"

    def presets(self) -> list[str]:
        """A fan's modes that are not speeds, or a climate device's presets (a radiator
        valve's manual, schedule, eco, boost ...) that are not its power."""
        mode = self.features.get(self.preset_role)
        if self.kind not in ("fan", "climate") or mode is None or not mode.settable:
            return []
        skip = _NOT_PRESETS if self.kind == "fan" else _POWER_WORDS
        return [v for v in mode.values if v not in skip]

    def limits(self) -> dict[str, dict[str, float]]:
        """Our limits from the exposes' value_min/value_max (colour temperature in kelvin)."""
        out: dict[str, dict[str, float]] = {}
        setpoint = self.features.get("setpoint")
        if setpoint is not None and setpoint.low is not None and setpoint.high is not None:
            out["target_temperature"] = {"min": setpoint.low, "max": setpoint.high}
        ct = self.features.get("color_temp")
        if ct is not None and ct.low is not None and ct.high is not None and ct.low > 0:
            # Mired is the reciprocal of kelvin: the warmest end is the highest mired.
            low, high = math.ceil(1e6 / ct.high), math.floor(1e6 / ct.low)
            if low <= high:
                out["color_temp"] = {"min": low, "max": high}
        position = self.features.get("position")
        if (
            position is not None
            and position.low is not None
            and position.high is not None
            and (position.low, position.high) != (0, 100)
        ):
            out["position"] = {"min": position.low, "max": position.high}
        humidity = self.features.get("target_humidity")
        if humidity is not None and humidity.low is not None and humidity.high is not None:
            out["target_humidity"] = {"min": humidity.low, "max": humidity.high}
        return out


_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")
_SPECIFIC = ("light", "switch", "fan", "cover", "lock", "climate")


def entities(device: Mapping[str, Any]) -> list[Z2mEntity]:
    """What one entry of `<base>/bridge/devices` offers us: one entity per endpoint with a
    light, switch, fan, cover, lock or climate, plus its sensors; nothing for the coordinator,
    an unsupported device or one with nothing we can control or read."""
    definition = device.get("definition")
    ieee, name = device.get("ieee_address"), device.get("friendly_name")
    if (
        device.get("type") == "Coordinator"
        or not isinstance(definition, Mapping)
        or not isinstance(ieee, str)
        or not isinstance(name, str)
        or friendly_name_error(name) is not None
    ):
        return []
    exposes = definition.get("exposes")
    description = definition.get("description")
    description = description if isinstance(description, str) else ""
    kinds: dict[str | None, str] = {}
    roles: dict[str | None, dict[str, Feature]] = {}
    for expose in exposes if isinstance(exposes, list) else ():
        if not isinstance(expose, Mapping):
            continue
        endpoint = expose.get("endpoint")
        endpoint = endpoint if isinstance(endpoint, str) and endpoint else None
        kind = expose.get("type")
        if kind in _SPECIFIC:
            found = _specific_roles(str(kind), expose.get("features"))
            if found:
                kinds.setdefault(endpoint, str(kind))
                roles.setdefault(endpoint, {}).update(found)
        elif (
            kind == "numeric"
            and expose.get("name") in _HUMIDITY_SETPOINTS
            and (feature := _feature(expose)) is not None
            and feature.settable
        ):
            roles.setdefault(endpoint, {})["target_humidity"] = feature
        elif (
            kind == "binary"
            and expose.get("name") == "swing_mode"
            and (feature := _feature(expose)) is not None
            and None not in (feature.value_on, feature.value_off)
        ):
            roles.setdefault(endpoint, {})["oscillation"] = feature
        elif (
            kind == "numeric"
            and (role := _sensor_role(expose)) is not None
            and (feature := _feature(expose)) is not None
        ):
            roles.setdefault(endpoint, {}).setdefault(role, feature)
    # Sensors said without an endpoint belong to the device's only controllable endpoint.
    if None not in kinds and None in roles and len(kinds) == 1:
        (only,) = kinds
        roles[only] = {**roles.pop(None), **roles[only]}
    out = []
    for endpoint, features in roles.items():
        kind = kinds.get(endpoint, "sensor")
        if kind == "switch" and "valve" in description.lower():
            kind = "valve"
        entity = Z2mEntity(ieee, name, endpoint, kind, MappingProxyType(features), description)
        if entity.capabilities():
            out.append(entity)
    return out


def _specific_roles(kind: str, features: object) -> dict[str, Feature]:
    found: dict[str, Feature] = {}
    for raw in features if isinstance(features, list) else ():
        if not isinstance(raw, Mapping) or (feature := _feature(raw)) is None:
            continue
        name = raw.get("name")
        match kind, name:
            case (("light" | "switch" | "fan"), "state"):
                found["switch"] = feature
            case "light", ("brightness" | "color_temp"):
                found[str(name)] = feature
            case "light", ("color_hs" | "color_xy"):
                # Both are the `color` property, and zigbee2mqtt takes hue/saturation for
                # either (it converts to x/y for a light that only has those).
                found["color"] = feature
            case "fan", "mode":
                found["fan_mode"] = feature
            case "cover", "state":
                found["cover"] = feature
            case "cover", ("position" | "tilt"):
                found[str(name)] = feature
            case "lock", "state":
                found["lock"] = feature
            case "lock", "lock_state":
                found["lock_state"] = feature
            case "climate", ("occupied_heating_setpoint" | "current_heating_setpoint"):
                found["setpoint"] = feature
            case "climate", "occupied_cooling_setpoint":
                # Only a cooling-only device is driven by its cooling set point.
                found.setdefault("cooling", feature)
            case "climate", ("system_mode" | "preset"):
                found[str(name)] = feature
            case "climate", ("fan_mode" | "mode") if raw.get("property", "").startswith("fan_mode"):
                found["fan_mode"] = feature
            case "climate", "local_temperature":
                found["temperature"] = feature
            case "climate", "swing_mode":
                # An enum; only one that is plainly on or off is an oscillation switch (not
                # "horizontal"/"vertical"/"both"), with its own spelling of the two words.
                words = {v.lower(): v for v in feature.values}
                if set(words) == {"on", "off"}:
                    found["oscillation"] = replace(
                        feature, value_on=words["on"], value_off=words["off"]
                    )
    cooling = found.pop("cooling", None)
    if cooling is not None:
        found.setdefault("setpoint", cooling)
    return found


def _sensor_role(expose: Mapping[str, Any]) -> str | None:
    name = expose.get("name")
    if name in ("temperature", "humidity"):
        return str(name)
    # Newer zigbee2mqtt says lux as `illuminance` (unit lx), older ones as `illuminance_lux`
    # next to a raw `illuminance`.
    if name == "illuminance_lux" or (name == "illuminance" and expose.get("unit") == "lx"):
        return "illuminance"
    return None


def _feature(raw: Mapping[str, Any]) -> Feature | None:
    prop, access = raw.get("property"), raw.get("access")
    if not isinstance(prop, str) or not prop or type(access) is not int:
        return None
    values = raw.get("values")
    return Feature(
        key=prop,
        access=int(access),
        value_on=raw.get("value_on"),
        value_off=raw.get("value_off"),
        low=_number(raw.get("value_min")),
        high=_number(raw.get("value_max")),
        values=tuple(v for v in values if isinstance(v, str)) if isinstance(values, list) else (),
    )


def fallback_entity(device: Device, friendly_name: str) -> Z2mEntity:
    """The usual zigbee2mqtt properties for a device zigbee2mqtt has not described to us."""
    caps, rw = device.capabilities, _PUBLISHED | _SETTABLE | _GETTABLE
    f: dict[str, Feature] = {}
    if caps & {"onoff", "valve"}:
        prop = "fan_state" if device.type == "Fan" else "state"
        f["switch"] = Feature(prop, rw, "ON", "OFF")
    if "brightness" in caps:
        f["brightness"] = Feature("brightness", rw, low=0, high=254)
    if "color_temp" in caps:
        f["color_temp"] = Feature("color_temp", rw)
    if "target_temperature" in caps:
        f["setpoint"] = Feature("occupied_heating_setpoint", rw)
    if "hvac_mode" in caps:
        f["system_mode"] = Feature("system_mode", rw, values=("off", *_MODES_IN))
    if "fan_speed" in caps:
        f["fan_mode"] = Feature("fan_mode", rw, values=_FAN_SPEEDS)
    if "color" in caps:
        f["color"] = Feature("color", rw)
    if "target_humidity" in caps:
        f["target_humidity"] = Feature("target_humidity", rw)
    if "cover" in caps:
        f["cover"] = Feature("state", rw, "OPEN", "CLOSE")
        f["position"] = Feature("position", rw, low=0, high=100)
    if "tilt" in caps:
        f["tilt"] = Feature("tilt", rw, low=0, high=100)
    if "lock" in caps:
        f["lock"] = Feature("state", rw, "LOCK", "UNLOCK")
    for role in ("temperature", "humidity", "illuminance"):
        if f"{role}_sensor" in caps:
            # Sensors mostly sleep: never asked with /get, read from what they publish.
            f[role] = Feature(role, _PUBLISHED)
    kind = "valve" if "valve" in caps else "switch"
    # No IEEE address: such a device is only ever reached by its friendly name.
    return Z2mEntity("", friendly_name, None, kind, MappingProxyType(f))


def friendly_name_error(name: str) -> str | None:
    """Why zigbee2mqtt would not accept this friendly name (its own rules); None if it would."""
    if not name:
        return "is empty"
    if name.startswith("/") or name.endswith("/"):
        return "starts or ends with /"
    if "+" in name or "#" in name:
        return "holds an MQTT wildcard (+ or #)"
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name):
        return "holds a control character"
    return None


# ---- translation between our commands and state and zigbee2mqtt's payloads -----------------


class _Refused(Exception):
    """The device cannot do this command (it lacks the property, or the value is not one of its
    values): refused before anything is published."""


@dataclass(frozen=True)
class _Set:
    """What one command publishes to /set, and how its echo is recognised."""

    payload: Mapping[str, Any]
    confirms: Callable[[Mapping[str, Any]], bool | None]
    """Given one state message: True confirms, False contradicts, None says nothing about it."""


def set_payload(entity: Z2mEntity, command: str, params: Mapping[str, Any]) -> _Set:
    """The /set payload of one of our commands; raises _Refused when the device cannot do it."""
    f = entity.features

    def need(role: str) -> Feature:
        feature = f.get(role)
        if feature is None or not feature.settable:
            raise _Refused(role)
        return feature

    def exact(feature: Feature, value: Any) -> _Set:
        prop = feature.key

        def confirms(msg: Mapping[str, Any]) -> bool | None:
            return None if prop not in msg else _same(msg[prop], value)

        return _Set({prop: value}, confirms)

    def near(feature: Feature, value: float) -> _Set:
        # A device may round what it was sent (a set point to its step); an echo far from it is
        # another command's (one sent just before, from another thread), not this one's.
        prop, slack = feature.key, max(1.0, abs(value) * 0.02)

        def confirms(msg: Mapping[str, Any]) -> bool | None:
            echoed = _number(msg.get(prop))
            return True if echoed is not None and abs(echoed - value) <= slack else None

        return _Set({prop: value}, confirms)

    def any_of(payload: Mapping[str, Any], *features: Feature | None) -> _Set:
        props = {ft.key for ft in features if ft is not None}
        return _Set(payload, lambda msg: True if props & msg.keys() else None)

    match command:
        case "turn_on" | "turn_off" | "open_valve" | "close_valve":
            on = command in ("turn_on", "open_valve")
            if "switch" in f:
                switch = need("switch")
                return exact(switch, switch.value_on if on else switch.value_off)
            mode = need("system_mode")
            if not on:
                return exact(mode, "off")
            value = next((m for m in _ON_MODES if m in mode.values), None)
            if value is None:
                raise _Refused("system_mode")
            return exact(mode, value)
        case "set_brightness":
            feature = need("brightness")
            high = feature.high or 254
            return near(feature, round(int(params["value"]) * high / 100))
        case "set_color_temp":
            feature = need("color_temp")
            mired = round(1e6 / max(1, int(params["value"])))
            if feature.low is not None:
                mired = max(mired, int(feature.low))
            if feature.high is not None:
                mired = min(mired, int(feature.high))
            return near(feature, mired)
        case "set_temperature":
            setpoint = _number(params["value"])
            if setpoint is None:
                raise _Refused("setpoint")
            return near(need("setpoint"), setpoint)
        case "set_mode":
            feature = need("system_mode")
            value = _MODES_OUT[str(params["mode"])]
            if value not in feature.values:
                raise _Refused("system_mode")
            return exact(feature, value)
        case "set_fan_speed" | "set_preset":
            speed = command == "set_fan_speed"
            feature = need("fan_mode" if speed else entity.preset_role)
            mode = params["speed" if speed else "preset"]
            if mode not in feature.values:
                raise _Refused(feature.key)
            return exact(feature, mode)
        case "set_color":
            color = need("color")
            wanted = {"hue": int(params["hue"]), "saturation": int(params["saturation"])}
            return any_of({color.key: wanted}, color)
        case "set_humidity":
            return near(need("target_humidity"), float(params["value"]))
        case "open" | "close" | "stop" | "set_position":
            # Covers report movement and position as they go: any report confirms the command.
            cover, position = f.get("cover"), f.get("position")
            # Opened and closed by its state word, else (a state it only reports) by position.
            worded = cover is not None and cover.settable
            if command == "set_position" or (command != "stop" and not worded):
                goal = {"open": 100, "close": 0}.get(command, params.get("value"))
                return any_of({need("position").key: goal}, cover, position)
            word = {"open": "OPEN", "close": "CLOSE", "stop": "STOP"}[command]
            return any_of({need("cover").key: word}, cover, position)
        case "set_tilt":
            # As a position: the cover reports its tilt as it turns, so any report confirms.
            tilt = need("tilt")
            return any_of({tilt.key: int(params["value"])}, tilt)
        case "oscillate_on" | "oscillate_off":
            feature = need("oscillation")
            return exact(
                feature, feature.value_on if command == "oscillate_on" else feature.value_off
            )
        case "lock" | "unlock":
            feature = need("lock")
            locking = command == "lock"
            wanted = feature.value_on if locking else feature.value_off
            lock_state = f.get("lock_state")

            def confirms(msg: Mapping[str, Any]) -> bool | None:
                if lock_state is not None and lock_state.key in msg:
                    reported = msg[lock_state.key]
                    if reported in ("locked", "unlocked"):
                        return (reported == "locked") is locking
                if feature.key in msg:
                    return _same(msg[feature.key], wanted)
                return None

            return _Set({feature.key: wanted}, confirms)
    raise _Refused(command)


def get_payload(entity: Z2mEntity) -> dict[str, str]:
    """The /get payload asking for every property the device answers /get for."""
    return {f.key: "" for f in entity.features.values() if f.gettable}


def our_state(
    entity: Z2mEntity, capabilities: Iterable[str], raw: Mapping[str, Any]
) -> dict[str, Any]:
    """Our state attributes from a zigbee2mqtt state object, for the device's capabilities;
    an attribute the state does not hold (or holds as nonsense) is left out."""
    caps, f = set(capabilities), entity.features
    out: dict[str, Any] = {}

    def value(role: str) -> Any:
        feature = f.get(role)
        return None if feature is None else raw.get(feature.key)

    def flag(role: str) -> bool | None:
        """A binary's state as a bool; None when it is neither its on nor its off value."""
        feature, v = f.get(role), value(role)
        if feature is None or v is None:
            return None
        if _same(v, feature.value_on) or _same(v, feature.value_off):
            return _same(v, feature.value_on)
        return None

    v: Any  # one attribute's raw value, or its number, in turn
    if caps & {"onoff", "valve"}:
        key = "open" if "valve" in caps else "on"
        if "switch" in f and (on := flag("switch")) is not None:
            out[key] = on
        elif "switch" not in f and isinstance(mode := value("system_mode"), str):
            out[key] = mode != "off"
    if "brightness" in caps and (v := _number(value("brightness"))) is not None:
        high = f["brightness"].high or 254
        out["brightness"] = max(0, min(100, round(v * 100 / high)))
    if "color_temp" in caps and (v := _number(value("color_temp"))) is not None and v > 0:
        out["color_temp"] = round(1e6 / v)
    if "target_temperature" in caps and (v := _number(value("setpoint"))) is not None:
        out["target_temperature"] = v
    if "hvac_mode" in caps and (v := value("system_mode")) in _MODES_IN:
        out["mode"] = _MODES_IN[v]
    if "fan_speed" in caps and (v := value("fan_mode")) in _FAN_SPEEDS:
        out["fan_speed"] = v
    if "preset" in caps and (v := value(entity.preset_role)) in entity.presets():
        out["preset"] = v
    if "color" in caps and isinstance(v := value("color"), Mapping):
        hue, saturation = _number(v.get("hue")), _number(v.get("saturation"))
        if hue is not None and saturation is not None:
            out["color"] = {"hue": round(hue) % 360, "saturation": round(saturation)}
    if "target_humidity" in caps and (v := _number(value("target_humidity"))) is not None:
        out["target_humidity"] = round(v)
    if "oscillation" in caps and (swaying := flag("oscillation")) is not None:
        out["oscillating"] = swaying
    if "tilt" in caps and (v := _number(value("tilt"))) is not None:
        out["tilt"] = max(0, min(100, round(v)))
    if "cover" in caps:
        if (v := _number(value("position"))) is not None:
            out["position"] = max(0, min(100, round(v)))
        elif (v := value("cover")) in ("OPEN", "CLOSE"):
            out["position"] = 100 if v == "OPEN" else 0
    if "lock" in caps:
        lock, reported = f.get("lock"), value("lock_state")
        if reported in ("locked", "unlocked", "not_fully_locked"):
            # Half-locked is not locked: a question about the door must not say it is.
            out["locked"] = reported == "locked"
        elif lock is not None and (v := value("lock")) in (lock.value_on, lock.value_off):
            out["locked"] = v == lock.value_on
    for role in ("temperature", "humidity", "illuminance"):
        if f"{role}_sensor" in caps and (v := _number(value(role))) is not None:
            out[role] = v
    return out


def _same(a: Any, b: Any) -> bool:
    # "ON" and "on" are the same state word to zigbee2mqtt.
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return bool(a == b and type(a) is type(b))


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def parse_availability(payload: bytes | bytearray) -> bool | None:
    """`online`/`offline`, plain or as `{"state": ...}`; None for anything else."""
    text = payload.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = text
    if isinstance(data, Mapping):
        data = data.get("state")
    return {"online": True, "offline": False}.get(data) if isinstance(data, str) else None


_FAILED = re.compile(r"^Publish '(?:set|get)' '.*?' to '(.+?)' failed", re.DOTALL)


# ---- the hub ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Exchange:
    """One request to one device and how its answer is recognised."""

    device_id: str
    name: str
    """The friendly name: the middle of the device's topics."""
    verb: str | None
    """"set" or "get"; None publishes nothing and waits for what the device says by itself."""
    payload: Mapping[str, Any]
    confirms: Callable[[Mapping[str, Any]], bool | None]
    """As `_Set.confirms`: True confirms, False contradicts, None says nothing about it."""


@dataclass
class _Waiting:
    """Where the wait for one exchange's answer stands."""

    start: int
    """The sequence number of the last state message already looked at."""
    refusals: int
    """The bridge's failure count for the device when the request went out."""
    contradicted: bool = False
    """Whether a state message since then said something else than was asked."""


def _paho() -> Any:
    # Imported when a hub is made, so `import jiayu` never needs the mqtt extra.
    try:
        import paho.mqtt.client as client
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise HubError("zigbee2mqtt", "paho-mqtt is missing: pip install 'jiayu[mqtt]'") from exc
    return client


class Zigbee2MqttHub:
    """A `BatchHub` for devices behind zigbee2mqtt; thread-safe, one MQTT connection.

    `home` gives each device's capabilities; `names` maps device ids to friendly names where the
    module's rules would not find them; `read_timeout`/`send_timeout` bound the wait for a state
    message after /get and /set. Connects in the constructor (HubError `offline`, `refused` or
    `timeout` when it cannot) and keeps reconnecting in paho's thread; `close()` (or `with`)
    ends it.
    """

    def __init__(
        self,
        home: Home,
        *,
        host: str = "127.0.0.1",
        port: int = 1883,
        base_topic: str = "zigbee2mqtt",
        names: Mapping[str, str] | None = None,
        username: str | None = None,
        password: str | None = None,
        client_id: str | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = 3.0,
        send_timeout: float = 3.0,
        probe_timeout: float = 0.5,
    ) -> None:
        self._devices = {d.id: d for d in home.devices}
        self._names = dict(names or {})
        for device_id, name in self._names.items():
            if (error := friendly_name_error(name)) is not None:
                raise HubError(device_id, f"friendly name {name!r} {error}")
        self._base = base_topic.rstrip("/")
        if (error := friendly_name_error(self._base)) is not None:
            raise HubError(f"mqtt://{host}:{port}", f"base topic {base_topic!r} {error}")
        self._read_timeout = read_timeout
        self._send_timeout = send_timeout
        self._probe_timeout = probe_timeout
        self._probes: dict[bytes, bool] = {}  # round trips in flight: echoed yet?
        self._cond = threading.Condition()
        self._connected = False
        self._connect_failure: str | None = None
        self._bridge_online: bool | None = None
        self._available: dict[str, bool] = {}
        self._states: dict[str, dict[str, Any]] = {}
        self._messages: dict[str, deque[tuple[int, dict[str, Any]]]] = {}
        self._seq = 0
        self._refusals: dict[str, int] = {}
        self._by_id: dict[str, Z2mEntity] = {}
        self._by_name: dict[str, list[Z2mEntity]] = {}
        self._synced = False
        self._sync_token = uuid.uuid4().hex
        self._sync_topic = f"jiayu/sync/{self._sync_token}"
        client_id = client_id or f"jiayu-{self._sync_token[:12]}"
        paho = _paho()
        self._client: mqtt.Client = paho.Client(
            paho.CallbackAPIVersion.VERSION2, client_id=client_id
        )
        self._client.connect_timeout = connect_timeout
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_socket_open = _no_delay
        self._client.reconnect_delay_set(1, 10)
        where = f"mqtt://{host}:{port}"
        try:
            self._client.connect(host, port, keepalive=15)
        except (OSError, ValueError) as exc:
            raise HubError(where, "offline") from exc
        self._client.loop_start()
        try:
            self._await_ready(where, connect_timeout)
        except HubError:
            self.close()
            raise

    def _await_ready(self, where: str, timeout: float) -> None:
        # Retained messages (availability, bridge/devices, states) are queued before anything
        # published after the subscription, so seeing our own sync message come back means
        # they have all been taken in.
        deadline = time.monotonic() + timeout
        with self._cond:
            if not self._cond.wait_for(
                lambda: self._connected or self._connect_failure is not None,
                max(0.0, deadline - time.monotonic()),
            ):
                raise HubError(where, "timeout")
            if self._connect_failure is not None:
                raise HubError(where, self._connect_failure)
        self._client.publish(self._sync_topic, self._sync_token, qos=1)
        with self._cond:
            # Best effort: a broker whose ACL forbids the sync topic only costs the wait. Nothing
            # is lost by going on: a command to a device whose `offline` was not yet taken in
            # gets no echo and fails with `timeout`, never a claimed success.
            self._cond.wait_for(lambda: self._synced, max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """Disconnect from the broker and stop paho's thread."""
        self._client.disconnect()
        self._client.loop_stop()

    def __enter__(self) -> Zigbee2MqttHub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- paho's thread --

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            with self._cond:
                # Bad credentials or a refused client id: the broker said no.
                self._connect_failure = "refused"
                self._cond.notify_all()
            return
        client.subscribe([(f"{self._base}/#", 1), (self._sync_topic, 1)])
        with self._cond:
            self._connected = True
            self._cond.notify_all()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        with self._cond:
            self._connected = False
            self._cond.notify_all()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        topic, payload = message.topic, message.payload
        with self._cond:
            if topic == self._sync_topic:
                self._synced = self._synced or payload == self._sync_token.encode()
                if bytes(payload) in self._probes:
                    self._probes[bytes(payload)] = True
            elif topic.startswith(self._base + "/"):
                self._take(topic[len(self._base) + 1 :], payload)
            self._cond.notify_all()

    def _take(self, rest: str, payload: bytes | bytearray) -> None:
        """File one message of the base topic (under the lock)."""
        if rest == "bridge/devices":
            self._learn_devices(payload)
        elif rest == "bridge/state":
            self._bridge_online = parse_availability(payload)
        elif rest == "bridge/logging":
            self._note_failure(payload)
        elif rest.startswith("bridge/"):
            return
        elif rest.endswith("/availability"):
            online = parse_availability(payload)
            if online is not None:
                self._available[rest[: -len("/availability")]] = online
        elif not re.search(r"/(?:set|get)(?:/.*)?$", rest):
            state = _json_object(payload)
            if state is not None:
                self._seq += 1
                self._states.setdefault(rest, {}).update(state)
                self._messages.setdefault(rest, deque(maxlen=64)).append((self._seq, state))

    def _learn_devices(self, payload: bytes | bytearray) -> None:
        try:
            devices = json.loads(payload)
        except (ValueError, RecursionError):
            return
        if not isinstance(devices, list):
            # Not zigbee2mqtt's list: keep what it said before rather than forget every device.
            return
        by_id: dict[str, Z2mEntity] = {}
        by_name: dict[str, list[Z2mEntity]] = {}
        for device in devices:
            if isinstance(device, Mapping):
                for entity in entities(device):
                    by_id[entity.id] = entity
                    by_name.setdefault(entity.friendly_name, []).append(entity)
        self._by_id, self._by_name = by_id, by_name

    def _note_failure(self, payload: bytes | bytearray) -> None:
        log = _json_object(payload)
        if log is None or log.get("level") != "error" or not isinstance(log.get("message"), str):
            return
        match = _FAILED.match(log["message"])
        if match is not None:
            name = match.group(1)
            self._refusals[name] = self._refusals.get(name, 0) + 1

    # -- the Hub protocol --

    def read(self, device_id: str) -> Mapping[str, Any]:
        read = self.read_many([device_id])[device_id]
        if isinstance(read, HubError):
            raise read
        return read

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        [failure] = self.send_many([Command(device_id, command, dict(params))])
        if failure is not None:
            raise failure

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        """Every /get goes out at once and the answers are awaited together (one
        `read_timeout`); a device that cannot be asked answers from its last state."""
        reads: Reads = {}
        asked: list[tuple[Device, Z2mEntity]] = []
        exchanges: list[_Exchange] = []
        for device_id in device_ids:
            try:
                device, entity = self._resolve(device_id)
            except HubError as err:
                reads[device_id] = err
                continue
            name, ask = entity.friendly_name, get_payload(entity)
            with self._cond:
                if not ask and name in self._states:
                    try:
                        self._check_usable(device_id, name)
                    except HubError as err:
                        reads[device_id] = err
                    else:
                        reads[device_id] = our_state(
                            entity, device.capabilities, self._states[name]
                        )
                    continue
            asked.append((device, entity))
            # Any state message after the request answers it; with nothing to ask (verb None),
            # the next thing the device says by itself does.
            exchanges.append(
                _Exchange(device_id, name, "get" if ask else None, ask, lambda state: True)
            )
        outcomes = self._exchange(exchanges, self._read_timeout)
        with self._cond:
            for (device, entity), failure in zip(asked, outcomes, strict=True):
                reads[device.id] = (
                    failure
                    if failure is not None
                    else our_state(entity, device.capabilities, self._states[entity.friendly_name])
                )
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        """Every /set goes out at once and the echoes are awaited together (one
        `send_timeout`); each command is confirmed by its own echo, as `send` is."""
        sends: Sends = [None] * len(commands)
        sent: list[int] = []
        exchanges: list[_Exchange] = []
        for i, c in enumerate(commands):
            try:
                _, entity = self._resolve(c.device)
                try:
                    change = set_payload(entity, c.command, c.params)
                except (_Refused, KeyError, TypeError, ValueError) as exc:
                    raise HubError(c.device, "refused") from exc
            except HubError as err:
                sends[i] = err
                continue
            sent.append(i)
            exchanges.append(
                _Exchange(c.device, entity.friendly_name, "set", change.payload, change.confirms)
            )
        for i, failure in zip(sent, self._exchange(exchanges, self._send_timeout), strict=True):
            sends[i] = failure
        return sends

    def _exchange(self, exchanges: Sequence[_Exchange], timeout: float) -> Sends:
        """Publish each exchange, then wait until one deadline for a state message that confirms
        each: one entry per exchange, None when confirmed, else HubError `refused` when the
        bridge logs the request as failed (or, at the deadline, when the device only
        contradicted it), `offline`, or `timeout`."""
        outcomes: Sends = [None] * len(exchanges)
        waiting: dict[int, _Waiting] = {}
        with self._cond:
            for i, x in enumerate(exchanges):
                try:
                    self._check_usable(x.device_id, x.name)
                except HubError as err:
                    outcomes[i] = err
                else:
                    waiting[i] = _Waiting(self._seq, self._refusals.get(x.name, 0))
        sets = [i for i in waiting if exchanges[i].verb == "set"]
        if sets and not self._broker_answers():
            for i in sets:  # nothing was written: nothing can arrive after this failure
                outcomes[i] = HubError(exchanges[i].device_id, "offline")
                del waiting[i]
        for i in list(waiting):
            x = exchanges[i]
            if x.verb is not None:
                try:
                    self._publish(x.device_id, f"{self._base}/{x.name}/{x.verb}", x.payload)
                except HubError as err:
                    outcomes[i] = err
                    del waiting[i]
        deadline = time.monotonic() + timeout
        with self._cond:
            while waiting:
                for i, w in list(waiting.items()):
                    try:
                        if not self._confirmed(exchanges[i], w):
                            continue
                    except HubError as err:
                        outcomes[i] = _unless_sent(exchanges[i], err.reason)
                    del waiting[i]
                left = deadline - time.monotonic()
                if waiting and left <= 0:
                    for i, w in waiting.items():
                        reason = "refused" if w.contradicted else "timeout"
                        outcomes[i] = _unless_sent(exchanges[i], reason)
                    break
                if waiting:
                    self._cond.wait(left)
        return outcomes

    def _confirmed(self, x: _Exchange, w: _Waiting) -> bool:
        """Whether a state message since `w.start` confirms `x` (under the lock), moving `w` past
        the messages seen; HubError `refused` when the bridge logged it as failed, `offline`
        when it can no longer reach the device."""
        for seq, state in self._messages.get(x.name, ()):
            if seq > w.start:
                verdict = x.confirms(state)
                if verdict:
                    return True
                w.contradicted = w.contradicted or verdict is False
                w.start = seq
        if self._refusals.get(x.name, 0) > w.refusals:
            raise HubError(x.device_id, "refused")
        self._check_usable(x.device_id, x.name)
        return False

    # -- helpers --

    def _resolve(self, device_id: str) -> tuple[Device, Z2mEntity]:
        device = self._devices.get(device_id)
        if device is None:
            raise HubError(device_id, "unknown device")
        with self._cond:
            name = self._names.get(device_id)
            entity = self._by_id.get(device_id) if name is None else None
            if entity is None:
                name = name or device_id
                described = self._by_name.get(name, [])
                main = [e for e in described if e.endpoint is None] or described
                entity = main[0] if len(main) == 1 else fallback_entity(device, name)
        return device, entity

    def _check_usable(self, device_id: str, name: str) -> None:
        """Fail at once (under the lock) when nothing sent now could reach the device."""
        if not self._connected or self._bridge_online is False:
            raise HubError(device_id, "offline")
        if self._available.get(name) is False:
            raise HubError(device_id, "offline")

    def _broker_answers(self) -> bool:
        """A round trip through the broker just before commands are written: a broker that is
        frozen or gone is found now, before anything is written that it could deliver once it
        is back (after the command was reported failed)."""
        token = uuid.uuid4().hex.encode()
        with self._cond:
            self._probes[token] = False
        try:
            if self._client.publish(self._sync_topic, token, qos=0).rc != 0:
                return False
            with self._cond:
                return self._cond.wait_for(lambda: self._probes[token], self._probe_timeout)
        finally:
            with self._cond:
                del self._probes[token]

    def _publish(self, device_id: str, topic: str, payload: Mapping[str, Any]) -> None:
        # A /set goes at QoS 0: paho keeps a QoS 1 message that was not acknowledged and sends
        # it again after a reconnect — a command delivered after its failure was reported.
        # At QoS 0 it is written now or never (paho drops unsent QoS 0 packets on reconnect).
        text = json.dumps(dict(payload), ensure_ascii=False)
        info = self._client.publish(topic, text, qos=0 if topic.endswith("/set") else 1)
        if info.rc != 0:
            raise HubError(device_id, "offline")


def _unless_sent(x: _Exchange, reason: str) -> HubError:
    """A failure after a /set was written: unless the bridge refused it, the device may have
    taken it all the same (`unconfirmed`, CONTRACTS §5)."""
    sent = x.verb == "set" and reason != "refused"
    return HubError(x.device_id, "unconfirmed" if sent else reason)


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    # A command and its acknowledgements are a few small packets each way; with Nagle's
    # algorithm on, each exchange waits out the peer's delayed ACK (about 40 ms).
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _json_object(payload: bytes | bytearray) -> dict[str, Any] | None:
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        # Whatever arrives on the broker must not stop paho's thread.
        return None
    return data if isinstance(data, dict) else None
