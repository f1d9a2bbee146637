"""Unseen sentences: each timed once in a fresh process, after a warm-up on other sentences.

A sentence said for the first time finds nothing of its own in any cache (jiayu's compile
cache, lark's, the interpreter's), only what the process learnt from other sentences, as a
long-running hub does. So the parent splits the sentences in two, and each child warms up on
one half and times every sentence of the other half exactly once.

    python benchmarks/unseen.py --child jiayu|hassil HOME SPLIT_JSON    (what the parent runs)

SPLIT_JSON holds {"warm": [...], "timed": [...]}; the child prints {"us": [...]}, one
timing per timed sentence, {"gc": [...]}, how many times the collector ran during each of
those turns (read from gc.get_stats() outside the timed window, so it costs the timing
nothing), and for jiayu {"stages": {stage: [...]}} too, µs per stage of those same turns as
`Result.timings` has them (where a first turn's time goes). The hassil child imports no part
of jiayu.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WARM_ROUNDS = 2


def child(side: str, home_path: str, split_path: str) -> dict[str, Any]:
    split = json.loads(Path(split_path).read_text("utf-8"))
    call: Callable[[str], Any]
    stages: dict[str, list[float]] = {}
    if side == "hassil":
        import hassil_compare

        agent = hassil_compare.HomeAssistantAgent(json.loads(Path(home_path).read_text("utf-8")))
        call = agent.match
    else:
        from jiayu.engine import Engine
        from jiayu.home import load_home

        engine = Engine(load_home(home_path))
        ids = iter(range(10**9))

        def call(text: str) -> Any:
            return engine.turn(text, f"speaker{next(ids) % 8}")  # as bench.SPEAKERS

    for _ in range(WARM_ROUNDS):
        for text in split["warm"]:
            call(text)
    for thread in threading.enumerate():
        if thread.name == "jiayu-pinyin":  # jiayu's background build: done before timing
            thread.join()
    gc.collect()
    out: list[float] = []
    collections: list[int] = []
    for text in split["timed"]:
        before = _collections()
        t0 = time.perf_counter_ns()
        result = call(text)
        out.append((time.perf_counter_ns() - t0) / 1000)
        collections.append(_collections() - before)
        for stage, seconds in getattr(result, "timings", {}).items():
            stages.setdefault(stage, []).append(1e6 * seconds)
    return {"us": out, "gc": collections, "stages": stages}


def _collections() -> int:
    """Collections the garbage collector has run so far, all generations."""
    return sum(generation["collections"] for generation in gc.get_stats())


def measure(home: Path, sentences: list[str], repeats: int) -> dict[str, list[float]]:
    """µs per unseen sentence for each side ("jiayu", "hassil"), collections per turn ("jiayu
    gc", "hassil gc"), and jiayu's µs per stage ("jiayu compile", ...): `repeats` shuffles,
    each split both ways, so every sentence is timed `repeats` times per side, never twice in
    one process."""
    import coldstart

    out: dict[str, list[float]] = {"jiayu": [], "hassil": []}
    stages: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="jiayu-unseen-") as folder:
        for rep in range(repeats):
            order = list(sentences)
            random.Random(rep).shuffle(order)
            half = len(order) // 2
            for warm, timed in ((order[:half], order[half:]), (order[half:], order[:half])):
                path = Path(folder) / "split.json"
                path.write_text(json.dumps({"warm": warm, "timed": timed}), "utf-8")
                for side in ("jiayu", "hassil"):  # alternating: both see the same machine
                    argv = [str(HERE / "unseen.py"), "--child", side, str(home), str(path)]
                    _, report = coldstart.spawn(argv)
                    out[side] += report["us"]
                    out.setdefault(f"{side} gc", []).extend(report["gc"])
                    for stage, values in report.get("stages", {}).items():
                        stages.setdefault(f"jiayu {stage}", []).extend(values)
    return {**out, **stages}


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        sys.path.insert(0, str(HERE))
        print(json.dumps(child(sys.argv[2], sys.argv[3], sys.argv[4])))
        raise SystemExit(0)
    raise SystemExit("run benchmarks/bench.py; this module is its unseen-sentence side")
