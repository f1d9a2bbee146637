"""SmartThings as a hub: our commands as SmartThings capability commands over its REST API.

Two halves, as for Home Assistant. The pure half (`st_commands`, `component_state`) is the one
table between our catalog and SmartThings' capabilities; `jiayu home from-smartthings` grants a
device our capability only when it has the SmartThings capability this table drives it with.
The I/O half, `SmartThingsHub`, speaks the REST API with the standard library alone:
`GET /v1/devices?deviceId=…&includeHealth=true&includeStatus=true` (one list answer gives each
device's health, components, capabilities and attribute values) and
`POST /v1/devices/{id}/commands`, with a personal access token as the bearer.

A device id is the SmartThings deviceId, as the importer writes homes: it means the device's
`main` component, the one the SmartThings app's tile switches. `<deviceId>:<component>` means
another component (a power strip's outlet `switch2`, a fridge's `freezer`); component ids never
hold a colon (the API's pattern is `[-_!.~'()*0-9a-zA-Z]{1,36}`).

Round trips. A read of any number of devices is one list request. A batch of commands is one
list request (health, and the capabilities each command is checked against) and then one
`commands` request per device, those concurrently: two round trips a turn, whatever its size.
A device SmartThings does not report ONLINE (OFFLINE, UNKNOWN, no health at all, or its
`healthCheck` capability saying anything but online) fails "offline" and nothing is sent to it;
a command its component has no capability for, or an air conditioner fan mode its
`supportedAcFanModes` does not list, is "refused" before anything is sent.

At most once (CONTRACTS §5): every request is made once. A command whose connection cannot
be opened fails at once ("offline"); one that was sent but whose answer never came, or came
as a server error, is "unconfirmed"; a 4xx answer (no such capability on the device, a bad
argument, a refused token) is "refused". Nothing is retried.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from jiayu.deadline import Deadline
from jiayu.errors import JiayuError
from jiayu.executor.hubs.base import HubError, Reads, Sends
from jiayu.ir import Command

API_URL = "https://api.smartthings.com"
"""SmartThings' public REST API."""
MAIN = "main"
"""The component a bare deviceId means."""

# --- the one table between our catalog and SmartThings -----------------------------------


@dataclass(frozen=True)
class StCommand:
    """One SmartThings capability command, as the commands endpoint takes it."""

    capability: str
    command: str
    arguments: tuple[Any, ...] = ()
    component: str = MAIN

    def to_json(self) -> dict[str, Any]:
        return {
            "component": self.component,
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
# airConditionerFanMode's words that are also ours; others (turbo, sleep, windFree …) are not
# read as a speed: a relative change from a guessed level could lower the fan.
_AC_FAN_MODES = frozenset({"auto", "low", "medium", "high"})
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
        "airConditionerFanMode": "fan_speed",
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


Capabilities = Mapping[str, Mapping[str, Any]]
"""One component's capabilities, each with its attributes as the API reports them
(`{"switch": {"switch": {"value": "on"}}, …}`)."""


def _attribute(capabilities: Capabilities, capability: str, attribute: str) -> Any:
    found = (capabilities.get(capability) or {}).get(attribute)
    return found.get("value") if isinstance(found, Mapping) else None


def _ac_fan_mode(
    device_id: str, params: Mapping[str, Any], capabilities: Capabilities
) -> StCommand:
    # An air conditioner's fan speeds are its own words, listed in supportedAcFanModes (Samsung's:
    # auto, low, medium, high, turbo); ours are sent as the same word only when it is listed.
    supported = _attribute(capabilities, "airConditionerFanMode", "supportedAcFanModes")
    speed = params.get("speed")
    if not isinstance(supported, list) or not isinstance(speed, str) or speed not in supported:
        raise HubError(device_id, "refused")
    return StCommand("airConditionerFanMode", "setFanMode", (speed,))


def st_commands(
    device_id: str,
    command: str,
    params: Mapping[str, Any],
    capabilities: Capabilities,
    scale: Scale = "C",
) -> StCommand:
    """The SmartThings command for one of ours on a component with these `capabilities`;
    HubError "refused" when the component lacks the capability, SmartThings has no such
    command (fan speed "auto" on fanSpeed) or the params are not ones the table carries."""
    if command == "set_fan_speed" and "airConditionerFanMode" in capabilities:
        return _ac_fan_mode(device_id, params, capabilities)
    rule = _RULES.get(command)
    if rule is not None and rule[0] in capabilities:
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


def component_state(capabilities: Capabilities) -> dict[str, Any]:
    """Our state attributes from one component's capability attributes. Attributes SmartThings
    reports as null, or in words ours have none for (an AC's "turbo"), are left out rather
    than guessed."""

    def attr(capability: str, attribute: str) -> Mapping[str, Any]:
        found = (capabilities.get(capability) or {}).get(attribute)
        return found if isinstance(found, Mapping) else {}

    def value(capability: str, attribute: str) -> Any:
        return _attribute(capabilities, capability, attribute)

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
    fan_mode = value("airConditionerFanMode", "fanMode")
    if fan_mode in _AC_FAN_MODES:
        out["fan_speed"] = fan_mode
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


MAX_ANSWER_BYTES = 32 * 2**20
"""The largest answer read (a page of 200 devices with their status is a few MB): a server
that streams without end fills no memory before the deadline ends it."""
MAX_PAGES = 100
"""Pages one listing may have (20,000 devices at SmartThings' 200 a page): a `next` link that
never ends is an error, not a turn held forever."""


class StClient:
    """SmartThings' REST API, one request per connection (thread-safe, no retries, redirects
    not followed: a token never leaves for another host). `timeout` bounds a whole call: one
    request, or every page of a listing, however slowly the server answers."""

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

    def request(
        self, method: str, path: str, body: object = None, *, deadline: Deadline | None = None
    ) -> Any:
        """The JSON answer of one request (path from the API root, e.g. "/v1/devices");
        StApiError when it fails or `deadline` (else `timeout` from now) passes first."""
        if deadline is None:
            with Deadline(self.timeout) as own:
                return self.request(method, path, body, deadline=own)
        where = f"{method} {self.base_url}{path}"
        try:
            left = deadline.left()
        except TimeoutError as exc:
            raise StApiError(None, f"{where}: {exc}", sent=False) from exc
        connection: http.client.HTTPConnection = (
            http.client.HTTPSConnection(self._host, self._port, timeout=left)
            if self._https
            else http.client.HTTPConnection(self._host, self._port, timeout=left)
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
            assert connection.sock is not None  # connected
            deadline.watch(connection.sock)
            try:
                connection.request(method, self._prefix + path, data, headers)
                response = connection.getresponse()
                raw = response.read(MAX_ANSWER_BYTES + 1)
                if deadline.expired:  # cut short at the deadline: what came is not the answer
                    raise TimeoutError
            except (OSError, http.client.HTTPException) as exc:
                if deadline.expired:
                    late = TimeoutError(f"no answer within {deadline.seconds:g} s")
                    raise StApiError(None, f"{where}: {late}", sent=True) from late
                raise StApiError(None, f"{where}: no answer: {exc!r}", sent=True) from exc
        finally:
            connection.close()
        if len(raw) > MAX_ANSWER_BYTES:
            raise StApiError(
                None, f"{where}: answered more than {MAX_ANSWER_BYTES} bytes", sent=True
            )
        if not 200 <= response.status < 300:
            text = raw[:300].decode("utf-8", "replace")
            raise StApiError(response.status, f"{where}: HTTP {response.status}: {text}", sent=True)
        try:
            return json.loads(raw) if raw else None
        except ValueError as exc:
            raise StApiError(response.status, f"{where}: not JSON", sent=True) from exc

    def pages(self, path: str, *, deadline: Deadline | None = None) -> list[dict[str, Any]]:
        """Every item of a paged list endpoint, following `_links.next` on the same host only
        (StApiError for a next page elsewhere: the token never leaves for another host), at
        most MAX_PAGES pages, none twice, all within `deadline` (else `timeout` from now)."""
        if deadline is None:
            with Deadline(self.timeout) as own:
                return self.pages(path, deadline=own)
        items: list[dict[str, Any]] = []
        base = urlsplit(self.base_url)
        seen: set[str] = set()
        first = f"GET {self.base_url}{path}"
        while len(seen) < MAX_PAGES:
            seen.add(path)
            answer = self.request("GET", path, deadline=deadline)
            if not isinstance(answer, Mapping):
                raise StApiError(200, f"GET {self.base_url}{path}: not a list answer", sent=True)
            items += [i for i in answer.get("items") or [] if isinstance(i, dict)]
            href = ((answer.get("_links") or {}).get("next") or {}).get("href")
            if not href:
                return items
            link = urlsplit(href)
            if (link.scheme, link.netloc) != (base.scheme, base.netloc):
                raise StApiError(None, f"{href}: a next page on another host", sent=False)
            path = link.path[len(base.path.rstrip("/")) :] + (
                f"?{link.query}" if link.query else ""
            )
            if path in seen:
                raise StApiError(200, f"{first}: its next page {href} was read already", sent=True)
        raise StApiError(200, f"{first}: more than {MAX_PAGES} pages", sent=True)


def device_path(device_id: str, rest: str) -> str:
    """The API path of one device's resource."""
    return f"/v1/devices/{quote(device_id, safe='')}/{rest}"


def split_id(device_id: str) -> tuple[str, str]:
    """The SmartThings deviceId and component of one of our device ids."""
    st_id, _, component = device_id.partition(":")
    return st_id, component or MAIN


@dataclass(frozen=True)
class StDevice:
    """What one list answer says of a device: whether it is online, and each component's
    capabilities with their attribute values."""

    online: bool
    components: Mapping[str, Capabilities]


def _online(item: Mapping[str, Any], main: Capabilities) -> bool:
    # Fail closed: only an explicit ONLINE is online, and a healthCheck attribute that says
    # anything but online (when it says anything) overrules it.
    health = item.get("healthState")
    if not isinstance(health, Mapping) or health.get("state") != "ONLINE":
        return False
    watch = _attribute(main, "healthCheck", "DeviceWatch-DeviceStatus")
    return watch is None or watch == "online"


def st_device(item: Mapping[str, Any]) -> StDevice:
    """A `GET /v1/devices?includeHealth=true&includeStatus=true` item, as the hub uses it."""
    components: dict[str, Capabilities] = {}
    for component in item.get("components") or []:
        if not isinstance(component, Mapping) or not isinstance(component.get("id"), str):
            continue
        capabilities: dict[str, Mapping[str, Any]] = {}
        for capability in component.get("capabilities") or []:
            if isinstance(capability, Mapping) and isinstance(capability.get("id"), str):
                status = capability.get("status")
                capabilities[capability["id"]] = status if isinstance(status, Mapping) else {}
        components[component["id"]] = capabilities
    return StDevice(_online(item, components.get(MAIN, {})), components)


def _failure(device_id: str, exc: StApiError, *, command: bool) -> HubError:
    if exc.status is not None and 400 <= exc.status < 500:
        reason = "offline" if exc.status == 404 else "refused"
    elif not exc.sent:
        # Not sent: the deadline was over before it could be, or the server is not there.
        reason = "timeout" if isinstance(exc.__cause__, TimeoutError) else "offline"
    elif command:
        reason = "unconfirmed"  # it left: it may have been done, and is never sent again
    else:
        reason = "timeout" if isinstance(exc.__cause__, TimeoutError) else "offline"
    failure = HubError(device_id, reason)
    failure.__cause__ = exc
    return failure


class SmartThingsHub:
    """A `BatchHub` on SmartThings' REST API. One list request reads every device of a turn and
    checks its health before a command is sent; a device's commands in one batch go in one
    `commands` request, in order, the devices' requests concurrently."""

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

    def snapshot(
        self, st_ids: Sequence[str], deadline: Deadline | None = None
    ) -> dict[str, StDevice]:
        """These SmartThings devices' health, components and attribute values, in one list
        request (more only when SmartThings pages the answer), within `deadline` (else the
        client's timeout from now); StApiError when it fails."""
        if deadline is None:
            with Deadline(self.client.timeout) as own:
                return self.snapshot(st_ids, own)
        if not st_ids:
            return {}  # no deviceId filter would list every device
        query = urlencode(
            [("deviceId", d) for d in dict.fromkeys(st_ids)]
            + [("includeHealth", "true"), ("includeStatus", "true")]
        )
        wanted = set(st_ids)
        items = [
            i
            for i in self.client.pages(f"/v1/devices?{query}", deadline=deadline)
            if i.get("deviceId") in wanted
        ]
        # An item without healthState (the list did not carry it) is asked for once more, on
        # the device's health endpoint; whatever that cannot say leaves the device offline.
        unsure = [i for i in items if not isinstance(i.get("healthState"), Mapping)]
        if unsure:
            with ThreadPoolExecutor(max_workers=max(1, min(self._workers, len(unsure)))) as pool:
                asked = pool.map(lambda item: self._health(item, deadline), unsure)
                for item, health in zip(unsure, asked, strict=True):
                    item["healthState"] = health
        return {str(i["deviceId"]): st_device(i) for i in items}

    def _health(self, item: Mapping[str, Any], deadline: Deadline) -> Any:
        path = device_path(str(item["deviceId"]), "health")
        try:
            return self.client.request("GET", path, deadline=deadline)
        except StApiError:
            return None

    def _component(
        self, device_id: str, devices: Mapping[str, StDevice]
    ) -> Capabilities | HubError:
        st_id, component = split_id(device_id)
        device = devices.get(st_id)
        if device is None or not device.online or component not in device.components:
            return HubError(device_id, "offline")
        return device.components[component]

    def read(self, device_id: str) -> Mapping[str, Any]:
        found: Mapping[str, Any] | HubError = self.read_many([device_id])[device_id]
        if isinstance(found, HubError):
            raise found
        return found

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        [failure] = self.send_many([Command(device_id, command, dict(params))])
        if failure is not None:
            raise failure

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        unique = list(dict.fromkeys(device_ids))
        try:
            devices = self.snapshot([split_id(d)[0] for d in unique])
        except StApiError as exc:
            return {d: _failure(d, exc, command=False) for d in unique}
        reads: Reads = {}
        for device_id in unique:
            found = self._component(device_id, devices)
            reads[device_id] = found if isinstance(found, HubError) else component_state(found)
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        # One deadline for the check and the commands: a turn waits `timeout` at most.
        with Deadline(self.client.timeout) as deadline:
            return self._send_many(commands, deadline)

    def _send_many(self, commands: Sequence[Command], deadline: Deadline) -> Sends:
        results: Sends = [None] * len(commands)
        try:
            devices = self.snapshot([split_id(c.device)[0] for c in commands], deadline)
        except StApiError as exc:
            # Nothing was sent: every command fails as its device could not be checked.
            return [_failure(c.device, exc, command=False) for c in commands]
        by_device: dict[str, list[tuple[int, StCommand]]] = {}
        for index, cmd in enumerate(commands):
            capabilities = self._component(cmd.device, devices)
            try:
                if isinstance(capabilities, HubError):
                    raise capabilities
                translated = st_commands(
                    cmd.device, cmd.command, cmd.params, capabilities, self.temperature_scale
                )
            except HubError as err:
                results[index] = err  # never sent: the others still go
                continue
            st_id, component = split_id(cmd.device)
            by_device.setdefault(st_id, []).append(
                (index, replace(translated, component=component))
            )

        def post(st_id: str) -> HubError | None:
            body = {"commands": [c.to_json() for _, c in by_device[st_id]]}
            try:
                self.client.request("POST", device_path(st_id, "commands"), body, deadline=deadline)
            except StApiError as exc:
                return _failure(st_id, exc, command=True)
            return None

        if by_device:
            st_ids = list(by_device)
            with ThreadPoolExecutor(max_workers=max(1, min(self._workers, len(st_ids)))) as pool:
                for st_id, failure in zip(st_ids, pool.map(post, st_ids), strict=True):
                    for index, _ in by_device[st_id]:
                        results[index] = (
                            None if failure is None else _renamed(failure, commands[index].device)
                        )
        return results


def _renamed(failure: HubError, device_id: str) -> HubError:
    # A failed request names the SmartThings device; each command's error names our device.
    out = HubError(device_id, failure.reason)
    out.__cause__ = failure.__cause__
    return out
