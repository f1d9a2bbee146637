"""`jiayu shell` and `jiayu run` without text: from a pipe (a turn a line) and at a real
terminal (a pty: prompt, readline history kept across sessions, :commands)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "JIAYU_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)}


def _pipe(tmp_path: Path, *args: str, lines: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jiayu.cli", *args],
        input=lines,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_run_without_text_reads_a_turn_a_line_from_a_pipe(tmp_path: Path) -> None:
    out = _pipe(tmp_path, "run", lines="打开客厅灯\n\n把它调到百分之三十\n:state light_living\n")
    assert out.splitlines() == [
        "好的，已打开客厅灯",
        "  → light_living turn_on {}",
        "  客厅灯: on false → true",
        "好的，已把客厅灯亮度调到30%",
        '  → light_living set_brightness {"value":30}',
        "  客厅灯: brightness 80 → 30",
        '客厅灯 (light_living): {"on":true,"brightness":30,"color_temp":4000}',
    ]
    assert not (tmp_path / "history").exists()  # no history from a pipe


def test_the_shells_own_commands(tmp_path: Path) -> None:
    lines = (
        ":area 卧室\n开灯\n:area 火星\n:user 小明\n:json\n关闭卧室灯\n:json\n"
        ":state 主卧\n:state 主卧床头灯\n:nope\n:help\n:quit\n打开客厅灯\n"
    )
    out = _pipe(tmp_path, "shell", lines=lines).splitlines()
    assert out[0] == "房间：卧室（bedroom）"
    assert out[1] == "好的，已打开卧室灯"  # 开灯 said in the bedroom
    assert "家里没有叫“火星”的房间" in out
    assert "说话人：小明" in out
    json_line = next(line for line in out if line.startswith("{"))
    assert '"outcome":"executed"' in json_line and '"device":"light_bedroom"' in json_line
    assert "JSON 输出：关" in out
    assert "家里没有叫“主卧”的设备" in out
    assert any(line.startswith("主卧床头灯 (light_master_bedside): {") for line in out)
    assert "没有 :nope 这个命令；:help 看全部" in out
    assert any(line.startswith(":state [设备]") for line in out)
    assert "好的，已打开客厅灯" not in out  # :quit ended the session


def test_a_failed_command_and_a_question_show_no_changes(tmp_path: Path) -> None:
    out = _pipe(tmp_path, "run", lines="客厅灯开着吗\n").splitlines()
    assert len(out) == 1 and "客厅灯" in out[0]


class _Terminal:
    """The shell on a pseudo-terminal, as a person at a terminal runs it."""

    def __init__(self, tmp_path: Path) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the shell itself
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "jiayu.cli", "shell"], _env(tmp_path))
        self.seen = b""  # bytes: a read may end inside a character

    def expect(self, text: str, timeout: float = 60) -> str:
        wanted = text.encode()
        deadline = time.monotonic() + timeout
        while wanted not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r} in {self.seen.decode(errors='replace')!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    break
        assert wanted in self.seen, f"never saw {text!r} in {self.seen.decode(errors='replace')!r}"
        before, _, self.seen = self.seen.partition(wanted)
        return before.decode()

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def close(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.mark.skipif(sys.platform == "win32", reason="a pty is POSIX")
def test_at_a_terminal_there_is_a_prompt_and_history_across_sessions(tmp_path: Path) -> None:
    term = _Terminal(tmp_path)
    term.expect("家语> ")
    term.send("打开客厅灯\r")
    said = term.expect("家语> ")
    assert "好的，已打开客厅灯" in said and "on false → true" in said
    term.send(":state 客厅灯\r")
    assert '"on":true' in term.expect("家语> ")
    term.send("\x04")  # Ctrl-D ends the session
    assert term.close() == 0
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert "打开客厅灯" in history

    # A new session remembers: ↑↑ brings back the sentence said before the :state.
    term = _Terminal(tmp_path)
    term.expect("家语> ")
    term.send("关闭客厅灯\r")
    term.expect("家语> ")
    term.send("\x1b[A\x1b[A\x1b[A\r")
    said = term.expect("家语> ")
    assert "好的，已打开客厅灯" in said and "on false → true" in said
    term.send(":quit\r")
    assert term.close() == 0
