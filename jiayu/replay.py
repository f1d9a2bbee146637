"""Replay corpus cases (CONTRACTS.md §3): each in a fresh session on a fresh simulated hub."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from jiayu.engine import Engine
from jiayu.errors import CorpusError, Problem, json_pointer
from jiayu.executor.catalog import schema_message
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import load_home
from jiayu.result import Result


@dataclass(frozen=True)
class Case:
    """One corpus case, as validated."""

    id: str
    home: Path
    text: str
    history: tuple[str, ...]
    state: dict[str, dict[str, Any]]
    expect: dict[str, Any]
    tags: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Replayed:
    """One replayed case."""

    case: Case
    result: Result
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


@lru_cache(maxsize=1)
def _case_validator() -> Draft202012Validator:
    schema = json.loads(
        resources.files("jiayu").joinpath("schemas/case.schema.json").read_text("utf-8")
    )
    return Draft202012Validator(schema)


def load_cases(path: str | Path) -> list[Case]:
    """Read and validate a JSONL corpus file; CorpusError lists every bad line."""
    path = Path(path)
    problems: list[Problem] = []
    cases: list[Case] = []
    seen: set[str] = set()
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise CorpusError([Problem(str(path), "", f"cannot read: {err}")]) from err
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        source = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(Problem(source, "", f"invalid JSON: {err.msg} at column {err.colno}"))
            continue
        errors = sorted(_case_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
        for error in errors:
            problems.append(
                Problem(source, json_pointer(error.absolute_path), schema_message(error))
            )
        if errors:
            continue
        if data["id"] in seen:
            problems.append(Problem(source, "/id", f'duplicate case id "{data["id"]}"'))
        seen.add(data["id"])
        cases.append(
            Case(
                data["id"],
                (path.parent / data["home"]).resolve(),
                data["text"],
                tuple(data.get("history", ())),
                data.get("state", {}),
                data["expect"],
                tuple(data.get("tags", ())),
                source,
            )
        )
    if problems:
        raise CorpusError(problems)
    return cases


@lru_cache(maxsize=16)
def _engine(home: Path) -> Engine:
    return Engine(load_home(home))


def run_case(case: Case) -> Replayed:
    """Run the history, then the text, in a fresh session on a fresh hub; check the result."""
    base = _engine(case.home)
    engine = base.fresh(hub=SimulatedHub(base.home, case.state))
    for earlier in case.history:
        engine.turn(earlier, case.id)
    result = engine.turn(case.text, case.id)
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
