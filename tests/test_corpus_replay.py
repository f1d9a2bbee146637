"""Every corpus case replayed as a test (CONTRACTS.md §3), one test per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from jiayu.cases import Case, load_cases
from jiayu.replay import run_case

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CASES = [case for path in sorted(CORPUS.glob("*.jsonl")) for case in load_cases(path)]
KNOWN_FAILURES = {
    line.split()[0]
    for line in (Path(__file__).parent / "known_failures.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
}


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(CASES) >= 8


def test_every_known_failure_names_a_corpus_case() -> None:
    assert {c.id for c in CASES} >= KNOWN_FAILURES


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case: Case) -> None:
    replayed = run_case(case)
    if case.id in KNOWN_FAILURES:
        assert not replayed.passed, f"{case.id} passes now: take it off known_failures.txt"
        return
    assert replayed.passed, f"{case.text}: " + "; ".join(replayed.problems)
