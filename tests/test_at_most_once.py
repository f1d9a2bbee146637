"""Issue 19, family 3: a command is delivered at most once, and never after its send was
reported failed — on a real mosquitto with the fake zigbee2mqtt bridge on it, and on the fake
Home Assistant behind a link that can freeze."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from fake_ha import FakeHomeAssistant, ha_state
from fake_z2m import FakeZ2m
from mqtt_broker import mosquitto_binary, running_broker
from test_zigbee2mqtt import DEVICES, LOCK, ROOMS, STATES

from jiayu.engine import Engine
from jiayu.executor.hubs import HubError
from jiayu.executor.hubs.homeassistant import HomeAssistantHub
from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub
from jiayu.home import Home, parse_home
from jiayu.importers.z2m import build_home

UNLOCK = ("zigbee2mqtt/入户门锁/set", {"state": "UNLOCK"})


@pytest.fixture(scope="module")
def home() -> Home:
    return parse_home(build_home(DEVICES, ROOMS, name="测试之家"), "z2m home")


def test_a_frozen_broker_fails_at_once_and_never_delivers_later(home: Home, tmp_path: Path) -> None:
    with running_broker(tmp_path) as broker:
        bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES)
        hub = Zigbee2MqttHub(home, host=broker.host, port=broker.port, send_timeout=3.0)
        engine = Engine(home, hub=hub)
        try:
            assert engine.turn("打开入户门锁").outcome == "confirm"
            os.kill(broker.process.pid, signal.SIGSTOP)  # frozen: the TCP connection stays up
            try:
                started = time.monotonic()
                done = engine.turn("确认")
                waited = time.monotonic() - started
            finally:
                os.kill(broker.process.pid, signal.SIGCONT)
            time.sleep(1.5)  # the broker is back: whatever it had taken in is delivered now
            received = bridge.received[:]
            state = bridge.states["入户门锁"]["state"]
        finally:
            hub.close()
            bridge.close()
    assert UNLOCK not in received, received
    assert state == "LOCK"
    assert waited < 1.0, waited  # at once: the round trip's 0.5 s, not the 3 s send timeout
    assert done.commands == []
    assert done.failures == [{"device": LOCK, "command": "unlock", "reason": "offline"}]
    assert "已解锁" not in done.reply


def test_a_stopped_broker_fails_at_once_and_the_restarted_one_never_gets_it(
    home: Home, tmp_path: Path
) -> None:
    with running_broker(tmp_path) as broker:
        bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES)
        hub = Zigbee2MqttHub(home, host=broker.host, port=broker.port, send_timeout=3.0)
        bridge.close()
        broker.stop()
        started = time.monotonic()
        with pytest.raises(HubError) as raised:
            hub.send(LOCK, "unlock", {})
        waited = time.monotonic() - started
        # The same broker comes back on the same port; a watcher takes every /set from then.
        again = subprocess.Popen(
            [mosquitto_binary(), "-c", str(tmp_path / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        seen: list[tuple[str, Any]] = []
        watcher = _watch(broker.port, seen)
        try:
            deadline = time.monotonic() + 15
            while not hub._connected and time.monotonic() < deadline:  # paho reconnects by itself
                time.sleep(0.05)
            assert hub._connected
            time.sleep(1.0)
        finally:
            watcher.disconnect()
            watcher.loop_stop()
            hub.close()
            again.terminate()
            again.wait(5)
    assert raised.value.reason == "offline"
    assert waited < 1.0
    assert seen == []


def test_no_echo_is_unconfirmed_and_the_reply_says_it_may_not_have_happened(
    home: Home, tmp_path: Path
) -> None:
    with running_broker(tmp_path) as broker:
        bridge = FakeZ2m(broker.host, broker.port, DEVICES, STATES)
        bridge.silence("入户门锁")
        hub = Zigbee2MqttHub(home, host=broker.host, port=broker.port, send_timeout=0.5)
        engine = Engine(home, hub=hub)
        try:
            engine.turn("打开入户门锁")
            done = engine.turn("确认")
        finally:
            hub.close()
            bridge.close()
    assert done.failures == [{"device": LOCK, "command": "unlock", "reason": "unconfirmed"}]
    assert done.commands == []
    assert "可能没有执行" in done.reply and "已解锁" not in done.reply


def _watch(port: int, seen: list[tuple[str, Any]]) -> mqtt.Client:
    """A client on the restarted broker that records every /set it is given."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="watcher")
    subscribed = threading.Event()

    def on_connect(c: mqtt.Client, *_: Any) -> None:
        c.subscribe("zigbee2mqtt/#", 1)

    def on_subscribe(*_: Any) -> None:
        subscribed.set()

    def on_message(c: mqtt.Client, u: Any, message: mqtt.MQTTMessage) -> None:
        if message.topic.endswith("/set"):
            seen.append((message.topic, json.loads(message.payload)))

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    deadline = time.monotonic() + 5
    while True:
        try:
            client.connect("127.0.0.1", port, keepalive=15)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    client.loop_start()
    assert subscribed.wait(5)
    return client


class FreezableLink:
    """A TCP relay between the hub and the fake Home Assistant that can freeze: while frozen it
    forwards nothing in either direction and holds what it took (a stopped HA process's socket
    buffers); thawed, it delivers what it held."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.thawed = threading.Event()
        self.thawed.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self.thawed.wait()
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)  # pass the end on, so each side's close completes
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()


def test_a_frozen_home_assistant_fails_at_once_and_never_runs_it_later() -> None:
    with FakeHomeAssistant() as fake:
        fake.add(ha_state("lock.front_door", "locked"))
        link = FreezableLink(int(fake.url.rsplit(":", 1)[1].split("/")[0]))
        url = f"ws://127.0.0.1:{link.port}/api/websocket"
        with HomeAssistantHub(url, fake.token, timeout=3.0) as hub:
            assert hub.read("lock.front_door") == {"locked": True}
            link.thawed.clear()
            try:
                started = time.monotonic()
                with pytest.raises(HubError) as raised:
                    hub.send("lock.front_door", "unlock", {})
                waited = time.monotonic() - started
            finally:
                link.thawed.set()
            time.sleep(1.0)  # whatever the link held has reached HA now
        link.close()
        assert fake.calls == []
    assert raised.value.reason == "offline"
    assert waited < 1.0
