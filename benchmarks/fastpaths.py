"""What each fast path of the planner and the runners saves, in instructions per turn.

    uv run --group bench python benchmarks/fastpaths.py [--repeated|--unseen] [NAME ...]
                                                            (needs valgrind)

Each fast path is a shortcut for the common case beside a general way that gives the same
(its guard test says so), a memo, or a hand-written `__init__` beside the one a dataclass
would generate. For each, two processes switch the fast path off first (the general way is
put in its place), then warm the engine as benchmarks/instructions.py does (the demo home,
the peer sentences' warm half twice); one stops there, the other says the warm half once
more and the other half once (unseen), or with --repeated the warm half three times more
(repeated turns alone, instructions.py's repeated turn), or with --unseen the other half
once (instructions.py's unseen turn, the only turn a fast path of the compiler serves);
cachegrind counts the instructions
of each, and their difference is per turn. The share is the fast path's saving over the turn
with every fast path on.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import REPEATS, count, warmed  # noqa: E402


def _settle_each(*args: Any) -> bool:
    """run.settle_all's general way: settle each command."""
    from jiayu.executor import run

    owners, commands, results, audit, session, text, listener = args
    settled = True
    for batch, command, result in zip(owners, commands, results, strict=False):
        if not run.settle(batch, command, result, audit, session, text, listener):
            settled = False
    return settled


def _result_init_by_field(
    self: Any,
    text: str,
    outcome: str,
    commands: Any = None,
    answers: Any = None,
    options: Any = None,
    reply: str = "",
    source: str = "none",
    compact: Any = None,
    ir: Any = None,
    failures: Any = None,
    pending: Any = None,
    scheduled: Any = None,
    timings: Any = None,
) -> None:
    """Result's __init__ as a frozen dataclass's generated one is written: object.__setattr__
    per field, in line (the two built forms, which refuse setting, go in the dict)."""
    put = object.__setattr__
    put(self, "text", text)
    put(self, "outcome", outcome)
    put(self, "commands", [] if commands is None else commands)
    put(self, "answers", [] if answers is None else answers)
    put(self, "options", [] if options is None else options)
    put(self, "reply", reply)
    put(self, "source", source)
    self.__dict__["_built_compact"] = [] if compact is None else compact
    self.__dict__["_built_ir"] = {} if ir is None else ir
    put(self, "failures", [] if failures is None else failures)
    put(self, "pending", [] if pending is None else pending)
    put(self, "scheduled", [] if scheduled is None else scheduled)
    put(self, "timings", {} if timings is None else timings)


def _walked(tree: Any) -> Callable[[Any], Any]:
    """A tree's build as a plain recursive walk (what compiler/build.py's written-out
    functions replace): the Builder's method of each rule, on its children, left to right."""
    from jiayu.compiler.build import Node

    def call(node: Any, b: Any) -> Any:
        children = [call(c, b) if type(c) is Node else c for c in node.children]
        return getattr(b, node.data)(*children)

    return lambda b: call(tree, b)


def _frozen_inits() -> None:
    """Every class `filled_directly` made an __init__ for gets the one dataclasses writes."""
    from jiayu import ir
    from jiayu.compiler import understand
    from jiayu.planner import effects
    from jiayu.resolver import resolve

    for module in (ir, understand, resolve, effects):
        for value in vars(module).values():
            init = getattr(value, "__init__", None)
            code = getattr(init, "__code__", None)
            if not dataclasses.is_dataclass(value) or code is None:
                continue
            if code.co_filename != "<string>" or "_set_dict" not in code.co_names:
                continue
            fields = [
                (
                    f.name,
                    Any,
                    dataclasses.field(default=f.default, default_factory=f.default_factory),
                )
                for f in dataclasses.fields(value)
            ]
            shadow = dataclasses.make_dataclass(f"Generated{value.__name__}", fields, frozen=True)
            value.__init__ = shadow.__init__  # type: ignore[misc]


def _off(name: str) -> None:
    """Put the general way in the fast path's place."""
    from jiayu import result
    from jiayu.executor import run

    if name == "run.settle_all":
        run.settle_all = _settle_each
    elif name == "Result.__init__":
        result.Result.__init__ = _result_init_by_field  # type: ignore[method-assign]
    elif name == "build.builder_of":
        from jiayu.compiler import parse

        parse.builder_of = _walked
    elif name == "ir.filled_directly":
        _frozen_inits()
    elif name != "base":
        raise SystemExit(f"no fast path {name}")


FAST_PATHS = ("run.settle_all", "Result.__init__", "build.builder_of", "ir.filled_directly")
"""The fast paths still in the code (the last two in files of other owners)."""


def _child(name: str, mode: str) -> None:
    _off(name)
    say, warm, timed = warmed()
    said = {"turns": [*warm, *timed], "repeated": [*warm] * REPEATS, "unseen": timed}.get(mode, [])
    for text in said:
        say(text)
    print(json.dumps({"turns": len(said)}))


def _count(name: str, mode: str) -> tuple[int, int]:
    instructions, printed = count(__file__, name, mode)
    return instructions, printed["turns"]


def main(names: Sequence[str]) -> None:
    mode = "turns"
    if names and names[0] in ("--repeated", "--unseen"):
        mode, names = names[0][2:], names[1:]
    warm, _ = _count("base", "warm")
    on, turns = _count("base", mode)
    per_turn = (on - warm) / turns
    if mode == "repeated":
        print(f"demo home, {turns} turns (the warm half three times more)")
    elif mode == "unseen":
        print(f"demo home, {turns} turns (the unseen half once)")
    else:
        print(f"demo home, {turns} turns (a warm half again and an unseen half)")
    print(f"  all fast paths on: {per_turn / 1000:.1f}k instructions a turn")
    for name in names or FAST_PATHS:
        off_warm, _ = _count(name, "warm")
        off, _ = _count(name, mode)
        saved = (off - off_warm) / turns - per_turn
        print(f"  {name:<22} saves {saved / 1000:6.2f}k a turn = {100 * saved / per_turn:5.2f}%")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1:])
