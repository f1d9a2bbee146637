"""Replay corpus cases (CONTRACTS.md §3): each in a fresh session on a fresh simulated hub."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jiayu.cases import Case
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import load_home
from jiayu.result import Result


@dataclass(frozen=True)
class Replayed:
    """One replayed case."""

    case: Case
    result: Result
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


@lru_cache(maxsize=16)
def _engine(home: Path) -> Engine:
    return Engine(load_home(home))


def run_case(case: Case) -> Replayed:
    """Run the history, then the text, in a fresh session on a fresh hub; check the result."""
    base = _engine(case.home)
    engine = base.fresh(hub=SimulatedHub(base.home, case.state))
    for earlier in case.history:
        engine.turn(earlier, case.id, area=case.area)
    result = engine.turn(case.text, case.id, area=case.area)
    return Replayed(case, result, tuple(check(case.expect, result)))


def check(expect: dict[str, Any], result: Result) -> Iterator[str]:
    """Every way the result differs from what the case expects."""
    outcomes = expect["outcome"]
    allowed = [outcomes] if isinstance(outcomes, str) else outcomes
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


def summary(outcomes: Sequence[Replayed]) -> str:
    """Pass/fail counts by tag, then every failure with its reasons."""
    by_tag: dict[str, list[int]] = {}
    for o in outcomes:
        for tag in o.case.tags or ("untagged",):
            counts = by_tag.setdefault(tag, [0, 0])
            counts[0 if o.passed else 1] += 1
    lines = [
        f"{tag:<20} {ok:>4} passed {bad:>4} failed" for tag, (ok, bad) in sorted(by_tag.items())
    ]
    for o in outcomes:
        if not o.passed:
            lines.append(f"FAIL {o.case.id} ({o.case.source}) {o.case.text}")
            lines.extend(f"     {p}" for p in o.problems)
    passed = sum(o.passed for o in outcomes)
    lines.append(f"{passed} passed, {len(outcomes) - passed} failed")
    return "\n".join(lines)
