"""The replay report's metrics, on tiny case files whose every number is worked out by hand."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from jiayu import replay
from jiayu.cases import load_cases
from jiayu.errors import CorpusError
from jiayu.replay import Replayed, Report, nearest_rank, run_case, unexpected_commands
from jiayu.result import Result

DEMO = Path(__file__).resolve().parent.parent / "corpus" / "homes" / "demo.json"

ONE = [
    # right, acts
    {"id": "c1", "text": "打开客厅灯", "tags": ["a"],
     "expect": {"outcome": "executed",
                "commands": [{"device": "light_living", "command": "turn_on"}]}},
    # right, asks
    {"id": "c2", "text": "打开台灯", "tags": ["a", "b"],
     "expect": {"outcome": "clarify", "options": ["lamp_study", "lamp_bedroom"]}},
    # expects to act, asks (confirm)
    {"id": "c3", "text": "解锁门锁", "tags": ["b"], "expect": {"outcome": "executed"}},
    # expects to ask, acts: the command it sent is unexpected
    {"id": "c4", "text": "打开客厅灯", "tags": ["c"], "expect": {"outcome": "clarify"}},
    # expects to send nothing, sends one
    {"id": "c5", "text": "关掉书房灯", "tags": ["c"],
     "expect": {"outcome": "executed", "commands": []}},
    # accepts asking or acting: left out of the ask-or-act decision
    {"id": "c6", "text": "客厅温度多少", "expect": {"outcome": ["answered", "clarify"]}},
    # accepts neither of what it gets
    {"id": "c7", "text": "阿巴阿巴", "expect": {"outcome": ["noop", "rejected"]}},
]  # fmt: skip
TWO = [{"id": "c8", "text": "打开书房台灯", "expect": {"outcome": "executed"}}]


def _write(folder: Path, name: str, cases: list[dict[str, object]]) -> Path:
    path = folder / name
    path.write_text(
        "".join(json.dumps({"home": "demo.json", **c}, ensure_ascii=False) + "\n" for c in cases),
        "utf-8",
    )
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    shutil.copy(DEMO, tmp_path / "demo.json")
    return _write(tmp_path, "one.jsonl", ONE), _write(tmp_path, "two.jsonl", TWO)  # type: ignore[arg-type]


@pytest.fixture
def report(files: tuple[Path, Path]) -> Report:
    cases = [case for path in files for case in load_cases(path)]
    return Report(tuple(run_case(case) for case in cases))


def test_pass_and_fail_by_tag_and_by_file(report: Report) -> None:
    assert [r.case.id for r in report.replayed if not r.passed] == ["c3", "c4", "c5", "c7"]
    assert report.by_tag == {"a": (2, 0), "b": (1, 1), "c": (0, 2), "untagged": (2, 1)}
    assert report.by_file == {"one.jsonl": (3, 4), "two.jsonl": (1, 0)}


def test_confusion_matrix_rows_are_expected_and_columns_got(report: Report) -> None:
    assert report.confusion == {
        "clarify": {"clarify": 1, "executed": 1},
        "answered": {"answered": 1},
        "executed": {"executed": 3, "confirm": 1},
        "noop|rejected": {"unknown": 1},
    }


def test_ask_or_act_precision_and_recall(report: Report) -> None:
    assert report.ask_or_act == {
        "ask": {"expected": 2, "predicted": 2, "correct": 1, "precision": 0.5, "recall": 0.5},
        "act": {"expected": 5, "predicted": 5, "correct": 4, "precision": 0.8, "recall": 0.8},
        "either": {"cases": 1},
    }


def test_unexpected_commands_are_listed_by_case(report: Report) -> None:
    assert [(r.case.id, extra) for r, extra in report.unexpected] == [
        ("c4", [{"device": "light_living", "command": "turn_on", "params": {}}]),
        ("c5", [{"device": "light_study", "command": "turn_off", "params": {}}]),
    ]


def test_unexpected_commands_counts_a_multiset() -> None:
    on = {"device": "light_living", "command": "turn_on", "params": {}}
    off = {"device": "light_living", "command": "turn_off"}
    sent = Result("x", "executed", commands=[on, on, {**off, "params": {}}])
    assert unexpected_commands({"outcome": "executed", "commands": [on, off]}, sent) == [on]
    assert unexpected_commands({"outcome": ["noop", "executed"]}, sent) == []
    assert len(unexpected_commands({"outcome": ["noop", "confirm"]}, sent)) == 3


def test_llm_turns_count_the_source(report: Report) -> None:
    assert report.llm_turns == 0
    case = report.replayed[0].case
    by_llm = Replayed(case, Result(case.text, "executed", source="llm"), ())
    assert Report((*report.replayed, by_llm)).llm_turns == 1


def test_latency_per_stage_from_the_results_timings(report: Report) -> None:
    latency = report.latency
    assert latency["turn"]["n"] == 8
    assert latency["compile"]["n"] == 8  # every turn compiles
    assert "llm" not in latency  # no turn went to the fallback
    for stage in latency.values():
        assert 0 < stage["median_ms"] <= stage["p99_ms"]


def test_nearest_rank_is_an_observed_value() -> None:
    assert nearest_rank(list(range(1, 101)), 0.99) == 99
    assert nearest_rank([3.0, 1.0, 2.0], 0.5) == 2.0
    assert nearest_rank([7.0], 0.99) == 7.0
    with pytest.raises(ValueError):
        nearest_rank([], 0.5)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    replay.add_arguments(parser)
    return parser.parse_args(argv)


def test_json_is_one_contract_line_per_case_and_metrics_go_to_a_file(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = tmp_path / "metrics.json"
    assert replay.run(_args(*map(str, files), "--json", "--metrics", str(metrics))) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [set(line) for line in lines] == [{"id", "pass", "result"}] * 8
    assert [line["pass"] for line in lines] == [True, True, False, False, False, True, False, True]
    assert lines[0]["result"]["outcome"] == "executed"
    saved = json.loads(metrics.read_text("utf-8"))
    assert (saved["cases"], saved["passed"], saved["failed"]) == (8, 4, 4)
    assert saved["confusion"]["executed"] == {"executed": 3, "confirm": 1}
    assert saved["ask_or_act"]["act"]["precision"] == 0.8
    assert [u["id"] for u in saved["unexpected_commands"]] == ["c4", "c5"]


def test_text_report_and_exit_status(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert replay.run(_args(str(files[1]))) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("1 passed, 0 failed")
    assert "needed the LLM: 0 of 1 turns" in out
    assert replay.run(_args(str(files[0]))) == 1
    out = capsys.readouterr().out
    assert "FAIL c3" in out and "commands sent that no case expected: 2" in out


def test_unwritable_metrics_file_is_a_one_line_error(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "m.json"
    assert replay.run(_args(str(files[1]), "--metrics", str(target))) == 2
    assert capsys.readouterr().err.startswith(f"{target}: cannot write the metrics")


def _known(folder: Path, *lines: str) -> Path:
    path = folder / "known.txt"
    path.write_text("# cases known to fail\n" + "".join(f"{line}\n" for line in lines), "utf-8")
    return path


def test_known_failures_do_not_fail_the_run_and_one_passing_now_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(DEMO, tmp_path / "demo.json")
    failing = _write(tmp_path, "failing.jsonl", [c for c in ONE if c["id"] in ("c3", "c7")])
    known = _known(tmp_path, "c3  asks for a confirmation", "c7  gibberish")
    assert replay.run(_args(str(failing), "--known", str(known))) == 0
    out = capsys.readouterr().out
    assert "0 passed, 2 failed (2 known)" in out and "FAIL c3" not in out
    assert replay.run(_args(str(failing), "--no-known")) == 1
    passing = _write(tmp_path, "passing.jsonl", TWO)
    assert replay.run(_args(str(passing), "--known", str(_known(tmp_path, "c8 was wrong")))) == 1
    assert "PASSES NOW c8 打开书房台灯: take it off the known failures" in capsys.readouterr().out


def test_a_known_failure_that_sends_what_no_case_expected_still_fails_the_run(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    known = _known(tmp_path, "c3", "c4", "c5", "c7")
    assert replay.run(_args(str(files[0]), "--known", str(known))) == 1


def test_an_unreadable_known_failures_file_is_one_line(files: tuple[Path, Path]) -> None:
    with pytest.raises(CorpusError) as caught:
        replay.run(_args(str(files[1]), "--known", "no/such/file.txt"))
    assert str(caught.value).startswith("no/such/file.txt: /: cannot read the known failures")


def test_the_known_failures_of_the_checkout_are_found_from_the_case_files() -> None:
    corpus = sorted((DEMO.parent.parent).glob("*.jsonl"))
    assert (
        replay.checkout_known(corpus) == DEMO.parent.parent.parent / "tests" / "known_failures.txt"
    )


def test_stats_share_the_turns_between_the_grammar_and_the_model(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = tmp_path / "metrics.json"
    replay.run(_args(*map(str, files), "--stats", "--metrics", str(metrics)))
    out = capsys.readouterr().out
    # Only 阿巴阿巴 (c7, untagged) is not understood as a whole: the gate sends it to the model.
    gate = json.loads(metrics.read_text("utf-8"))["gate"]
    assert gate["(all)"] == {
        "turns": 8,
        "grammar_alone": 7 / 8,
        "would_consult_llm": 1 / 8,
        "would_consult_llm_meant_unknown": 0.0,  # c7 expects noop or rejected
    }
    assert gate["untagged"]["would_consult_llm"] == 1 / 3  # c6, c7, c8
    assert gate["a"]["grammar_alone"] == 1.0
    assert "(all)         8    87.5%   12.5%           0.0%" in out
    # Asking leaves the replay as it was: the same cases pass and fail.
    plain = Report(tuple(run_case(c) for path in files for c in load_cases(path)))
    assert [r.passed for r in plain.replayed] == [
        r.passed
        for r in Report(
            tuple(run_case(c, stats=True) for p in files for c in load_cases(p))
        ).replayed
    ]
    assert plain.gate_stats is None
