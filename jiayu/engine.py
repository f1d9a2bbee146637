"""The engine: text in, commands sent, a Result out — the sync driver of the planner.

The turn itself lives in `planner/` and does no I/O: it yields what it needs (reads, a
state-file write, the LLM's answer, batches to send) and this driver does it with a blocking
hub. `jiayu/runtime.py` is the asyncio driver of the same generators (`handle`).

One engine serves many sessions from many threads: the home, lexicon and name index are
immutable and shared, and each session's turns are serialised by that session's lock.
"""

from __future__ import annotations

import gc
import inspect
import logging
import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jiayu import drivers
from jiayu.compiler import Lexicon
from jiayu.executor.audit import AuditLog
from jiayu.executor.clock import Clock, SystemClock
from jiayu.executor.events import Event, EventBus
from jiayu.executor.hubs import AsyncHub, Hub, SimulatedHub
from jiayu.executor.run import Listener, SyncRunner
from jiayu.executor.schedules import ScheduleStore
from jiayu.grammar.phrases import say
from jiayu.home import Home, collector_paused, load_home
from jiayu.planner.draft import Inputs
from jiayu.planner.effects import Consult, Read, Send, Steps
from jiayu.planner.turn import fire, turn
from jiayu.preferences import PreferenceStore
from jiayu.resolver.names import NameIndex
from jiayu.resolver.resolve import Resolver
from jiayu.resolver.session import Session
from jiayu.result import Result

if TYPE_CHECKING:
    from jiayu.compiler.llm.client import LLMClient
    from jiayu.runtime import Handled, Runtime

log = logging.getLogger(__name__)

DEMO_HOME = "homes/demo.json"
"""The demo home, inside the installed `jiayu.corpus` package."""


class Engine:
    """Text in, commands sent, a Result out."""

    def __init__(
        self,
        home: Home,
        *,
        hub: Hub | AsyncHub | None = None,
        audit_path: str | os.PathLike[str] | None = None,
        llm: LLMClient | None = None,
        parallel: int = 8,
        command_timeout: float = 5.0,
        clock: Clock | None = None,
        schedules_path: str | os.PathLike[str] | None = None,
        preferences_path: str | os.PathLike[str] | None = None,
        confirm_ttl_s: float = 60.0,
    ) -> None:
        """`hub`: a blocking Hub (both APIs) or an AsyncHub (`handle` only); the simulated hub
        by default. `schedules_path` / `preferences_path`: JSON state files the hub keeps, so
        delayed commands and what users like survive a restart (in memory when not given)."""
        self.home = home
        with collector_paused():
            self.lexicon = Lexicon(home)
            self.names = NameIndex(home)
            self.resolver = Resolver(home, self.names)
        self.hub: Hub | AsyncHub = hub if hub is not None else SimulatedHub(home)
        self.audit = AuditLog(audit_path) if audit_path is not None else None
        if self.audit is not None:
            self.audit.check()  # refuse to start rather than send unaudited commands
        self.fallback = drivers.load_fallback(llm, home) if llm is not None else None
        self.limits, self.confirm_ttl_s = (parallel, command_timeout), confirm_ttl_s
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._paths = (schedules_path, preferences_path)
        # Shared with fresh() copies, which share the indexes: they warm once.
        self._warming = drivers.Warming()
        self._setup()
        # What was built lives as long as the engine: keep later collections from rescanning it.
        gc.freeze()

    def _setup(self) -> None:
        """The per-engine state that is not the home's: sessions, runner, events, stores."""
        is_async = inspect.iscoroutinefunction(getattr(self.hub, "send", None))
        self.runner = None if is_async else SyncRunner(self.hub, self.audit)  # type: ignore[arg-type]
        self.sessions = drivers.Sessions()
        self.events = EventBus()
        self.runtime: Runtime | None = None
        schedules, preferences = (Path(p) if p is not None else None for p in self._paths)
        self.schedules, self.preferences = ScheduleStore(schedules), PreferenceStore(preferences)

    def fresh(self, *, hub: Hub | None = None) -> Engine:
        """A new engine on the same home and indexes: new sessions, and a new simulated hub
        unless one is given. Cheap: nothing is rebuilt."""
        engine = Engine.__new__(Engine)
        engine.home, engine.lexicon, engine.names = self.home, self.lexicon, self.names
        engine.resolver, engine.audit, engine.fallback = self.resolver, self.audit, self.fallback
        engine.hub = hub if hub is not None else SimulatedHub(self.home)
        engine.limits, engine.clock, engine._paths = self.limits, self.clock, (None, None)
        engine.confirm_ttl_s = self.confirm_ttl_s
        engine._warming = self._warming
        engine._setup()
        return engine

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **kwargs: Any) -> Engine:
        """An engine on the home in a JSON file (HomeError if it is invalid)."""
        return cls(load_home(path), **kwargs)

    @classmethod
    def demo(cls, **kwargs: Any) -> Engine:
        """An engine on the bundled demo home (示范之家), on the simulated hub by default."""
        from importlib import resources  # here: importing it imports tempfile, shutil, bz2, lzma

        return cls.from_file(str(resources.files("jiayu.corpus").joinpath(DEMO_HOME)), **kwargs)

    def session(self, session_id: str) -> Session:
        """The session with this id, created on first use."""
        return self.sessions.get(session_id)

    def inputs(self, session: Session, area: str | None, user: str | None) -> Inputs:
        """What a turn of this session is planned from, now."""
        return Inputs(
            self.home,
            self.resolver,
            session,
            self.clock.now(),
            self.schedules,
            self.preferences,
            None if area is None else _known_room(self.home, area),
            user,
            self.confirm_ttl_s,
        )

    def steps(self, text: str, session: Session, area: str | None, user: str | None) -> Steps:
        """The planner's effects for one turn of this session."""
        inputs = self.inputs(session, area, user)
        return turn(text, inputs, self.lexicon, fallback=self.fallback is not None)

    # --- the sync API --------------------------------------------------------------

    def turn(
        self,
        text: str,
        session_id: str = "default",
        *,
        area: str | None = None,
        user: str | None = None,
        listener: Listener | None = None,
    ) -> Result:
        """Run one turn; never raises for any text.

        `area` is the speaker's room id (a satellite's area), `user` who is speaking (for
        preferences); a hub passes what it knows. `listener` hears each command start,
        finish or fail."""
        runner = self._sync_runner()
        session = self.sessions.get(session_id)
        with session.lock:
            try:
                steps = self.steps(text, session, area, user)
                return drivers.told(self._drive(steps, runner, listener, session, text), session)
            finally:
                self.warm()

    def run_due(self, now: datetime | None = None) -> list[Result]:
        """Send the schedules whose time has come (for hubs on the sync API; the asyncio runtime
        fires them by itself). Each is validated again and its condition checked first."""
        runner = self._sync_runner()
        results: list[Result] = []
        now = now or self.clock.now()
        due = self.schedules.take_due(now, self.home.has_device)
        for schedule in due.fire:
            session = self.session(schedule.session)
            with session.lock:
                inputs = self.inputs(session, None, schedule.user)._replace(now=now)
                result = self._drive(fire(schedule, inputs), runner, None, session, schedule.text)
            session.messages.append(say("told.fired", reply=result.reply))
            results.append(result)
        for schedule, why in due.dropped():
            self.sessions.tell_dropped(schedule, why)
        return results

    def _sync_runner(self) -> SyncRunner:
        if self.runner is None:
            raise TypeError("this engine's hub is an AsyncHub: use `await engine.handle(...)`")
        return self.runner

    def _drive(
        self,
        steps: Steps,
        runner: SyncRunner,
        listener: Listener | None,
        session: Session,
        text: str,
    ) -> Result:
        """The sync loop: do each effect the planner asks for, blocking, until its Result.
        Never raises: a bug fails the turn closed, reporting what was already sent."""
        answer: Any = None
        sending, batches = 0.0, []
        try:
            while True:
                effect = steps.send(answer)
                if isinstance(effect, Send):  # (first: most turns ask for nothing else)
                    draft = effect.draft
                    batches = draft.batches
                    drivers.defer_scene_steps(self.schedules, draft)
                    started = time.perf_counter()
                    report = runner.run(
                        batches, session=session.id, text=draft.text, listener=listener
                    )
                    sending = time.perf_counter() - started
                    answer = report.audit_failed
                elif isinstance(effect, Read):
                    answer = runner.read_many(effect.devices)
                elif isinstance(effect, Consult):
                    answer = drivers.consult(self.fallback, effect)
                else:
                    answer = drivers.write(self.schedules, self.preferences, effect)
        except StopIteration as stop:
            result: Result = stop.value
            if sending:
                result.timings["send"] = sending
            return result
        except Exception:  # fail closed: a bug must not switch anything more
            return drivers.crashed(session, text, [c for b in batches for c in b.sent])

    def warm(self) -> None:
        """A turn was answered: after the first, the pinyin data is built in the background (a
        later turn with a slip must not pay for it, nor start-up or the first reply); once
        warm, what the turns built is frozen out of the collector's scans (drivers.Warming)."""
        self._warming.turned(self.lexicon, self.names)

    # --- the asyncio API (jiayu/runtime.py) ------------------------------------------

    def _runtime(self) -> Runtime:
        from jiayu.runtime import Runtime

        if self.runtime is None or not self.runtime.on_this_loop():
            self.runtime = Runtime(self)
        return self.runtime

    async def handle(
        self,
        text: str,
        session_id: str = "default",
        *,
        area: str | None = None,
        user: str | None = None,
    ) -> Handled:
        """Plan one turn and answer at once; the commands are sent in the background."""
        return await self._runtime().handle(text, session_id, area=area, user=user)

    async def start(self) -> None:
        """Start the asyncio runtime: kept schedules fire from now, without waiting for a turn."""
        self._runtime().start()

    async def aclose(self) -> None:
        """Stop the asyncio runtime's background work (schedules stay in the store)."""
        if self.runtime is not None:
            await self.runtime.aclose()

    def close(self) -> None:
        """Give up the state files: the next engine on them (a restart) may own them."""
        self.schedules.close()
        self.preferences.close()

    async def __aenter__(self) -> Engine:
        await self.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    def subscribe(self, session_id: str, callback: Callable[[Event], None]) -> Callable[[], None]:
        """Call `callback` with every event of the session; returns the unsubscribe function."""
        return self.events.on(session_id, callback)

    def stream(self, session_id: str) -> Any:
        """The session's events as an async iterator (`async for event in engine.stream(s)`)."""
        return self.events.stream(session_id)


def _known_room(home: Home, area: str) -> str | None:
    """The speaker's room, when the hub named a room this home has (anything else is ignored
    rather than trusted: it must never widen what a command reaches)."""
    try:
        return home.room(area).id
    except KeyError:
        log.warning(
            "the hub named area %r, no room of this home: ignored", area, extra={"area": area}
        )
        return None
