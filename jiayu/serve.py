"""`jiayu serve`: one home's asyncio runtime behind a protocol, for as long as it runs.

    jiayu serve --wyoming tcp://0.0.0.0:10700 [--home FILE] [--hub sim|ha ...]
                [--schedules FILE] [--preferences FILE] [--audit FILE]

The Wyoming protocol's `handle` program (jiayu/service/wyoming.py): add it in Home Assistant
as a Wyoming service (host, port) and pick it as the assistant's conversation agent. With
`--hub ha` the home is Home Assistant's own (its areas, floors and the entities exposed to
Assist, or `--home`), commands go to it over its WebSocket API, delayed commands keep HA's time
zone, and a satellite's device id becomes the speaker's room through HA's device registry.
Otherwise the simulated hub runs on the home file (the demo home by default).

The `wyoming` package (extra `jiayu[wyoming]`) is imported only when serving.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from jiayu.connect import add_hub_arguments, close_hub, hub_from_args, need
from jiayu.errors import JiayuError

if TYPE_CHECKING:
    from jiayu.engine import Engine
    from jiayu.executor.hubs import Hub
    from jiayu.executor.hubs.homeassistant import HomeAssistantHub
    from jiayu.home import Home
    from jiayu.service.wyoming import AreaOf

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`jiayu serve`'s arguments."""
    parser.add_argument(
        "--wyoming",
        required=True,
        metavar="URI",
        help="serve the Wyoming protocol at tcp://HOST:PORT (or unix://PATH)",
    )
    parser.add_argument(
        "--home",
        type=Path,
        help="a jiayu home file (default: Home Assistant's own home with --hub ha, "
        "else the demo home)",
    )
    parser.add_argument("--schedules", type=Path, help="keep delayed commands in this file")
    parser.add_argument("--preferences", type=Path, help="keep what users like in this file")
    parser.add_argument("--audit", type=Path, help="append every command to this audit log")
    parser.add_argument(
        "--settle",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long an answer waits for its commands to be tried (default 10)",
    )
    add_hub_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or SIGINT; 2 (said on stderr, one line) when it cannot start."""
    need("wyoming", "wyoming", "jiayu serve --wyoming")
    from jiayu.engine import Engine
    from jiayu.executor.clock import SystemClock

    hub: Hub | None = None
    try:
        home, hub, zone = _connect(args)
        engine = Engine(
            home,
            hub=hub,
            audit_path=args.audit,
            schedules_path=args.schedules,
            preferences_path=args.preferences,
            clock=SystemClock(zone),
        )
        asyncio.run(_serve(engine, args.wyoming, _area_of(hub), args.settle))
    except (JiayuError, ValueError, OSError) as err:
        print(f"jiayu serve: {err}", file=sys.stderr)
        return 2
    finally:
        if hub is not None:
            close_hub(hub)
    return 0


def _connect(args: argparse.Namespace) -> tuple[Home, Hub, Any]:
    """The home, the hub and the time zone to keep schedules in (HA's own with --hub ha)."""
    from jiayu.cli import demo_home_path
    from jiayu.home import load_home

    if args.hub != "ha":
        home = load_home(args.home or demo_home_path())
        return home, hub_from_args(args, home), None
    from jiayu.home import parse_home
    from jiayu.importers.ha import build_home, fetch_registries

    # The Home Assistant hub needs no home to connect; the home may come from it.
    ha: HomeAssistantHub = hub_from_args(args, None)  # type: ignore[arg-type,assignment]
    try:
        if args.home is not None:
            home = load_home(args.home)
        else:
            home = parse_home(build_home(fetch_registries(ha)).home, args.ha_url)
        zone = ZoneInfo(ha.command({"type": "get_config"})["time_zone"])
    except BaseException:
        close_hub(ha)
        raise
    return home, ha, zone


def _area_of(hub: Hub) -> AreaOf | None:
    """The speaker's room from a satellite's device id: HA's device registry, asked for each
    transcript that names a device (an area may have changed since the last)."""
    from jiayu.executor.hubs.homeassistant import HomeAssistantHub
    from jiayu.importers.ha import room_id

    if not isinstance(hub, HomeAssistantHub):
        return None

    async def area_of(device_id: str) -> str | None:
        devices = await asyncio.to_thread(hub.command, {"type": "config/device_registry/list"})
        for device in devices:
            if device.get("id") == device_id:
                area = device.get("area_id")
                return room_id(area) if area else None
        log.debug("satellite %s is not in HA's device registry", device_id)
        return None

    return area_of


async def _serve(engine: Engine, uri: str, area_of: AreaOf | None, settle_s: float) -> None:
    from jiayu.service.wyoming import serve

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await serve(engine, uri, area_of=area_of, settle_s=settle_s, stop=stop)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m jiayu.serve ...`, as `jiayu serve ...`."""
    parser = argparse.ArgumentParser(prog="jiayu serve", description=__doc__.splitlines()[0])
    add_arguments(parser)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
