"""The `jiayu` command: run turns on a home and a hub, replay the corpus, explain a parse,
build a home.

jiayu [--version] [--log-level LEVEL] COMMAND ...
jiayu run [--home FILE] [--hub H ...] [--json] [--area ROOM] [--user U] [--llm] TEXT...
                                              each TEXT one turn of one session (no TEXT:
                                              the shell, or a turn per line from a pipe)
jiayu shell [--home FILE] [--hub H ...] [...] one session at a prompt, with history, the
                                              commands sent and what changed (:help)
jiayu replay FILE... [--json] [--stats] [--known FILE]
                                              corpus cases: by tag and file, confusion, latency
jiayu coverage [FILE...]                      grammar rules and words the corpus exercises
jiayu parse [--home FILE] TEXT...             each TEXT: tokens, tree, IR, compact, confidence
jiayu serve --wyoming tcp://HOST:PORT [--home FILE] [--hub H ...]
                                              the home's runtime as a Wyoming handle service
jiayu home from-z2m --rooms MAP [...]         a home file from zigbee2mqtt's bridge/devices
jiayu home from-ha --url URL [--token T]      a home file from Home Assistant (token also HA_TOKEN)
jiayu home from-smartthings [--token T | --devices F --rooms F]
                                              a home file from SmartThings' API or saved answers

`--hub` is sim (the simulated hub, default), ha, z2m or smartthings, with its settings from
flags or JIAYU_* variables (jiayu/connect.py). The log level is `--log-level` or JIAYU_LOG
(default warning). Every error is one line on stderr and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import jiayu
from jiayu import coverage, demo_home_path
from jiayu import replay as replay_cli
from jiayu import serve as serve_cmd
from jiayu.connect import add_hub_arguments, close_hub, hub_from_args, need
from jiayu.errors import InputError, JiayuError
from jiayu.importers import ha, smartthings, z2m

if TYPE_CHECKING:
    from jiayu.engine import Engine

__all__ = ["demo_home_path", "main"]


def _dump(data: object) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _run(args: argparse.Namespace) -> int:
    engine, area = _engine(args)
    try:
        if not args.text:
            from jiayu.shell import run_shell

            return run_shell(engine, area=area, user=args.user, json_mode=args.json)
        for text in args.text:
            result = engine.turn(text, "cli", area=area, user=args.user)
            print(_dump(result.to_json()) if args.json else result.reply)
        return 0
    finally:
        close_hub(engine.hub)


def _engine(args: argparse.Namespace) -> tuple[Engine, str | None]:
    """The engine `run` and `shell` drive, on the hub `--hub` names, and the room id `--area`
    names; JiayuError for an unknown room, before any hub is connected."""
    from jiayu.engine import Engine
    from jiayu.home import load_home
    from jiayu.shell import find_room

    llm = None
    if args.llm:
        from jiayu.compiler.llm.client import client_from_env

        if args.llm_kind == "dashscope":
            need("dashscope", "qwen", "--llm-kind dashscope")
        llm = client_from_env(args.llm_kind)
        if llm is None:
            raise JiayuError(
                "--llm needs JIAYU_LLM_BASE_URL (a self-hosted server or DashScope's "
                "compatible mode) or DASHSCOPE_API_KEY"
            )
    home = load_home(args.home or demo_home_path())
    area = None
    if args.area is not None:
        room = find_room(home, args.area)
        if room is None:
            raise JiayuError(f"--area: the home has no room {args.area!r} (give an id or a name)")
        area = room.id
    hub = hub_from_args(args, home)
    try:
        engine = Engine(
            home,
            hub=hub,
            audit_path=args.audit,
            llm=llm,
            schedules_path=args.schedules,
            preferences_path=args.preferences,
        )
    except BaseException:
        close_hub(hub)
        raise
    return engine, area


def _parse(args: argparse.Namespace) -> int:
    from jiayu.engine import Engine
    from jiayu.explain import explain

    engine = Engine.from_file(args.home or demo_home_path())
    # Each argument is an utterance of its own: several are explained one after another.
    print("\n\n".join(explain(text, engine) for text in args.text))
    return 0


def _session_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--home", help="home file (default: the bundled demo home)")
    parser.add_argument("--json", action="store_true", help="print each Result as JSON")
    parser.add_argument("--audit", help="append every command sent to this JSONL file")
    parser.add_argument(
        "--area", help="the speaker's room, by id or name (这里, and 开灯 said there)"
    )
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
    add_hub_arguments(parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; exit 2 on bad input files, never a traceback."""
    parser = argparse.ArgumentParser(prog="jiayu", description="家语: Chinese smart-home commands")
    parser.add_argument("--version", action="version", version=f"jiayu {jiayu.__version__}")
    parser.add_argument(
        "--log-level",
        metavar="LEVEL",
        help="debug, info, warning (default) or error; also the JIAYU_LOG variable",
    )
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
    explain.add_argument("text", nargs="+", help="utterances, each explained on its own")
    explain.set_defaults(func=_parse)
    serve = sub.add_parser("serve", help="run a home's runtime behind the Wyoming protocol")
    serve_cmd.add_arguments(serve)
    serve.set_defaults(func=serve_cmd.run)
    args = parser.parse_args(argv)
    try:
        jiayu.configure_logging(args.log_level)
    except ValueError as err:
        print(f"jiayu: --log-level: {err}", file=sys.stderr)
        return 2
    try:
        code: int = args.func(args)
    except InputError as err:
        print(str(err), file=sys.stderr)
        return 2
    except JiayuError as err:  # a hub or LLM misconfigured, an audit log that cannot be written
        print(f"jiayu: {err}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as err:  # an optional dependency missing where it is imported
        print(f"jiayu: {_missing_extra(err.name)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return code


EXTRAS = {
    "paho": "mqtt",
    "websockets": "homeassistant",
    "dashscope": "qwen",
    "wyoming": "wyoming",
}
"""Optional dependencies by top-level module, and the extra that installs each."""


def _missing_extra(module: str | None) -> str:
    root = (module or "").split(".")[0]
    extra = EXTRAS.get(root)
    if extra is None:
        return f"{module} is not installed"
    return f"{module} is not installed: pip install 'jiayu[{extra}]'"


if __name__ == "__main__":
    sys.exit(main())
