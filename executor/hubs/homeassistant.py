"""Home Assistant as a hub: our commands as HA service calls, HA states as our state.

Two halves. The pure half (`service_call`, `device_state`) is the one table between our
catalog and HA's services and states; the WebSocket hub below and the conversation agent in
`integrations/homeassistant/` both use it, so they cannot drift apart. The I/O half,
`HomeAssistantHub`, speaks HA's WebSocket API (auth, `call_service` with a target,
`get_states`, `subscribe_events` for `state_changed`) through the `websockets` package's
sync client (extra `jiayu[homeassistant]`).

A device id is the HA entity_id (`light.living_room`): `jiayu home from-ha` writes homes that
way, so no mapping table can go stale.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_all
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from jiayu.deadline import Deadline
from jiayu.errors import JiayuError
from jiayu.executor.hubs.base import HubError, Reads, Sends
from jiayu.ir import Command

if TYPE_CHECKING:
    from websockets.sync.client import ClientConnection

# --- the one table between our catalog and HA ------------------------------------------


@dataclass(frozen=True)
class ServiceCall:
    """One HA service call that carries out one of our commands on one entity."""

    domain: str
    """The service's domain, always the entity's own: a service of another domain would
    skip the entity and still report success."""
    service: str
    """The service ("turn_on", "set_cover_position")."""
    data: Mapping[str, Any]
    """The service data, without the target."""


_Data = Callable[[Mapping[str, Any]], dict[str, Any]]


def _none(_params: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _key(name: str, divisor: int = 1) -> _Data:
    def data(params: Mapping[str, Any]) -> dict[str, Any]:
        value = params["value"]
        return {name: value / divisor if divisor != 1 else value}

    return data


def _fixed(**data: Any) -> _Data:
    return lambda _params: dict(data)


# Entity domains that have HA's generic turn_on/turn_off services.
_ONOFF = frozenset(
    {
        "light",
        "switch",
        "fan",
        "climate",
        "media_player",
        "humidifier",
        "input_boolean",
        "water_heater",
    }
)
_HVAC_MODES: Mapping[str, str] = MappingProxyType(
    {"cool": "cool", "heat": "heat", "dry": "dry", "fan": "fan_only", "auto": "auto"}
)
# A fan's levels as HA percentages; the low/medium/high cut points of CONTRACTS §1.
_FAN_PERCENT: Mapping[str, int] = MappingProxyType({"low": 33, "medium": 66, "high": 100})


def _hvac_mode(params: Mapping[str, Any]) -> dict[str, Any]:
    return {"hvac_mode": _HVAC_MODES[params["mode"]]}


def _fan_percentage(params: Mapping[str, Any]) -> dict[str, Any]:
    return {"percentage": _FAN_PERCENT[params["speed"]]}


def _hs_color(params: Mapping[str, Any]) -> dict[str, Any]:
    return {"hs_color": [params["hue"], params["saturation"]]}


_Rule = tuple[frozenset[str], str, _Data]

_RULES: Mapping[str, tuple[_Rule, ...]] = MappingProxyType(
    {
        "turn_on": ((_ONOFF, "turn_on", _none),),
        "turn_off": ((_ONOFF, "turn_off", _none),),
        "set_brightness": ((frozenset({"light"}), "turn_on", _key("brightness_pct")),),
        "set_color_temp": ((frozenset({"light"}), "turn_on", _key("color_temp_kelvin")),),
        "set_temperature": (
            (frozenset({"climate", "water_heater"}), "set_temperature", _key("temperature")),
        ),
        "set_mode": ((frozenset({"climate"}), "set_hvac_mode", _hvac_mode),),
        "set_fan_speed": (
            (frozenset({"climate"}), "set_fan_mode", lambda p: {"fan_mode": p["speed"]}),
            (frozenset({"fan"}), "set_percentage", _fan_percentage),
        ),
        "open": ((frozenset({"cover"}), "open_cover", _none),),
        "close": ((frozenset({"cover"}), "close_cover", _none),),
        "stop": ((frozenset({"cover"}), "stop_cover", _none),),
        "set_position": ((frozenset({"cover"}), "set_cover_position", _key("position")),),
        "lock": ((frozenset({"lock"}), "lock", _none),),
        "unlock": ((frozenset({"lock"}), "unlock", _none),),
        "open_valve": ((frozenset({"valve"}), "open_valve", _none),),
        "close_valve": ((frozenset({"valve"}), "close_valve", _none),),
        "set_volume": ((frozenset({"media_player"}), "volume_set", _key("volume_level", 100)),),
        "mute": ((frozenset({"media_player"}), "volume_mute", _fixed(is_volume_muted=True)),),
        "unmute": ((frozenset({"media_player"}), "volume_mute", _fixed(is_volume_muted=False)),),
        "play": ((frozenset({"media_player"}), "media_play", _none),),
        "pause": ((frozenset({"media_player"}), "media_pause", _none),),
        "next_track": ((frozenset({"media_player"}), "media_next_track", _none),),
        "previous_track": ((frozenset({"media_player"}), "media_previous_track", _none),),
        # Capabilities of revision 3 (issue 20).
        "set_color": ((frozenset({"light"}), "turn_on", _hs_color),),
        "oscillate_on": ((frozenset({"fan"}), "oscillate", _fixed(oscillating=True)),),
        "oscillate_off": ((frozenset({"fan"}), "oscillate", _fixed(oscillating=False)),),
        "set_preset": (
            (
                frozenset({"fan", "climate"}),
                "set_preset_mode",
                lambda p: {"preset_mode": p["preset"]},
            ),
            (frozenset({"humidifier"}), "set_mode", lambda p: {"mode": p["preset"]}),
        ),
        "set_humidity": ((frozenset({"humidifier"}), "set_humidity", _key("humidity")),),
        "set_tilt": ((frozenset({"cover"}), "set_cover_tilt_position", _key("tilt_position")),),
        "start_cleaning": ((frozenset({"vacuum"}), "start", _none),),
        "pause_cleaning": ((frozenset({"vacuum"}), "pause", _none),),
        "return_to_base": ((frozenset({"vacuum"}), "return_to_base", _none),),
    }
)


# ClimateEntityFeature: a thermostat that takes one target, or a low/high range.
_TARGET_TEMPERATURE, _TARGET_TEMPERATURE_RANGE = 1, 2


def _takes_range_only(attributes: Mapping[str, Any]) -> bool:
    """Whether a climate entity takes only `target_temp_low/high` (HA refuses `temperature`)."""
    features = attributes.get("supported_features")
    features = features if isinstance(features, int) else 0
    return bool(features & _TARGET_TEMPERATURE_RANGE) and not features & _TARGET_TEMPERATURE


def _range_around(value: float, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """A range thermostat's target as the range centred on it, as wide as the one it has
    (2 degrees when it has none), kept inside its min_temp/max_temp."""
    low, high = (
        _number(attributes.get("target_temp_low")),
        _number(attributes.get("target_temp_high")),
    )
    half = (high - low) / 2 if low is not None and high is not None and high > low else 1.0
    bottom, top = _number(attributes.get("min_temp")), _number(attributes.get("max_temp"))
    new_low, new_high = value - half, value + half
    if bottom is not None:
        new_low = max(new_low, bottom)
    if top is not None:
        new_high = min(new_high, top)
    return {"target_temp_low": new_low, "target_temp_high": new_high}


def service_call(
    entity_id: str,
    command: str,
    params: Mapping[str, Any],
    attributes: Mapping[str, Any] | None = None,
) -> ServiceCall:
    """The HA service call for one of our commands on one entity; HubError "refused" when
    HA has no service that does it for that entity's domain (fan speed "auto" on a fan).
    `attributes`, the entity's HA attributes when known, choose between service forms (a
    thermostat that takes only a range is given one around the temperature asked)."""
    domain = entity_id.partition(".")[0]
    if (
        command == "set_temperature"
        and domain == "climate"
        and _takes_range_only(attributes or {})
        and _number(params.get("value")) is not None
    ):
        around = _range_around(float(params["value"]), attributes or {})
        return ServiceCall(domain, "set_temperature", MappingProxyType(around))
    for domains, service, data in _RULES.get(command, ()):
        if domain in domains:
            try:
                return ServiceCall(domain, service, MappingProxyType(data(params)))
            except (KeyError, TypeError):
                break  # params the table cannot carry: refuse rather than guess
    raise HubError(entity_id, "refused")


# --- HA states back to our state attributes -------------------------------------------

UNAVAILABLE = "unavailable"
_UNKNOWN = "unknown"
_SENSOR_CLASSES: Mapping[str, str] = MappingProxyType(
    {"temperature": "temperature", "humidity": "humidity", "illuminance": "illuminance"}
)
_HVAC_BACK: Mapping[str, str] = MappingProxyType(
    {
        "cool": "cool",
        "heat": "heat",
        "dry": "dry",
        "fan_only": "fan",
        "auto": "auto",
        "heat_cool": "auto",
    }
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return None
    return float(value) if value == value and abs(value) != float("inf") else None


def _percent(value: Any, full: float) -> int | None:
    number = _number(value)
    return None if number is None else round(number * 100 / full)


# A vacuum's states are ours word for word (CONTRACTS §1's vacuum status).
_VACUUM_STATES = frozenset({"cleaning", "paused", "returning", "docked", "idle", "error"})


def _hs(value: Any) -> dict[str, int] | None:
    """HA's hs_color [hue, saturation] as our color {hue, saturation}, or None."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    hue, saturation = (_number(v) for v in value)
    if hue is None or saturation is None:
        return None
    return {"hue": round(hue) % 360, "saturation": round(saturation)}


def fan_level(percentage: Any) -> str | None:
    """A fan percentage as our level: 1–33 low, 34–66 medium, 67–100 high (CONTRACTS §1)."""
    number = _number(percentage)
    if number is None or number <= 0:
        return None
    return "low" if number <= 33 else "medium" if number <= 66 else "high"


def device_state(entity_id: str, state: str, attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Our state attributes for an HA entity's state; HubError "offline" when HA says the
    entity is unavailable. Attributes HA does not report (a light's brightness while it is
    off) are left out rather than guessed."""
    if state == UNAVAILABLE:
        raise HubError(entity_id, "offline")
    domain = entity_id.partition(".")[0]
    known = state != _UNKNOWN
    out: dict[str, Any] = {}

    def put(name: str, value: Any) -> None:
        if value is not None:
            out[name] = value

    if domain in {"light", "switch", "fan", "humidifier", "input_boolean"} and known:
        out["on"] = state == "on"
    if domain == "light":
        put("brightness", _percent(attributes.get("brightness"), 255))
        kelvin = _number(attributes.get("color_temp_kelvin"))
        put("color_temp", None if kelvin is None else round(kelvin))
        put("color", _hs(attributes.get("hs_color")))
    elif domain == "fan":
        preset = attributes.get("preset_mode")
        put("fan_speed", "auto" if preset == "auto" else fan_level(attributes.get("percentage")))
        put("preset", preset if isinstance(preset, str) else None)
        oscillating = attributes.get("oscillating")
        put("oscillating", oscillating if isinstance(oscillating, bool) else None)
    elif domain == "humidifier":
        target = _number(attributes.get("humidity"))
        put("target_humidity", None if target is None else round(target))
        put("humidity", _number(attributes.get("current_humidity")))
        mode = attributes.get("mode")
        put("preset", mode if isinstance(mode, str) else None)
    elif domain == "vacuum" and state in _VACUUM_STATES:
        out["status"] = state
    elif domain == "climate":
        if known:
            out["on"] = state != "off"
            put("mode", _HVAC_BACK.get(state))
        target = _number(attributes.get("temperature"))
        low, high = (
            _number(attributes.get("target_temp_low")),
            _number(attributes.get("target_temp_high")),
        )
        if target is None and low is not None and high is not None:
            target = (low + high) / 2  # a range thermostat aims at its range's middle
        put("target_temperature", target)
        fan_mode = attributes.get("fan_mode")
        put("fan_speed", fan_mode if fan_mode in _FAN_PERCENT or fan_mode == "auto" else None)
        put("temperature", _number(attributes.get("current_temperature")))
        put("humidity", _number(attributes.get("current_humidity")))
    elif domain == "water_heater":
        put("target_temperature", _number(attributes.get("temperature")))
        put("temperature", _number(attributes.get("current_temperature")))
    elif domain == "cover":
        position = _number(attributes.get("current_position"))
        if position is None and state in {"open", "closed"}:
            position = 100 if state == "open" else 0
        put("position", None if position is None else round(position))
        tilt = _number(attributes.get("current_tilt_position"))
        put("tilt", None if tilt is None else round(tilt))
    elif domain == "lock" and state in {"locked", "unlocked", "open"}:
        out["locked"] = state == "locked"
    elif domain == "valve" and state in {"open", "closed"}:
        out["open"] = state == "open"
    elif domain == "media_player":
        if known:
            out["on"] = state not in {"off", "standby"}
            out["playing"] = state == "playing"
        put("volume", _percent(attributes.get("volume_level"), 1))
        muted = attributes.get("is_volume_muted")
        put("muted", muted if isinstance(muted, bool) else None)
    elif domain == "sensor" and known:
        attribute = _SENSOR_CLASSES.get(str(attributes.get("device_class")))
        if attribute is not None:
            put(attribute, _number(state))
    return out


# --- the WebSocket hub -----------------------------------------------------------------


class HaConnectionError(JiayuError):
    """Home Assistant could not be reached, refused the access token, or the connection died."""


class HaCommandError(JiayuError):
    """Home Assistant answered a command with success false."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{code}: {message}")


_Role = Literal["call", "subscribe", "snapshot"]


def _failure(device_id: str, exc: BaseException) -> HubError:
    """The HubError for a command or read that failed with one of the connection's errors."""
    reason = (
        "refused"
        if isinstance(exc, HaCommandError)
        else "timeout"
        if isinstance(exc, TimeoutError)
        else "offline"
    )
    failure = HubError(device_id, reason)
    failure.__cause__ = exc  # as `raise ... from exc` would: the log shows what HA said
    return failure


def _left(device_id: str, exc: BaseException) -> HubError:
    """A call that was written but not answered with success: `refused` when HA said no,
    else `unconfirmed` (no answer in time, or the connection lost after it left: HA may
    have run it)."""
    failure = _failure(device_id, exc)
    if failure.reason != "refused":
        failure = HubError(device_id, "unconfirmed")
        failure.__cause__ = exc
    return failure


def _known_state(device_id: str, found: tuple[str, dict[str, Any]] | None) -> dict[str, Any]:
    """Our state for a cached HA state; HubError when HA has no such entity or it is
    unavailable."""
    if found is None:
        raise HubError(device_id, "unknown device")
    return device_state(device_id, *found)


class HomeAssistantHub:
    """A `BatchHub` on Home Assistant's WebSocket API; thread-safe.

    It connects on first use (or `connect()`), subscribes to `state_changed` and keeps every
    entity's latest state from those events, so a read is as fresh as HA's own state machine
    without a round trip. A lost connection is re-opened on the next read or send; while it
    cannot be, every device is offline."""

    def __init__(
        self, url: str, token: str, *, timeout: float = 5.0, probe_timeout: float = 0.5
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.probe_timeout = probe_timeout
        """How long a ping may take before commands are written (a frozen HA fails at once)."""
        self._token = token
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, Future[Any]] = {}
        self._states: dict[str, tuple[str, dict[str, Any]]] = {}
        self._subscription: int | None = None
        self._snapshot: int | None = None
        self._live = False  # connected, subscribed and holding a snapshot
        self._lock = threading.Lock()  # guards the fields above
        self._sending = threading.Lock()  # one message on the socket at a time
        self._connecting = threading.Lock()  # one connection attempt at a time

    # The Hub protocol.

    def read(self, device_id: str) -> Mapping[str, Any]:
        try:
            self._ensure()
        except HaConnectionError as exc:
            raise _failure(device_id, exc) from exc
        with self._lock:
            found = self._states.get(device_id)
        return _known_state(device_id, found)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        [failure] = self.send_many([Command(device_id, command, dict(params))])
        if failure is not None:
            raise failure

    def read_many(self, device_ids: Sequence[str], deadline: Deadline | None = None) -> Reads:
        # From the cache the state_changed subscription keeps, as `read` is: no round trip at
        # all, where a get_states would cost one and carry every entity of the home.
        try:
            self._ensure(deadline)
        except HaConnectionError as exc:
            return {device_id: _failure(device_id, exc) for device_id in device_ids}
        with self._lock:
            found = {device_id: self._states.get(device_id) for device_id in device_ids}
        reads: Reads = {}
        for device_id, cached in found.items():
            try:
                reads[device_id] = _known_state(device_id, cached)
            except HubError as err:
                reads[device_id] = err
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        """Commands with the same service call and data go out as one `call_service` on all
        their entities; the calls go out together and are awaited together (one timeout), so
        a whole-home turn costs one round trip. HA fails a call as a whole, so a failed call
        fails each of its commands."""
        sends: Sends = [None] * len(commands)
        # One deadline for (re)connecting and the calls: a turn waits `timeout` at most.
        deadline = Deadline(self.timeout)
        # An unavailable entity is offline: nothing is sent to it.
        reads = self.read_many([c.device for c in commands], deadline)
        with self._lock:
            attributes = {c.device: self._states.get(c.device, ("", {}))[1] for c in commands}
        groups: dict[tuple[str, str, str], tuple[ServiceCall, list[int]]] = {}
        for i, c in enumerate(commands):
            try:
                call = service_call(c.device, c.command, c.params, attributes[c.device])
            except HubError as err:
                sends[i] = err
                continue
            read = reads[c.device]
            if isinstance(read, HubError):
                sends[i] = read
                continue
            # The data as it goes on the wire: equal text is the same call.
            key = (call.domain, call.service, json.dumps(dict(call.data), sort_keys=True))
            groups.setdefault(key, (call, []))[1].append(i)
        calls: list[tuple[list[int], Future[Any]]] = []
        if groups and not self._server_answers():
            # Frozen or gone: nothing is written that it could run once it is back, after the
            # failure was reported (CONTRACTS §5).
            for _, members in groups.values():
                for i in members:
                    sends[i] = HubError(commands[i].device, "offline")
            groups.clear()
        for call, members in groups.values():
            entity_ids = [commands[i].device for i in members]
            message = {
                "type": "call_service",
                "domain": call.domain,
                "service": call.service,
                "service_data": dict(call.data),
                # One entity as a plain id, the form a single send has always had on the wire.
                "target": {"entity_id": entity_ids[0] if len(entity_ids) == 1 else entity_ids},
            }
            try:
                calls.append((members, self._submit(message, "call")))
            except HaConnectionError as exc:
                # It could not leave: failed at once, never queued (CONTRACTS §5).
                for i in members:
                    sends[i] = _failure(commands[i].device, exc)
        wait_all([future for _, future in calls], deadline.remaining())
        for members, future in calls:
            error = future.exception() if future.done() else self._no_answer()
            if error is not None:
                for i in members:
                    sends[i] = _left(commands[i].device, error)
        return sends

    def _server_answers(self) -> bool:
        """A WebSocket ping answered within `probe_timeout`: HA is there to take a call now."""
        with self._lock:
            ws = self._ws
        if ws is None:
            return False
        try:
            with self._sending:
                pong = ws.ping()
        except Exception:  # the socket's own errors vary by failure
            return False
        return pong.wait(self.probe_timeout)

    # The connection.

    def connect(self, deadline: Deadline | None = None) -> None:
        """Open the connection now (else the first read or send does), within `deadline` (else
        the timeout from now); HaConnectionError when HA cannot be reached in time or refuses
        the token."""
        with self._connecting:
            if self._live:
                return
            # One deadline for opening, authenticating, subscribing and the snapshot: a server
            # that answers each step just in time still cannot hold a turn for five timeouts.
            deadline = deadline or Deadline(self.timeout)
            ws = self._open(deadline)
            with self._lock:
                self._ws = ws
            threading.Thread(
                target=self._listen, args=(ws,), name="jiayu-ha-reader", daemon=True
            ).start()
            try:
                # Subscribe before the snapshot, so no change falls between the two.
                self._wait(
                    self._submit(
                        {"type": "subscribe_events", "event_type": "state_changed"}, "subscribe"
                    ),
                    deadline.left(),
                )
                self._wait(self._submit({"type": "get_states"}, "snapshot"), deadline.left())
            except (TimeoutError, HaCommandError) as exc:
                self._drop(ws)
                ws.close()
                raise HaConnectionError(f"{self.url}: no answer to the first commands") from exc
            with self._lock:
                # Only now may reads trust the cache; until then they wait on _connecting.
                self._live = self._ws is ws

    def close(self) -> None:
        """Close the connection; a later read or send opens a new one."""
        with self._lock:
            ws = self._ws
        if ws is not None:
            self._drop(ws)
            ws.close()

    def __enter__(self) -> HomeAssistantHub:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def command(self, message: Mapping[str, Any], *, deadline: Deadline | None = None) -> Any:
        """Send one command (a message without its id) and return its `result`, within the
        timeout or what is left of `deadline` (a caller's several commands as one call);
        raises TimeoutError, HaConnectionError, or HaCommandError when HA answers success
        false."""
        self._ensure()
        return self._wait(
            self._submit(message, "call"), None if deadline is None else deadline.left()
        )

    def _wait(self, future: Future[Any], timeout: float | None = None) -> Any:
        try:
            return future.result(self.timeout if timeout is None else timeout)
        except FutureTimeout as exc:
            raise self._no_answer() from exc

    def _no_answer(self) -> TimeoutError:
        return TimeoutError(f"no answer from {self.url} in {self.timeout}s")

    def _submit(self, message: Mapping[str, Any], role: _Role) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            ws = self._ws
            if ws is None:
                raise HaConnectionError(f"{self.url}: not connected")
            number = next(self._ids)
            self._waiting[number] = future
            # Set before sending: the answer and the first events may come at once.
            if role == "subscribe":
                self._subscription = number
            elif role == "snapshot":
                self._snapshot = number
        # Sent outside _lock: a send blocked on a full socket must not stall the reader thread,
        # which needs _lock to deliver answers.
        try:
            with self._sending:
                ws.send(json.dumps({**message, "id": number}))
        except Exception as exc:  # the socket's own errors vary by failure
            with self._lock:
                self._waiting.pop(number, None)
            raise HaConnectionError(f"{self.url}: {exc}") from exc
        return future

    def _ensure(self, deadline: Deadline | None = None) -> None:
        if not self._live:
            self.connect(deadline)

    def _open(self, deadline: Deadline) -> ClientConnection:
        try:
            from websockets.exceptions import WebSocketException
            from websockets.sync.client import connect
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise HaConnectionError("Home Assistant needs the extra jiayu[homeassistant]") from exc
        try:
            # HA's get_states answer grows with the home: far past websockets' 1 MiB default.
            ws = connect(self.url, open_timeout=deadline.left(), max_size=64 * 2**20)
            # Entered as a context (websockets 17 warns otherwise), though it outlives this
            # call: close() and the reader thread end it.
            ws.__enter__()
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise HaConnectionError(f"{self.url}: cannot connect: {exc}") from exc
        try:
            hello = json.loads(ws.recv(deadline.left()))
            if not isinstance(hello, dict) or hello.get("type") != "auth_required":
                raise HaConnectionError(f"{self.url}: not Home Assistant's WebSocket API")
            ws.send(json.dumps({"type": "auth", "access_token": self._token}))
            answer = json.loads(ws.recv(deadline.left()))
        except (OSError, TimeoutError, WebSocketException, ValueError) as exc:
            ws.close()
            raise HaConnectionError(f"{self.url}: authentication failed: {exc}") from exc
        except HaConnectionError:
            ws.close()
            raise
        if not isinstance(answer, dict) or answer.get("type") != "auth_ok":
            ws.close()
            reason = answer.get("message", "") if isinstance(answer, dict) else ""
            raise HaConnectionError(f"{self.url}: access token refused (auth_invalid) {reason}")
        return ws

    def _listen(self, ws: ClientConnection) -> None:
        """The reader thread: answers to their waiting callers, state events into the cache."""
        try:
            for raw in ws:
                message = json.loads(raw)
                if isinstance(message, dict):
                    self._dispatch(message)
        except Exception:  # whatever ended the socket, the waiting callers learn it below
            pass
        self._drop(ws)

    def _dispatch(self, message: Mapping[str, Any]) -> None:
        number = message.get("id")
        if message.get("type") == "event":
            event = message.get("event")
            data = event.get("data") if isinstance(event, dict) else None
            with self._lock:
                if number == self._subscription and isinstance(data, dict):
                    new_state = data.get("new_state")
                    if new_state is None:
                        self._states.pop(str(data.get("entity_id")), None)
                    else:
                        self._remember(new_state)
            return
        if message.get("type") != "result" or not isinstance(number, int):
            return
        with self._lock:
            future = self._waiting.pop(number, None)
            if number == self._snapshot and message.get("success"):
                # Stored here, in message order, so no later event is overwritten by it.
                result = message.get("result")
                for item in result if isinstance(result, list) else ():
                    self._remember(item)
        if future is None:
            return  # its caller already timed out
        if message.get("success"):
            future.set_result(message.get("result"))
        else:
            error = message.get("error")
            error = error if isinstance(error, dict) else {}
            future.set_exception(
                HaCommandError(str(error.get("code", "unknown")), str(error.get("message", "")))
            )

    def _remember(self, item: Any) -> None:
        if not isinstance(item, dict):
            return
        entity_id, state = item.get("entity_id"), item.get("state")
        attributes = item.get("attributes")
        if isinstance(entity_id, str) and isinstance(state, str):
            self._states[entity_id] = (state, attributes if isinstance(attributes, dict) else {})

    def _drop(self, ws: ClientConnection) -> None:
        """Forget a dead connection and fail everyone still waiting on it."""
        with self._lock:
            if self._ws is not ws:
                return
            self._ws = None
            self._live = False
            self._subscription = self._snapshot = None
            self._states.clear()
            waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            future.set_exception(HaConnectionError(f"{self.url}: connection lost"))
