"""Benchmark each stage of jiayu: medians and p99 against the performance targets.

    uv run python benchmarks/bench.py            # a table
    uv run python benchmarks/bench.py --json     # one JSON object per stage, one per line

Stages:
  compile        compile_text (normalise + lex + parse + IR) over every corpus text and history
                 text, on the corpus's own home (the demo home);
  resolve        Resolver.resolve for every clause of every parsed corpus text (demo home), and
                 for clauses of utterances built from a generated 10,000-device home's names;
  turn           Engine.turn on a fresh engine and hub per corpus case (history run untimed first);
  lexicon build  Lexicon(home) for a generated 1,000-device home;
  name index     NameIndex(home) for a generated 10,000-device home.

Timings use time.perf_counter_ns around one call, after a warm-up, interleaving the inputs
round-robin for a time budget per stage; p99 is nearest-rank over all pooled samples. The
garbage collector stays on, as in production, so p99 includes its pauses. Not a test: it
only reports (exit status 0 either way, unless --strict).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import statistics
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from homegen import generate_home  # noqa: E402

from jiayu.cases import Case, load_cases  # noqa: E402
from jiayu.compiler import Lexicon, compile_text  # noqa: E402
from jiayu.engine import Engine  # noqa: E402
from jiayu.executor.hubs import SimulatedHub  # noqa: E402
from jiayu.home import Home, load_home, parse_home  # noqa: E402
from jiayu.ir import Clause, Parse  # noqa: E402
from jiayu.resolver.names import NameIndex  # noqa: E402
from jiayu.resolver.session import Session  # noqa: E402

DEMO_HOME = ROOT / "corpus" / "homes" / "demo.json"
CORPUS = sorted((ROOT / "corpus").glob("*.jsonl"))


# --- measuring ----------------------------------------------------------------------------


@dataclass
class Row:
    stage: str
    unit: str  # "us" or "ms"
    samples: list[float] = field(default_factory=list)  # in `unit`
    targets: dict[str, float] = field(default_factory=dict)  # "median"/"p99" -> limit in `unit`
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p99(self) -> float:
        ordered = sorted(self.samples)
        return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]

    def missed(self) -> list[str]:
        values = {"median": self.median, "p99": self.p99}
        return [k for k, limit in self.targets.items() if values[k] > limit]

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "unit": self.unit,
            "n": len(self.samples),
            "median": round(self.median, 3),
            "p99": round(self.p99, 3),
            "max": round(max(self.samples), 3),
            "targets": self.targets,
            "missed": self.missed(),
            "note": self.note,
        }


def sample(
    items: Sequence[Any],
    call: Callable[[Any], Any],
    *,
    budget: float,
    warmup: int = 20,
    min_rounds: int = 30,
    max_rounds: int = 5000,
    prepare: Callable[[Any], Any] | None = None,
) -> tuple[list[float], dict[int, list[float]]]:
    """Time `call(arg)` in µs, round-robin over `items` (arg = prepare(item) if given, made
    outside the timing), for about `budget` seconds; (pooled samples, samples by item index)."""
    ns = time.perf_counter_ns
    for _ in range(warmup):
        for item in items:
            call(prepare(item) if prepare else item)
    gc.collect()
    by_item: dict[int, list[float]] = {i: [] for i in range(len(items))}
    pooled: list[float] = []
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < max_rounds and (rounds < min_rounds or time.perf_counter() < deadline):
        for i, item in enumerate(items):
            arg = prepare(item) if prepare else item
            t0 = ns()
            call(arg)
            t1 = ns()
            micros = (t1 - t0) / 1000
            pooled.append(micros)
            by_item[i].append(micros)
        rounds += 1
    return pooled, by_item


def build_times(make: Callable[[], Any], repeats: int) -> list[float]:
    """Wall time of `make()` in ms, `repeats` times after one warm-up build."""
    make()
    out = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter_ns()
        make()
        out.append((time.perf_counter_ns() - t0) / 1e6)
    return out


# --- inputs -------------------------------------------------------------------------------


def corpus_cases() -> list[Case]:
    cases: list[Case] = []
    for path in CORPUS:
        cases.extend(load_cases(path))
    return cases


_ENGINES: dict[Path, Engine] = {}


def engine_for(home: Path) -> Engine:
    if home not in _ENGINES:
        _ENGINES[home] = Engine(load_home(home))
    return _ENGINES[home]


def session_after(engine: Engine, history: Sequence[str], case: Case | None = None) -> Session:
    """A session that has lived through `history` (on a throwaway hub)."""
    state = case.state if case is not None else None
    scratch = engine.fresh(hub=SimulatedHub(engine.home, state))
    for text in history:
        scratch.turn(text, "bench")
    return scratch.session("bench")


def generated_utterances(home: Home, count: int, seed: int = 1) -> list[tuple[str, str]]:
    """(pattern, text) built from a generated home's names, the way people say them.

    Rooms are picked among those that have the device spoken of, so most texts resolve to
    devices (Found); "打开台灯" is ambiguous on purpose (Ask), and the exclusion is the
    largest set a home has."""
    r = random.Random(seed)
    floors = list(home.floors)
    switchable = [d for d in home.devices if "onoff" in d.capabilities]
    with_alias = [d for d in switchable if d.aliases]

    def rooms_with(kind: str) -> list[str]:
        return sorted({home.room(d.room).name for d in home.devices if d.serves_as(kind)})

    lit, plugged, cooled, covered = (
        rooms_with(k) for k in ("Light", "SmartPlug", "AirConditioner", "Blind")
    )
    sensed = sorted(
        {home.room(d.room).name for d in home.devices if "temperature_sensor" in d.capabilities}
    )
    rooms = [room.name for room in home.rooms]
    patterns: list[tuple[str, Callable[[], str]]] = [
        ("打开<device>", lambda: f"打开{r.choice(switchable).name}"),
        ("关掉<room>的灯", lambda: f"关掉{r.choice(lit)}的灯"),
        ("所有<room>的插座关掉", lambda: f"所有{r.choice(plugged)}的插座关掉"),
        ("把<room>的空调调到26度", lambda: f"把{r.choice(cooled)}的空调调到26度"),
        ("<room>的窗帘打开", lambda: f"{r.choice(covered)}的窗帘打开"),
        ("关闭<alias>", lambda: f"关闭{r.choice(r.choice(with_alias).aliases)}"),
        ("<room>温度多少", lambda: f"{r.choice(sensed)}温度多少"),
        ("打开<floor>的灯", lambda: f"打开{r.choice(floors).name}的灯"),
        ("打开台灯 (ambiguous)", lambda: "打开台灯"),
        ("关闭除<room>以外所有的灯", lambda: f"关闭除{r.choice(rooms)}以外所有的灯"),
    ]
    per = max(1, count // len(patterns))
    return [(name, make()) for name, make in patterns for _ in range(per)]


# --- the run ------------------------------------------------------------------------------


def run(budget: float, log: Callable[[str], None]) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    details: list[str] = []
    t_start = time.perf_counter()

    every = corpus_cases()
    cases = [c for c in every if c.home == DEMO_HOME.resolve()]
    skipped = len(every) - len(cases)
    log(
        f"{len(cases)} demo-home corpus cases from {len(CORPUS)} file(s)"
        + (f" ({skipped} on other homes skipped)" if skipped else "")
    )

    # compile --------------------------------------------------------------------------------
    texts: list[tuple[Engine, str]] = []
    seen: set[tuple[Path, str]] = set()
    for case in cases:
        for text in (*case.history, case.text):
            if (case.home, text) not in seen:
                seen.add((case.home, text))
                texts.append((engine_for(case.home), text))
    pooled, by_item = sample(texts, lambda et: compile_text(et[1], et[0].lexicon), budget=budget)
    rows.append(
        Row(
            "compile (demo)",
            "us",
            pooled,
            {"median": 80, "p99": 400},
            f"{len(texts)} texts",
        )
    )
    slowest = sorted(by_item, key=lambda i: -statistics.median(by_item[i]))[:5]
    details.append(
        "slowest compile texts (median µs): "
        + ", ".join(f"{texts[i][1]} {statistics.median(by_item[i]):.0f}" for i in slowest)
    )

    # resolve on the demo home -----------------------------------------------------------------
    jobs: list[tuple[Engine, Clause, Session]] = []
    for case in cases:
        engine = engine_for(case.home)
        compiled = compile_text(case.text, engine.lexicon)
        if not isinstance(compiled, Parse):
            continue
        session = session_after(engine, case.history, case)
        for clause in compiled.clauses:
            if clause.action in ("scene", "repeat", "confirm", "cancel", "select"):
                continue  # the engine does not resolve these
            jobs.append((engine, clause, session))
    pooled, _ = sample(jobs, lambda j: j[0].resolver.resolve(j[1], j[2]), budget=budget / 2)
    rows.append(Row("resolve (demo)", "us", pooled, {"median": 100}, f"{len(jobs)} clauses"))

    # turn on the demo home ---------------------------------------------------------------------
    def fresh_for(case: Case) -> tuple[Engine, Case]:
        engine = engine_for(case.home).fresh(
            hub=SimulatedHub(engine_for(case.home).home, case.state)
        )
        for text in case.history:
            engine.turn(text, case.id)
        return engine, case

    pooled, _ = sample(
        cases,
        lambda ec: ec[0].turn(ec[1].text, ec[1].id),
        budget=budget,
        warmup=5,
        prepare=fresh_for,
    )
    rows.append(
        Row("turn (demo)", "us", pooled, {"median": 300, "p99": 1000}, f"{len(cases)} cases")
    )
    log(f"demo stages done in {time.perf_counter() - t_start:.1f}s")

    # lexicon build, 1,000 devices --------------------------------------------------------------
    home_1k = parse_home(generate_home(1000), "generated-1000")
    rows.append(
        Row(
            "lexicon build (1,000 dev)",
            "ms",
            build_times(lambda: Lexicon(home_1k), 9),
            {"median": 200},
            f"{len(home_1k.devices)} devices, {len(home_1k.rooms)} rooms",
        )
    )

    # 10,000 devices ----------------------------------------------------------------------------
    t0 = time.perf_counter()
    data_10k = generate_home(10_000)
    t1 = time.perf_counter()
    home_10k = parse_home(data_10k, "generated-10000")
    t2 = time.perf_counter()
    big = Engine(home_10k)
    t3 = time.perf_counter()
    details.append(
        f"10,000-device home: generate {1000 * (t1 - t0):.0f} ms, parse_home "
        f"{1000 * (t2 - t1):.0f} ms, Engine() (lexicon + name index) {1000 * (t3 - t2):.0f} ms"
    )
    log(f"10k home ready in {t3 - t0:.1f}s")
    rows.append(
        Row(
            "name index build (10,000 dev)",
            "ms",
            build_times(lambda: NameIndex(home_10k), 3),
            {"median": 2000},
            f"{len(home_10k.devices)} devices",
        )
    )

    utterances = generated_utterances(home_10k, 200)
    big_texts = [t for _, t in utterances]
    pooled, _ = sample(
        big_texts, lambda t: compile_text(t, big.lexicon), budget=budget / 3, min_rounds=10
    )
    rows.append(Row("compile (10,000 dev)", "us", pooled, {}, f"{len(big_texts)} texts, info"))

    big_jobs: list[tuple[str, Clause]] = []
    unparsed = 0
    for pattern, text in utterances:
        compiled = compile_text(text, big.lexicon)
        if not isinstance(compiled, Parse):
            unparsed += 1
            continue
        big_jobs.extend((pattern, c) for c in compiled.clauses)
    session = Session("bench")
    pooled, by_item = sample(
        big_jobs,
        lambda j: big.resolver.resolve(j[1], session),
        budget=budget,
        warmup=3,
        min_rounds=10,
    )
    rows.append(
        Row(
            "resolve (10,000 dev)",
            "us",
            pooled,
            {"median": 2000},
            f"{len(big_jobs)} clauses" + (f", {unparsed} texts did not parse" if unparsed else ""),
        )
    )
    by_pattern: dict[str, list[float]] = {}
    outcomes: dict[str, Counter[str]] = {}
    for i, (pattern, clause) in enumerate(big_jobs):
        by_pattern.setdefault(pattern, []).extend(by_item[i])
        found = type(big.resolver.resolve(clause, session)).__name__
        outcomes.setdefault(pattern, Counter())[found] += 1
    details.append("resolve (10,000 dev) by utterance pattern: median / p99 µs, resolutions")
    for pattern, values in by_pattern.items():
        r = Row(pattern, "us", values)
        got = " ".join(f"{k}={v}" for k, v in sorted(outcomes[pattern].items()))
        details.append(f"  {_pad(pattern, 28)} {r.median:>9.1f} {r.p99:>10.1f}  {got}")

    details.append(f"total benchmark time {time.perf_counter() - t_start:.1f}s")
    return rows, details


def _pad(text: str, width: int) -> str:
    """Left-justify for a terminal, where CJK characters take two columns."""
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


def table(rows: Sequence[Row]) -> str:
    head = f"{'stage':<30} {'n':>7} {'median':>11} {'p99':>11}  {'target':<26} status"
    lines = [head, "-" * len(head)]
    for row in rows:
        u = "µs" if row.unit == "us" else "ms"
        target = ", ".join(f"{k} <= {v:g} {u}" for k, v in row.targets.items()) or "-"
        missed = row.missed()
        status = "MISS " + "+".join(missed) if missed else ("ok" if row.targets else "info")
        lines.append(
            f"{row.stage:<30} {len(row.samples):>7} {row.median:>8.1f} {u} {row.p99:>8.1f} {u}"
            f"  {target:<26} {status}"
        )
    for row in rows:
        if row.note:
            lines.append(f"  {row.stage}: {row.note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per stage")
    parser.add_argument(
        "--budget", type=float, default=3.0, help="seconds of sampling per timed stage"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    rows, details = run(args.budget, log)
    if args.json:
        for row in rows:
            print(json.dumps(row.to_json(), ensure_ascii=False))
    else:
        print(table(rows))
        print()
        print("\n".join(details))
    missed = [row.stage for row in rows if row.missed()]
    if missed and not args.json:
        print(
            "\nmissed: "
            + "; ".join(f"{r.stage} ({'+'.join(r.missed())})" for r in rows if r.missed())
        )
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
