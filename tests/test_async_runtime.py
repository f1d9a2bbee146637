"""The asyncio API with real asyncio: say first, send in the background, events in order,
late failures told in the next reply, order per device under load."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Mapping
from typing import Any

import pytest

from jiayu.engine import Engine
from jiayu.executor.events import Event
from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.home import Home


class SlowHub:
    """An AsyncHub on a real event loop: every call takes `delay` seconds, as a network hub."""

    def __init__(self, home: Home, delay: float = 0.05) -> None:
        self.inner = SimulatedHub(home)
        self.delay = delay
        self.log: list[tuple[str, str, dict[str, Any]]] = []
        self.broken: set[str] = set()

    async def read(self, device_id: str) -> Mapping[str, Any]:
        await asyncio.sleep(self.delay)
        return self.inner.read(device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await asyncio.sleep(self.delay * random.random())
        if device_id in self.broken:
            raise HubError(device_id, "offline")
        self.inner.send(device_id, command, params)
        self.log.append((device_id, command, dict(params)))


def test_the_reply_comes_before_the_hub_confirms(demo_home: Home) -> None:
    async def main() -> None:
        hub = SlowHub(demo_home, delay=0.2)
        engine = Engine(demo_home, hub=hub)
        started = time.perf_counter()
        handled = await engine.handle("打开客厅灯和卧室灯")
        said_after = time.perf_counter() - started
        assert handled.outcome == "executed"
        assert "正在" in handled.reply and "已" not in handled.reply
        assert hub.log == []  # nothing confirmed yet
        result = await handled.result
        assert said_after < 0.15
        assert [c["device"] for c in result.commands] == ["light_living", "light_bedroom"]
        assert result.outcome == "executed"

    asyncio.run(main())


def test_events_are_published_in_order_per_command_and_turn(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home, hub=SlowHub(demo_home, delay=0.01))
        seen: list[Event] = []
        engine.subscribe("s", seen.append)
        streamed: list[Event] = []

        async def listen() -> None:
            async for event in engine.stream("s"):
                streamed.append(event)
                if event.kind.startswith("turn."):
                    return

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0)
        handled = await engine.handle("打开客厅灯", "s")
        await handled.result
        await asyncio.wait_for(listener, 1)
        kinds = [(e.kind, e.device) for e in seen]
        assert kinds == [
            ("command.started", "light_living"),
            ("command.finished", "light_living"),
            ("turn.done", None),
        ]
        assert [(e.kind, e.device) for e in streamed] == kinds

    asyncio.run(main())


def test_a_device_failing_in_the_background_is_told_in_the_next_reply(demo_home: Home) -> None:
    async def main() -> None:
        hub = SlowHub(demo_home, delay=0.01)
        hub.broken.add("light_bedroom")
        engine = Engine(demo_home, hub=hub)
        handled = await engine.handle("打开客厅灯和卧室灯", "s")
        result = await handled.result
        assert result.failures == [
            {"device": "light_bedroom", "command": "turn_on", "reason": "offline"}
        ]
        following = await engine.handle("关闭电视", "s")
        assert following.reply.startswith("刚才卧室灯没有执行")
        await following.result
        again = await engine.handle("关闭电视", "s")
        assert "卧室灯" not in again.reply  # told once

    asyncio.run(main())


def test_a_query_is_answered_in_the_first_reply(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home, hub=SlowHub(demo_home, delay=0.01))
        handled = await engine.handle("客厅温度多少")
        assert handled.outcome == "answered"
        assert "度" in handled.reply
        assert (await handled.result).outcome == "answered"

    asyncio.run(main())


def test_a_sync_hub_works_under_the_asyncio_api(demo_home: Home) -> None:
    async def main() -> None:
        engine = Engine(demo_home)
        handled = await engine.handle("打开客厅灯")
        result = await handled.result
        assert result.commands == [{"device": "light_living", "command": "turn_on", "params": {}}]
        assert engine.hub.read("light_living")["on"] is True  # type: ignore[union-attr]

    asyncio.run(main())


def test_an_async_only_hub_refuses_the_sync_api(demo_home: Home) -> None:
    with pytest.raises(TypeError):
        Engine(demo_home, hub=SlowHub(demo_home)).turn("打开客厅灯")


def test_a_thousand_turns_over_fifty_sessions_lose_nothing_and_keep_order(
    demo_home: Home,
) -> None:
    lights = [d for d in demo_home.devices if "brightness" in d.capabilities][:10]
    rng = random.Random(7)
    turns = [
        (f"s{i % 50}", f"把{rng.choice(lights).name}亮度调到{rng.randint(1, 100)}")
        for i in range(1000)
    ]

    async def main() -> None:
        hub = SlowHub(demo_home, delay=0.002)
        engine = Engine(demo_home, hub=hub, parallel=16)
        handled = await asyncio.gather(*(engine.handle(text, sid) for sid, text in turns))
        results = await asyncio.gather(*(h.result for h in handled))
        planned = [c for h in handled for c in h.planned]
        assert len(planned) == 1000
        assert all(r.outcome == "executed" for r in results)
        sent = [(d, c, p) for d, c, p in hub.log]
        assert len(sent) == 1000
        # Per device, the hub saw exactly the planned commands, in the order they were planned.
        order = sorted(handled, key=lambda h: h.turn)
        for light in lights:
            want = [
                (c["device"], c["command"], c["params"])
                for h in order
                for c in h.planned
                if c["device"] == light.id
            ]
            assert [s for s in sent if s[0] == light.id] == want

    asyncio.run(main())
