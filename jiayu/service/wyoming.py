"""jiayu as a Wyoming `handle` program: what Home Assistant's `wyoming` integration makes a
conversation agent of, so any HA install (OS, container, core) can use jiayu without
installing anything into HA.

The shape of wyoming-faster-whisper and wyoming-piper: one `AsyncEventHandler` per
connection, answering `describe` with the program's `Info` and each `transcript` with
`handled` (the reply) or `not-handled` (the reason). A transcript's `context` carries the
conversation id (jiayu's session) and, from newer HA releases, the satellite's `device_id`,
whose area is the speaker's room. A client that sends no context (HA 2025.4's wyoming 1.5.4
drops it, and opens a connection per sentence) is one conversation per client host, as
`jiayu run` is one session: so 确认 still answers the question asked just before.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from wyoming.asr import Transcript
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Attribution, Describe, HandleModel, HandleProgram, Info
from wyoming.server import AsyncEventHandler, AsyncServer

from jiayu.service.turns import answer

if TYPE_CHECKING:
    from jiayu.engine import Engine

log = logging.getLogger(__name__)

LANGUAGES = ["zh-CN", "zh-TW", "zh-HK"]
"""Mainland, Taiwanese and Hong Kong Chinese: scripts and regional words are normalised."""
URL = "https://github.com/jiayu-home/jiayu"

AreaOf = Callable[[str], Awaitable[str | None]]
"""The speaker's room id for a satellite's device id (None: unknown, or in no area)."""


def info() -> Info:
    """What `describe` answers: one installed `handle` program that controls the home."""
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


class TurnHandler(AsyncEventHandler):
    """One client connection: each transcript is one turn of the session it names."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        engine: Engine,
        described: Event,
        area_of: AreaOf | None,
        settle_s: float,
    ) -> None:
        super().__init__(reader, writer)
        self.engine = engine
        self.described = described
        self.area_of = area_of
        self.settle_s = settle_s
        # A client that names no conversation is one, per host it connects from.
        peer = writer.get_extra_info("peername")
        self.unnamed = f"wyoming-{peer[0] if isinstance(peer, tuple) else uuid.uuid4().hex}"

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self.described)
        elif Transcript.is_type(event.type):
            await self.write_event(await self._turn(Transcript.from_event(event)))
        else:
            log.debug("wyoming event %s ignored", event.type)
        return True

    async def _turn(self, transcript: Transcript) -> Event:
        context: dict[str, Any] = dict(transcript.context or {})
        session = str(context.get("conversation_id") or self.unnamed)
        device = context.get("device_id")
        area = None
        if isinstance(device, str) and self.area_of is not None:
            area = await self.area_of(device)
        said = await answer(
            self.engine, transcript.text, session, area=area, settle_s=self.settle_s
        )
        log.debug("wyoming turn of %s in %s: %s", session, area, said.outcome)
        reply_context = {**context, "conversation_id": session}
        if said.handled:
            return Handled(said.reply, context=reply_context).event()
        return NotHandled(said.reply, context=reply_context).event()


async def serve(
    engine: Engine,
    uri: str,
    *,
    area_of: AreaOf | None = None,
    settle_s: float = 10.0,
    stop: asyncio.Event,
) -> None:
    """Serve `engine` at `uri` (tcp://HOST:PORT, unix://PATH) until `stop` is set; the engine's
    runtime runs for as long (kept schedules fire from the start)."""
    server = AsyncServer.from_uri(uri)
    described = info().event()

    def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> TurnHandler:
        return TurnHandler(
            reader,
            writer,
            engine=engine,
            described=described,
            area_of=area_of,
            settle_s=settle_s,
        )

    async with engine:
        await server.start(handler)
        log.info("jiayu serving the Wyoming protocol at %s", uri)
        try:
            await stop.wait()
        finally:
            await server.stop()
