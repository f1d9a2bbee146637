"""`jiayu serve --wyoming`: jiayu as a Wyoming `handle` program, spoken to by the `wyoming`
package's own client over real TCP on 127.0.0.1 (what Home Assistant's `wyoming` integration
does), on the simulated hub. The real HA run is in tests/test_real_ha.py."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info

from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home
from jiayu.serve import serve_wyoming

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Client:
    """One Wyoming connection to the service."""

    def __init__(self, client: AsyncTcpClient) -> None:
        self.client = client

    async def ask(self, event: Event) -> Event:
        await self.client.write_event(event)
        answer = await asyncio.wait_for(self.client.read_event(), 30)
        assert answer is not None, "the service closed the connection"
        return answer

    async def say(self, text: str, **context: Any) -> Event:
        return await self.ask(Transcript(text, context=context or None).event())


@asynccontextmanager
async def serving(
    engine: Engine, area_of: Callable[[str], Awaitable[str | None]] | None = None
) -> AsyncIterator[Client]:
    port = _free_port()
    stop = asyncio.Event()
    task = asyncio.create_task(
        serve_wyoming(engine, f"tcp://127.0.0.1:{port}", area_of=area_of, stop=stop, settle_s=5)
    )
    for _ in range(200):
        try:
            async with AsyncTcpClient("127.0.0.1", port) as client:
                yield Client(client)
                break
        except ConnectionRefusedError:
            await asyncio.sleep(0.02)
    stop.set()
    await task


def _hub_state(hub: SimulatedHub, device: str) -> dict[str, Any]:
    return dict(hub.read(device))


def test_describe_names_a_chinese_handle_program_that_controls_the_home(
    demo_home: Home,
) -> None:
    async def main() -> None:
        async with serving(Engine(demo_home)) as client:
            info = Info.from_event(await client.ask(Describe().event()))
        [program] = info.handle
        assert program.installed and program.supports_home_control
        [model] = program.models
        assert model.installed
        assert model.languages == ["zh-CN", "zh-TW", "zh-HK"]
        assert (info.asr, info.tts, info.intent, info.wake) == ([], [], [], [])

    asyncio.run(main())


def test_a_transcript_is_a_turn_of_its_conversation(demo_home: Home) -> None:
    async def main() -> None:
        hub = SimulatedHub(demo_home)
        async with serving(Engine(demo_home, hub=hub)) as client:
            done = await client.say("打开客厅灯", conversation_id="c1")
            assert Handled.is_type(done.type), done
            assert Handled.from_event(done).text == "好的，正在打开客厅灯"
            # Answered once the hub has tried: the light is on when the caller reads it.
            assert _hub_state(hub, "light_living")["on"] is True
            assert done.data["context"] == {"conversation_id": "c1"}

            question = await client.say("客厅灯开着吗", conversation_id="c1")
            assert Handled.from_event(question).text == "是的，客厅灯开着"

            # 确认 answers the question of its own conversation only.
            asked = await client.say("打开入户门锁", conversation_id="c1")
            assert "确认" in (Handled.from_event(asked).text or "")
            assert _hub_state(hub, "lock_front")["locked"] is True
            other = await client.say("确认", conversation_id="c2")
            assert _hub_state(hub, "lock_front")["locked"] is True
            assert NotHandled.from_event(other).text == "现在没有在等你回答的问题。"
            confirmed = await client.say("确认", conversation_id="c1")
            assert Handled.is_type(confirmed.type), confirmed
            assert _hub_state(hub, "lock_front")["locked"] is False

    asyncio.run(main())


def test_a_client_that_names_no_conversation_is_one_conversation(demo_home: Home) -> None:
    # HA 2025.4 sends a transcript's text only, over a new connection each time.
    async def main() -> None:
        hub = SimulatedHub(demo_home)
        engine = Engine(demo_home, hub=hub)
        async with serving(engine) as first:
            asked = await first.say("打开入户门锁")
            assert "确认" in (asked.data.get("text") or "")
            port = first.client.port
            async with AsyncTcpClient("127.0.0.1", port) as raw:
                confirmed = await Client(raw).say("确认")
            assert Handled.is_type(confirmed.type), confirmed
            assert _hub_state(hub, "lock_front")["locked"] is False
            assert confirmed.data["context"] == {"conversation_id": "wyoming-127.0.0.1"}

    asyncio.run(main())


def test_what_jiayu_cannot_do_is_not_handled_with_the_reason(demo_home: Home) -> None:
    async def main() -> None:
        hub = SimulatedHub(demo_home)
        async with serving(Engine(demo_home, hub=hub)) as client:
            unknown = await client.say("啦啦啦", conversation_id="c1")
            assert NotHandled.is_type(unknown.type)
            assert NotHandled.from_event(unknown).text == "抱歉，我没听清要做什么。"
            too_bright = await client.say("把客厅灯调到200%", conversation_id="c1")
            assert NotHandled.is_type(too_bright.type)
            assert "100" in (NotHandled.from_event(too_bright).text or "")
            # A command the hub fails is told in this answer, and only in this one.
            hub.fail("light_study", "offline")
            failed = await client.say("打开书房灯", conversation_id="c1")
            assert NotHandled.is_type(failed.type)
            assert "设备离线" in (NotHandled.from_event(failed).text or "")
            hub.fail("light_study", None)
            after = await client.say("打开书房灯", conversation_id="c1")
            assert Handled.from_event(after).text == "好的，正在打开书房灯"

    asyncio.run(main())


def test_the_satellites_device_is_the_speakers_room(demo_home: Home) -> None:
    async def main() -> None:
        hub = SimulatedHub(demo_home)
        asked: list[str] = []

        async def area_of(device_id: str) -> str | None:
            asked.append(device_id)
            return {"sat-bedroom": "bedroom"}.get(device_id)

        async with serving(Engine(demo_home, hub=hub), area_of) as client:
            done = await client.say("开灯", conversation_id="c1", device_id="sat-bedroom")
            assert Handled.is_type(done.type), done
            assert _hub_state(hub, "light_bedroom")["on"] is True
            assert _hub_state(hub, "light_living")["on"] is False
            # HA 2025.4 sends only the conversation id: no room, so 开灯 asks which.
            unplaced = await client.say("开灯", conversation_id="c2")
            assert "哪" in (unplaced.data.get("text") or "")
        assert asked == ["sat-bedroom"]

    asyncio.run(main())


def test_delayed_commands_and_scenes_run_in_the_services_runtime(
    demo_home: Home, tmp_path: Path
) -> None:
    async def main() -> None:
        clock = ManualClock(datetime(2026, 11, 27, 20, 0, tzinfo=UTC))
        hub = SimulatedHub(demo_home, {"light_living": {"on": True}})
        engine = Engine(demo_home, hub=hub, clock=clock, schedules_path=tmp_path / "s.json")
        async with serving(engine) as client:
            later = await client.say("一分钟后关闭客厅灯", conversation_id="c1")
            assert Handled.is_type(later.type), later
            assert _hub_state(hub, "light_living")["on"] is True
            await clock.wait_for_sleepers()
            clock.advance(60)
            # Fired by the service's runtime, with no further message.
            for _ in range(500):
                if not _hub_state(hub, "light_living")["on"]:
                    break
                await asyncio.sleep(0.01)
            assert _hub_state(hub, "light_living")["on"] is False
            # A scene whose steps wait runs in the background: the answer does not wait for it.
            started = time.monotonic()
            scene = await client.say("打开放松模式", conversation_id="c1")
            assert Handled.is_type(scene.type), scene
            assert time.monotonic() - started < 4

    asyncio.run(main())


def _serve_cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "jiayu.serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_the_command_serves_until_sigterm_and_keeps_its_schedules(tmp_path: Path) -> None:
    port = _free_port()
    schedules = tmp_path / "schedules.json"
    proc = _serve_cli(
        "--wyoming", f"tcp://127.0.0.1:{port}", "--hub", "sim", "--schedules", str(schedules)
    )
    try:

        async def talk() -> Event:
            for _ in range(300):
                try:
                    async with AsyncTcpClient("127.0.0.1", port) as raw:
                        return await Client(raw).say("半小时后关闭客厅灯", conversation_id="x")
                except ConnectionRefusedError:
                    await asyncio.sleep(0.05)
            raise AssertionError("jiayu serve never listened")

        said = asyncio.run(talk())
        assert Handled.is_type(said.type), said
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    # The schedule outlives the service, for its next start.
    assert "light_living" in schedules.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--wyoming", "http://127.0.0.1:1"], "Only 'stdio://', 'unix://', or 'tcp://'"),
        (["--wyoming", "tcp://127.0.0.1:1", "--home", "/nonexistent.json"], "nonexistent"),
        (["--wyoming", "tcp://127.0.0.1:1", "--hub", "ha"], "--ha-url"),
    ],
)
def test_the_command_refuses_to_start_in_one_line(args: list[str], said: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIAYU_", "HA_"))}
    done = subprocess.run(
        [sys.executable, "-m", "jiayu.serve", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("jiayu serve: ") and said in line
