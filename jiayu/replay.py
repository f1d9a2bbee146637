"""Replay corpus cases, each in a fresh session on a fresh simulated hub, and measure them
like a product: pass/fail by tag and by file, the outcome confusion matrix, the ask-or-act
decision, the turns that needed the LLM, commands no case expected, and latency per stage.

    jiayu replay FILE... [--json] [--metrics OUT.json] [--stats] [--known FILE | --no-known]

Known failures (`id  reason` a line, `#` comments) are expected to fail: they do not fail the
run, and one that passes now is reported and does (take it off the list). Without `--known`,
the list is the `tests/known_failures.txt` of the checkout the case files are in, if any.
`--stats` adds, per tag, the share of turns the grammar understood alone and the share the
whole-utterance gate would send to the LLM fallback were one configured.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from jiayu.cases import Case, load_cases
from jiayu.compiler.lalr import tables
from jiayu.engine import Engine
from jiayu.errors import CorpusError, Problem
from jiayu.executor.clock import ManualClock, local_zone
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import load_home
from jiayu.planner.effects import Consult
from jiayu.planner.turn import turn
from jiayu.result import RANK, Result

ASK = frozenset({"clarify", "confirm"})
"""Seed 003: a turn that needs the user (a question or a confirmation) rather than acting."""
ACTS = frozenset({"executed", "scheduled"})
"""Outcomes under which a case without `expect.commands` may legitimately send something."""
ALL = "(all)"
"""The gate statistics' row of every turn (parenthesised: no tag is)."""
STAGES = ("compile", "llm", "resolve", "plan", "send")
"""Result.timings keys, in pipeline order; the replay adds `turn`, the wall time of the call."""


@dataclass(frozen=True)
class Replayed:
    """One replayed case."""

    case: Case
    """The case as loaded."""
    result: Result
    """The Result of the case's own text (its history ran first, unchecked)."""
    problems: tuple[str, ...]
    """Every way the result differs from the expectation; empty when it passed."""
    elapsed: float = 0.0
    """Seconds `Engine.turn` took for the case's text, measured around the call."""
    consults: bool | None = None
    """Whether the whole-utterance gate would send the text to the LLM fallback, had the
    engine one (None: not asked, see `would_consult`)."""

    @property
    def passed(self) -> bool:
        return not self.problems

    @property
    def unexpected(self) -> list[dict[str, Any]]:
        """Commands sent that the case did not expect (see `unexpected_commands`)."""
        return unexpected_commands(self.case.expect, self.result)


# Cases are replayed at noon today, in the machine's zone: what a clock time means
# (今晚十一点 is later today, 今天早上七点 has passed) must not depend on when CI runs.
REPLAY_HOUR = 12


@lru_cache(maxsize=16)
def _engine(home: Path) -> Engine:
    tables()  # load the grammar's tables now: latency is reported per turn, not per start-up
    noon = datetime.now(local_zone()).replace(hour=REPLAY_HOUR, minute=0, second=0, microsecond=0)
    return Engine(load_home(home), clock=ManualClock(noon))


def _after_history(case: Case) -> Engine:
    """A fresh engine on a fresh hub whose session `case.id` has run the case's history."""
    base = _engine(case.home)
    engine = base.fresh(hub=SimulatedHub(base.home, case.state))
    for earlier in case.history:
        engine.turn(earlier, case.id, area=case.area)
    return engine


def would_consult(case: Case) -> bool:
    """Whether the whole-utterance gate sends the case's text to the LLM fallback when the
    engine has one: the turn's first effect is then the model's one call. Asked of the turn
    itself, after the history, on an engine of its own (the turn is abandoned there)."""
    engine = _after_history(case)
    session = engine.session(case.id)
    steps = turn(case.text, engine.inputs(session, case.area, None), engine.lexicon, fallback=True)
    try:
        return isinstance(next(steps), Consult)
    finally:
        steps.close()


def run_case(case: Case, *, stats: bool = False) -> Replayed:
    """Run the history, then the text, in a fresh session on a fresh hub; check the result.
    `stats`: also ask whether the text would go to the LLM fallback (`would_consult`)."""
    engine = _after_history(case)
    started = time.perf_counter()
    result = engine.turn(case.text, case.id, area=case.area)
    elapsed = time.perf_counter() - started
    steps = [s for s in result.scheduled if "scene" in s]
    if steps:
        # Under the sync API a scene's delayed steps wait for run_due: the case's scene is
        # what it sends in its own time too.
        last = max(datetime.fromisoformat(s["at"]) for s in steps)
        later = [c for r in engine.run_due(last + timedelta(seconds=1)) for c in r.commands]
        result = replace(result, commands=[*result.commands, *later])
    # Asked after the timed turn, so the compile it shares with the turn is not warm for it.
    consults = would_consult(case) if stats else None
    return Replayed(case, result, tuple(check(case.expect, result)), elapsed, consults)


def allowed_outcomes(expect: dict[str, Any]) -> list[str]:
    """`expect.outcome` as a list: one outcome or several acceptable ones."""
    outcome = expect["outcome"]
    return [outcome] if isinstance(outcome, str) else list(outcome)


def check(expect: dict[str, Any], result: Result) -> Iterator[str]:
    """Every way the result differs from what the case expects."""
    allowed = allowed_outcomes(expect)
    if result.outcome not in allowed:
        yield f"outcome {result.outcome!r}, expected {' or '.join(map(repr, allowed))}"
    if "commands" in expect:
        want = [_command_key(c) for c in expect["commands"]]
        got = [_command_key(c) for c in result.commands]
        same = want == got if expect.get("ordered") else Counter(want) == Counter(got)
        if not same:
            yield f"commands {_show(result.commands)}, expected {_show(expect['commands'])}"
    if "options" in expect and set(expect["options"]) != set(result.options):
        yield f"options {sorted(result.options)}, expected {sorted(expect['options'])}"
    if "answers" in expect:
        want_answers = Counter(_answer_key(a) for a in expect["answers"])
        if want_answers != Counter(_answer_key(a) for a in result.answers):
            yield f"answers {_show(result.answers)}, expected {_show(expect['answers'])}"
    if "compact" in expect and expect["compact"] != result.compact:
        yield f"compact {_show(result.compact)}, expected {_show(expect['compact'])}"
    if "reply_contains" in expect and expect["reply_contains"] not in result.reply:
        yield f"reply {result.reply!r} lacks {expect['reply_contains']!r}"


def unexpected_commands(expect: dict[str, Any], result: Result) -> list[dict[str, Any]]:
    """Commands sent that no expectation accounts for: with `expect.commands`, those sent
    beyond it (multiset difference); without, every command sent when no acceptable outcome
    is one that sends (executed, scheduled). The number a safety review looks at first."""
    if "commands" in expect:
        budget = Counter(_command_key(c) for c in expect["commands"])
        extra = []
        for command in result.commands:
            key = _command_key(command)
            if budget[key] > 0:
                budget[key] -= 1
            else:
                extra.append(command)
        return extra
    if ACTS.isdisjoint(allowed_outcomes(expect)):
        return list(result.commands)
    return []


def _command_key(command: dict[str, Any]) -> str:
    return json.dumps(
        [command["device"], command["command"], command.get("params", {})],
        sort_keys=True,
        ensure_ascii=False,
    )


def _answer_key(answer: dict[str, Any]) -> str:
    return json.dumps([answer["device"], answer["attribute"], answer["value"]], sort_keys=True)


def _show(items: Any) -> str:
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The q-quantile (0 < q ≤ 1) by nearest rank: a value that was actually observed."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _ratio(hits: int, total: int) -> float | None:
    return hits / total if total else None


def load_known(path: str | Path) -> dict[str, str]:
    """A known-failures file: case id → why it fails, one `id  reason` a line, `#` comments;
    CorpusError (file, line, problem) when it cannot be read."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise CorpusError(
            [Problem(str(path), "", f"cannot read the known failures: {reason}")]
        ) from err
    known: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            case_id, _, reason = line.strip().partition(" ")
            known[case_id] = reason.strip()
    return known


def checkout_known(files: Sequence[str | Path]) -> Path | None:
    """`tests/known_failures.txt` of the checkout the first case file is in, if there is one:
    the list a plain `jiayu replay corpus/*.jsonl` in a checkout is measured against."""
    if not files:
        return None
    for folder in Path(files[0]).resolve().parents:
        candidate = folder / "tests" / "known_failures.txt"
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Report:
    """The metrics of one replay run."""

    replayed: tuple[Replayed, ...]
    known: frozenset[str] = frozenset()
    """Ids of cases known to fail: their failure does not fail the run."""

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.replayed)

    @property
    def failed(self) -> int:
        return len(self.replayed) - self.passed

    @cached_property
    def new_failures(self) -> list[Replayed]:
        """Failed cases that are not known to fail."""
        return [r for r in self.replayed if not r.passed and r.case.id not in self.known]

    @cached_property
    def now_passing(self) -> list[Replayed]:
        """Known failures that pass now: the list is out of date."""
        return [r for r in self.replayed if r.passed and r.case.id in self.known]

    @property
    def ok(self) -> bool:
        """No failure beyond the known ones, no known one passing, no command unexpected."""
        return not (self.new_failures or self.now_passing or self.unexpected)

    @cached_property
    def gate_stats(self) -> dict[str, tuple[int, int, int]] | None:
        """tag → (turns, turns the gate would send to the LLM, of those the ones whose case
        accepts `unknown`: meant not to be understood, as nonsense is), a case under each of
        its tags and under `(all)`; None unless every case was replayed with `stats`."""
        if any(r.consults is None for r in self.replayed):
            return None
        counts: dict[str, list[int]] = {ALL: [0, 0, 0]}
        for r in self.replayed:
            meant = r.consults and "unknown" in allowed_outcomes(r.case.expect)
            for tag in (ALL, *sorted(set(r.case.tags or ("untagged",)))):
                row = counts.setdefault(tag, [0, 0, 0])
                row[0] += 1
                row[1] += bool(r.consults)
                row[2] += bool(meant)
        return {
            tag: (n, llm, meant) for tag, (n, llm, meant) in sorted(counts.items(), key=_all_first)
        }

    @cached_property
    def by_tag(self) -> dict[str, tuple[int, int]]:
        """tag → (passed, failed); a case counts under each of its tags, or `untagged`."""
        return _tally(
            (tag, r.passed) for r in self.replayed for tag in r.case.tags or ("untagged",)
        )

    @cached_property
    def by_file(self) -> dict[str, tuple[int, int]]:
        """case file name → (passed, failed)."""
        return _tally((_file_of(r.case), r.passed) for r in self.replayed)

    @cached_property
    def confusion(self) -> dict[str, dict[str, int]]:
        """expected → got → count. A case that accepts several outcomes and got one of them
        sits on the diagonal; one that got none is counted under `a|b` (its alternatives)."""
        matrix: dict[str, Counter[str]] = {}
        for r in self.replayed:
            allowed = allowed_outcomes(r.case.expect)
            got = r.result.outcome
            row = got if got in allowed else "|".join(allowed)
            matrix.setdefault(row, Counter())[got] += 1
        return {row: dict(matrix[row]) for row in sorted(matrix, key=_outcome_order)}

    @cached_property
    def ask_or_act(self) -> dict[str, dict[str, Any]]:
        """Seed 003's decision, per side (`ask`: clarify or confirm; `act`: anything else):
        {expected, predicted, correct, precision, recall}. Cases that accept both an asking
        and an acting outcome say nothing about the decision and are left out (`either`)."""
        counts = {side: Counter[str]() for side in ("ask", "act")}
        either = 0
        for r in self.replayed:
            allowed = set(allowed_outcomes(r.case.expect))
            if allowed <= ASK:
                want = "ask"
            elif allowed.isdisjoint(ASK):
                want = "act"
            else:
                either += 1
                continue
            got = "ask" if r.result.outcome in ASK else "act"
            counts[want]["expected"] += 1
            counts[got]["predicted"] += 1
            if want == got:
                counts[got]["correct"] += 1
        out: dict[str, dict[str, Any]] = {}
        for side, c in counts.items():
            out[side] = {
                "expected": c["expected"],
                "predicted": c["predicted"],
                "correct": c["correct"],
                "precision": _ratio(c["correct"], c["predicted"]),
                "recall": _ratio(c["correct"], c["expected"]),
            }
        out["either"] = {"cases": either}
        return out

    @property
    def llm_turns(self) -> int:
        """Checked turns the LLM fallback answered (`source == "llm"`)."""
        return sum(r.result.source == "llm" for r in self.replayed)

    @cached_property
    def unexpected(self) -> list[tuple[Replayed, list[dict[str, Any]]]]:
        """Each case that sent commands it did not expect, with those commands."""
        return [(r, extra) for r in self.replayed if (extra := r.unexpected)]

    @cached_property
    def latency(self) -> dict[str, dict[str, float]]:
        """stage → {n, median_ms, p99_ms}, over the checked turns that went through the stage;
        `turn` is the whole call as the replay timed it."""
        samples: dict[str, list[float]] = {stage: [] for stage in (*STAGES, "turn")}
        for r in self.replayed:
            for stage, seconds in r.result.timings.items():
                samples.setdefault(stage, []).append(seconds)
            samples["turn"].append(r.elapsed)
        return {
            stage: {
                "n": len(values),
                "median_ms": 1000 * nearest_rank(values, 0.5),
                "p99_ms": 1000 * nearest_rank(values, 0.99),
            }
            for stage, values in samples.items()
            if values
        }

    def to_json(self) -> dict[str, Any]:
        """Every metric as plain JSON (`--metrics`)."""
        return {
            "cases": len(self.replayed),
            "passed": self.passed,
            "failed": self.failed,
            "by_tag": {k: {"passed": p, "failed": f} for k, (p, f) in self.by_tag.items()},
            "by_file": {k: {"passed": p, "failed": f} for k, (p, f) in self.by_file.items()},
            "confusion": self.confusion,
            "ask_or_act": self.ask_or_act,
            "llm_turns": self.llm_turns,
            "unexpected_commands": [
                {"id": r.case.id, "text": r.case.text, "commands": extra}
                for r, extra in self.unexpected
            ],
            "latency": self.latency,
            "known_failed": sorted(
                r.case.id for r in self.replayed if r.case.id in self.known and not r.passed
            ),
            "now_passing": [r.case.id for r in self.now_passing],
            "gate": None
            if self.gate_stats is None
            else {
                tag: {
                    "turns": n,
                    "grammar_alone": (n - llm) / n,
                    "would_consult_llm": llm / n,
                    "would_consult_llm_meant_unknown": meant / n,
                }
                for tag, (n, llm, meant) in self.gate_stats.items()
            },
        }

    def text(self) -> str:
        """The report a person reads."""
        lines: list[str] = []
        lines += _counts_table("tag", self.by_tag)
        lines += ["", *_counts_table("file", self.by_file)]
        lines += ["", *self._confusion_table()]
        lines += ["", "ask or act (seed 003): ask = clarify or confirm"]
        for side in ("ask", "act"):
            m = self.ask_or_act[side]
            lines.append(
                f"  {side}  expected {m['expected']:>4}  predicted {m['predicted']:>4}"
                f"  precision {_pct(m['precision'])}  recall {_pct(m['recall'])}"
            )
        if either := self.ask_or_act["either"]["cases"]:
            lines.append(f"  ({either} case(s) accept either and are left out)")
        lines += ["", f"needed the LLM: {self.llm_turns} of {len(self.replayed)} turns"]
        unexpected = sum(len(extra) for _, extra in self.unexpected)
        lines.append(f"commands sent that no case expected: {unexpected}")
        for r, extra in self.unexpected:
            lines.append(f"  {r.case.id} {r.case.text}: {_show(extra)}")
        lines += ["", f"{'latency':<10} {'n':>6} {'median':>10} {'p99':>10}"]
        for stage, m in self.latency.items():
            lines.append(
                f"{stage:<10} {m['n']:>6} {m['median_ms']:>7.3f} ms {m['p99_ms']:>7.3f} ms"
            )
        if self.gate_stats is not None:
            lines += ["", *_gate_table(self.gate_stats)]
        for r in self.new_failures:
            lines.append(f"FAIL {r.case.id} ({r.case.source}) {r.case.text}")
            lines.extend(f"     {p}" for p in r.problems)
        for r in self.now_passing:
            lines.append(f"PASSES NOW {r.case.id} {r.case.text}: take it off the known failures")
        known = self.failed - len(self.new_failures)
        tail = f" ({known} known)" if self.known else ""
        lines.append(f"{self.passed} passed, {self.failed} failed{tail}")
        return "\n".join(lines)

    def _confusion_table(self) -> list[str]:
        matrix = self.confusion
        columns = sorted({got for row in matrix.values() for got in row}, key=_outcome_order)
        corner = "expected \\ got"
        width = max([len(corner), *map(len, matrix)])
        head = f"{corner:<{width}} " + " ".join(f"{c:>9}" for c in columns)
        lines = ["outcomes", head]
        for row, cells in matrix.items():
            lines.append(
                f"{row:<{width}} " + " ".join(f"{cells.get(c, 0) or '.':>9}" for c in columns)
            )
        return lines


def _tally(pairs: Iterable[tuple[str, bool]]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for key, passed in pairs:
        counts.setdefault(key, [0, 0])[0 if passed else 1] += 1
    return {key: (ok, bad) for key, (ok, bad) in sorted(counts.items())}


def _file_of(case: Case) -> str:
    # Case.source is "path:line"; the path itself may hold a colon, the line number never.
    return Path(case.source.rsplit(":", 1)[0]).name


def _all_first(item: tuple[str, list[int]]) -> tuple[bool, str]:
    return (item[0] != ALL, item[0])


def _gate_table(stats: dict[str, tuple[int, int, int]]) -> list[str]:
    width = max(len("tag"), *map(len, stats))
    lines = [
        "the whole-utterance gate: understood by the grammar alone, or sent to the LLM",
        "(meant unknown: sent to the LLM by cases that accept unknown, such as nonsense)",
        f"{'tag':<{width}} {'turns':>6} {'grammar':>8} {'LLM':>7} {'meant unknown':>14}",
    ]
    for tag, (n, llm, meant) in stats.items():
        lines.append(
            f"{tag:<{width}} {n:>6} {_pct((n - llm) / n):>8} {_pct(llm / n):>7}"
            f" {_pct(meant / n):>14}"
        )
    return lines


def _outcome_order(label: str) -> tuple[int, str]:
    return (RANK.get(label.split("|")[0], len(RANK)), label)


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def _counts_table(what: str, counts: dict[str, tuple[int, int]]) -> list[str]:
    width = max([len(what), *map(len, counts)])
    lines = [f"{what:<{width}} {'passed':>7} {'failed':>7}"]
    lines += [f"{key:<{width}} {ok:>7} {bad:>7}" for key, (ok, bad) in counts.items()]
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `jiayu replay` options."""
    parser.add_argument("files", nargs="+", help="corpus case files (JSONL)")
    parser.add_argument(
        "--json",
        action="store_true",
        help='one line per case, {"id", "pass", "result"} (CONTRACTS.md §3), and nothing else',
    )
    parser.add_argument(
        "--metrics", metavar="FILE", help="also write every metric as one JSON object to FILE"
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        help="per tag, the share of turns the grammar understood alone and the share that "
        "would consult the LLM fallback",
    )
    known = parser.add_mutually_exclusive_group()
    known.add_argument(
        "--known",
        metavar="FILE",
        help="cases expected to fail, `id  reason` a line (default: tests/known_failures.txt "
        "of the checkout the case files are in)",
    )
    known.add_argument("--no-known", action="store_true", help="count every failure, known or not")


def run(args: argparse.Namespace) -> int:
    """Replay the files; 0 when nothing failed but the known failures, none of them passes and
    no command was unexpected, 1 otherwise (CorpusError propagates)."""
    known_file = None if args.no_known else args.known or checkout_known(args.files)
    known = frozenset(load_known(known_file)) if known_file is not None else frozenset()
    cases = [case for path in args.files for case in load_cases(path)]
    report = Report(tuple(run_case(case, stats=args.stats) for case in cases), known)
    if args.json:
        for r in report.replayed:
            line = {"id": r.case.id, "pass": r.passed, "result": r.result.to_json()}
            print(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
    else:
        print(report.text())
        if known_file is not None:
            shown = os.path.relpath(known_file) if Path(known_file).is_absolute() else known_file
            print(f"known failures: {shown} ({len(known)} listed; --no-known counts them)")
    if args.metrics:
        try:
            Path(args.metrics).write_text(
                json.dumps(report.to_json(), ensure_ascii=False, indent=1) + "\n", "utf-8"
            )
        except OSError as err:
            print(
                f"{args.metrics}: cannot write the metrics: {err.strerror or err}", file=sys.stderr
            )
            return 2
    return 0 if report.ok else 1
