"""Issue 19, family 5: a schedules or preferences file belongs to one engine at a time — a
second engine in another process refuses to start, naming the file, and nothing is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.home import load_home
from jiayu.preferences import StateFileError

OWNER = textwrap.dedent(
    """
    import sys
    from jiayu.engine import Engine
    home, schedules, preferences = sys.argv[1:4]
    engine = Engine.from_file(home, schedules_path=schedules, preferences_path=preferences)
    print(engine.turn("半小时后关客厅灯", "s").outcome, flush=True)
    print(engine.turn("记住我喜欢26度", "s", user="小明").outcome, flush=True)
    print("ready", flush=True)
    sys.stdin.readline()  # holds the files until told to go
    """
)


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    schedules, preferences = tmp_path / "schedules.json", tmp_path / "prefs.json"
    process = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(demo_home_path()), str(schedules), str(preferences)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    said = [process.stdout.readline().strip() for _ in range(3)]
    assert said == ["scheduled", "executed", "ready"], said
    try:
        yield process, schedules, preferences
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _stop(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.wait(10) == 0


@pytest.mark.parametrize("which", ["schedules", "preferences"])
def test_a_second_engine_in_another_process_refuses_to_start(
    owner: tuple[subprocess.Popen[str], Path, Path], tmp_path: Path, which: str
) -> None:
    process, schedules, preferences = owner
    home = load_home(demo_home_path())
    taken = schedules if which == "schedules" else preferences
    paths = {f"{which}_path": taken}
    with pytest.raises(StateFileError) as refused:
        Engine(home, **paths)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{taken}: ")
    assert f"process {process.pid}" in message
    # Nothing was lost: the owner's schedule and preference are in the files, and once it has
    # gone the next engine starts on them.
    before = (schedules.read_text("utf-8"), preferences.read_text("utf-8"))
    _stop(process)
    assert (schedules.read_text("utf-8"), preferences.read_text("utf-8")) == before
    after = Engine(home, schedules_path=schedules, preferences_path=preferences)
    [kept] = after.schedules.pending()
    assert kept.commands[0].command == "turn_off"
    assert after.preferences.get("小明", "target_temperature") == 26
    assert json.loads(preferences.read_text("utf-8"))["users"]["小明"]


def test_a_killed_owner_leaves_no_stale_lock(
    owner: tuple[subprocess.Popen[str], Path, Path],
) -> None:
    process, schedules, preferences = owner
    process.kill()
    process.wait()
    engine = Engine(
        load_home(demo_home_path()), schedules_path=schedules, preferences_path=preferences
    )
    assert len(engine.schedules) == 1


def test_a_link_to_the_file_is_the_same_file(
    owner: tuple[subprocess.Popen[str], Path, Path], tmp_path: Path
) -> None:
    _, schedules, _ = owner
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "mine.json").symlink_to(schedules)
    with pytest.raises(StateFileError) as refused:
        Engine(load_home(demo_home_path()), schedules_path=other / "mine.json")
    assert str(refused.value).startswith(f"{other / 'mine.json'}: ")


def test_an_owner_collected_while_the_owners_lock_is_held_does_not_hang(tmp_path: Path) -> None:
    # The garbage collector runs a store's finalizer at any allocation, also in the thread
    # that is inside own_state_file holding the owners' lock (this hung the whole suite).
    from jiayu import preferences

    class Owner:
        pass

    path = tmp_path / "preferences.json"
    owner: Owner | None = Owner()
    preferences.own_state_file(path, owner)

    def drop_it_under_the_lock() -> None:
        nonlocal owner
        with preferences._owned_lock:
            owner = None  # the last reference: its finalizer runs here and now

    worker = threading.Thread(target=drop_it_under_the_lock, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "releasing a state file deadlocked"
    preferences._settle()
    assert os.path.realpath(path) not in preferences._owned  # given back once the lock was free
    preferences.own_state_file(path, Owner())  # and the file can be owned again
