"""`jiayu serve --hub ha` against a loopback Home Assistant (tests/fake_ha.py): the home built
from HA's registries, commands sent over its WebSocket API, delayed commands kept in HA's time
zone, and a satellite's device id turned into the speaker's room by HA's device registry.
The real HA core runs the same in tests/test_real_ha.py."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fake_ha import (
    FakeHomeAssistant,
    area_entry,
    device_entry,
    entity_entry,
    ha_state,
)
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake() -> Iterator[FakeHomeAssistant]:
    with FakeHomeAssistant() as running:
        running.areas = [area_entry("living_room", "客厅"), area_entry("bedroom", "卧室")]
        running.devices = [
            device_entry("sat-bedroom", "卧室音箱", "bedroom"),
            device_entry("sat-nowhere", "音箱", None),
        ]
        running.entities = [
            entity_entry("light.living", area="living_room"),
            entity_entry("light.bedroom", area="bedroom"),
        ]
        for entity_id, name in (("light.living", "客厅灯"), ("light.bedroom", "卧室灯")):
            running.add(ha_state(entity_id, "off", friendly_name=name))
        running.exposed = {e: {"conversation": True} for e in ("light.living", "light.bedroom")}
        yield running


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def serving(fake: FakeHomeAssistant, tmp_path: Path) -> Iterator[int]:
    port = _free_port()
    # The machine's zone is UTC here, so HA's Asia/Shanghai shows in the schedule's offset.
    env = {"JIAYU_HA_URL": fake.url, "JIAYU_HA_TOKEN": fake.token, "TZ": "UTC"}
    serve = [sys.executable, "-m", "jiayu.serve", "--wyoming", f"tcp://127.0.0.1:{port}"]
    proc = subprocess.Popen(
        [*serve, "--hub", "ha", "--schedules", str(tmp_path / "schedules.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()[0]
                asyncio.run(asyncio.sleep(0.05))
        yield port
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert fake.token not in out  # the token is never logged


def _say(port: int, text: str, **context: str) -> dict[str, Any]:
    async def talk() -> dict[str, Any]:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(Transcript(text, context=context).event())
            event = await asyncio.wait_for(client.read_event(), 30)
            assert event is not None
            return {"type": event.type, **event.data}

    return asyncio.run(talk())


def _targets(fake: FakeHomeAssistant) -> list[tuple[str, Any]]:
    return [(c["service"], c["target"]["entity_id"]) for c in fake.calls]


def test_the_satellites_device_is_the_speakers_room(fake: FakeHomeAssistant, serving: int) -> None:
    said = _say(serving, "开灯", conversation_id="c1", device_id="sat-bedroom")
    assert said["type"] == "handled", said
    assert _targets(fake) == [("turn_on", "light.bedroom")]
    # A device in no area, or one HA does not know, gives no room: 开灯 asks which.
    for device in ("sat-nowhere", "unknown-device"):
        asked = _say(serving, "开灯", conversation_id=device, device_id=device)
        assert asked["text"].endswith("？"), asked
    assert len(fake.calls) == 1


def test_delayed_commands_are_kept_in_has_time_zone(
    fake: FakeHomeAssistant, serving: int, tmp_path: Path
) -> None:
    said = _say(serving, "晚上十点关客厅灯", conversation_id="c1")
    assert said["type"] == "handled", said
    [schedule] = json.loads((tmp_path / "schedules.json").read_text(encoding="utf-8"))["schedules"]
    at = datetime.fromisoformat(schedule["at"])
    # Ten in the evening where HA is (Asia/Shanghai), whatever the machine's zone.
    assert (at.hour, at.minute, at.utcoffset()) == (22, 0, timedelta(hours=8))
