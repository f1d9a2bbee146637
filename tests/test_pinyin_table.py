"""The shipped pinyin table: what the generator writes, what pypinyin reads, what names key to.

pypinyin is a dev dependency: these tests compare the table with it, and check that jiayu
itself never imports it.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from pypinyin import Style, lazy_pinyin

from jiayu.compiler.pinyin import MAX_VARIANTS, char_key, name_keys, said_key

ROOT = Path(__file__).resolve().parent.parent


def _shipped() -> str:
    return resources.files("jiayu.compiler").joinpath("pinyin_readings.txt").read_text("utf-8")


def test_the_shipped_table_is_what_the_generator_writes_from_the_installed_pypinyin(
    tmp_path: Path,
) -> None:
    out = tmp_path / "pinyin_readings.txt"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_pinyin_table.py"), str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_text("utf-8") == _shipped(), (
        "compiler/pinyin_readings.txt is stale: run `uv run python scripts/gen_pinyin_table.py`"
    )


def test_every_character_keys_to_the_reading_pypinyin_gives_it() -> None:
    head = _shipped().split("\n\n")[0]
    chars = "".join(line.split(" ")[1] for line in head.splitlines() if not line.startswith("#"))
    assert len(chars) > 40_000
    wrong = [ch for ch in chars if char_key(ch) != lazy_pinyin(ch, style=Style.NORMAL)[0]]
    assert wrong == []


def test_a_character_with_no_reading_is_its_own_key() -> None:
    assert [char_key(ch) for ch in "a1，😀"] == ["a", "1", "，", "😀"]
    assert said_key("客厅等") == said_key("客厅灯") == "ke ting deng"


@pytest.mark.parametrize(
    "name", ["客厅灯", "重灯", "长廊灯", "儿童房空调", "还是重新调长一点", "行乐还重长调", "灯"]
)
def test_a_names_keys_start_with_how_it_is_said_and_are_bounded_and_distinct(name: str) -> None:
    keys = name_keys(name)
    assert keys[0] == said_key(name)
    assert len(keys) <= MAX_VARIANTS
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    ("name", "readings"), [("重灯", {"zhong", "chong"}), ("长廊灯", {"chang", "zhang"})]
)
def test_a_heteronym_in_a_name_is_keyed_every_way(name: str, readings: set[str]) -> None:
    assert {key.split()[0] for key in name_keys(name)} >= readings


def test_the_bound_keeps_one_change_before_two() -> None:
    # 儿童房空调: 儿 er/ren, 童 tong/zhong, 房 fang/pang, 调 diao/tiao. Every
    # single change fits under the bound; the keys past them change two characters.
    keys = name_keys("儿童房空调")
    said = said_key("儿童房空调").split()
    changed = [sum(a != b for a, b in zip(key.split(), said, strict=True)) for key in keys]
    assert changed == sorted(changed)
    assert changed[:5] == [0, 1, 1, 1, 1]
    assert "er tong fang kong tiao" in keys


def test_a_name_with_no_chinese_characters_keys_to_itself() -> None:
    assert name_keys("TV") == (said_key("TV"),) == ("T V",)
    assert name_keys("") == ("",)


def test_jiayu_never_imports_pypinyin_even_when_a_slip_needs_readings() -> None:
    # 等 is a slip for 灯 (the same toneless reading); the background warm-up and a fuzzy
    # name lookup read the table too.
    code = (
        "import sys, threading\n"
        "from jiayu.cli import demo_home_path\n"
        "from jiayu.engine import Engine\n"
        "from jiayu.home import load_home\n"
        "engine = Engine(load_home(demo_home_path()))\n"
        "result = engine.turn('客厅等打开')\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name == 'jiayu-pinyin':\n"
        "        thread.join()\n"
        "assert engine.names.fuzzy('客厅落地等'), 'no fuzzy match'\n"
        "print(result.outcome, result.commands, 'pypinyin' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    expected = "executed [{'device': 'light_living', 'command': 'turn_on', 'params': {}}] False"
    assert out.stdout.strip() == expected


def test_the_table_is_loaded_once_when_threads_need_it_at_once() -> None:
    # The engine's background warm-up and a turn with a slip may both be first.
    code = (
        "import threading\n"
        "from jiayu.compiler import pinyin\n"
        "loads = []\n"
        "load = pinyin._Table.load\n"
        "pinyin._Table.load = staticmethod(lambda: loads.append(1) or load())\n"
        "start = threading.Barrier(8)\n"
        "keys = []\n"
        "def read():\n"
        "    start.wait()\n"
        "    keys.append(pinyin.name_keys('重灯'))\n"
        "threads = [threading.Thread(target=read) for _ in range(8)]\n"
        "for thread in threads: thread.start()\n"
        "for thread in threads: thread.join()\n"
        "print(len(loads), len(keys), len(set(keys)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "8", "1"]
