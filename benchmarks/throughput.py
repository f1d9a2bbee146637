"""Throughput of one process, sync and asyncio, and the asyncio API's first-reply latency.

    uv run python benchmarks/throughput.py [--turns 2000] [--json]

- sync: turns per second through Engine.turn on the simulated hub, one thread;
- async: turns per second through Engine.handle over 50 sessions, all in flight at once,
  on an AsyncHub that answers at once (what the runtime itself costs);
- first reply: with a hub that takes 50 ms per command, the median and p99 time until
  `handle()` returns (the user hears the answer) versus until the hub has confirmed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, load_home

SENTENCES = (
    "打开客厅灯",
    "把卧室灯亮度调到40",
    "关闭书房灯",
    "把客厅空调调到26度",
    "关掉电视",
    "打开餐厅灯",
    "把主卧灯调暗一点",
    "客厅温度多少",
)


class DelayHub:
    """An AsyncHub whose every call takes `delay` seconds, like a hub on a real network."""

    def __init__(self, home: Home, delay: float) -> None:
        self.inner = SimulatedHub(home)
        self.delay = delay

    async def read(self, device_id: str) -> Mapping[str, Any]:
        await asyncio.sleep(self.delay)
        return self.inner.read(device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await asyncio.sleep(self.delay)
        self.inner.send(device_id, command, params)


def _texts(n: int) -> list[str]:
    return [SENTENCES[i % len(SENTENCES)] for i in range(n)]


def sync_rate(home: Home, n: int) -> float:
    engine = Engine(home)
    texts = _texts(n)
    started = time.perf_counter()
    for i, text in enumerate(texts):
        engine.turn(text, f"s{i % 50}")
    return n / (time.perf_counter() - started)


async def async_rate(home: Home, n: int) -> float:
    engine = Engine(home, hub=DelayHub(home, 0.0), parallel=32)
    texts = _texts(n)
    started = time.perf_counter()
    handled = await asyncio.gather(*(engine.handle(t, f"s{i % 50}") for i, t in enumerate(texts)))
    await asyncio.gather(*(h.result for h in handled))
    return n / (time.perf_counter() - started)


async def first_reply(home: Home, n: int) -> tuple[list[float], list[float]]:
    engine = Engine(home, hub=DelayHub(home, 0.05))
    said: list[float] = []
    done: list[float] = []
    for i in range(n):
        started = time.perf_counter()
        handled = await engine.handle(SENTENCES[i % 3], f"s{i}")  # commands, no reads
        said.append(time.perf_counter() - started)
        await handled.result
        done.append(time.perf_counter() - started)
    return said, done


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    home = load_home(demo_home_path())
    sync = sync_rate(home, args.turns)
    concurrent = asyncio.run(async_rate(home, args.turns))
    said, done = asyncio.run(first_reply(home, 60))
    numbers = {
        "sync_turns_per_s": round(sync),
        "async_turns_per_s": round(concurrent),
        "first_reply_median_ms": round(statistics.median(said) * 1000, 2),
        "first_reply_p99_ms": round(_p99(said) * 1000, 2),
        "hub_confirmed_median_ms": round(statistics.median(done) * 1000, 2),
        "hub_confirmed_p99_ms": round(_p99(done) * 1000, 2),
    }
    if args.json:
        print(json.dumps(numbers))
        return
    print(f"sync  turn():   {numbers['sync_turns_per_s']:>8} turns/s")
    print(f"async handle(): {numbers['async_turns_per_s']:>8} turns/s (50 sessions in flight)")
    print("hub taking 50 ms per command:")
    print(
        f"  first reply     median {numbers['first_reply_median_ms']:>7} ms"
        f"   p99 {numbers['first_reply_p99_ms']:>7} ms"
    )
    print(
        f"  hub confirmed   median {numbers['hub_confirmed_median_ms']:>7} ms"
        f"   p99 {numbers['hub_confirmed_p99_ms']:>7} ms"
    )


if __name__ == "__main__":
    main()
