"""What each fast path of the planner and the runners saves, in instructions per turn.

    uv run --group bench python benchmarks/fastpaths.py [NAME ...]   (needs valgrind)

Each fast path is a shortcut for the common case beside a general way that gives the same
(its guard test says so), a memo, or a hand-written `__init__` beside the one a dataclass
would generate. For each, two processes switch the fast path off first (the general way is
put in its place), then warm the engine as benchmarks/instructions.py does (the demo home,
the peer sentences' warm half twice); one stops there, the other says the warm half once
more and the other half once (unseen); cachegrind counts the instructions of each, and their
difference is per turn. The share is the fast path's saving over the turn with every fast
path on.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
HOME = HERE.parent / "corpus" / "homes" / "demo.json"


def _generated_init(cls: type) -> Callable[..., None]:
    """The `__init__` a dataclass would generate for `cls`'s fields (every one a parameter,
    each default factory called behind a test), for a class whose own is written by hand."""
    fields = [
        (f.name, Any, dataclasses.field(default=f.default, default_factory=f.default_factory))
        for f in dataclasses.fields(cls)
    ]
    shadow = dataclasses.make_dataclass(f"Generated{cls.__name__}", fields)
    return shadow.__init__  # type: ignore[no-any-return]


def _general_settle_all(*args: Any) -> bool:
    from jiayu.executor import run

    batch, commands, results, audit, session, text, listener = args
    settled = True
    for command, result in zip(commands, results, strict=True):
        if not run.settle(batch, command, result, audit, session, text, listener):
            settled = False
    return settled


def _general_complete_sends(commands: Sequence[Any], got: object) -> list[str]:
    from jiayu.executor.hubs import HubError

    answer = got if isinstance(got, (list, tuple)) else ()
    results: list[str] = []
    for index in range(len(commands)):
        value = answer[index] if index < len(answer) else "missing"
        results.append(
            "ok" if value is None else value.reason if isinstance(value, HubError) else "?"
        )
    return results


def _walked(tree: Any) -> Callable[[Any], Any]:
    """A tree's build as a recursive walk (what compiler/build.py's written-out functions
    replace): the Builder's method of each rule, on its children, left to right."""
    from jiayu.compiler.build import Node

    def build(b: Any) -> Any:
        def call(node: Any) -> Any:
            args = [call(c) if type(c) is Node else c for c in node.children]
            if node.data == "clauses" and len(args) == 1 and type(node.children[0]) is Node:
                return [args[0]]
            return getattr(b, node.data)(*args)

        return call(tree)

    return build


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
    from jiayu.executor import run
    from jiayu.planner import clauses, draft, plan, replies

    if name == "clauses._fresh":
        clauses._fresh = clauses._fresh_each  # type: ignore[assignment]
    elif name == "replies.grouped":
        replies.grouped = replies.groups
    elif name == "run.send_groups":
        run.send_groups = lambda commands, *, together: run._runs(commands, together=together)
    elif name == "run.settle_all":
        run.settle_all = _general_settle_all
    elif name == "run.complete_sends":
        run.complete_sends = _general_complete_sends
    elif name == "Draft.__init__":
        draft.Draft.__init__ = _generated_init(draft.Draft)  # type: ignore[method-assign]
    elif name == "Batch.__init__":
        plan.Batch.__init__ = _generated_init(plan.Batch)  # type: ignore[method-assign]
    elif name == "replies.done_phrase":
        from jiayu.planner import delayed, finish

        def unkept(home: Any, clause: Any, sent: Any, tense: Any = "done") -> str:
            return replies._done_phrase(home, clause, sent, tense)

        replies.done_phrase = finish.done_phrase = delayed.done_phrase = unkept
    elif name == "build.builder_of":
        from jiayu.compiler import parse

        parse.builder_of = _walked
    elif name == "ir.filled_directly":
        _frozen_inits()
    elif name == "Draft.home":
        draft.Draft.home = property(lambda self: self.ctx.home)  # type: ignore[method-assign]
        draft.Draft.session = property(lambda self: self.ctx.session)  # type: ignore[method-assign]
    elif name != "base":
        raise SystemExit(f"no fast path {name}")


FAST_PATHS = (
    "run.settle_all",
    "run.complete_sends",
    "Draft.__init__",
    "Batch.__init__",
    "Draft.home",
    "replies.done_phrase",
    "build.builder_of",
    "ir.filled_directly",
)


def _child(name: str, mode: str) -> None:
    sys.path.insert(0, str(HERE))
    import hassil_compare

    from jiayu.engine import Engine
    from jiayu.home import load_home

    _off(name)
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
    if mode == "turns":
        for text in [*warm, *timed]:
            say(text)
    print(json.dumps({"turns": len(warm) + len(timed)}))


def _count(name: str, mode: str) -> tuple[int, int]:
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*argv, sys.executable, __file__, "--child", name, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
    turns = json.loads(done.stdout.strip().splitlines()[-1])["turns"]
    return int(found[1].replace(",", "")), turns


def main(names: Sequence[str]) -> None:
    warm, _ = _count("base", "warm")
    on, turns = _count("base", "turns")
    per_turn = (on - warm) / turns
    print(f"demo home, {turns} turns (a warm half again and an unseen half)")
    print(f"  all fast paths on: {per_turn / 1000:.1f}k instructions a turn")
    for name in names or FAST_PATHS:
        off_warm, _ = _count(name, "warm")
        off, _ = _count(name, "turns")
        saved = (off - off_warm) / turns - per_turn
        print(f"  {name:<22} saves {saved / 1000:6.2f}k a turn = {100 * saved / per_turn:5.2f}%")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1:])
