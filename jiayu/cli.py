"""The `jiayu` command: run turns, replay the corpus, explain a parse, build a home.

jiayu run [--home FILE] [--json] [--area ROOM] [--user U] [--llm] TEXT...
                                              each TEXT one turn of one session (no TEXT:
                                              the shell, or a turn per line from a pipe)
jiayu shell [--home FILE] [...]               one session at a prompt, with history, the
                                              commands sent and what changed (:help)
jiayu replay FILE... [--json]                 corpus cases: by tag and file, confusion, latency
jiayu coverage [FILE...]                      grammar rules and words the corpus exercises
jiayu parse [--home FILE] TEXT                tokens, tree, IR, compact form, confidence
jiayu home from-z2m --rooms MAP [...]         a home file from zigbee2mqtt's bridge/devices
jiayu home from-ha --url URL [--token T]      a home file from Home Assistant (token also HA_TOKEN)
jiayu home from-smartthings [--token T | --devices F --rooms F]
                                              a home file from SmartThings' API or saved answers
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jiayu import coverage
from jiayu import replay as replay_cli
from jiayu.errors import InputError, JiayuError
from jiayu.importers import ha, smartthings, z2m

if TYPE_CHECKING:
    from jiayu.engine import Engine

DEMO_HOME = "homes/demo.json"


def demo_home_path() -> Path:
    """The bundled demo home."""
    return Path(str(resources.files("jiayu.corpus").joinpath(DEMO_HOME)))


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _run(args: argparse.Namespace) -> int:
    engine = _engine(args)
    if engine is None:
        return 2
    if not args.text:
        from jiayu.shell import run_shell

        return run_shell(engine, area=args.area, user=args.user, json_mode=args.json)
    for text in args.text:
        result = engine.turn(text, "cli", area=args.area, user=args.user)
        print(_dump(result.to_json()) if args.json else result.reply)
    return 0


def _engine(args: argparse.Namespace) -> Engine | None:
    """The engine `run` and `shell` drive; None (said on stderr) when --llm is unconfigured."""
    from jiayu.engine import Engine

    llm = None
    if args.llm:
        from jiayu.compiler.llm.client import client_from_env

        llm = client_from_env(args.llm_kind)
        if llm is None:
            print(
                "jiayu: --llm needs JIAYU_LLM_BASE_URL (a self-hosted server or DashScope's "
                "compatible mode) or DASHSCOPE_API_KEY",
                file=sys.stderr,
            )
            return None
    return Engine.from_file(
        args.home or demo_home_path(),
        audit_path=args.audit,
        llm=llm,
        schedules_path=args.schedules,
        preferences_path=args.preferences,
    )


def _parse(args: argparse.Namespace) -> int:
    from jiayu.engine import Engine
    from jiayu.explain import explain

    engine = Engine.from_file(args.home or demo_home_path())
    print(explain(" ".join(args.text), engine))
    return 0


def _session_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="home file (default: the bundled demo home)")
    parser.add_argument("--json", action="store_true", help="print each Result as JSON")
    parser.add_argument("--audit", help="append every command sent to this JSONL file")
    parser.add_argument("--area", help="the speaker's room id (这里, and 开灯 said there)")
    parser.add_argument("--user", help="who is speaking (their preferences)")
    parser.add_argument("--schedules", help="keep delayed commands in this JSON state file")
    parser.add_argument("--preferences", help="keep users' preferences in this JSON state file")
    parser.add_argument(
        "--llm",
        action="store_true",
        help="use the Qwen fallback configured by JIAYU_LLM_BASE_URL / DASHSCOPE_API_KEY",
    )
    parser.add_argument(
        "--llm-kind", choices=["dashscope", "openai"], help="which client --llm uses"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; exit 2 on bad input files, never a traceback."""
    parser = argparse.ArgumentParser(prog="jiayu", description="家语: Chinese smart-home commands")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run turns of one session on a home")
    _session_arguments(run)
    run.add_argument("text", nargs="*", help="one turn each (none: the shell)")
    run.set_defaults(func=_run)
    shell = sub.add_parser("shell", help="one session at a prompt (or a turn per piped line)")
    _session_arguments(shell)
    shell.set_defaults(func=_run, text=[])
    replay = sub.add_parser("replay", help="replay corpus case files")
    replay_cli.add_arguments(replay)
    replay.set_defaults(func=replay_cli.run)
    cover = sub.add_parser("coverage", help="grammar rules and words the corpus exercises")
    coverage.add_arguments(cover)
    cover.set_defaults(func=coverage.run)
    home = sub.add_parser("home", help="build a home file from a real hub")
    sources = home.add_subparsers(dest="source", required=True)
    from_z2m = sources.add_parser(
        "from-z2m", help="from zigbee2mqtt's bridge/devices and a rooms mapping"
    )
    z2m.add_arguments(from_z2m)
    from_z2m.set_defaults(func=z2m.run)
    from_ha = sources.add_parser(
        "from-ha", help="from Home Assistant's registries (token: --token or HA_TOKEN)"
    )
    ha.add_arguments(from_ha)
    from_ha.set_defaults(func=ha.run)
    from_st = sources.add_parser(
        "from-smartthings",
        help="from SmartThings' API (token: --token or SMARTTHINGS_TOKEN) or saved answers",
    )
    smartthings.add_arguments(from_st)
    from_st.set_defaults(func=smartthings.run)
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
    except JiayuError as err:  # an LLM misconfigured, an audit log that cannot be written
        print(f"jiayu: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
