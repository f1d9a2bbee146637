"""Every corpus case replayed as a test (CONTRACTS.md §3), one test per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from jiayu.replay import Case, load_cases, run_case

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CASES = [case for path in sorted(CORPUS.glob("*.jsonl")) for case in load_cases(path)]


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case: Case) -> None:
    replayed = run_case(case)
    assert replayed.passed, f"{case.text}: " + "; ".join(replayed.problems)
