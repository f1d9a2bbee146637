"""Cold start and peak memory, each in a fresh process: import, load a home, first turn.

The parent times the whole child process (interpreter start to exit) from outside; the
child reports its own phases and its peak resident memory (ru_maxrss). jiayu's engine builds
its pinyin index in a background thread after start-up, so one more run reports the peak
after that thread has finished (`settled`).

    python benchmarks/coldstart.py --child HOME TEXT [--settle]    (what the parent runs)
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PYCACHE = Path(tempfile.gettempdir()) / "jiayu-bench-pycache"


def child_env() -> dict[str, str]:
    """The children's environment: bytecode on, in a cache of the benchmark's own.

    An installed package starts from compiled bytecode (pip writes it at install). A shell
    with PYTHONDONTWRITEBYTECODE set (this machine's) or a fresh `uv sync` (uv does not
    compile by default) leaves none, and every child would then compile jiayu, lark and
    hassil from source, measuring the compiler rather than the start-up. The first,
    discarded run of each side writes the bytecode; the measured runs read it. The cache
    lives outside the source tree (PYTHONPYCACHEPREFIX) so the benchmark litters nothing."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def peak_rss_mib() -> float:
    """This process's peak resident memory. VmHWM, not ru_maxrss: after fork and exec,
    Linux's ru_maxrss still holds the parent's peak, so every child would report at least
    the benchmark's own size."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux: KiB too


def child(home_path: str, text: str, *, settle: bool) -> dict[str, Any]:
    """In a fresh process: import jiayu, load the home, build the engine, run one turn;
    with `settle`, then wait for the background pinyin build and read the peak again
    (a separate run, so that waiting never shows in the start-up wall time)."""
    t0 = time.perf_counter()
    import threading

    from jiayu.engine import Engine
    from jiayu.home import load_home

    t1 = time.perf_counter()
    home = load_home(home_path)
    t2 = time.perf_counter()
    engine = Engine(home)
    t3 = time.perf_counter()
    result = engine.turn(text)
    t4 = time.perf_counter()
    report = {
        "import_ms": 1000 * (t1 - t0),
        "load_ms": 1000 * (t2 - t1),
        "engine_ms": 1000 * (t3 - t2),
        "first_ms": 1000 * (t4 - t3),
        "total_ms": 1000 * (t4 - t0),
        "maxrss_mib": peak_rss_mib(),
        "pinyin_at_reply": getattr(sys.modules.get("jiayu.compiler.pinyin"), "_table", None)
        is not None,
        "outcome": result.outcome,
    }
    if settle:
        for thread in threading.enumerate():
            if thread.name == "jiayu-pinyin":
                thread.join()
        report["settled_maxrss_mib"] = peak_rss_mib()
    return report


def spawn(argv: list[str]) -> tuple[float, dict[str, Any]]:
    """Run a child process; (its wall time in ms measured from outside, its JSON report)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=child_env(),
    )
    wall = 1000 * (time.perf_counter() - t0)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def jiayu_argv(home: Path, text: str, *, settle: bool = False) -> list[str]:
    return [str(HERE / "coldstart.py"), "--child", str(home), text, *(["--settle"] * settle)]


def hassil_argv(home: Path, text: str) -> list[str]:
    return [str(HERE / "hassil_compare.py"), "--child", str(home), text]


def baseline() -> tuple[float, float]:
    """(wall ms, peak MiB) of the bare interpreter, to read the others against."""
    code = "import coldstart; print(coldstart.peak_rss_mib())"  # `-c` imports from the cwd
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE,
        env=child_env(),
    )
    return 1000 * (time.perf_counter() - t0), float(done.stdout)


def medians(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Field-wise medians of numeric fields; other fields from the first report."""
    out: dict[str, Any] = dict(reports[0])
    for key, value in reports[0].items():
        if isinstance(value, float):
            out[key] = statistics.median(r[key] for r in reports)
    return out


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--child":
        settle = sys.argv[4:] == ["--settle"]
        print(json.dumps(child(sys.argv[2], sys.argv[3], settle=settle)))
        raise SystemExit(0)
    raise SystemExit("run benchmarks/bench.py; this module is its cold-start side")
