"""A fake zigbee2mqtt bridge on a real MQTT broker, speaking zigbee2mqtt's MQTT API.

Like the real bridge it publishes `bridge/state`, `bridge/devices` and each device's
`availability` as retained messages, takes `<name>/set` and `<name>/get` (friendly names may hold
`/`), and answers with the device's whole state as JSON on `<name>`. A device can be made to go
offline (then, as zigbee2mqtt does, a command to it fails in `bridge/logging`), to fail its
commands, or to stay silent. `echo_delay` makes every device take that many seconds to answer,
each on its own (a radio round trip), without holding up the others.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import paho.mqtt.client as mqtt

_STATE_WORDS = {"ON", "OFF", "TOGGLE", "OPEN", "CLOSE", "STOP", "LOCK", "UNLOCK"}


def bridge_device(
    ieee: str, name: str, model: str, description: str, *exposes: Any
) -> dict[str, Any]:
    """One entry of `bridge/devices`: a supported router with these exposes."""
    return {
        "ieee_address": ieee,
        "type": "Router",
        "friendly_name": name,
        "supported": True,
        "definition": {
            "model": model,
            "vendor": "test",
            "description": description,
            "exposes": list(exposes),
        },
    }


def eventually(check: Callable[[], bool], timeout: float = 2.0) -> None:
    """Wait until `check()` holds: a state message arrives after the echo that confirmed it."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the state never arrived"
        time.sleep(0.01)


class FakeZ2m:
    """The bridge and its devices; `states` holds each device's state by friendly name."""

    def __init__(
        self,
        host: str,
        port: int,
        devices: list[dict[str, Any]],
        states: Mapping[str, Mapping[str, Any]],
        *,
        base: str = "zigbee2mqtt",
        legacy_availability: bool = False,
        echo_delay: float = 0.0,
    ) -> None:
        self.base = base
        self.echo_delay = echo_delay
        self.legacy = legacy_availability
        self.devices = devices
        self.states: dict[str, dict[str, Any]] = {k: dict(v) for k, v in states.items()}
        self.received: list[tuple[str, dict[str, Any]]] = []
        """Every /set and /get taken, as (topic, payload)."""
        self._offline: set[str] = set()
        self._failing: set[str] = set()
        self._silent: set[str] = set()
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="fake-z2m")
        self.client.on_message = self._on_message
        self.client.on_socket_open = _no_delay
        self.client.connect(host, port, keepalive=15)
        self.client.subscribe(f"{base}/#", 1)
        self.client.loop_start()
        self._publish("bridge/state", self._availability(True), retain=True)
        self._publish("bridge/devices", devices, retain=True)
        for device in devices:
            if device.get("type") != "Coordinator":
                self._publish(
                    f"{device['friendly_name']}/availability", self._availability(True), retain=True
                )

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    # -- what a test can make happen --

    def go_offline(self, name: str) -> None:
        self._offline.add(name)
        self._publish(f"{name}/availability", self._availability(False), retain=True)

    def fail(self, name: str) -> None:
        self._failing.add(name)

    def silence(self, name: str) -> None:
        self._silent.add(name)

    def report(self, name: str, change: Mapping[str, Any]) -> None:
        """The device reports a change by itself (a sensor's new reading)."""
        with self._lock:
            self.states.setdefault(name, {}).update(change)
            state = dict(self.states[name])
        self._publish(name, state)

    def topics(self) -> list[str]:
        with self._lock:
            return [topic for topic, _ in self.received]

    # -- the bridge --

    def _availability(self, online: bool) -> Any:
        word = "online" if online else "offline"
        return word if self.legacy else {"state": word}

    def _publish(self, rest: str, payload: Any, *, retain: bool = False) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        self.client.publish(f"{self.base}/{rest}", text, qos=1, retain=retain).wait_for_publish(5)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        rest = message.topic[len(self.base) + 1 :]
        for verb in ("set", "get"):
            name = rest.removesuffix(f"/{verb}")
            if name != rest and name in self.states:
                payload = json.loads(message.payload)
                with self._lock:
                    self.received.append((message.topic, payload))
                if self.echo_delay:
                    threading.Timer(self.echo_delay, self._handle, (name, verb, payload)).start()
                else:
                    self._handle(name, verb, payload)
                return

    def _handle(self, name: str, verb: str, payload: dict[str, Any]) -> None:
        if name in self._silent:
            return
        if name in self._offline or name in self._failing:
            # zigbee2mqtt's words when a device does not answer a command.
            key = next(iter(payload), "state")
            error = f"Publish '{verb}' '{key}' to '{name}' failed: 'Error: Timeout'"
            self.client.publish(
                f"{self.base}/bridge/logging",
                json.dumps({"level": "error", "message": error}, ensure_ascii=False),
                qos=1,
            )
            return
        with self._lock:
            state = self.states[name]
            if verb == "set":
                for key, value in payload.items():
                    apply_set(state, key, value)
            state = dict(state)
        client_publish = self.client.publish
        client_publish(f"{self.base}/{name}", json.dumps(state, ensure_ascii=False), qos=1)


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def apply_set(state: dict[str, Any], key: str, value: Any) -> None:
    """One property of a /set, as the device would take it."""
    if isinstance(value, str) and value.upper() in _STATE_WORDS:
        word = value.upper()
        if word == "TOGGLE":
            value = word = "OFF" if state.get(key) == "ON" else "ON"
        if word in ("OPEN", "CLOSE"):
            state["position"] = 100 if word == "OPEN" else 0
        if word == "STOP":
            return
        if word in ("LOCK", "UNLOCK"):
            state["lock_state"] = "locked" if word == "LOCK" else "unlocked"
        # Reported as it was sent: a climate's `swing_mode` stays "on", a switch's "ON".
        state[key] = value
    else:
        state[key] = value
        # A cover's `state` follows its position; turning the slats (`tilt`) leaves it be.
        if key == "position":
            state["state"] = "OPEN" if value > 0 else "CLOSE"
