"""Scaling with home size: load (schema validation included), engine build, compile,
resolve, a whole single-device turn and the worst kinds of turn, on generated homes."""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from homegen import generate_home
from measure import Row, build_times, sample

from jiayu.compiler import compile_text
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, load_home
from jiayu.ir import Clause, Parse
from jiayu.replay import nearest_rank
from jiayu.resolver.session import Session

# Goals for the 10,000- and 100,000-device homes (ms unless said).
TARGETS: dict[int, dict[str, dict[str, float]]] = {
    10_000: {
        "load": {"median": 500},
        "engine build": {"median": 300},
        "turn 打开<device>": {"p99": 300},  # µs: any single-device turn
        "turn 关掉<room>的灯": {"p99": 300},
        "turn <room>温度多少": {"p99": 300},
        "turn 打开所有的灯": {"median": 60_000},  # µs
    },
    100_000: {"load": {"median": 5000}},
}


def settle(engine: Engine) -> float:
    """Answer one turn, then wait for the engine's background pinyin build (started once
    its first turn is answered); the seconds waited. Benchmarks settle every engine first
    so that the build never steals the CPU from the stages measured next."""
    engine.turn("打开客厅灯", "bench-settle")
    t0 = time.perf_counter()
    for thread in threading.enumerate():
        if thread.name == "jiayu-pinyin":
            thread.join()
    return time.perf_counter() - t0


def load_home_of(devices: int) -> Home:
    """A generated home of `devices` devices, through a file as a hub would load it."""
    with tempfile.TemporaryDirectory(prefix="jiayu-bench-") as folder:
        path = Path(folder) / "home.json"
        path.write_text(json.dumps(generate_home(devices), ensure_ascii=False), "utf-8")
        return load_home(path)


def patterns(home: Home, seed: int = 1) -> list[tuple[str, Callable[[], str]]]:
    """The kinds of utterance measured at every size, each a maker of texts from the home's
    own names: single devices, room lookups, and the worst sets."""
    r = random.Random(seed)
    switchable = [d for d in home.devices if "onoff" in d.capabilities]

    def rooms_with(kind: str) -> list[str]:
        return sorted({home.room(d.room).name for d in home.devices if d.serves_as(kind)})

    lit = rooms_with("Light")
    sensed = sorted(
        {home.room(d.room).name for d in home.devices if "temperature_sensor" in d.capabilities}
    )
    rooms = [room.name for room in home.rooms]
    return [
        ("打开<device>", lambda: f"打开{r.choice(switchable).name}"),
        ("关掉<room>的灯", lambda: f"关掉{r.choice(lit)}的灯"),
        ("<room>温度多少", lambda: f"{r.choice(sensed)}温度多少"),
        ("关闭除<room>以外所有的灯", lambda: f"关闭除{r.choice(rooms)}以外所有的灯"),
        ("打开所有的灯", lambda: "打开所有的灯"),
    ]


def measure_size(devices: int, budget: float, log: Callable[[str], None]) -> list[Row]:
    """Every scaling row for one generated home of `devices` devices."""
    section = f"home of {devices:,} devices"
    targets = TARGETS.get(devices, {})
    rows: list[Row] = []
    repeats = 5 if devices <= 1000 else 2 if devices <= 10_000 else 1
    with tempfile.TemporaryDirectory(prefix="jiayu-bench-") as folder:
        path = Path(folder) / "home.json"
        path.write_text(json.dumps(generate_home(devices), ensure_ascii=False), "utf-8")
        size_mb = path.stat().st_size / 2**20
        rows.append(
            Row(
                "load",
                "ms",
                build_times(lambda: load_home(path), repeats, warm=devices <= 10_000),
                targets.get("load", {}),
                f"load_home of a {size_mb:.1f} MB file: read, JSON, schema check, model",
            )
        )
        home = load_home(path)
    engine_times: list[float] = []
    pinyin: list[float] = []
    engine: Engine | None = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        engine = Engine(home)
        engine_times.append(1000 * (time.perf_counter() - t0))
        pinyin.append(1000 * settle(engine))
    assert engine is not None
    rows.append(
        Row(
            "engine build",
            "ms",
            engine_times,
            targets.get("engine build", {}),
            "Engine(home): lexicon + name index; the pinyin data builds in a background "
            f"thread after the first turn (~{max(pinyin):.0f} ms more, waited for)",
        )
    )
    log(f"  {devices:,}: home loaded and engine built")

    made = [(name, [make() for _ in range(20)]) for name, make in patterns(home)]
    texts = [t for _, ts in made for t in ts]
    pooled, _ = sample(
        texts,
        lambda t: compile_text(t, engine.lexicon),
        budget=budget / 3,
        warmup=2,
        min_rounds=3,
    )
    rows.append(Row("compile", "us", pooled, {}, f"{len(texts)} texts of the kinds below"))

    session = Session("bench")
    clauses: list[Clause] = []
    for text in texts:
        compiled = compile_text(text, engine.lexicon)
        if isinstance(compiled, Parse):
            clauses.extend(compiled.clauses)
    pooled, _ = sample(
        clauses,
        lambda c: engine.resolver.resolve(c, session),
        budget=budget / 3,
        warmup=2,
        min_rounds=3,
    )
    rows.append(Row("resolve", "us", pooled, {}, f"{len(clauses)} clauses"))

    # Each turn in a session of its own: a question left pending must not swallow the next.
    ids = (f"s{i}" for i in itertools.count())
    for name, ts in made:
        heavy = "所有" in name
        pooled, _ = sample(
            ts[:5] if heavy else ts,
            lambda t: engine.turn(t, next(ids)),
            budget=budget / 3,
            warmup=1,
            min_rounds=2 if heavy else 5,
            max_rounds=50 if heavy else 5000,
        )
        outcomes = sorted({engine.turn(t, next(ids)).outcome for t in ts[:3]})
        rows.append(
            Row(
                f"turn {name}",
                "us",
                pooled,
                targets.get(f"turn {name}", {}),
                "outcomes " + ",".join(outcomes),
            )
        )
    rows.append(whole_home(engine))
    for row in rows:
        row.section = section
    return rows


WHOLE_HOME = "打开所有的灯"
RUNS = 7
TURNS_PER_RUN = 5


def whole_home(engine: Engine) -> Row:
    """The whole-home turn as its goal is held: the median of RUNS runs (each the median of
    TURNS_PER_RUN turns, each in a fresh session), and the p99 of every turn timed."""
    ids = (f"whole{i}" for i in itertools.count())
    engine.turn(WHOLE_HOME, next(ids))  # warm-up
    runs: list[float] = []
    turns: list[float] = []
    for _ in range(RUNS):
        times = []
        for _ in range(TURNS_PER_RUN):
            t0 = time.perf_counter_ns()
            engine.turn(WHOLE_HOME, next(ids))
            times.append((time.perf_counter_ns() - t0) / 1000)
        runs.append(statistics.median(times))
        turns += times
    row = Row(f"whole home: {WHOLE_HOME}, {RUNS} runs", "us", runs, {"median": 60_000})
    row.note = (
        f"median of {RUNS} run medians; p99 of all {len(turns)} turns "
        f"{nearest_rank(turns, 0.99) / 1000:.1f} ms, max {max(turns) / 1000:.1f} ms"
    )
    return row


GROWTH_SIZES = (1_000, 10_000, 50_000)
GROWTH_TURNS = ("哪些灯开着", "打开所有的灯", "打开<device>")
GROWTH_LIMITS = {"哪些灯开着": (150.0, 1.1)}
"""Per turn: the most milliseconds at 50,000 devices and the largest growth exponent."""


def growth(sizes: tuple[int, ...] = GROWTH_SIZES, runs: int = 9) -> list[str]:
    """The fastest of `runs` turns of each growth turn at each home size, and how it grows:
    the exponent k of time ∝ devices^k between neighbouring sizes (1 is linear). The fastest,
    not the median: on a shared machine other work only ever adds time, and a median of a few
    turns moved the exponent by ±0.3 from run to run; the medians are printed beside.

    Time is not work: past a few thousand devices a home no longer fits the CPU's caches, and
    each device costs more to touch. So each turn's work is counted too (the bytecodes it runs,
    exactly, the same run after run), and a floor row times the least a per-device answer
    does (one attribute of each light's hub state read): its exponent is what this machine
    adds to any linear turn. A goal's exponent is held on the work."""
    best: dict[str, list[float]] = {turn: [] for turn in GROWTH_TURNS}
    medians: dict[str, list[float]] = {turn: [] for turn in GROWTH_TURNS}
    work: dict[str, list[float]] = {turn: [] for turn in GROWTH_TURNS}
    floor: list[float] = []
    for size in sizes:
        engine = Engine(load_home_of(size))
        settle(engine)
        named = next(d.name for d in engine.home.devices if "onoff" in d.capabilities)
        ids = (f"g{i}" for i in itertools.count())
        for turn in GROWTH_TURNS:
            text = turn.replace("<device>", named)
            engine.turn(text, next(ids))  # warm-up
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                engine.turn(text, next(ids))
                times.append(1000 * (time.perf_counter() - t0))
            best[turn].append(min(times))
            medians[turn].append(statistics.median(times))
            work[turn].append(bytecodes(engine.turn, text, next(ids)))
        floor.append(_floor(engine, runs))
    lines = [f"fastest of {runs} turns (median); work: bytecodes a turn runs"]
    lines.append("turn" + "".join(f"{size:>20,}" for size in sizes) + "   exponents")
    for turn, ms in best.items():
        line = f"{turn:<10}" + "".join(
            f"{m:>10.2f}ms ({median:>.1f})" for m, median in zip(ms, medians[turn], strict=True)
        )
        line += "   " + "  ".join(f"{k:.2f}" for k in exponents(sizes, ms))
        lines.append(line)
        counted = exponents(sizes, work[turn])
        line = "  work    " + "".join(f"{w:>20,.0f}" for w in work[turn])
        line += "   " + "  ".join(f"{k:.2f}" for k in counted)
        limit = GROWTH_LIMITS.get(turn)
        if limit is not None:
            met = ms[-1] <= limit[0] and counted[-1] <= limit[1]
            line += f"   (≤ {limit[0]:.0f} ms, work ≤ {limit[1]}: {'met' if met else 'MISSED'})"
        lines.append(line)
    line = "floor     " + "".join(f"{m:>10.2f}ms{'':8}" for m in floor)
    line += "   " + "  ".join(f"{k:.2f}" for k in exponents(sizes, floor))
    lines.append(line + "   (one attribute of each light's state read: this machine's share)")
    return lines


def exponents(sizes: tuple[int, ...], values: list[float]) -> list[float]:
    """The exponent k of value ∝ size^k between neighbouring sizes."""
    return [
        math.log(b / a) / math.log(y / x)
        for (x, a), (y, b) in itertools.pairwise(zip(sizes, values, strict=True))
    ]


def bytecodes(call: Callable[..., object], *args: object) -> float:
    """The bytecodes `call(*args)` runs (sys.settrace's opcode events): work, counted exactly."""
    count = 0

    def tracer(frame: Any, event: str, arg: object) -> Any:
        nonlocal count
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call(*args)
    finally:
        sys.settrace(None)
    return float(count)


def _floor(engine: Engine, runs: int) -> float:
    """The fastest of `runs` loops that read one attribute of each light's state from the
    simulated hub: the least a per-device answer to 哪些灯开着 does, in ms."""
    lights = [d.id for d in engine.home.devices if d.serves_as("Light")]
    hub = engine.hub
    assert isinstance(hub, SimulatedHub)
    states = hub.read_many(lights)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        [states[device].get("on") for device in lights]
        times.append(1000 * (time.perf_counter() - t0))
    return min(times)


if __name__ == "__main__":
    # python benchmarks/scaling.py [DEVICES]: the whole-home turn on one generated home.
    # python benchmarks/scaling.py --growth: three turns at 1,000, 10,000 and 50,000 devices.
    import sys

    if sys.argv[1:] == ["--growth"]:
        print("\n".join(growth()))
        sys.exit(0)
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    engine = Engine(load_home_of(size))
    settle(engine)
    measured = whole_home(engine)
    print(f"{size:,} devices: {measured.stage}: median {measured.median / 1000:.1f} ms")
    print(f"  {measured.note}")
