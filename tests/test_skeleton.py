"""The walking skeleton end to end: CLI, engine, hub (the package itself: test_packaging.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jiayu.cli import demo_home_path, main
from jiayu.engine import Engine

ROOT = Path(__file__).resolve().parent.parent


def test_turning_on_a_named_device_sends_turn_on_and_changes_hub_state(engine: Engine) -> None:
    result = engine.turn("打开客厅灯")
    assert result.outcome == "executed"
    assert result.commands == [{"device": "light_living", "command": "turn_on", "params": {}}]
    assert engine.hub.read("light_living")["on"] is True
    assert result.source == "grammar"
    assert "客厅灯" in result.reply


def test_run_json_prints_an_executed_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--json", "打开客厅灯"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["outcome"] == "executed"
    assert result["commands"] == [{"device": "light_living", "command": "turn_on", "params": {}}]


def test_run_prints_one_reply_per_turn_of_one_session(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "打开台灯", "书房的"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["书房还是卧室的台灯？", "好的，已打开书房台灯"]


def test_a_home_with_a_dangling_room_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = json.loads(demo_home_path().read_text("utf-8"))
    home["devices"][3]["room"] = "garage"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(home, ensure_ascii=False), "utf-8")
    assert main(["run", "--home", str(bad), "打开客厅灯"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f'{bad}: /devices/3/room: "garage" is not a room id'


def test_the_console_script_exits_2_on_a_bad_home_without_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "jiayu.cli", "run", "--home", str(bad), "开灯"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{bad}: /: invalid JSON")


def test_replay_exits_nonzero_on_a_failing_case(tmp_path: Path) -> None:
    case = {
        "id": "x",
        "home": str(demo_home_path()),
        "text": "打开客厅灯",
        "expect": {
            "outcome": "executed",
            "commands": [{"device": "light_bedroom", "command": "turn_on"}],
        },
    }
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", "utf-8")
    assert main(["replay", str(path)]) == 1


def test_replay_rejects_a_malformed_case_with_file_line_and_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "x", "home": "h.json", "text": "开灯", "expect": {}}\n', "utf-8")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"{path}:1: /expect: missing required key")
