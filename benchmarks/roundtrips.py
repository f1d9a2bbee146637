"""Round trips per turn: what a whole-home turn costs when every hub call crosses a network.

    uv run python benchmarks/roundtrips.py [--runs N]

Hubs, each with 10 ms per round trip:
  serial     a SimulatedHub behind a wrapper that sleeps 10 ms and counts one round trip per
             `read` and `send`; it has no batch methods, like a hub written for an older jiayu;
  batch      the same, with `read_many` and `send_many` (one round trip each, whatever the
             number of devices);
  HA         HomeAssistantHub against the loopback fake of HA's WebSocket API, which answers
             each message 10 ms after it arrives (messages in flight together overlap, as on a
             network). Its round trips are the messages the hub sent during the turn; its reads
             come from the state_changed subscription and cost none.
Each hub runs under the blocking API (`engine.turn`) and asyncio (`await engine.handle`, then
`await handled.result`; the wrappers have an asyncio twin that awaits its 10 ms). Only the public
engine API is used. The home is 32 lights in five rooms, half of them on, and in a sixth room
(卧室) an air conditioner, with a TV and a thermometer in the living room; before each timed
turn an untimed one puts the home back (打开所有的灯 before 关掉所有的灯, 关掉客厅灯 before
打开客厅灯), so every run sends the same commands.

Columns: calls (hub calls, or HA messages, per turn), rounds (the round trips the turn waits
for: its calls; on HA its median wall time in round trips, since messages sent together
overlap). Targets the engine is held to on the batch hubs and HA: ≤ 2 round trips for both
whole-home turns, a conditional (one read, one send) and three clauses to three devices (one
send), one call_service for 关掉所有的灯 on HA. Wall times are medians and nearest-rank p99
over the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # the fake Home Assistant

from fake_ha import FakeHomeAssistant, ha_state  # noqa: E402

from jiayu.engine import Engine  # noqa: E402
from jiayu.executor.hubs import SimulatedHub  # noqa: E402
from jiayu.executor.hubs.base import Reads, Sends  # noqa: E402
from jiayu.executor.hubs.homeassistant import HomeAssistantHub  # noqa: E402
from jiayu.home import Home, parse_home  # noqa: E402
from jiayu.ir import Command  # noqa: E402
from jiayu.replay import nearest_rank  # noqa: E402

ROUND_TRIP = 0.010
"""Seconds per round trip, for every hub."""

ROOMS = (
    ("living", "客厅"),
    ("master", "主卧"),
    ("second", "次卧"),
    ("study", "书房"),
    ("dining", "餐厅"),
)
KINDS = ("灯", "灯带", "筒灯", "射灯", "台灯", "壁灯", "落地灯")
LIGHTS_PER_ROOM = (7, 6, 6, 6, 7)  # 32 lights

Plan = tuple[str, str | None, int | None]
"""What is timed, the untimed turn that puts the home back before it, and the most round trips
it may take (None: no target)."""

TURNS: tuple[Plan, ...] = (
    ("哪些灯开着", None, 2),
    ("关掉所有的灯", "打开所有的灯", 2),
    ("打开客厅灯", "关掉客厅灯", None),
    ("如果客厅温度超过20度就打开卧室空调", "关闭卧室空调", 2),
    (
        "关客厅灯，打开卧室空调，再把电视音量调到20",
        "打开客厅灯，关闭卧室空调，再把电视音量调到10",
        2,
    ),
)
ALL_OFF_CALLS = 1
"""The call_service messages 关掉所有的灯 may take on HA: its 32 commands are one service call."""


OTHERS: dict[str, dict[str, Any]] = {
    "ac": {"on": False, "target_temperature": 24},
    "tv": {"on": True, "volume": 10},
    "sensor": {"temperature": 26},
}
"""The state of the devices that are not lights."""
CAPABILITIES = {
    "Light": ["onoff", "brightness"],
    "AirConditioner": ["onoff", "target_temperature"],
    "Television": ["onoff", "volume"],
    "Sensor": ["temperature_sensor"],
}


def _device(
    device_id: str, name: str, room: str, kind: str, state: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": device_id,
        "name": name,
        "room": room,
        "type": kind,
        "capabilities": CAPABILITIES[kind],
        "state": state,
    }


def build_home() -> Home:
    """32 lights in five rooms (客厅灯, 客厅灯带 ...), every other one on; a bedroom air
    conditioner, a living-room TV and thermometer."""
    devices: list[dict[str, Any]] = []
    for (room, name), count in zip(ROOMS, LIGHTS_PER_ROOM, strict=True):
        for n in range(count):
            state = {"on": len(devices) % 2 == 1, "brightness": 50}
            devices.append(_device(f"light.{room}_{n}", name + KINDS[n], room, "Light", state))
    devices += [
        _device("climate.bedroom", "卧室空调", "bedroom", "AirConditioner", OTHERS["ac"]),
        _device("media_player.living_tv", "客厅电视", "living", "Television", OTHERS["tv"]),
        _device("sensor.living_temperature", "客厅温度计", "living", "Sensor", OTHERS["sensor"]),
    ]
    rooms = [{"id": room, "name": name} for room, name in (*ROOMS, ("bedroom", "卧室"))]
    home = {"version": 1, "name": "基准之家", "rooms": rooms, "devices": devices}
    return parse_home(home, "roundtrips home")


# --- the 10 ms hubs ----------------------------------------------------------------------


class Trips:
    """A thread-safe count of round trips."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self) -> None:
        with self._lock:
            self.count += 1

    def get(self) -> int:
        return self.count


class SerialHub:
    """A blocking hub of 10 ms per call, without batch methods."""

    def __init__(self, home: Home) -> None:
        self.inner = SimulatedHub(home)
        self.trips = Trips()

    def _trip(self) -> None:
        self.trips.add()
        time.sleep(ROUND_TRIP)

    def read(self, device_id: str) -> Mapping[str, Any]:
        self._trip()
        return self.inner.read(device_id)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        self._trip()
        self.inner.send(device_id, command, params)


class BatchHub(SerialHub):
    """`SerialHub` with read_many/send_many, one round trip each."""

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        self._trip()
        return self.inner.read_many(device_ids)

    def send_many(self, commands: Sequence[Command]) -> Sends:
        self._trip()
        return self.inner.send_many(commands)


class AsyncSerialHub:
    """The asyncio twin of `SerialHub`: the 10 ms are awaited."""

    def __init__(self, home: Home) -> None:
        self.inner = SimulatedHub(home)
        self.trips = Trips()

    async def _trip(self) -> None:
        self.trips.add()
        await asyncio.sleep(ROUND_TRIP)

    async def read(self, device_id: str) -> Mapping[str, Any]:
        await self._trip()
        return self.inner.read(device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await self._trip()
        self.inner.send(device_id, command, params)


class AsyncBatchHub(AsyncSerialHub):
    """The asyncio twin of `BatchHub`."""

    async def read_many(self, device_ids: Sequence[str]) -> Reads:
        await self._trip()
        return self.inner.read_many(device_ids)

    async def send_many(self, commands: Sequence[Command]) -> Sends:
        await self._trip()
        return self.inner.send_many(commands)


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Row:
    """One turn on one hub under one API."""

    hub: str
    api: str
    text: str
    trips: list[int]
    calls: list[int] | None
    """call_service messages per run (HA only)."""
    ms: list[float]
    outcome: str
    most_trips: int | None
    most_calls: int | None

    def rounds(self) -> int:
        """Round trips the turn waited for: its hub calls, but on HA, whose messages in flight
        together overlap, its median wall time in round trips (rounded down)."""
        if self.calls is None:
            return max(self.trips)
        return int(statistics.median(self.ms) // (ROUND_TRIP * 1000))

    def line(self) -> str:
        calls = "-" if self.calls is None else _spread(self.calls)
        targets = []
        if self.most_trips is not None:
            targets.append(f"round trips ≤ {self.most_trips}")
        if self.most_calls is not None:
            targets.append(f"call_service ≤ {self.most_calls}")
        missed = (self.most_trips is not None and self.rounds() > self.most_trips) or (
            self.most_calls is not None and max(self.calls or [0]) > self.most_calls
        )
        status = ", ".join(targets) + (" MISSED" if missed else " met") if targets else ""
        return (
            f"{self.hub:<7}{self.api:<8}{_spread(self.trips):>6}{self.rounds():>7}"
            f"{calls:>14}{statistics.median(self.ms):>9.1f}{nearest_rank(self.ms, 0.99):>9.1f}"
            f"  {self.outcome:<9}{status}  {self.text}"
        ).rstrip()


HEADER = (
    f"{'hub':<7}{'api':<8}{'calls':>6}{'rounds':>7}{'call_service':>14}{'median':>9}{'p99':>9}"
    f"  {'outcome':<9}target  turn"
)


def _spread(values: list[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}-{high}"


@dataclass
class Counter:
    """How to read a hub's round trips (and, for HA, its call_service messages) so far."""

    trips: Callable[[], int]
    calls: Callable[[], int] | None = None


Turn = Callable[[str], Awaitable[str]]
"""One turn through the engine, to its outcome once every command has been tried."""


async def measure(
    hub_name: str, api: str, turn: Turn, counter: Counter, plan: Plan, runs: int
) -> Row:
    text, prepare, most_trips = plan
    if hub_name == "serial":
        most_trips = None  # a hub without batch methods takes a call per device: no target
    trips: list[int] = []
    calls: list[int] = []
    ms: list[float] = []
    outcome = ""
    count_calls = counter.calls or (lambda: 0)
    for _ in range(runs):
        if prepare is not None:
            await turn(prepare)
        trips_before, calls_before = counter.trips(), count_calls()
        started = time.perf_counter()
        outcome = await turn(text)
        ms.append((time.perf_counter() - started) * 1000)
        trips.append(counter.trips() - trips_before)
        calls.append(count_calls() - calls_before)
    if counter.calls is None:
        return Row(hub_name, api, text, trips, None, ms, outcome, most_trips, None)
    most_calls = ALL_OFF_CALLS if text == "关掉所有的灯" else None
    return Row(hub_name, api, text, trips, calls, ms, outcome, most_trips, most_calls)


def blocking(engine: Engine) -> Turn:
    """`engine.turn`, the blocking API (called from the benchmark's loop, which waits on it)."""

    async def turn(text: str) -> str:
        return engine.turn(text).outcome

    return turn


def awaited(engine: Engine) -> Turn:
    """`engine.handle`, then its result: the asyncio API."""

    async def turn(text: str) -> str:
        handled = await engine.handle(text)
        return (await handled.result).outcome

    return turn


@contextmanager
def home_assistant(home: Home) -> Iterator[tuple[FakeHomeAssistant, HomeAssistantHub]]:
    """The fake HA holding the home's lights, 10 ms per message, and a hub connected to it."""
    with FakeHomeAssistant(latency=ROUND_TRIP) as fake:
        for device in home.devices:
            if device.type == "Light":
                on = "on" if device.state.get("on") else "off"
                fake.add(ha_state(device.id, on, brightness=128))
        fake.add(ha_state("climate.bedroom", "off", hvac_modes=["off", "cool"], temperature=24))
        fake.add(ha_state("media_player.living_tv", "on", volume_level=0.1))
        fake.add(
            ha_state(
                "sensor.living_temperature",
                "26",
                device_class="temperature",
                unit_of_measurement="°C",
            )
        )
        with HomeAssistantHub(fake.url, fake.token) as hub:
            hub.connect()
            yield fake, hub


async def run(runs: int) -> list[Row]:
    home = build_home()
    rows: list[Row] = []

    async def each_turn(hub_name: str, api: str, turn: Turn, counter: Counter) -> None:
        for plan in TURNS:
            rows.append(await measure(hub_name, api, turn, counter, plan, runs))

    simulated: list[tuple[str, str, SerialHub | AsyncSerialHub, Callable[[Engine], Turn]]] = [
        ("serial", "sync", SerialHub(home), blocking),
        ("batch", "sync", BatchHub(home), blocking),
        ("serial", "asyncio", AsyncSerialHub(home), awaited),
        ("batch", "asyncio", AsyncBatchHub(home), awaited),
    ]
    for name, api, hub, how in simulated:
        await each_turn(name, api, how(Engine(home, hub=hub)), Counter(hub.trips.get))
    with home_assistant(home) as (fake, ha):
        counter = Counter(lambda: len(fake.messages), lambda: len(fake.calls))
        await each_turn("HA", "sync", blocking(Engine(home, hub=ha)), counter)
        await each_turn("HA", "asyncio", awaited(Engine(home, hub=ha)), counter)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per row (default 20)")
    args = parser.parse_args(argv)
    rows = asyncio.run(run(args.runs))
    lights = sum(d.type == "Light" for d in build_home().devices)
    print(
        f"{lights} lights and 3 other devices, {ROUND_TRIP * 1000:.0f} ms per round trip,"
        f" {args.runs} runs per row"
    )
    print(HEADER)
    for row in rows:
        print(row.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
