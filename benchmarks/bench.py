"""Benchmark jiayu like a product: medians, p99 and p99.9 against the project's speed goals.

    uv run --group bench python benchmarks/bench.py              # everything, ~5 minutes
    uv run --group bench python benchmarks/bench.py --peer-only  # hassil and cold start only
    uv run --group bench python benchmarks/bench.py --quick      # CI-sized
    uv run --group bench python benchmarks/bench.py --json     # one JSON object per line
    uv run --group bench python benchmarks/bench.py --huge     # also the 100,000-device home

(Without `--group bench`, everything but the hassil side runs.)

Sections:
  demo home      compile, resolve and a whole turn over every corpus text (history included),
                 and each stage of a turn as the engine times it (Result.timings);
  home of N      generated homes of 100 / 1,000 / 10,000 (/ 100,000) devices: load (schema
                 check included), engine build, compile, resolve, whole turns by kind (a single
                 device, room lookups, 所有, exclusions), and a fresh process's peak memory;
  cold start     fresh processes (interpreter start to exit, median of several): import, load
                 the home, first turn; peak resident memory; for jiayu and for hassil, on the
                 demo home and on a generated home (--second-home devices);
  vs hassil      hassil + home-assistant-intents (zh-CN) run as Home Assistant's default agent
                 runs it (hassil_compare.py: the per-sentence name trie filter, areas, floors
                 and aliases as HA passes them), on both homes, on the sentences both
                 understand (switching, set values, media, queries): repeated sentences (in
                 this process, jiayu's compile cache warm) and unseen ones (unseen.py: each
                 timed once per fresh process after a warm-up on other sentences); medians,
                 p99 and the ratios.

Timings are perf_counter_ns around one call after a warm-up, inputs interleaved round-robin;
jiayu's turns rotate through a few sessions (SPEAKERS); p99 is nearest-rank. The GC stays
on, as in production. Numbers from a shared or busy machine are noisy: compare ratios
taken in one run. Not a test: exit status 0 unless --strict.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import coldstart  # noqa: E402
import hassil_compare  # noqa: E402
import scaling  # noqa: E402
import unseen as unseen_mod  # noqa: E402
from homegen import generate_home  # noqa: E402
from measure import Row, pad, sample, table  # noqa: E402

from jiayu.cases import Case, load_cases  # noqa: E402
from jiayu.compiler import compile_text  # noqa: E402
from jiayu.engine import Engine  # noqa: E402
from jiayu.executor.hubs import SimulatedHub  # noqa: E402
from jiayu.home import load_home  # noqa: E402
from jiayu.ir import Clause, Parse  # noqa: E402
from jiayu.replay import STAGES  # noqa: E402
from jiayu.resolver.session import Session  # noqa: E402

DEMO_HOME = ROOT / "corpus" / "homes" / "demo.json"
CORPUS = sorted((ROOT / "corpus").glob("*.jsonl"))
COLD_TEXT = "打开客厅灯"
SECOND_HOME = 200  # devices in the comparison's generated home: a large real home
NO_WORSE = ("<=", 1.0)  # goal: cold start and peak memory no worse than hassil's

Log = Callable[[str], None]


# --- demo home, per stage -------------------------------------------------------------------


def demo_cases() -> list[Case]:
    cases = [case for path in CORPUS for case in load_cases(path)]
    return [c for c in cases if c.home == DEMO_HOME.resolve()]


def demo_rows(engine: Engine, budget: float, log: Log) -> tuple[list[Row], list[str]]:
    cases = demo_cases()
    log(f"{len(cases)} demo-home corpus cases from {len(CORPUS)} file(s)")
    rows: list[Row] = []
    texts = list(dict.fromkeys(t for c in cases for t in (*c.history, c.text)))
    pooled, by_item = sample(
        texts, lambda t: compile_text(t, engine.lexicon), budget=budget, warmup=3, min_rounds=5
    )
    rows.append(Row("compile", "us", pooled, {"median": 50, "p99": 400}, f"{len(texts)} texts"))
    slowest = sorted(by_item, key=lambda i: -statistics.median(by_item[i]))[:5]
    details = [
        "slowest compile texts (median µs): "
        + ", ".join(f"{texts[i]} {statistics.median(by_item[i]):.0f}" for i in slowest)
    ]

    def session_after(case: Case) -> Session:
        scratch = engine.fresh(hub=SimulatedHub(engine.home, case.state))
        for text in case.history:
            scratch.turn(text, "bench", area=case.area)
        return scratch.session("bench")

    jobs: list[tuple[Clause, Session]] = []
    for case in cases:
        compiled = compile_text(case.text, engine.lexicon)
        if not isinstance(compiled, Parse):
            continue
        session = session_after(case)
        for clause in compiled.clauses:
            if clause.action in ("scene", "repeat", "confirm", "cancel", "select"):
                continue  # the engine does not resolve these
            jobs.append((clause, session))
    pooled, _ = sample(
        jobs, lambda j: engine.resolver.resolve(*j), budget=budget / 2, warmup=3, min_rounds=5
    )
    rows.append(Row("resolve", "us", pooled, {"median": 100}, f"{len(jobs)} clauses"))

    def fresh_for(case: Case) -> tuple[Engine, Case]:
        fresh = engine.fresh(hub=SimulatedHub(engine.home, case.state))
        for text in case.history:
            fresh.turn(text, case.id, area=case.area)
        return fresh, case

    timings: dict[str, list[float]] = {stage: [] for stage in STAGES}

    def turn(pair: tuple[Engine, Case]) -> None:
        fresh, case = pair
        for stage, seconds in fresh.turn(case.text, case.id, area=case.area).timings.items():
            timings.setdefault(stage, []).append(1e6 * seconds)

    pooled, _ = sample(cases, turn, budget=budget, warmup=1, min_rounds=2, prepare=fresh_for)
    rows.append(Row("turn", "us", pooled, {"median": 300, "p99": 1000}, f"{len(cases)} cases"))
    for stage, values in timings.items():
        if values:
            rows.append(Row(f"  turn: {stage}", "us", values, {}, "from Result.timings"))
    for row in rows:
        row.section = "demo home, per stage"
    return rows, details


# --- cold start -----------------------------------------------------------------------------


def cold_rows(
    runs: int, with_hassil: bool, log: Log, home: Path = DEMO_HOME, label: str = "demo home"
) -> tuple[list[Row], dict[str, Any]]:
    """Fresh-process start-up and memory; jiayu and hassil alternate so both see the same
    machine. The first run of each is discarded: it fills the OS, bytecode and grammar caches."""
    base_wall, base_rss = coldstart.baseline()
    sides = [("jiayu", coldstart.jiayu_argv(home, COLD_TEXT))]
    if with_hassil:
        sides.append(("hassil", coldstart.hassil_argv(home, COLD_TEXT)))
    walls: dict[str, list[float]] = {name: [] for name, _ in sides}
    reports: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in sides}
    for i in range(runs + 1):
        for name, argv in sides:
            wall, report = coldstart.spawn(argv)
            if i:
                walls[name].append(wall)
                reports[name].append(report)
    _, settled = coldstart.spawn(coldstart.jiayu_argv(home, COLD_TEXT, settle=True))
    log(f"cold start, {label}: {runs} fresh process(es) per side")
    rows: list[Row] = []
    summary: dict[str, Any] = {"baseline": {"wall_ms": base_wall, "maxrss_mib": base_rss}}
    for name, _ in sides:
        m = coldstart.medians(reports[name])
        if name == "jiayu":
            m["settled_maxrss_mib"] = settled["settled_maxrss_mib"]
        summary[name] = {"wall_ms": statistics.median(walls[name]), **m}
        phases = ", ".join(
            f"{k[:-3]} {m[k]:.0f}"
            for k in ("import_ms", "load_ms", "engine_ms", "first_ms")
            if k in m
        )
        rows.append(
            Row(
                f"{name}: fresh process, wall",
                "ms",
                walls[name],
                {},
                f"inside: {phases} ms (bare interpreter: {base_wall:.0f} ms)",
            )
        )
        rows.append(
            Row(
                f"{name}: inside, to first reply",
                "ms",
                [r["total_ms"] for r in reports[name]],
            )
        )
        peak_note = f"bare interpreter {base_rss:.0f} MiB"
        if "settled_maxrss_mib" in m:
            peak_note += (
                f"; after the background pinyin build: {m['settled_maxrss_mib']:.0f} MiB"
                f"; pinyin table read by the first reply: {m['pinyin_at_reply']}"
            )
        rows.append(
            Row(
                f"{name}: peak RSS at first reply",
                "MiB",
                [r["maxrss_mib"] for r in reports[name]],
                {},
                peak_note,
            )
        )
    for row in rows:
        row.section = f"cold start (fresh processes, {label})"
    return rows, summary


# --- jiayu vs hassil ------------------------------------------------------------------------

REPEATED = 50.0  # goal: repeated sentences ≥ 50× hassil's match (median)
UNSEEN = 35.0  # goal: unseen sentences ≥ 35× (median)
P99 = 20.0  # goal: p99 ratio ≥ 20×
UNSEEN_REPEATS = 2  # shuffles per home; each sentence is timed this often per side
SPEAKERS = 8  # sessions the turns rotate through: a household's satellites and phones


def peer_rows(
    engine: Engine, home_path: Path, label: str, budget: float, unseen_repeats: int, log: Log
) -> tuple[list[Row], list[dict[str, Any]], list[str]]:
    """jiayu against hassil as Home Assistant runs it (hassil_compare.py) on one home: the
    sentences both understand, repeated (in this process) and unseen (fresh processes)."""
    home = json.loads(home_path.read_text("utf-8"))
    agent = hassil_compare.HomeAssistantAgent(home)
    shared: list[str] = []
    mixes: dict[str, int] = {}
    agree = 0
    dropped: list[str] = []
    for mix, text in hassil_compare.candidate_sentences(home):
        theirs = agent.match(text)
        mine = engine.fresh().turn(text)
        if theirs is None or mine.outcome not in ("executed", "answered"):
            dropped.append(text)
            continue
        shared.append(text)
        mixes[mix] = mixes.get(mix, 0) + 1
        agree += _same_target(engine, theirs, mine.commands or mine.answers)
    mix_note = ", ".join(f"{m} {n}" for m, n in mixes.items())
    log(f"vs hassil, {label}: {len(shared)} shared sentences ({mix_note})")
    section = f"vs hassil as HA runs it, {label} ({hassil_compare.versions()})"
    ids = iter(range(10**9))

    def ours(text: str) -> Any:
        return engine.turn(text, f"speaker{next(ids) % SPEAKERS}")

    theirs_us, _ = sample(shared, agent.match, budget=budget, warmup=2, min_rounds=3)
    ours_us, _ = sample(shared, ours, budget=budget, warmup=2, min_rounds=3)
    read_us, _ = sample(
        shared, lambda t: ours(t).to_json(), budget=budget / 2, warmup=1, min_rounds=3
    )
    # HA's cache holds 128 sentences: rotating through all of them would miss every time.
    cached_us, _ = sample(shared[:100], agent.match_cached, budget=budget / 4, warmup=2)
    log(f"vs hassil, {label}: unseen sentences, {4 * unseen_repeats} fresh processes")
    unseen = unseen_mod.measure(home_path, shared, unseen_repeats)
    rows = [
        Row("repeated: hassil match", "us", theirs_us, {}, f"{len(shared)} sentences: {mix_note}"),
        Row("repeated: jiayu whole turn", "us", ours_us, {}, "compile (kept), plan, send (sim.)"),
        Row("repeated: jiayu turn + to_json", "us", read_us, {}, "Result forms read as well"),
        Row(
            "repeated: hassil behind HA's cache",
            "us",
            cached_us,
            {},
            "HA's IntentCache hit, 100 sentences (recognition only, no intent handling)",
        ),
        Row("unseen: hassil match", "us", unseen["hassil"], {}, "each timed once per process"),
        Row("unseen: jiayu whole turn", "us", unseen["jiayu"], {}, "each timed once per process"),
    ]
    # Where a first turn's time goes (the stages Result.timings has; resolve and send only
    # for turns that resolved or sent).
    rows += [
        Row(f"  unseen: {name}", "us", values, {}, "Result.timings of those turns")
        for name, values in unseen.items()
        if name.startswith("jiayu ") and not name.endswith(" gc")
    ]
    for row in rows:
        row.section = section
    t, o, tu, ou = rows[0], rows[1], rows[4], rows[5]
    ratios = [
        _ratio(f"{label}: repeated, median", t.median, o.median, (">=", REPEATED)),
        _ratio(f"{label}: repeated, p99", t.p99, o.p99, (">=", P99)),
        _ratio(f"{label}: unseen, median", tu.median, ou.median, (">=", UNSEEN)),
        _ratio(f"{label}: unseen, p99", tu.p99, ou.p99, (">=", P99)),
        _ratio(f"{label}: HA's cache hit / jiayu repeated", rows[3].median, o.median),
    ]
    details = [
        f"vs hassil, {label}: {len(shared)} sentences both understand ({agree} on the same "
        f"target); {len(dropped)} left out: " + (", ".join(dropped) or "none"),
        f"vs hassil, {label}: unseen turns during which the garbage collector ran: "
        + "; ".join(_collected(side, unseen[f"{side} gc"]) for side in ("jiayu", "hassil")),
    ]
    return rows, ratios, details


def _collected(side: str, per_turn: list[float]) -> str:
    """How often the collector ran inside one side's timed turns (a pause inside the turn)."""
    hit = sum(1 for n in per_turn if n)
    return f"{side} {hit} of {len(per_turn)} ({sum(per_turn):.0f} collections)"


def cold_ratios(label: str, cold: dict[str, Any]) -> list[dict[str, Any]]:
    j, h = cold["jiayu"], cold["hassil"]
    return [
        _ratio(f"{label}: cold, process wall", j["wall_ms"], h["wall_ms"], NO_WORSE),
        _ratio(f"{label}: cold, to first reply", j["total_ms"], h["total_ms"], NO_WORSE),
        _ratio(f"{label}: peak RSS at first reply", j["maxrss_mib"], h["maxrss_mib"], NO_WORSE),
        _ratio(
            f"{label}: peak RSS, settled",
            j["settled_maxrss_mib"],
            h["maxrss_mib"],
            NO_WORSE,
        ),
    ]


def _same_target(engine: Engine, theirs: Any, acted: list[dict[str, Any]]) -> bool:
    """Does hassil's entity (a device name or an area, by name as HA gives them) name what
    jiayu acted on?"""
    home = engine.home
    devices = {a["device"] for a in acted}
    if "name" in theirs.entities:
        name = theirs.entities["name"].value
        return all(name in (home.device(d).name, *home.device(d).aliases) for d in devices)
    if "area" in theirs.entities:
        area = theirs.entities["area"].value
        rooms = {home.device(d).room for d in devices}
        return all(area in (home.room(r).name, *home.room(r).aliases) for r in rooms)
    return False


def _ratio(
    what: str, first: float, second: float, target: tuple[str, float] | None = None
) -> dict[str, Any]:
    """`first / second`, and whether it meets `target` (">=" or "<=", a bound)."""
    value = first / second
    ok = None if target is None else value >= target[1] if target[0] == ">=" else value <= target[1]
    shown = f"{target[0]} {target[1]:g}" if target else ""
    return {
        "what": what,
        "first": first,
        "second": second,
        "ratio": value,
        "target": shown,
        "ok": ok,
    }


def ratio_table(ratios: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'ratio':<44} {'value':>8}  target  status", "-" * 70]
    for r in ratios:
        status = "" if r["ok"] is None else "ok" if r["ok"] else "MISS"
        lines.append(f"{pad(r['what'], 44)} {r['ratio']:>7.2f}x  {r['target']:<6}  {status}")
    return "\n".join(lines)


# --- the run ----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--quick", action="store_true", help="CI-sized: small homes, short budgets")
    parser.add_argument("--huge", action="store_true", help="also the 100,000-device home")
    parser.add_argument("--budget", type=float, help="seconds of sampling per timed stage")
    parser.add_argument("--cold-runs", type=int, help="fresh processes per side (median)")
    parser.add_argument("--sizes", help="comma-separated home sizes (default 100,1000,10000)")
    parser.add_argument(
        "--peer-only", action="store_true", help="only the comparison with hassil (and cold start)"
    )
    parser.add_argument(
        "--second-home",
        type=int,
        default=SECOND_HOME,
        help=f"devices in the generated second home of the comparison (default {SECOND_HOME})",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    budget = args.budget or (0.3 if args.quick else 1.0)
    cold_runs = args.cold_runs or (2 if args.quick else 5)
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else ([100, 1000] if args.quick else [100, 1000, 10_000])
    )
    if args.huge:
        sizes.append(100_000)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    engine = Engine(load_home(DEMO_HOME))
    scaling.settle(engine)
    rows: list[Row] = []
    details: list[str] = []
    if not args.peer_only:
        rows, details = demo_rows(engine, budget, log)
        for devices in sizes:
            rows += scaling.measure_size(devices, budget, log)
            rows += memory_rows(devices)
    with_hassil = hassil_compare.available()
    ratios: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="jiayu-bench-") as folder:
        second = Path(folder) / "home.json"
        second.write_text(json.dumps(generate_home(args.second_home), ensure_ascii=False))
        label = f"generated home of {args.second_home} devices"
        homes = [(engine, DEMO_HOME, "demo home"), (_settled(second), second, label)]
        for home_engine, path, name in homes:
            more, cold = cold_rows(cold_runs, with_hassil, log, path, name)
            rows += more
            if not with_hassil:
                continue
            repeats = 1 if args.quick else UNSEEN_REPEATS
            more, peer, notes = peer_rows(home_engine, path, name, budget, repeats, log)
            rows += more
            ratios += peer + cold_ratios(name, cold)
            details += notes
    if not with_hassil:
        details.append("vs hassil: skipped (run with `uv run --group bench` to include it)")
    details.append(f"total benchmark time {time.perf_counter() - started:.0f} s")

    if args.json:
        for row in rows:
            print(json.dumps({"kind": "row", **row.to_json()}, ensure_ascii=False))
        for ratio in ratios:
            print(json.dumps({"kind": "ratio", **ratio}, ensure_ascii=False))
    else:
        print(table(rows))
        if ratios:
            print("\n" + ratio_table(ratios))
        print("\n" + "\n".join(details))
    missed = [f"{r.section}: {r.stage} ({'+'.join(r.missed())})" for r in rows if r.missed()]
    missed += [r["what"] for r in ratios if r["ok"] is False]
    if missed and not args.json:
        print("\nmissed: " + "; ".join(missed))
    return 1 if missed and args.strict else 0


def _settled(path: Path) -> Engine:
    engine = Engine(load_home(path))
    scaling.settle(engine)
    return engine


def memory_rows(devices: int) -> list[Row]:
    """A fresh process on a generated home: its peak memory and its start-up phases."""
    with tempfile.TemporaryDirectory(prefix="jiayu-bench-") as folder:
        path = Path(folder) / "home.json"
        data = generate_home(devices)
        path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
        wall, report = coldstart.spawn(
            coldstart.jiayu_argv(path, f"打开{data['devices'][0]['name']}", settle=True)
        )
    return [
        Row(
            "fresh process: peak RSS",
            "MiB",
            [report["maxrss_mib"]],
            {},
            f"settled {report['settled_maxrss_mib']:.0f} MiB; wall {wall:.0f} ms (import "
            f"{report['import_ms']:.0f}, load {report['load_ms']:.0f}, engine "
            f"{report['engine_ms']:.0f}, first turn {report['first_ms']:.1f})",
            f"home of {devices:,} devices",
        )
    ]


if __name__ == "__main__":
    raise SystemExit(main())
