"""Instructions per turn, counted by valgrind's cachegrind: a measure of the work a turn does
that, unlike a clock on a shared VM, gives the same number run after run (±2%), so a change
worth a few percent can be told from noise.

    uv run --group bench python benchmarks/instructions.py [unseen|repeated]
                                        (needs valgrind; ~1 min; both unless one is named)

On the demo home, the peer benchmark's sentences (benchmarks/hassil_compare.py) are split in
two as benchmarks/unseen.py splits them: the engine warms up on one half; then each sentence
of the other half is said once (unseen), or the warm half three times more (repeated). Each
is counted in a process of its own, less one that only warms up.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOME = HERE.parent / "corpus" / "homes" / "demo.json"
REPEATS = 3


def warmed() -> tuple[Callable[[str], None], list[str], list[str]]:
    """An engine on the demo home warmed as every count here warms it: the peer sentences
    shuffled and halved, the warm half said twice, the background pinyin build waited for.
    Returns how to say a sentence (rotating speakers), the warm half and the other half."""
    sys.path.insert(0, str(HERE))
    import hassil_compare

    from jiayu.engine import Engine
    from jiayu.home import load_home

    engine = Engine(load_home(HOME))
    texts = [t for _, t in hassil_compare.candidate_sentences(json.loads(HOME.read_text("utf-8")))]
    random.Random(3).shuffle(texts)
    warm, timed = texts[: len(texts) // 2], texts[len(texts) // 2 :]
    speakers = iter(range(10**9))

    def say(text: str) -> None:
        engine.turn(text, f"speaker{next(speakers) % 8}")

    for _ in range(2):
        for text in warm:
            say(text)
    for thread in threading.enumerate():
        if thread.name == "jiayu-pinyin":
            thread.join()
    return say, warm, timed


def _child(mode: str) -> None:
    say, warm, timed = warmed()
    if mode == "unseen":
        for text in timed:
            say(text)
    elif mode == "repeated":
        for _ in range(REPEATS):
            for text in warm:
                say(text)
    print(json.dumps({"warm": len(warm), "timed": len(timed)}))


def count(script: str, *args: str) -> tuple[int, dict[str, int]]:
    """The instructions cachegrind counts in `python script --child *args`, and the JSON
    object the script printed last."""
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*argv, sys.executable, script, "--child", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
    return int(found[1].replace(",", "")), json.loads(done.stdout.strip().splitlines()[-1])


def main(modes: Sequence[str]) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (apt-get install valgrind)")
    base, sizes = count(__file__, "base")
    print(f"demo home, {sizes['timed']} unseen and {sizes['warm']} repeated sentences:")
    if "unseen" in modes:
        unseen, _ = count(__file__, "unseen")
        print(f"  unseen turn:   {(unseen - base) / sizes['timed'] / 1000:7.1f}k instructions")
    if "repeated" in modes:
        repeated, _ = count(__file__, "repeated")
        per_repeated = (repeated - base) / (REPEATS * sizes["warm"])
        print(f"  repeated turn: {per_repeated / 1000:7.1f}k instructions")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        _child(sys.argv[2])
    else:
        main(sys.argv[1:] or ("unseen", "repeated"))
