"""The `jiayu` command: run turns, replay the corpus, explain a parse.

jiayu run [--home FILE] [--json] TEXT...      each TEXT one turn of one session
jiayu replay FILE... [--json]                 corpus cases, summary by tag
jiayu parse [--home FILE] TEXT                tokens, tree, IR, compact form, confidence
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from jiayu.errors import InputError

DEMO_HOME = "homes/demo.json"


def demo_home_path() -> Path:
    """The bundled demo home."""
    return Path(str(resources.files("jiayu.corpus").joinpath(DEMO_HOME)))


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _run(args: argparse.Namespace) -> int:
    from jiayu.engine import Engine

    engine = Engine.from_file(args.home or demo_home_path(), audit_path=args.audit)
    for text in args.text:
        result = engine.turn(text, "cli")
        print(_dump(result.to_json()) if args.json else result.reply)
    return 0


def _replay(args: argparse.Namespace) -> int:
    from jiayu.cases import load_cases
    from jiayu.replay import run_case, summary

    cases = [case for path in args.files for case in load_cases(path)]
    outcomes = [run_case(case) for case in cases]
    if args.json:
        for o in outcomes:
            print(_dump({"id": o.case.id, "pass": o.passed, "result": o.result.to_json()}))
    else:
        print(summary(outcomes))
    return 0 if all(o.passed for o in outcomes) else 1


def _parse(args: argparse.Namespace) -> int:
    from jiayu.compiler.explain import explain
    from jiayu.engine import Engine

    engine = Engine.from_file(args.home or demo_home_path())
    print(explain(" ".join(args.text), engine))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; exit 2 on bad input files, never a traceback."""
    parser = argparse.ArgumentParser(prog="jiayu", description="家语: Chinese smart-home commands")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run turns of one session on a home")
    run.add_argument("--home", help="home file (default: the bundled demo home)")
    run.add_argument("--json", action="store_true", help="print each Result as JSON")
    run.add_argument("--audit", help="append every command sent to this JSONL file")
    run.add_argument("text", nargs="+", help="one turn each")
    run.set_defaults(func=_run)
    replay = sub.add_parser("replay", help="replay corpus case files")
    replay.add_argument("files", nargs="+")
    replay.add_argument("--json", action="store_true", help="one JSON line per case")
    replay.set_defaults(func=_replay)
    explain = sub.add_parser("parse", help="explain how an utterance compiles")
    explain.add_argument("--home", help="home file (default: the bundled demo home)")
    explain.add_argument("text", nargs="+")
    explain.set_defaults(func=_parse)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except InputError as err:
        print(str(err), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
