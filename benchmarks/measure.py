"""How the benchmarks measure: rows of samples with a median and nearest-rank p99 and p99.9.

Timings use time.perf_counter_ns around one call, after a warm-up, interleaving the inputs
round-robin for a time budget; the garbage collector stays on, as in production, so p99
includes its pauses.
"""

from __future__ import annotations

import gc
import statistics
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jiayu.replay import nearest_rank


@dataclass
class Row:
    """One measured thing: its samples in `unit`, and the targets it is held to."""

    stage: str
    unit: str  # "us", "ms" or "MiB"
    samples: list[float] = field(default_factory=list)
    targets: dict[str, float] = field(default_factory=dict)  # "median"/"p99" -> limit
    note: str = ""
    section: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p99(self) -> float:
        return nearest_rank(self.samples, 0.99)

    @property
    def p999(self) -> float:
        """The tail past p99: with fewer than 1,000 samples, nearest-rank makes it the max."""
        return nearest_rank(self.samples, 0.999)

    def missed(self) -> list[str]:
        values = {"median": self.median, "p99": self.p99}
        return [k for k, limit in self.targets.items() if values[k] > limit]

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "stage": self.stage,
            "unit": self.unit,
            "n": len(self.samples),
            "median": round(self.median, 3),
            "p99": round(self.p99, 3),
            "p99.9": round(self.p999, 3),
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


def build_times(make: Callable[[], Any], repeats: int, *, warm: bool = True) -> list[float]:
    """Wall time of `make()` in ms, `repeats` times (after one untimed build if `warm`)."""
    if warm:
        make()
    out = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter_ns()
        make()
        out.append((time.perf_counter_ns() - t0) / 1e6)
    return out


def pad(text: str, width: int) -> str:
    """Left-justify for a terminal, where CJK characters take two columns."""
    shown = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(0, width - shown)


def table(rows: Sequence[Row]) -> str:
    """Rows as a table, grouped under their sections, notes after."""
    head = (
        f"{'stage':<34} {'n':>6} {'median':>11} {'p99':>11} {'p99.9':>11}  {'target':<26} status"
    )
    lines: list[str] = []
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            lines += ["", f"== {section}", head, "-" * len(head)]
        u = {"us": "µs"}.get(row.unit, row.unit)
        target = ", ".join(f"{k} <= {v:g} {u}" for k, v in row.targets.items()) or "-"
        missed = row.missed()
        status = "MISS " + "+".join(missed) if missed else ("ok" if row.targets else "info")
        lines.append(
            f"{pad(row.stage, 34)} {len(row.samples):>6} {row.median:>8.1f} {u:<3}"
            f"{row.p99:>8.1f} {u:<3}{row.p999:>8.1f} {u:<3} {target:<26} {status}"
        )
        if row.note:
            lines.append(f"    {row.note}")
    return "\n".join(lines).lstrip("\n")
