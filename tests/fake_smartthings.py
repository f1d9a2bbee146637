"""A loopback SmartThings REST API that checks what the real one checks.

It serves `GET /v1/devices` (paged by `_links.next`; filtered by repeated `deviceId`; with
`includeHealth=true` each item carries `healthState: {"state", "lastUpdatedDate"}`, with
`includeStatus=true` each capability of each component carries its `status`, the attributes
as the status endpoint gives them), `GET /v1/locations`, `GET /v1/locations/{id}/rooms`,
`GET /v1/devices/{id}/status`, `GET /v1/devices/{id}/health` (`{"deviceId", "state",
"lastUpdatedDate"}`, state ONLINE, OFFLINE or UNKNOWN, as `health` says) and
`POST /v1/devices/{id}/commands` on 127.0.0.1, and refuses as SmartThings does: 401 without
the bearer token, 404 for an unknown device, 422 (ConstraintViolationError) for a command body
of the wrong shape, a component or capability the device does not have, a command the
capability does not define, or arguments outside the capability's schema. An accepted command
changes the device's status as the device would, so a test reads back what it did.

`hang` makes a device's requests wait past any client timeout; `down` makes them answer 500.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode

# Each capability command: a check of its arguments, and the attributes it sets on the
# device ("attribute": value, or a callable of the arguments).
_Check = Callable[[list[Any]], bool]
_Sets = Mapping[str, Callable[[list[Any]], Any]]


def _ints(low: float, high: float, count: int = 1) -> _Check:
    def check(args: list[Any]) -> bool:
        return len(args) >= count and all(
            isinstance(a, int | float) and not isinstance(a, bool) and low <= a <= high
            for a in args[:count]
        )

    return check


def _none(args: list[Any]) -> bool:
    return not args


def _enum(*choices: str) -> _Check:
    return lambda args: len(args) == 1 and args[0] in choices


def _color(args: list[Any]) -> bool:
    if len(args) != 1 or not isinstance(args[0], dict):
        return False
    return all(
        isinstance(args[0].get(k), int | float) and 0 <= args[0][k] <= 100
        for k in ("hue", "saturation")
    )


def _set(capability: str, attribute: str, value: Callable[[list[Any]], Any]) -> _Sets:
    return {f"{capability}.{attribute}": value}


def _const(value: Any) -> Callable[[list[Any]], Any]:
    return lambda _args: value


def _first(args: list[Any]) -> Any:
    return args[0]


COMMANDS: Mapping[str, Mapping[str, tuple[_Check, _Sets]]] = {
    "switch": {
        "on": (_none, _set("switch", "switch", _const("on"))),
        "off": (_none, _set("switch", "switch", _const("off"))),
    },
    "switchLevel": {"setLevel": (_ints(0, 100), _set("switchLevel", "level", _first))},
    "colorTemperature": {
        "setColorTemperature": (
            _ints(1, 30000),
            _set("colorTemperature", "colorTemperature", _first),
        )
    },
    "colorControl": {
        "setColor": (
            _color,
            {
                "colorControl.hue": lambda a: a[0]["hue"],
                "colorControl.saturation": lambda a: a[0]["saturation"],
            },
        ),
        "setHue": (_ints(0, 100), _set("colorControl", "hue", _first)),
        "setSaturation": (_ints(0, 100), _set("colorControl", "saturation", _first)),
    },
    "thermostatCoolingSetpoint": {
        "setCoolingSetpoint": (
            _ints(-460, 10000),
            _set("thermostatCoolingSetpoint", "coolingSetpoint", _first),
        )
    },
    "airConditionerMode": {
        "setAirConditionerMode": (
            _enum("cool", "heat", "dry", "wind", "auto", "fanOnly"),
            _set("airConditionerMode", "airConditionerMode", _first),
        )
    },
    "fanSpeed": {"setFanSpeed": (_ints(0, 4), _set("fanSpeed", "fanSpeed", _first))},
    "airConditionerFanMode": {
        "setFanMode": (
            _enum("auto", "low", "medium", "high", "turbo"),
            _set("airConditionerFanMode", "fanMode", _first),
        )
    },
    "windowShade": {
        "open": (_none, {"windowShade.windowShade": _const("open")}),
        "close": (_none, {"windowShade.windowShade": _const("closed")}),
        "pause": (_none, {"windowShade.windowShade": _const("partially open")}),
    },
    "windowShadeLevel": {
        "setShadeLevel": (_ints(0, 100), _set("windowShadeLevel", "shadeLevel", _first))
    },
    "lock": {
        "lock": (_none, _set("lock", "lock", _const("locked"))),
        "unlock": (_none, _set("lock", "lock", _const("unlocked"))),
    },
    "audioVolume": {
        "setVolume": (_ints(0, 100), _set("audioVolume", "volume", _first)),
        "volumeUp": (_none, {}),
        "volumeDown": (_none, {}),
    },
    "audioMute": {
        "mute": (_none, _set("audioMute", "mute", _const("muted"))),
        "unmute": (_none, _set("audioMute", "mute", _const("unmuted"))),
        "setMute": (_enum("muted", "unmuted"), _set("audioMute", "mute", _first)),
    },
    "mediaPlayback": {
        "play": (_none, _set("mediaPlayback", "playbackStatus", _const("playing"))),
        "pause": (_none, _set("mediaPlayback", "playbackStatus", _const("paused"))),
        "stop": (_none, _set("mediaPlayback", "playbackStatus", _const("stopped"))),
    },
    "mediaTrackControl": {"nextTrack": (_none, {}), "previousTrack": (_none, {})},
    "washerOperatingState": {
        "setMachineState": (
            _enum("run", "pause", "stop"),
            _set("washerOperatingState", "machineState", _first),
        )
    },
    "robotCleanerMovement": {
        "setRobotCleanerMovement": (
            _enum(
                "homing",
                "idle",
                "charging",
                "alarm",
                "powerOff",
                "reserve",
                "point",
                "after",
                "cleaning",
                "pause",
            ),
            _set("robotCleanerMovement", "robotCleanerMovement", _first),
        )
    },
}

# What each capability reports before anything is done, as a fresh device would.
_INITIAL: Mapping[str, Mapping[str, Any]] = {
    "switch": {"switch": {"value": "off"}},
    "switchLevel": {"level": {"value": 60, "unit": "%"}},
    "colorTemperature": {"colorTemperature": {"value": 4000, "unit": "K"}},
    "colorControl": {"hue": {"value": 10}, "saturation": {"value": 50}},
    "thermostatCoolingSetpoint": {"coolingSetpoint": {"value": 26, "unit": "C"}},
    "airConditionerMode": {
        "airConditionerMode": {"value": "cool"},
        "supportedAcModes": {"value": ["cool", "dry", "wind", "auto", "heat"]},
    },
    "fanSpeed": {"fanSpeed": {"value": 0}},
    "airConditionerFanMode": {
        "fanMode": {"value": "auto"},
        "supportedAcFanModes": {"value": ["auto", "low", "medium", "high", "turbo"]},
    },
    "healthCheck": {"DeviceWatch-DeviceStatus": {"value": "online"}},
    "windowShade": {"windowShade": {"value": "closed"}},
    "windowShadeLevel": {"shadeLevel": {"value": 0, "unit": "%"}},
    "lock": {"lock": {"value": "locked"}},
    "audioVolume": {"volume": {"value": 20, "unit": "%"}},
    "audioMute": {"mute": {"value": "unmuted"}},
    "mediaPlayback": {"playbackStatus": {"value": "stopped"}},
    "washerOperatingState": {"machineState": {"value": "stop"}},
    "robotCleanerMovement": {"robotCleanerMovement": {"value": "charging"}},
    "temperatureMeasurement": {"temperature": {"value": 24.5, "unit": "C"}},
    "relativeHumidityMeasurement": {"humidity": {"value": 48, "unit": "%"}},
}


def _error(code: str, message: str) -> dict[str, Any]:
    return {"requestId": "fake", "error": {"code": code, "message": message, "details": []}}


class FakeSmartThings:
    """The fake server; use as a context manager. `url` is its API root."""

    def __init__(
        self,
        devices: Sequence[Mapping[str, Any]],
        rooms: Sequence[Mapping[str, Any]],
        *,
        token: str = "pat-secret",
        page_size: int = 10,
        location_name: str = "我的家",
    ) -> None:
        self.token = token
        self.devices = {str(d["deviceId"]): dict(d) for d in devices}
        self.rooms = list(rooms)
        self.page_size = page_size
        self.locations = sorted({str(d["locationId"]) for d in devices})
        self.location_name = location_name
        self.status: dict[str, dict[str, dict[str, dict[str, Any]]]] = {
            device_id: self._initial(device) for device_id, device in self.devices.items()
        }
        self.health: dict[str, str] = {device_id: "ONLINE" for device_id in self.devices}
        """Each device's health state (ONLINE, OFFLINE, UNKNOWN; one left out has none)."""
        self.list_health = True
        """Whether list answers carry healthState when asked (False: as an API that does not)."""
        self.received: list[tuple[str, list[dict[str, Any]]]] = []
        """Every accepted command body, by device, in arrival order."""
        self.requests: list[tuple[str, str]] = []
        """Every request (method, path), accepted or not."""
        self.link_base: str | None = None
        """Where `_links.next` points (default: this server)."""
        self.hang: set[str] = set()
        self.hang_s = 3.0
        """How long a request to a device in `hang` waits before it is answered."""
        self.down: set[str] = set()
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeSmartThings:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @staticmethod
    def _initial(device: Mapping[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for component in device.get("components", []):
            caps: dict[str, dict[str, Any]] = {}
            for cap in component.get("capabilities", []):
                caps[cap["id"]] = json.loads(json.dumps(_INITIAL.get(cap["id"], {})))
            out[component["id"]] = caps
        return out

    def value(
        self, device_id: str, capability: str, attribute: str, component: str = "main"
    ) -> Any:
        """An attribute's current value on one of the device's components."""
        with self.lock:
            return self.status[device_id][component][capability][attribute]["value"]

    def set_value(
        self, device_id: str, capability: str, attribute: str, value: Any, component: str = "main"
    ) -> None:
        """Change what the device reports (as its own buttons would)."""
        with self.lock:
            self.status[device_id][component][capability][attribute] = {"value": value}

    def listed(self, device_id: str, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """The device as a list answer gives it, with health and status when asked."""
        item = json.loads(json.dumps(self.devices[device_id]))
        if query.get("includeHealth") == ["true"] and self.list_health and device_id in self.health:
            item["healthState"] = {
                "state": self.health[device_id],
                "lastUpdatedDate": "2026-11-25T08:00:00.000Z",
            }
        if query.get("includeStatus") == ["true"]:
            for component in item.get("components", []):
                for cap in component.get("capabilities", []):
                    cap["status"] = self.status[device_id][component["id"]].get(cap["id"], {})
        return item

    # --- what the real server checks ----------------------------------------------------

    def command_error(self, device_id: str, body: object) -> str | None:
        """Why SmartThings would refuse this commands body for this device (None: accepted)."""
        if not isinstance(body, dict) or not isinstance(body.get("commands"), list):
            return 'body must be {"commands": [...]}'
        if not body["commands"]:
            return "commands must not be empty"
        device = self.devices[device_id]
        components = {c["id"]: c for c in device.get("components", [])}
        for i, cmd in enumerate(body["commands"]):
            if not isinstance(cmd, dict) or set(cmd) - {
                "component",
                "capability",
                "command",
                "arguments",
            }:
                return f"commands[{i}] has unknown keys"
            component = components.get(cmd.get("component", "main"))
            if component is None:
                return f"commands[{i}]: no component {cmd.get('component')!r}"
            capability = cmd.get("capability")
            if capability not in {c["id"] for c in component.get("capabilities", [])}:
                return f"commands[{i}]: capability {capability!r} is not on the device"
            spec = COMMANDS.get(str(capability), {}).get(str(cmd.get("command")))
            if spec is None:
                return f"commands[{i}]: {capability} has no command {cmd.get('command')!r}"
            args = cmd.get("arguments", [])
            if not isinstance(args, list) or not spec[0](args):
                return f"commands[{i}]: arguments {args!r} are invalid"
        return None

    def _apply(self, device_id: str, commands: list[dict[str, Any]]) -> None:
        for cmd in commands:
            _check, sets = COMMANDS[cmd["capability"]][cmd["command"]]
            component = self.status[device_id][cmd.get("component", "main")]
            for key, make in sets.items():
                capability, attribute = key.split(".")
                # A set attribute keeps the unit it had, as SmartThings reports it.
                old = component.setdefault(capability, {}).get(attribute, {})
                new = {"value": make(cmd.get("arguments", []))}
                if "unit" in old:
                    new["unit"] = old["unit"]
                component[capability][attribute] = new

    # --- the HTTP side ---------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: object) -> None:
                data = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                with fake.lock:
                    fake.requests.append((self.command, self.path))
                if self.headers.get("Authorization") != f"Bearer {fake.token}":
                    self._reply(401, _error("UnauthorizedError", "invalid token"))
                    return False
                return True

            def _device(self, device_id: str) -> bool:
                if device_id not in fake.devices:
                    self._reply(404, _error("NotFoundError", "device not found"))
                    return False
                if device_id in fake.hang:
                    time.sleep(fake.hang_s)
                if device_id in fake.down:
                    self._reply(500, _error("InternalError", "device unreachable"))
                    return False
                return True

            def do_GET(self) -> None:
                if not self._authorised():
                    return
                path, _, raw_query = self.path.partition("?")
                query = parse_qs(raw_query)
                if path == "/v1/devices":
                    start = int(query.pop("page", ["0"])[0])
                    wanted = query.get("deviceId")
                    with fake.lock:
                        items = [
                            fake.listed(d, query)
                            for d in fake.devices
                            if wanted is None or d in wanted
                        ]
                    page = items[start * fake.page_size : (start + 1) * fake.page_size]
                    links: dict[str, Any] = {}
                    if (start + 1) * fake.page_size < len(items):
                        base = fake.link_base or fake.url
                        rest = urlencode([*query.items(), ("page", [str(start + 1)])], doseq=True)
                        links["next"] = {"href": f"{base}/v1/devices?{rest}"}
                    self._reply(200, {"items": page, "_links": links})
                elif m := re.fullmatch(r"/v1/devices/([^/]+)/health", path):
                    if self._device(m[1]):
                        with fake.lock:
                            state = fake.health.get(m[1], "UNKNOWN")
                        self._reply(200, {"deviceId": m[1], "state": state})
                elif path == "/v1/locations":
                    items = [
                        {"locationId": loc, "name": fake.location_name} for loc in fake.locations
                    ]
                    self._reply(200, {"items": items, "_links": {}})
                elif m := re.fullmatch(r"/v1/locations/([^/]+)/rooms", path):
                    rooms = [r for r in fake.rooms if r.get("locationId") == m[1]]
                    self._reply(200, {"items": rooms, "_links": {}})
                elif m := re.fullmatch(r"/v1/devices/([^/]+)/status", path):
                    if self._device(m[1]):
                        with fake.lock:
                            self._reply(200, {"components": fake.status[m[1]]})
                else:
                    self._reply(404, _error("NotFoundError", "no such path"))

            def do_POST(self) -> None:
                if not self._authorised():
                    return
                m = re.fullmatch(r"/v1/devices/([^/]+)/commands", self.path)
                if m is None:
                    self._reply(404, _error("NotFoundError", "no such path"))
                    return
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.headers.get("Content-Type") != "application/json":
                    self._reply(415, _error("UnsupportedMediaType", "JSON only"))
                    return
                if not self._device(m[1]):
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._reply(400, _error("BadRequestError", "invalid JSON"))
                    return
                with fake.lock:
                    problem = fake.command_error(m[1], body)
                    if problem is None:
                        fake.received.append((m[1], body["commands"]))
                        fake._apply(m[1], body["commands"])
                if problem is not None:
                    self._reply(422, _error("ConstraintViolationError", problem))
                    return
                results = [
                    {"id": f"cmd-{i}", "status": "ACCEPTED"} for i in range(len(body["commands"]))
                ]
                self._reply(200, {"results": results})

        return Handler
