"""Bytecodes per turn, by function: where a turn's Python work goes, counted, not timed.

    uv run --group bench python benchmarks/bytecodes.py [unseen|repeated] [--save FILE]
    uv run --group bench python benchmarks/bytecodes.py --compare OLD NEW

The engine is warmed as benchmarks/instructions.py warms it; then a tracer counts each
bytecode the turns run (sys.settrace's opcode events), by the function that runs it. The
count is exact and the same run after run, so two trees can be compared function by function
(`--save` in each, then `--compare`): instructions.py says how much a change costs, this
says where. It counts Python work only: what C does for a bytecode (a dict lookup, a regex)
is in instructions.py's count, not here.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import REPEATS, warmed  # noqa: E402

Counts = dict[str, float]


def counted(mode: str) -> Counts:
    """Bytecodes per turn by "file:function" (the file relative to the package's tree)."""
    say, warm, timed = warmed()
    said = [*warm] * REPEATS if mode == "repeated" else timed
    import jiayu  # the tree whose package runs (another tree's, run from there)

    root = str(Path(jiayu.__file__).resolve().parent.parent) + "/"
    counts: collections.Counter[tuple[str, str]] = collections.Counter()

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            code = frame.f_code
            counts[code.co_filename, code.co_qualname] += 1
        return tracer

    sys.settrace(tracer)
    try:
        for text in said:
            say(text)
    finally:
        sys.settrace(None)
    per_turn: Counts = {}
    for (file, name), count in counts.items():
        key = f"{file.removeprefix(root)}:{name}"
        per_turn[key] = per_turn.get(key, 0.0) + count / len(said)
    return per_turn


def compare(old: Counts, new: Counts, rows: int) -> None:
    print(f"bytecodes per turn: {sum(old.values()):.1f} -> {sum(new.values()):.1f}")
    for level, key_of in (("file", lambda k: k.rsplit(":", 1)[0]), ("function", str)):
        before: collections.defaultdict[str, float] = collections.defaultdict(float)
        after: collections.defaultdict[str, float] = collections.defaultdict(float)
        for key, count in old.items():
            before[key_of(key)] += count
        for key, count in new.items():
            after[key_of(key)] += count
        print(f"by {level}, the largest changes:")
        keys = sorted(before.keys() | after.keys(), key=lambda k: -abs(after[k] - before[k]))
        for key in keys[:rows]:
            change = after[key] - before[key]
            print(f"  {before[key]:8.1f} -> {after[key]:8.1f} ({change:+7.1f})  {key}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", choices=("unseen", "repeated"), default="repeated")
    parser.add_argument("--save", type=Path, help="write the counts here as JSON")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    parser.add_argument("--rows", type=int, default=25)
    args = parser.parse_args()
    if args.compare:
        old, new = (json.loads(path.read_text("utf-8")) for path in args.compare)
        compare(old, new, args.rows)
        return
    counts = counted(args.mode)
    if args.save:
        args.save.write_text(json.dumps(counts), "utf-8")
    top = sorted(counts.items(), key=lambda item: -item[1])[: args.rows]
    print(f"{args.mode} turn: {sum(counts.values()):.1f} bytecodes")
    for key, count in top:
        print(f"  {count:8.1f}  {key}")


if __name__ == "__main__":
    main()
