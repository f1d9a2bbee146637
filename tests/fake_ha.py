"""A loopback fake of Home Assistant's WebSocket API, for the hub and importer tests.

It speaks the protocol as HA documents it (developers.home-assistant.io, "WebSocket API")
and as HA's own command handlers shape their answers: `auth_required` → `auth` →
`auth_ok`/`auth_invalid`; then commands with ids answered by `result` messages
(`success`, `result` or `error: {code, message}`); `subscribe_events` for `state_changed`
whose events carry the subscription's id; `call_service` (blocking, as HA's handler is) that
changes the targets' states and emits `state_changed` (a target's `entity_id` may be one id or
a list, and the call fails as a whole if any of them does); `get_states`; the four registries'
`config/*_registry/list`, `config/entity_registry/get_entries`,
`homeassistant/expose_entity/list` and `get_config`. Only what the tests need is simulated
behind it. `latency` delays every answer by that many seconds without holding up the
messages behind it, as a network round trip does (HA runs each command as its own task).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

HA_VERSION = "2025.4.4"


def ha_state(entity_id: str, state: str, **attributes: Any) -> dict[str, Any]:
    """A state object as `get_states` and `state_changed` carry it."""
    stamp = "2026-01-01T00:00:00+00:00"
    return {
        "entity_id": entity_id,
        "state": state,
        "attributes": attributes,
        "last_changed": stamp,
        "last_updated": stamp,
        "context": {"id": "01J000000000000000000000", "parent_id": None, "user_id": None},
    }


class FakeHomeAssistant:
    """One fake HA instance on 127.0.0.1 (a free port); use as a context manager."""

    def __init__(self, token: str = "good-token", *, latency: float = 0.0) -> None:
        self.token = token
        self.latency = latency
        self.states: dict[str, dict[str, Any]] = {}
        self.messages: list[dict[str, Any]] = []
        """Every command message received after authentication, as sent."""
        self.calls: list[dict[str, Any]] = []
        """Every call_service message received, as sent."""
        self.stalled: set[str] = set()
        """Entity ids whose service calls are never answered (for timeouts)."""
        self.failing: dict[str, tuple[str, str]] = {}
        """Entity ids whose service calls fail, with HA's (code, message)."""
        self.floors: list[dict[str, Any]] = []
        self.areas: list[dict[str, Any]] = []
        self.devices: list[dict[str, Any]] = []
        self.entities: list[dict[str, Any]] = []
        self.exposed: dict[str, dict[str, bool]] = {}
        self.location_name = "我的家"
        self.time_zone = "Asia/Shanghai"
        self._lock = threading.Lock()
        self._subscribers: list[tuple[ServerConnection, int, threading.Lock]] = []
        self._connections: set[ServerConnection] = set()
        self._server: Server | None = None
        self.url = ""

    def add(self, state: dict[str, Any]) -> None:
        """Add (or replace) an entity's state without an event."""
        self.states[state["entity_id"]] = state

    def set_state(self, entity_id: str, state: str, **attributes: Any) -> None:
        """Change an entity's state and tell the subscribers, as HA's state machine does."""
        with self._lock:
            old = self.states.get(entity_id)
            new = ha_state(entity_id, state, **attributes)
            self.states[entity_id] = new
            subscribers = list(self._subscribers)
        for ws, number, send_lock in subscribers:
            event = {
                "id": number,
                "type": "event",
                "event": {
                    "event_type": "state_changed",
                    "data": {"entity_id": entity_id, "old_state": old, "new_state": new},
                    "origin": "LOCAL",
                    "time_fired": new["last_changed"],
                    "context": new["context"],
                },
            }
            try:
                with send_lock:
                    ws.send(json.dumps(event))
            except ConnectionClosed:
                pass

    # --- the server -------------------------------------------------------------------

    def __enter__(self) -> FakeHomeAssistant:
        self._server = serve(self._handle, "127.0.0.1", 0)
        port = self._server.socket.getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/api/websocket"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()

    def disconnect(self) -> None:
        """Close every client's connection, as a restarting HA does."""
        with self._lock:
            connections = list(self._connections)
        for ws in connections:
            ws.close()

    def _handle(self, ws: ServerConnection) -> None:
        with self._lock:
            self._connections.add(ws)
        send_lock = threading.Lock()

        def send(message: Mapping[str, Any]) -> None:
            with send_lock:
                ws.send(json.dumps(message))

        send({"type": "auth_required", "ha_version": HA_VERSION})
        auth = json.loads(ws.recv())
        if auth.get("type") != "auth" or auth.get("access_token") != self.token:
            send({"type": "auth_invalid", "message": "Invalid access token or password"})
            ws.close()
            return
        send({"type": "auth_ok", "ha_version": HA_VERSION})

        def reply(message: dict[str, Any]) -> None:
            answer = self._answer(ws, message, send_lock)
            try:
                if answer is not None:
                    send({"id": message["id"], "type": "result", **answer})
            except ConnectionClosed:
                pass

        try:
            for raw in ws:
                message = json.loads(raw)
                self.messages.append(message)
                if self.latency:
                    threading.Timer(self.latency, reply, (message,)).start()
                else:
                    reply(message)
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self._subscribers = [s for s in self._subscribers if s[0] is not ws]
                self._connections.discard(ws)

    def _answer(
        self, ws: ServerConnection, message: dict[str, Any], send_lock: threading.Lock
    ) -> dict[str, Any] | None:
        kind = message.get("type")
        if kind == "subscribe_events":
            if message.get("event_type") == "state_changed":
                with self._lock:
                    self._subscribers.append((ws, message["id"], send_lock))
            return {"success": True, "result": None}
        if kind == "get_states":
            with self._lock:
                return {"success": True, "result": copy.deepcopy(list(self.states.values()))}
        if kind == "call_service":
            return self._call_service(message)
        if kind == "get_config":
            config = {
                "location_name": self.location_name,
                "time_zone": self.time_zone,
                "version": HA_VERSION,
            }
            return {"success": True, "result": config}
        lists = {
            "config/floor_registry/list": self.floors,
            "config/area_registry/list": self.areas,
            "config/device_registry/list": self.devices,
            "config/entity_registry/list": [_partial(e) for e in self.entities],
        }
        if kind in lists:
            return {"success": True, "result": lists[kind]}
        if kind == "config/entity_registry/get_entries":
            by_id = {e["entity_id"]: e for e in self.entities}
            return {"success": True, "result": {i: by_id.get(i) for i in message["entity_ids"]}}
        if kind == "homeassistant/expose_entity/list":
            return {"success": True, "result": {"exposed_entities": self.exposed}}
        return {
            "success": False,
            "error": {"code": "unknown_command", "message": "Unknown command."},
        }

    def _call_service(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self.calls.append(message)
        target = message["target"]["entity_id"]
        entity_ids = [target] if isinstance(target, str) else list(target)
        if self.stalled.intersection(entity_ids):
            return None
        for entity_id in entity_ids:
            if entity_id in self.failing:
                code, text = self.failing[entity_id]
                return {"success": False, "error": {"code": code, "message": text}}
        invalid = _invalid(message["domain"], message["service"], message.get("service_data", {}))
        if invalid is not None:
            return {"success": False, "error": {"code": "invalid_format", "message": invalid}}
        for entity_id in entity_ids:
            current = self.states[entity_id]
            state, attributes = _apply(
                message["service"], message.get("service_data", {}), current["state"]
            )
            self.set_state(entity_id, state, **{**current["attributes"], **attributes})
        context = {"id": "01J000000000000000000001", "parent_id": None, "user_id": None}
        return {"success": True, "result": {"context": context, "response": None}}


def _apply(service: str, data: Mapping[str, Any], state: str) -> tuple[str, dict[str, Any]]:
    """What a service does to an entity in the fake: enough for the tests, no more."""
    attributes: dict[str, Any] = {}
    if service == "turn_on":
        state = "on"
        if "brightness_pct" in data:
            attributes["brightness"] = round(data["brightness_pct"] * 255 / 100)
        if "color_temp_kelvin" in data:
            attributes["color_temp_kelvin"] = data["color_temp_kelvin"]
    elif service == "turn_off":
        state, attributes["brightness"] = "off", None
    elif service in {"lock", "unlock"}:
        state = service + "ed"
    elif service == "set_cover_position":
        attributes["current_position"] = data["position"]
        state = "open" if data["position"] > 0 else "closed"
    elif service == "set_temperature":
        attributes["temperature"] = data["temperature"]
    # Capabilities of revision 3 (issue 20).
    if service == "turn_on" and "hs_color" in data:
        attributes["hs_color"] = list(data["hs_color"])
    elif service == "oscillate":
        attributes["oscillating"] = data["oscillating"]
    elif service == "set_preset_mode":
        attributes["preset_mode"] = data["preset_mode"]
    elif service == "set_mode":
        attributes["mode"] = data["mode"]
    elif service == "set_humidity":
        attributes["humidity"] = data["humidity"]
    elif service == "set_cover_tilt_position":
        attributes["current_tilt_position"] = data["tilt_position"]
    elif service in _VACUUM_STATES:
        state = _VACUUM_STATES[service]
    return state, attributes


# What HA's vacuum services leave the entity in.
_VACUUM_STATES = {"start": "cleaning", "pause": "paused", "return_to_base": "returning"}

# The service schemas HA checks for the services of the capabilities of revision 3 (each
# key: a predicate on its value); data a real HA refuses with invalid_format is refused here.
_SCHEMAS: dict[tuple[str, str], dict[str, Any]] = {
    ("light", "turn_on"): {
        "hs_color": lambda v: (
            isinstance(v, list) and len(v) == 2 and 0 <= v[0] <= 360 and 0 <= v[1] <= 100
        ),
        "brightness_pct": lambda v: 0 <= v <= 100,
        "color_temp_kelvin": lambda v: isinstance(v, int),
    },
    ("fan", "oscillate"): {"oscillating": lambda v: isinstance(v, bool)},
    ("fan", "set_preset_mode"): {"preset_mode": lambda v: isinstance(v, str)},
    ("humidifier", "set_mode"): {"mode": lambda v: isinstance(v, str)},
    ("humidifier", "set_humidity"): {"humidity": lambda v: 0 <= v <= 100},
    ("cover", "set_cover_tilt_position"): {"tilt_position": lambda v: 0 <= v <= 100},
    ("water_heater", "set_temperature"): {"temperature": lambda v: isinstance(v, int | float)},
    ("vacuum", "start"): {},
    ("vacuum", "pause"): {},
    ("vacuum", "return_to_base"): {},
}
# Required keys of those services (light.turn_on needs none).
_REQUIRED = {
    ("fan", "oscillate"): {"oscillating"},
    ("fan", "set_preset_mode"): {"preset_mode"},
    ("humidifier", "set_mode"): {"mode"},
    ("humidifier", "set_humidity"): {"humidity"},
    ("cover", "set_cover_tilt_position"): {"tilt_position"},
    ("water_heater", "set_temperature"): {"temperature"},
}


def _invalid(domain: str, service: str, data: Mapping[str, Any]) -> str | None:
    schema = _SCHEMAS.get((domain, service))
    if schema is None:
        return None
    missing = _REQUIRED.get((domain, service), set()) - set(data)
    if missing:
        return f"required key not provided @ data['{sorted(missing)[0]}']"
    for key, value in data.items():
        check = schema.get(key)
        if check is None:
            return f"extra keys not allowed @ data['{key}']"
        if not check(value):
            return f"invalid value @ data['{key}']"
    return None


def _partial(entry: Mapping[str, Any]) -> dict[str, Any]:
    # config/entity_registry/list leaves out what only get_entries carries.
    extended = {"aliases", "capabilities", "device_class", "original_device_class"}
    return {k: v for k, v in entry.items() if k not in extended | {"original_icon"}}


def floor_entry(floor_id: str, name: str, *aliases: str, level: int = 0) -> dict[str, Any]:
    """A floor as config/floor_registry/list gives it."""
    return {
        "aliases": list(aliases),
        "created_at": 0.0,
        "floor_id": floor_id,
        "icon": None,
        "level": level,
        "name": name,
        "modified_at": 0.0,
    }


def area_entry(area_id: str, name: str, *aliases: str, floor: str | None = None) -> dict[str, Any]:
    """An area as config/area_registry/list gives it."""
    return {
        "aliases": list(aliases),
        "area_id": area_id,
        "floor_id": floor,
        "humidity_entity_id": None,
        "icon": None,
        "labels": [],
        "name": name,
        "picture": None,
        "temperature_entity_id": None,
        "created_at": 0.0,
        "modified_at": 0.0,
    }


def device_entry(device_id: str, name: str, area: str | None) -> dict[str, Any]:
    """A device as config/device_registry/list gives it (the fields the importer may read)."""
    return {
        "area_id": area,
        "config_entries": ["entry1"],
        "disabled_by": None,
        "entry_type": None,
        "id": device_id,
        "labels": [],
        "manufacturer": "Acme",
        "model": "X1",
        "name_by_user": None,
        "name": name,
        "via_device_id": None,
    }


def entity_entry(
    entity_id: str,
    *aliases: str,
    device: str | None = None,
    area: str | None = None,
    name: str | None = None,
    device_class: str | None = None,
) -> dict[str, Any]:
    """An entity as config/entity_registry/get_entries gives it (list drops the extras)."""
    return {
        "area_id": area,
        "categories": {},
        "config_entry_id": "entry1",
        "device_id": device,
        "disabled_by": None,
        "entity_category": None,
        "entity_id": entity_id,
        "has_entity_name": False,
        "hidden_by": None,
        "icon": None,
        "id": "reg-" + entity_id,
        "labels": [],
        "name": name,
        "options": {},
        "original_name": None,
        "platform": "demo",
        "translation_key": None,
        "unique_id": entity_id,
        "aliases": list(aliases),
        "capabilities": None,
        "device_class": None,
        "original_device_class": device_class,
        "original_icon": None,
    }
