"""`jiayu serve`: one home's asyncio runtime behind a protocol, for as long as it runs.

    jiayu serve --wyoming tcp://0.0.0.0:10700 [--home FILE] [--hub sim|ha ...]
                [--schedules FILE] [--preferences FILE] [--audit FILE]

First the Wyoming protocol's `handle` program: what Home Assistant's `wyoming` integration
makes a conversation agent of, so any HA install (OS, container, core) can use jiayu without
installing anything into HA; the shape of wyoming-faster-whisper and wyoming-piper (one
`AsyncEventHandler` per connection, `describe` answered with the program's `Info`, each
`transcript` with `handled` or `not-handled`). With `--hub ha` the home is Home Assistant's own
(its areas, floors and the entities exposed to Assist, or `--home`), commands go to it over its
WebSocket API, delayed commands keep HA's time zone, and a satellite's device id becomes the
speaker's room through HA's device registry. Otherwise the simulated hub runs on the home file
(the demo home by default).

No logic of its own: a message is one `Engine.handle` with the session and the speaker's room
the message carries (`answer`, which HA's conversation agent in custom_components/jiayu uses
too). The `wyoming` package (extra `jiayu[wyoming]`) is imported only when serving.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from jiayu.connect import add_hub_arguments, close_hub, hub_from_args, need
from jiayu.errors import JiayuError
from jiayu.grammar.phrases import say
from jiayu.result import Outcome, Result

if TYPE_CHECKING:
    from wyoming.info import Info
    from wyoming.server import HandlerFactory

    from jiayu.engine import Engine
    from jiayu.executor.events import Event
    from jiayu.executor.hubs import Hub
    from jiayu.executor.hubs.homeassistant import HomeAssistantHub
    from jiayu.home import Home

log = logging.getLogger(__name__)

# --- one turn, as a service answers it -----------------------------------------------
#
# A service that answers once per message can wait for the hub before it answers: the caller
# then reads back states that have changed, and a failure is told in this answer rather than
# the session's next one. A turn that starts a long scene is not waited for (its Result comes
# after the last step), nor is a hub slower than `settle_s`: the runtime's first reply is
# said, which never claims what has not happened, and what came of it is told at the
# session's next reply.

REFUSED: frozenset[Outcome] = frozenset({"unknown", "rejected"})
"""Outcomes that did nothing because nothing could be done: a protocol's "not handled"."""


@dataclass(frozen=True)
class Answer:
    """What a service says for one message."""

    reply: str
    """The words to say: the runtime's reply, then what failed if the hub already said so."""
    outcome: Outcome
    """What the turn decided (executed, clarify, confirm, ...)."""
    result: Result | None
    """The final Result, when the turn's commands were all tried before answering."""

    @property
    def handled(self) -> bool:
        """False when the turn did nothing: not understood, refused, or every command failed."""
        if self.outcome in REFUSED:
            return False
        return self.result is None or not (self.result.failures and not self.result.commands)

    @property
    def asks(self) -> bool:
        """The reply is a question (which one? 确认?): the speaker's next words answer it."""
        return self.outcome in ("clarify", "confirm")


async def answer(
    engine: Engine,
    text: str,
    session_id: str,
    *,
    area: str | None = None,
    user: str | None = None,
    settle_s: float = 10.0,
) -> Answer:
    """Run one turn on the engine's runtime and answer it once its commands are tried (at most
    `settle_s`, and not past the start of a long scene)."""
    scene = asyncio.get_running_loop().create_future()
    numbers: set[int] = set()

    def heard(event: Event) -> None:
        # A scene's Result waits for its last step: stop waiting when this turn starts one.
        if event.kind == "scene.started" and event.turn in numbers and not scene.done():
            scene.set_result(None)

    unsubscribe = engine.subscribe(session_id, heard)
    try:
        handled = await engine.handle(text, session_id, area=area, user=user)
        numbers.add(handled.turn)
        done, _ = await asyncio.wait(
            {handled.result, scene}, timeout=settle_s, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        unsubscribe()
        if not scene.done():
            scene.cancel()
    if handled.result not in done:
        log.debug("turn %s of %s still running: answered first", handled.turn, session_id)
        return Answer(handled.reply, handled.outcome, None)
    result = handled.result.result()
    # What failed was queued for the session's next reply; this answer is that reply.
    session = engine.session(session_id)
    late = list(session.messages)
    session.messages.clear()
    reply = say("told.all", messages=[handled.reply, *late]) if late else handled.reply
    return Answer(reply, handled.outcome, result)


# --- the Wyoming protocol ----------------------------------------------------------------

LANGUAGES = ["zh-CN", "zh-TW", "zh-HK"]
"""Mainland, Taiwanese and Hong Kong Chinese: scripts and regional words are normalised."""
URL = "https://github.com/jiayu-home/jiayu"

AreaOf = Callable[[str], Awaitable[str | None]]
"""The speaker's room id for a satellite's device id (None: unknown, or in no area)."""


def info() -> Info:
    """What `describe` answers: one installed `handle` program that controls the home."""
    from wyoming.info import Attribution, HandleModel, HandleProgram, Info

    attribution = Attribution(name="jiayu", url=URL)
    jiayu_version = version("jiayu")
    model = HandleModel(
        name="jiayu",
        description="Chinese smart-home commands, rule-first",
        attribution=attribution,
        installed=True,
        version=jiayu_version,
        languages=LANGUAGES,
    )
    program = HandleProgram(
        name="jiayu",
        description="家语: Chinese speech to safe device commands",
        attribution=attribution,
        installed=True,
        version=jiayu_version,
        models=[model],
        supports_home_control=True,
    )
    return Info(handle=[program])


def wyoming_handler(engine: Engine, area_of: AreaOf | None, settle_s: float) -> HandlerFactory:
    """The handler of one client connection: each transcript is one turn of the session its
    context's `conversation_id` names, in the room of its `device_id` (newer HA releases). A
    client that sends no context (HA 2025.4's wyoming 1.5.4 drops it, and opens a connection
    per sentence) is one conversation per host it connects from, as `jiayu run` is one
    session: so 确认 still answers the question asked just before."""
    from wyoming.asr import Transcript
    from wyoming.event import Event as Message
    from wyoming.handle import Handled, NotHandled
    from wyoming.info import Describe
    from wyoming.server import AsyncEventHandler

    described = info().event()

    class TurnHandler(AsyncEventHandler):
        def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            super().__init__(reader, writer)
            peer = writer.get_extra_info("peername")
            self.unnamed = f"wyoming-{peer[0] if isinstance(peer, tuple) else uuid.uuid4().hex}"

        async def handle_event(self, event: Message) -> bool:
            if Describe.is_type(event.type):
                await self.write_event(described)
            elif Transcript.is_type(event.type):
                await self.write_event(await self.turn(Transcript.from_event(event)))
            else:
                log.debug("wyoming event %s ignored", event.type)
            return True

        async def turn(self, transcript: Transcript) -> Message:
            context: dict[str, Any] = dict(transcript.context or {})
            session = str(context.get("conversation_id") or self.unnamed)
            device = context.get("device_id")
            area = None
            if isinstance(device, str) and area_of is not None:
                area = await area_of(device)
            said = await answer(engine, transcript.text, session, area=area, settle_s=settle_s)
            log.debug("wyoming turn of %s in %s: %s", session, area, said.outcome)
            reply_context = {**context, "conversation_id": session}
            if said.handled:
                return Handled(said.reply, context=reply_context).event()
            return NotHandled(said.reply, context=reply_context).event()

    return TurnHandler


async def serve_wyoming(
    engine: Engine,
    uri: str,
    *,
    area_of: AreaOf | None = None,
    settle_s: float = 10.0,
    stop: asyncio.Event,
) -> None:
    """Serve `engine` at `uri` (tcp://HOST:PORT, unix://PATH) until `stop` is set; the engine's
    runtime runs for as long (kept schedules fire from the start)."""
    from wyoming.server import AsyncServer

    server = AsyncServer.from_uri(uri)
    async with engine:
        await server.start(wyoming_handler(engine, area_of, settle_s))
        log.info("jiayu serving the Wyoming protocol at %s", uri)
        try:
            await stop.wait()
        finally:
            await server.stop()


# --- the command -------------------------------------------------------------------------


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
        try:
            devices = await asyncio.to_thread(hub.command, {"type": "config/device_registry/list"})
        except JiayuError as err:
            # No room is safe: a place-less clause that needs one asks which (it never widens).
            log.warning("no room for satellite %s: HA's device registry: %s", device_id, err)
            return None
        for device in devices:
            if device.get("id") == device_id:
                area = device.get("area_id")
                return room_id(area) if area else None
        log.debug("satellite %s is not in HA's device registry", device_id)
        return None

    return area_of


async def _serve(engine: Engine, uri: str, area_of: AreaOf | None, settle_s: float) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await serve_wyoming(engine, uri, area_of=area_of, settle_s=settle_s, stop=stop)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m jiayu.serve ...`, as `jiayu serve ...`."""
    parser = argparse.ArgumentParser(prog="jiayu serve", description=__doc__.splitlines()[0])
    add_arguments(parser)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
