"""SmartThings as a hub: our commands as SmartThings capability commands over its REST API.

Two halves, as for Home Assistant. The pure half (`st_commands`, `device_state`) is the one
table between our catalog and SmartThings' capabilities; `jiayu home from-smartthings` grants a
device our capability only when it has the SmartThings capability this table drives it with.
The I/O half, `SmartThingsHub`, speaks the REST API with the standard library alone:
`POST /v1/devices/{id}/commands` and `GET /v1/devices/{id}/status`, with a personal access
token as the bearer.

A device id is the SmartThings deviceId, as the importer writes homes. Only the device's
`main` component is driven: it is the one the SmartThings app's tile switches.

At most once (CONTRACTS §5): every request is made once. A command whose connection cannot
be opened fails at once ("offline"); one that was sent but whose answer never came, or came
as a server error, is "unconfirmed"; a 4xx answer (no such capability on the device, a bad
argument, a refused token) is "refused". Nothing is retried.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from jiayu.errors import JiayuError
from jiayu.executor.hubs.base import HubError, Reads, Sends
from jiayu.ir import Command

API_URL = "https://api.smartthings.com"
"""SmartThings' public REST API."""
MAIN = "main"
"""The component every command goes to."""

# --- the one table between our catalog and SmartThings -----------------------------------


@dataclass(frozen=True)
class StCommand:
    """One SmartThings capability command, as the commands endpoint takes it."""

    capability: str
    command: str
    arguments: tuple[Any, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "component": MAIN,
            "capability": self.capability,
            "command": self.command,
            "arguments": list(self.arguments),
        }


Scale = Literal["C", "F"]
_Args = Callable[[Mapping[str, Any], Scale], tuple[Any, ...]]


def _no_args(_params: Mapping[str, Any], _scale: Scale) -> tuple[Any, ...]:
    return ()


def _value(params: Mapping[str, Any], _scale: Scale) -> tuple[Any, ...]:
    return (params["value"],)


def _setpoint(params: Mapping[str, Any], scale: Scale) -> tuple[Any, ...]:
    # A setpoint is taken in the location's temperature scale; ours are always °C.
    celsius = params["value"]
    return (round(celsius * 9 / 5 + 32) if scale == "F" else celsius,)


def _const(*arguments: Any) -> _Args:
    return lambda _params, _scale: arguments


def _lookup(param: str, table: Mapping[str, Any]) -> _Args:
    return lambda params, _scale: (table[params[param]],)


# Our hvac modes in airConditionerMode's words. Samsung's air conditioners, nearly every
# SmartThings AC, call fan-only "wind" (their supportedAcModes list it so).
_AC_MODES: Mapping[str, str] = MappingProxyType(
    {"cool": "cool", "heat": "heat", "dry": "dry", "fan": "wind", "auto": "auto"}
)
_AC_MODES_BACK: Mapping[str, str] = MappingProxyType(
    {"cool": "cool", "heat": "heat", "dry": "dry", "wind": "fan", "fanOnly": "fan", "auto": "auto"}
)
# fanSpeed is a level number (0 is off); SmartThings has no "auto" level, so auto is refused.
_FAN_LEVELS: Mapping[str, int] = MappingProxyType({"low": 1, "medium": 2, "high": 3})
_MACHINE_STATES: Mapping[str, str] = MappingProxyType({"run": "running", "pause": "paused"})
_CLEANER_STATES: Mapping[str, str] = MappingProxyType(
    {
        "cleaning": "cleaning",
        "point": "cleaning",
        "after": "cleaning",
        "reserve": "cleaning",
        "pause": "paused",
        "homing": "returning",
        "charging": "docked",
        "idle": "idle",
        "powerOff": "idle",
        "alarm": "error",
    }
)


def _color(params: Mapping[str, Any], _scale: Scale) -> tuple[Any, ...]:
    # colorControl's hue is a percentage of the colour wheel; ours is degrees.
    return ({"hue": round(params["hue"] / 3.6, 1), "saturation": params["saturation"]},)


_RULES: Mapping[str, tuple[str, str, _Args]] = MappingProxyType(
    {
        "turn_on": ("switch", "on", _no_args),
        "turn_off": ("switch", "off", _no_args),
        "set_brightness": ("switchLevel", "setLevel", _value),
        "set_color_temp": ("colorTemperature", "setColorTemperature", _value),
        "set_color": ("colorControl", "setColor", _color),
        "set_temperature": ("thermostatCoolingSetpoint", "setCoolingSetpoint", _setpoint),
        "set_mode": ("airConditionerMode", "setAirConditionerMode", _lookup("mode", _AC_MODES)),
        "set_fan_speed": ("fanSpeed", "setFanSpeed", _lookup("speed", _FAN_LEVELS)),
        "open": ("windowShade", "open", _no_args),
        "close": ("windowShade", "close", _no_args),
        "stop": ("windowShade", "pause", _no_args),
        "set_position": ("windowShadeLevel", "setShadeLevel", _value),
        "lock": ("lock", "lock", _no_args),
        "unlock": ("lock", "unlock", _no_args),
        "set_volume": ("audioVolume", "setVolume", _value),
        "mute": ("audioMute", "mute", _no_args),
        "unmute": ("audioMute", "unmute", _no_args),
        "play": ("mediaPlayback", "play", _no_args),
        "pause": ("mediaPlayback", "pause", _no_args),
        "next_track": ("mediaTrackControl", "nextTrack", _no_args),
        "previous_track": ("mediaTrackControl", "previousTrack", _no_args),
        "start_cycle": ("washerOperatingState", "setMachineState", _const("run")),
        "pause_cycle": ("washerOperatingState", "setMachineState", _const("pause")),
        "stop_cycle": ("washerOperatingState", "setMachineState", _const("stop")),
        "start_cleaning": ("robotCleanerMovement", "setRobotCleanerMovement", _const("cleaning")),
        "pause_cleaning": ("robotCleanerMovement", "setRobotCleanerMovement", _const("pause")),
        "return_to_base": ("robotCleanerMovement", "setRobotCleanerMovement", _const("homing")),
    }
)

CAPABILITY_MAP: Mapping[str, str] = MappingProxyType(
    {
        "switch": "onoff",
        "switchLevel": "brightness",
        "colorTemperature": "color_temp",
        "colorControl": "color",
        "thermostatCoolingSetpoint": "target_temperature",
        "airConditionerMode": "hvac_mode",
        "fanSpeed": "fan_speed",
        "windowShade": "cover",
        "lock": "lock",
        "audioVolume": "volume",
        "mediaPlayback": "media",
        "washerOperatingState": "cycle",
        "robotCleanerMovement": "vacuum",
        "relativeHumidityMeasurement": "humidity_sensor",
        "temperatureMeasurement": "temperature_sensor",
        "illuminanceMeasurement": "illuminance_sensor",
    }
)
"""The SmartThings capability that gives a device each of our capabilities. Capabilities that
only complete one of ours (windowShadeLevel, audioMute, mediaTrackControl) add commands the
server refuses on a device without them; the importer grants the capability on the main one."""


def st_commands(
    device_id: str, command: str, params: Mapping[str, Any], scale: Scale = "C"
) -> StCommand:
    """The SmartThings command for one of ours; HubError "refused" when SmartThings has none
    (fan speed "auto") or the params are not ones the table carries."""
    rule = _RULES.get(command)
    if rule is not None:
        capability, name, arguments = rule
        try:
            return StCommand(capability, name, arguments(params, scale))
        except (KeyError, TypeError):
            pass  # params the table cannot carry: refuse rather than guess
    raise HubError(device_id, "refused")


# --- SmartThings status back to our state attributes ------------------------------------


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def _whole(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else round(number)


def _celsius(reading: Mapping[str, Any]) -> float | None:
    number = _number(reading.get("value"))
    if number is None or reading.get("unit") != "F":
        return number
    return round((number - 32) * 5 / 9, 1)


def device_state(status: Mapping[str, Any]) -> dict[str, Any]:
    """Our state attributes from a `GET /v1/devices/{id}/status` answer (its main
    component). Attributes SmartThings reports as null are left out rather than guessed."""
    main = (status.get("components") or {}).get(MAIN) or {}

    def attr(capability: str, attribute: str) -> Mapping[str, Any]:
        found = (main.get(capability) or {}).get(attribute)
        return found if isinstance(found, Mapping) else {}

    def value(capability: str, attribute: str) -> Any:
        return attr(capability, attribute).get("value")

    out: dict[str, Any] = {}

    def put(name: str, found: Any) -> None:
        if found is not None:
            out[name] = found

    switch = value("switch", "switch")
    put("on", None if switch not in {"on", "off"} else switch == "on")
    put("brightness", _whole(value("switchLevel", "level")))
    put("color_temp", _whole(value("colorTemperature", "colorTemperature")))
    hue, saturation = (
        _number(value("colorControl", "hue")),
        _whole(value("colorControl", "saturation")),
    )
    if hue is not None and saturation is not None:
        out["color"] = {"hue": round(hue * 3.6) % 360, "saturation": saturation}
    put("target_temperature", _celsius(attr("thermostatCoolingSetpoint", "coolingSetpoint")))
    put("mode", _AC_MODES_BACK.get(str(value("airConditionerMode", "airConditionerMode"))))
    level = _whole(value("fanSpeed", "fanSpeed"))
    if level is not None and level > 0:
        out["fan_speed"] = "low" if level == 1 else "medium" if level == 2 else "high"
    shade_level = _whole(value("windowShadeLevel", "shadeLevel"))
    shade = value("windowShade", "windowShade")
    if shade_level is None and shade in {"open", "closed"}:
        shade_level = 100 if shade == "open" else 0
    put("position", shade_level)
    lock = value("lock", "lock")
    if isinstance(lock, str) and lock in {"locked", "unlocked", "unlocked with timeout"}:
        out["locked"] = lock == "locked"
    put("volume", _whole(value("audioVolume", "volume")))
    mute = value("audioMute", "mute")
    put("muted", None if mute not in {"muted", "unmuted"} else mute == "muted")
    playback = value("mediaPlayback", "playbackStatus")
    put("playing", None if not isinstance(playback, str) else playback == "playing")
    machine = value("washerOperatingState", "machineState")
    if isinstance(machine, str):
        out["status"] = _MACHINE_STATES.get(machine, "idle")
    cleaner = value("robotCleanerMovement", "robotCleanerMovement")
    if isinstance(cleaner, str) and cleaner in _CLEANER_STATES:
        out["status"] = _CLEANER_STATES[cleaner]
    put("temperature", _celsius(attr("temperatureMeasurement", "temperature")))
    put("humidity", _number(value("relativeHumidityMeasurement", "humidity")))
    put("illuminance", _number(value("illuminanceMeasurement", "illuminance")))
    return out


# --- the REST client --------------------------------------------------------------------


class StApiError(JiayuError):
    """SmartThings answered a request with an error status, or could not be reached."""

    def __init__(self, status: int | None, message: str, *, sent: bool) -> None:
        self.status = status
        self.sent = sent
        """Whether the request left: a command that left may have been carried out."""
        super().__init__(message)


class StClient:
    """SmartThings' REST API, one request per connection (thread-safe, no retries, redirects
    not followed: a token never leaves for another host)."""

    def __init__(self, token: str, *, base_url: str = API_URL, timeout: float = 10.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._token = token
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")

    def request(self, method: str, path: str, body: object = None) -> Any:
        """The JSON answer of one request (path from the API root, e.g. "/v1/devices");
        StApiError when it fails."""
        where = f"{method} {self.base_url}{path}"
        connection: http.client.HTTPConnection = (
            http.client.HTTPSConnection(self._host, self._port, timeout=self.timeout)
            if self._https
            else http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)
        )
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            try:
                connection.connect()
            except OSError as exc:
                raise StApiError(None, f"{where}: cannot connect: {exc}", sent=False) from exc
            try:
                connection.request(method, self._prefix + path, data, headers)
                response = connection.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as exc:
                raise StApiError(None, f"{where}: no answer: {exc!r}", sent=True) from exc
        finally:
            connection.close()
        if not 200 <= response.status < 300:
            text = raw[:300].decode("utf-8", "replace")
            raise StApiError(response.status, f"{where}: HTTP {response.status}: {text}", sent=True)
        try:
            return json.loads(raw) if raw else None
        except ValueError as exc:
            raise StApiError(response.status, f"{where}: not JSON", sent=True) from exc


def device_path(device_id: str, rest: str) -> str:
    """The API path of one device's resource."""
    return f"/v1/devices/{quote(device_id, safe='')}/{rest}"


def _failure(device_id: str, exc: StApiError, *, command: bool) -> HubError:
    if exc.status is not None and 400 <= exc.status < 500:
        reason = "offline" if exc.status == 404 else "refused"
    elif not exc.sent:
        reason = "offline"
    elif command:
        reason = "unconfirmed"  # it left: it may have been done, and is never sent again
    else:
        reason = "timeout" if isinstance(exc.__cause__, socket.timeout) else "offline"
    failure = HubError(device_id, reason)
    failure.__cause__ = exc
    return failure


class SmartThingsHub:
    """A `BatchHub` on SmartThings' REST API. Reads and sends of several devices go out
    concurrently, one request per device; a device's commands in one batch go in one request,
    in order, as the commands endpoint takes a list."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str = API_URL,
        timeout: float = 10.0,
        temperature_scale: Scale = "C",
        workers: int = 8,
    ) -> None:
        self.client = StClient(token, base_url=base_url, timeout=timeout)
        self.temperature_scale: Scale = temperature_scale
        self._workers = workers

    def read(self, device_id: str) -> Mapping[str, Any]:
        try:
            status = self.client.request("GET", device_path(device_id, "status"))
        except StApiError as exc:
            raise _failure(device_id, exc, command=False) from exc
        if not isinstance(status, Mapping):
            raise HubError(device_id, "refused")
        return device_state(status)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        [failure] = self.send_many([Command(device_id, command, dict(params))])
        if failure is not None:
            raise failure

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        def one(device_id: str) -> Mapping[str, Any] | HubError:
            try:
                return self.read(device_id)
            except HubError as err:
                return err

        unique = list(dict.fromkeys(device_ids))
        with ThreadPoolExecutor(max_workers=max(1, min(self._workers, len(unique)))) as pool:
            return dict(zip(unique, pool.map(one, unique), strict=True))

    def send_many(self, commands: Sequence[Command]) -> Sends:
        results: Sends = [None] * len(commands)
        by_device: dict[str, list[tuple[int, StCommand]]] = {}
        for index, cmd in enumerate(commands):
            try:
                translated = st_commands(
                    cmd.device, cmd.command, cmd.params, self.temperature_scale
                )
            except HubError as err:
                results[index] = err  # never sent: the others still go
                continue
            by_device.setdefault(cmd.device, []).append((index, translated))

        def post(device_id: str) -> HubError | None:
            body = {"commands": [c.to_json() for _, c in by_device[device_id]]}
            try:
                self.client.request("POST", device_path(device_id, "commands"), body)
            except StApiError as exc:
                return _failure(device_id, exc, command=True)
            return None

        if by_device:
            devices = list(by_device)
            with ThreadPoolExecutor(max_workers=max(1, min(self._workers, len(devices)))) as pool:
                for device_id, failure in zip(devices, pool.map(post, devices), strict=True):
                    for index, _ in by_device[device_id]:
                        results[index] = failure
        return results
