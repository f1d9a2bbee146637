"""The engine: one turn of one session, from text to a planned turn to a Result.

It composes the stages (compile → [LLM fallback] → resolve → plan) and owns the
sessions; `executor/` runs what it plans. A turn acts only on an utterance
understood as a whole: anything not understood sends nothing. Planning never
sends: it reads live state through the runner, computes every command, holds
the risky ones, and hands ordered batches to a runner (sync here, asyncio in
`jiayu/runtime.py`), so both APIs and the schedules share one planner.

One engine serves many sessions from many threads: the home, lexicon and name
index are immutable and shared, and each session's turns are serialised by that
session's lock.
"""

from __future__ import annotations

import gc
import inspect
import itertools
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jiayu.actions import query_attribute, reading_attribute, value_attribute
from jiayu.catalog import apply_command, is_high_risk, params_error
from jiayu.compiler import CONFIDENCE_THRESHOLD, Lexicon, compile_text
from jiayu.compiler.compact import UNKNOWN, compact
from jiayu.errors import JiayuError
from jiayu.executor.audit import AuditLog
from jiayu.executor.clock import Clock, SystemClock
from jiayu.executor.events import Event, EventBus, EventKind
from jiayu.executor.hubs import FAULT_WORDS, AsyncHub, Hub, HubError, SimulatedHub
from jiayu.executor.run import Listener, Report, SyncRunner
from jiayu.executor.schedules import (
    Schedule,
    ScheduleError,
    ScheduleStore,
    fire_time,
    new_schedule_id,
)
from jiayu.grammar.phrases import attribute_word
from jiayu.home import Device, Home, collector_paused, load_home
from jiayu.ir import (
    Clause,
    Command,
    Compiled,
    Condition,
    NoParse,
    Parse,
    Target,
    Timing,
    Value,
    to_json,
)
from jiayu.planner.device import Meanings, Refusal, needs_read, plan
from jiayu.planner.plan import Batch
from jiayu.planner.replies import (
    COMMAND_VERBS,
    answer_phrase,
    done_phrase,
    names_phrase,
    reading_phrase,
    state_word,
    value_phrase,
    when_phrase,
)
from jiayu.preferences import PreferenceStore, preference_key
from jiayu.resolver.names import NameIndex
from jiayu.resolver.resolve import (
    ACTION_WORDS,
    Ask,
    Found,
    Refuse,
    Resolution,
    Resolver,
)
from jiayu.resolver.session import PendingClarify, PendingConfirm, Session
from jiayu.result import Outcome, Result, most_blocking
from jiayu.text import shown

if TYPE_CHECKING:
    # The asyncio runtime is imported by the methods that run it: a sync-only engine never
    # loads asyncio, and with it ssl (about 9 MiB and 30 ms of start-up).
    import asyncio

    from jiayu.compiler.llm import Fallback
    from jiayu.compiler.llm.client import LLMClient
    from jiayu.executor.arun import AsyncRunner
    from jiayu.executor.scenes import SceneOutcome, SceneRunner
    from jiayu.executor.scheduler import Scheduler

log = logging.getLogger("jiayu")

MAX_SESSIONS = 10_000
"""Sessions kept per engine; the least recently used is forgotten beyond this."""

_OPS = {
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}
_OP_WORDS = {">": "超过", "<": "低于", ">=": "达到", "<=": "不超过"}
_NEGATED_VERBS = {"on": "开", "off": "关", "set": "调", "adjust": "调", "scene": "执行"}

Reader = Callable[[str], Mapping[str, Any] | HubError]
"""A fresh read of one device, or the hub's error."""


@dataclass
class Draft:
    """One turn while it is planned, then while its batches run: everything the Result
    and the session need. Parts keep the reply in the order the clauses were said."""

    text: str
    session: Session
    area: str | None = None
    user: str | None = None
    parts: list[str | Batch] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    held: list[Command] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    asked: bool = False  # a clause asks: it and every later clause wait for the answer
    # What this turn will have done to each device it reads or commands, so a later clause
    # reads the state the earlier ones leave (调亮一点，再调亮一点 moves two steps).
    overlay: dict[str, dict[str, Any]] = field(default_factory=dict)
    planned: set[tuple[str, str, str]] = field(default_factory=set)
    source: str = "none"
    parsed: Parse | None = None
    compiled: Compiled | None = None
    llm_compact: list[dict[str, Any]] | None = None
    scheduled: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    stop_scene: bool = False  # 算了/停下 with nothing waiting: stops a running long scene

    def say(self, outcome: Outcome, reply: str) -> None:
        self.outcomes.append(outcome)
        self.parts.append(reply)

    @property
    def batches(self) -> list[Batch]:
        return [p for p in self.parts if isinstance(p, Batch)]

    def sent(self) -> list[Command]:
        return [c for b in self.batches for c in b.sent]


@dataclass(frozen=True)
class Handled:
    """What `Engine.handle` says at once, before the hub has confirmed anything."""

    reply: str
    """Say this now: it never claims a success that has not happened (好的，正在打开客厅灯)."""
    outcome: Outcome
    """What was decided: executed means the commands are being sent."""
    planned: list[dict[str, Any]]
    """The commands being sent, in order: {device, command, params}."""
    pending: list[dict[str, Any]]
    """For confirm: what waits for 确认."""
    options: list[str]
    """For clarify: the candidate device ids."""
    answers: list[dict[str, Any]]
    """For a query: what a fresh read found."""
    turn: int
    """This turn's number, as in its events: turns are numbered in the order their commands
    were queued, which is the order each device receives them."""
    result: asyncio.Future[Result]
    """The final Result, once every command has been tried (the same Result `turn` gives)."""


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
        self._audit = AuditLog(audit_path) if audit_path is not None else None
        if self._audit is not None:
            self._audit.check()  # refuse to start rather than send unaudited commands
        self._fallback = _fallback(llm, home) if llm is not None else None
        self._limits = (parallel, command_timeout)
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._paths = (schedules_path, preferences_path)
        # Shared with fresh() copies, which share the indexes: the pinyin data is built once,
        # after the first turn any of them answers.
        self._warming = threading.Event()
        self._setup()
        # What was built lives as long as the engine: keep later collections from rescanning it.
        gc.freeze()

    def _setup(self) -> None:
        """The per-engine state that is not the home's: sessions, runners, events."""
        hub = self.hub
        is_async = inspect.iscoroutinefunction(getattr(hub, "send", None))
        self.runner = None if is_async else SyncRunner(hub, self._audit)  # type: ignore[arg-type]
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._sessions_lock = threading.Lock()
        self.events = EventBus()
        self._async: tuple[asyncio.AbstractEventLoop, AsyncRunner] | None = None
        self._turns = itertools.count(1)
        self._order: dict[str, asyncio.Lock] = {}
        schedules, preferences = self._paths
        self.schedules = ScheduleStore(_path(schedules))
        self.preferences = PreferenceStore(_path(preferences))
        self._scheduler: Scheduler | None = None
        self._scenes: SceneRunner | None = None

    def fresh(self, *, hub: Hub | None = None) -> Engine:
        """A new engine on the same home and indexes: new sessions, and a new simulated hub
        unless one is given. Cheap: nothing is rebuilt."""
        engine = Engine.__new__(Engine)
        engine.home, engine.lexicon, engine.names = self.home, self.lexicon, self.names
        engine.resolver = self.resolver
        engine.hub = hub if hub is not None else SimulatedHub(self.home)
        engine._audit, engine._fallback, engine._limits = self._audit, self._fallback, self._limits
        engine.clock, engine._paths = self.clock, (None, None)
        engine._warming = self._warming
        engine._setup()
        return engine

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **kwargs: Any) -> Engine:
        """An engine on the home in a JSON file (HomeError if it is invalid)."""
        return cls(load_home(path), **kwargs)

    def session(self, session_id: str) -> Session:
        """The session with this id, created on first use."""
        with self._sessions_lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = self._sessions[session_id] = Session(session_id)
                if len(self._sessions) > MAX_SESSIONS:
                    self._sessions.popitem(last=False)  # the least recently used one
            else:
                self._sessions.move_to_end(session_id)
            return session

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
        if self.runner is None:
            raise TypeError("this engine's hub is an AsyncHub: use `await engine.handle(...)`")
        session = self.session(session_id)
        with session.lock:
            draft = Draft(text, session, _known_room(self.home, area), user)
            try:
                self.plan_turn(draft, self.runner.read)
                started = time.perf_counter()
                report = self.runner.run(
                    draft.batches, session=session.id, text=text, listener=listener
                )
                draft.timings["send"] = time.perf_counter() - started
                return self.finish(draft, report)
            except Exception:  # fail closed: a bug must not switch anything more
                return self.crashed(draft)
            finally:
                self._warm()

    def _warm(self) -> None:
        """Build the pinyin data in the background once the first turn is answered: a later
        turn with a slip must not pay for it, and neither must start-up or the first reply
        (it keys every name of the home in pinyin: tens of ms, more on a big home)."""
        if not self._warming.is_set():
            self._warming.set()
            _warm(self.lexicon, self.names)

    def crashed(self, draft: Draft) -> Result:
        """The Result of a turn that hit a bug: whatever was already sent is reported."""
        log.exception("jiayu.turn_failed", extra={"session": draft.session.id, "text": draft.text})
        draft.session.pending = None
        sent = [_command_json(c) for c in draft.sent()]
        return Result(
            draft.text,
            "executed" if sent else "unknown",
            sent,
            reply="抱歉，出了点问题，后面的操作没有执行。",
            failures=draft.failures,
        )

    # --- the asyncio API ----------------------------------------------------------

    async def handle(
        self,
        text: str,
        session_id: str = "default",
        *,
        area: str | None = None,
        user: str | None = None,
    ) -> Handled:
        """Plan one turn and answer at once; the commands are sent in the background.

        Reads the plan depends on (queries, conditions, relative values) happen before the
        reply, since the reply says what they found. Events go to `events`; a failure that
        arrives after the reply is told at the start of the session's next reply."""
        import asyncio

        runner = self._async_runner()
        session = self.session(session_id)
        loop = asyncio.get_running_loop()
        # Turns of one session are planned in the order they arrive (asyncio.Lock is FIFO).
        async with self._order.setdefault(session_id, asyncio.Lock()):
            draft = Draft(text, session, _known_room(self.home, area), user)

            def read(device_id: str) -> Mapping[str, Any] | HubError:
                return asyncio.run_coroutine_threadsafe(runner.read(device_id), loop).result()

            def plan_locked() -> str:
                with session.lock:
                    self.plan_turn(draft, read)
                    return self._announce(draft)

            try:
                reply = await asyncio.to_thread(plan_locked)
            except Exception:
                number = next(self._turns)
                result = self.crashed(draft)
                self.events.publish(Event("turn.failed", session_id, number, reply=result.reply))
                return _handled(result, number, loop.create_future())
            self._start_scheduler()
            self._warm()
            if draft.stop_scene and self._scenes is not None and self._scenes.cancel():
                reply = "好的，已经停下了。"
            # Numbered when queued: per device, commands go out in turn-number order.
            number = next(self._turns)
            notify = self._notifier(session_id, number)
            now = [b for b in draft.batches if not self._paced(b, draft, runner, notify)]
            sending = runner.submit(now, session=session_id, text=text, notify=notify)
        decided: list[Outcome] = [*draft.outcomes]
        decided.extend("executed" for b in draft.batches if b.commands)
        outcome = most_blocking(decided)
        done = asyncio.create_task(self._settle(draft, sending, number))
        return Handled(
            reply,
            outcome,
            [_command_json(c) for b in draft.batches for c in b.commands],
            [_command_json(c) for c in draft.held] if outcome == "confirm" else [],
            list(dict.fromkeys(draft.options)),
            draft.answers,
            number,
            done,
        )

    def _notifier(self, session_id: str, number: int) -> Callable[[str, Command, str | None], None]:
        def notify(kind: str, command: Command, reason: str | None) -> None:
            event_kind: EventKind = f"command.{kind}"  # type: ignore[assignment]
            self.events.publish(
                Event(
                    event_kind,
                    session_id,
                    number,
                    command.device,
                    command.command,
                    dict(command.params),
                    reason,
                )
            )

        return notify

    def _start_scheduler(self) -> None:
        """The asyncio runtime fires schedules by itself, once there is one to fire (set in
        this turn, or kept in the state file from before a restart)."""
        if self._scheduler is None and len(self.schedules):
            from jiayu.executor.scheduler import Scheduler

            self._scheduler = Scheduler(self.schedules, self.clock, self._fire)
            self._scheduler.start()

    async def aclose(self) -> None:
        """Stop the asyncio runtime's background work: the scheduler (schedules stay in the
        store for the next start) and a running long scene."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            await scheduler.stop()
        if self._scenes is not None:
            self._scenes.cancel()
            await self._scenes.wait()

    def _paced(
        self,
        batch: Batch,
        draft: Draft,
        runner: AsyncRunner,
        notify: Callable[[str, Command, str | None], None],
    ) -> bool:
        """Hand a scene whose steps wait to the home's scene runner (one at a time; a new
        one replaces it); True when it was handed over."""
        if not any(batch.delays):
            return False
        if self._scenes is None:
            from jiayu.executor.scenes import SceneRunner

            self._scenes = SceneRunner(self.clock)
        session = draft.session
        steps = [_Step(c, d) for c, d in zip(batch.commands, batch.delays, strict=True)]

        async def run_step(step: _Step) -> None:
            single = Batch([step.command])
            await runner.submit([single], session=session.id, text=draft.text, notify=notify)
            if single.failed:
                raise HubError(step.command.device, single.failed[0][1])

        def done(outcome: SceneOutcome) -> None:
            name = shown(batch.scene or "")
            if outcome.ok:
                session.messages.append(f"{name}已经执行完了")
            else:
                session.messages.append(f"{name}有{outcome.total - outcome.sent}步没有执行成功")

        batch.background = True
        self._scenes.start(steps, run_step, done)
        return True

    def subscribe(self, session_id: str, callback: Callable[[Event], None]) -> Callable[[], None]:
        """Call `callback` with every event of the session; returns the unsubscribe function."""
        return self.events.on(session_id, callback)

    def stream(self, session_id: str) -> Any:
        """The session's events as an async iterator (`async for event in engine.stream(s)`)."""
        return self.events.stream(session_id)

    def _async_runner(self) -> AsyncRunner:
        import asyncio

        from jiayu.executor.arun import AsyncRunner, as_async

        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:
            parallel, timeout = self._limits
            runner = AsyncRunner(
                as_async(self.hub), self._audit, parallel=parallel, timeout=timeout
            )
            self._async = (loop, runner)
        return self._async[1]

    def _announce(self, draft: Draft) -> str:
        """The first reply, before anything is sent: what will happen, never that it did."""
        parts: list[str] = []
        for part in draft.parts:
            if isinstance(part, str):
                parts.append(part)
            elif part.scene is not None:
                parts.append(f"好的，正在执行{shown(part.scene)}")
            elif part.commands:
                parts.append(
                    done_phrase(self.home, part.clause, part.commands).replace("已", "正在")
                )
        reply = "，".join(p for p in parts if p)
        if reply.startswith("正在"):
            reply = "好的，" + reply
        told = list(draft.session.messages)
        draft.session.messages.clear()
        return "。".join([*told, reply]) if told else reply

    async def _settle(
        self, draft: Draft, sending: asyncio.Task[Report], number: int, *, remember: bool = True
    ) -> Result:
        """When every command of the turn has been tried: the final Result, its events, and
        any failure queued for the next reply."""
        import asyncio

        try:
            report = await sending
            for batch in draft.batches:
                position = {id(c): i for i, c in enumerate(batch.commands)}
                batch.sent.sort(key=lambda c: position[id(c)])

            def finish_locked() -> Result:
                with draft.session.lock:
                    return self.finish(draft, report, told=False, remember=remember)

            # In a worker thread: the session lock may be held by a turn being planned, which
            # waits on this loop for its reads; taking it here would block them both.
            result = await asyncio.to_thread(finish_locked)
        except Exception:
            result = self.crashed(draft)
            self.events.publish(Event("turn.failed", draft.session.id, number, reply=result.reply))
            return result
        late = [p for b in draft.batches for p in self._batch_phrases(b) if "没有执行" in p]
        if report.audit_failed:
            late.append("审计日志写不进去，有的操作没有执行")
        draft.session.messages.extend(f"刚才{p}" for p in late)
        kind: EventKind = "turn.failed" if late else "turn.done"
        self.events.publish(Event(kind, draft.session.id, number, reply=result.reply))
        return result

    # --- planning -------------------------------------------------------------

    def plan_turn(self, draft: Draft, read: Reader) -> None:
        """Understand the text and plan everything it asks for; sends nothing."""
        started = time.perf_counter()
        compiled = compile_text(draft.text, self.lexicon)
        draft.compiled = compiled
        draft.timings["compile"] = time.perf_counter() - started
        session = draft.session
        pending, session.pending = session.pending, None
        clauses = self._understand(draft, compiled, pending)
        started = time.perf_counter()
        if clauses is not None:
            self._plan_clauses(draft, clauses, pending, read)
        draft.timings["plan"] = time.perf_counter() - started - draft.timings.get("resolve", 0.0)

    def _understand(
        self,
        draft: Draft,
        compiled: Compiled,
        pending: PendingClarify | PendingConfirm | None,
    ) -> tuple[Clause, ...] | None:
        """The clauses of an utterance understood as a whole, or None (then the draft says
        unknown and which words were not understood). At most one LLM call."""
        stray: tuple[Clause, ...] = ()
        if isinstance(compiled, Parse):
            answering = isinstance(pending, PendingClarify)
            stray = tuple(
                c
                for i, c in enumerate(compiled.clauses)
                if c.action == "select" and not (answering and i == 0)
            )
            whole = not stray
            if whole and compiled.confidence >= CONFIDENCE_THRESHOLD:
                draft.source, draft.parsed = "grammar", compiled
                return compiled.clauses
            if whole and self._fallback is None:
                # No fallback: a clause whose target was only found fuzzily is asked back
                # (see _apply), so a low-confidence parse still never acts on a guess.
                log.info(
                    "jiayu.low_confidence",
                    extra={
                        "session": draft.session.id,
                        "text": draft.text,
                        "confidence": compiled.confidence,
                    },
                )
                draft.source, draft.parsed = "grammar", compiled
                return compiled.clauses
        if self._fallback is not None:
            clauses = self._ask_llm(draft, compiled)
            if clauses is not None:
                return clauses
        else:
            log.info(
                "jiayu.no_parse",
                extra={
                    "session": draft.session.id,
                    "text": draft.text,
                    "reason": getattr(compiled, "reason", "stray"),
                },
            )
        if isinstance(pending, PendingConfirm | PendingClarify):
            draft.session.pending = pending  # not understood is no answer: keep waiting
        draft.say("unknown", _not_understood(compiled, stray))
        return None

    def _ask_llm(self, draft: Draft, compiled: Compiled) -> tuple[Clause, ...] | None:
        assert self._fallback is not None
        session = draft.session
        answer = self._fallback.parse(
            draft.text,
            recent_devices=tuple(session.recent_devices),
            recent_rooms=tuple(session.recent_rooms),
        )
        draft.timings["llm"] = answer.call_s + answer.overhead_s
        log.info(
            "jiayu.llm_route",
            extra={
                "session": session.id,
                "text": draft.text,
                "confidence": compiled.confidence if isinstance(compiled, Parse) else 0.0,
                "latency_s": answer.call_s,
                "understood": answer.clauses is not None,
                "reason": answer.reason,
            },
        )
        if answer.clauses is None:
            return None
        draft.source, draft.llm_compact = "llm", answer.compact
        return answer.clauses

    def _plan_clauses(
        self,
        draft: Draft,
        clauses: tuple[Clause, ...],
        pending: PendingClarify | PendingConfirm | None,
        read: Reader,
    ) -> None:
        session = draft.session
        actions = {c.action for c in clauses}
        if isinstance(pending, PendingConfirm):
            if actions == {"confirm"}:  # 确认 / 好的，确认: nothing but yes
                self._confirmed(draft, pending, read)
                return
            if actions == {"cancel"}:
                draft.say("noop", "好的，已取消。")
                return
            draft.parts.append(_dropped(self.home, pending.commands))
        if isinstance(pending, PendingClarify):
            if actions == {"cancel"}:
                draft.say("noop", "好的，不操作了。")
                return
            narrowed: Resolution | None
            if pending.preference is not None:
                # Stored: the waiting clause now finds it. Anything else is a new command,
                # and the question is dropped (as any clarify's is).
                answered = self._preference_answer(draft, pending, clauses[0])
                narrowed = Found(pending.options) if answered else None
            else:
                narrowed = self._answer(pending, clauses[0], session, draft)
            if narrowed is not None:
                focus = list(pending.focus)
                waiting = pending.clause
                previous: tuple[str, ...] | None = None
                if self._condition_holds(draft, waiting.condition, focus, read):
                    previous = self._apply(waiting, narrowed, draft, focus, read, pending.rest)
                if not draft.asked:
                    self._run(draft, pending.rest, read, focus, previous)
                clauses = clauses[1:]  # 书房的，然后关掉客厅灯: the rest still runs
        elif actions == {"cancel"}:
            draft.say("noop", "好的。")  # 算了 with nothing waiting: just acknowledge
            draft.stop_scene = True
            return
        if not draft.asked:
            self._run(draft, clauses, read, [], None)

    def _answer(
        self, pending: PendingClarify, first: Clause, session: Session, draft: Draft
    ) -> Resolution | None:
        """What the first clause of this turn says about a pending question; None if it is
        not an answer to it."""
        if first.action == "confirm" and pending.options and pending.yes_no:
            return Found(pending.options)  # 你是说客厅灯吗？— 对
        if first.action != "select":
            return None
        if pending.options:
            return self.resolver.narrow(pending.clause, pending.options, first)
        if first.target is None:
            return None  # 第一个 answers nothing when nothing was offered
        # 要调节哪个设备？— 书房空调: the answer is the target the question lacked.
        return self.resolver.resolve(
            replace(pending.clause, target=first.target), session, area=draft.area
        )

    def _run(
        self,
        draft: Draft,
        clauses: Sequence[Clause],
        read: Reader,
        focus: list[str],
        previous: tuple[str, ...] | None,
    ) -> None:
        # focus: rooms said so far in this utterance, nearest last: they place a later clause
        # whose target has no place of its own (如果客厅温度超过26度就打开空调).
        # previous: None until a clause names a target; then the devices it acted on (empty if
        # it failed, and a later clause with no target must not guess from older turns).
        checked: dict[Condition, bool] = {}
        for index, clause in enumerate(clauses):
            if clause.action in ("confirm", "cancel") and len(clauses) > 1:
                continue  # 算了，还是把它打开吧: an interjection beside a command
            condition = clause.condition
            if condition is not None:
                if condition.subject is not None:
                    focus.extend(_rooms(condition.subject))
                if condition not in checked:
                    checked[condition] = self._condition_holds(draft, condition, focus, read)
                if not checked[condition]:
                    continue
            acted = self._clause(draft, clause, read, focus, previous, tuple(clauses[index + 1 :]))
            if draft.asked:
                return  # it and every later clause wait for the answer
            if clause.target is not None or previous is not None:
                previous = acted
            if clause.target is not None:
                focus.extend(_rooms(clause.target))
            room = self._one_room(acted)
            if room is not None:  # 把书房灯关了，台灯打开: the room inside a name counts too
                focus.append(room)

    def _one_room(self, devices: Sequence[str]) -> str | None:
        """The room all the devices are in, if there is one; stops at a second room, which
        after 打开所有的灯 is a few devices in, not thousands."""
        rooms = (self.home.device(d).room for d in devices)
        first = next(rooms, None)
        return first if all(room == first for room in rooms) else None

    def _clause(
        self,
        draft: Draft,
        clause: Clause,
        read: Reader,
        focus: list[str],
        previous: tuple[str, ...] | None,
        rest: tuple[Clause, ...],
    ) -> tuple[str, ...]:
        """Plan one clause; returns the devices it acts on (for a following clause)."""
        if clause.negated:
            draft.say("noop", f"好的，{_negated_phrase(clause)}")
            return ()
        if clause.action == "repeat":
            if not draft.session.last_commands:
                draft.say("rejected", "还没有可以重复的操作。")
                return ()
            self._batch(draft, list(draft.session.last_commands), None)
            return tuple(c.device for c in draft.session.last_commands)
        if clause.action in ("confirm", "cancel", "select"):
            draft.say(
                "unknown",
                "现在没有在等你回答的问题。" if clause.action != "select" else "要对它做什么呢？",
            )
            return ()
        if clause.action == "scene":
            return self._scene(draft, clause)
        if clause.action == "remember":
            self._remember(draft, clause)
            return ()
        if clause.action in ("schedule_cancel", "schedule_query") and clause.target is None:
            self._schedules(draft, clause, None)
            return ()
        started = time.perf_counter()
        asked = clause
        if clause.action in ("schedule_cancel", "schedule_query") and clause.target is not None:
            # 取消关空调的定时: every device the words name, whatever it can do.
            asked = Clause("query", replace(clause.target, quantifier="all"))
        resolution = self.resolver.resolve(
            asked, draft.session, focus=focus, previous=previous, area=draft.area
        )
        draft.timings["resolve"] = draft.timings.get("resolve", 0.0) + (
            time.perf_counter() - started
        )
        return self._apply(clause, resolution, draft, focus, read, rest)

    def _apply(
        self,
        clause: Clause,
        resolution: Resolution,
        draft: Draft,
        focus: Sequence[str],
        read: Reader,
        rest: tuple[Clause, ...],
    ) -> tuple[str, ...]:
        if isinstance(resolution, Refuse):
            draft.say("rejected", resolution.reason)
            return ()
        yes_no = False
        if (
            isinstance(resolution, Found)
            and resolution.match == "fuzzy"
            and clause.action != "query"
        ):
            # Heard too poorly to act on: ask back with what was understood.
            names = names_phrase(self.home, resolution.devices)
            verb = ACTION_WORDS.get(clause.action, "操作")
            resolution = Ask(resolution.devices, f"没太听清，你是要{verb}{names}吗？")
            yes_no = True
        if isinstance(resolution, Ask):
            draft.options.extend(resolution.options)
            reply = resolution.question
            if rest:
                reply += "（后面的操作等你回答后再执行）"
            draft.say("clarify", reply)
            draft.asked = True
            draft.session.pending = PendingClarify(
                clause, resolution.options, yes_no, rest, tuple(focus), draft.text
            )
            return ()
        devices = resolution.devices
        if clause.action == "query":
            self._query(draft, clause, devices, read)
            return devices
        if clause.action in ("schedule_cancel", "schedule_query"):
            self._schedules(draft, clause, devices)
            return ()
        if clause.value is not None and clause.value.kind == "preferred":
            value = self._preferred(draft, clause, devices, focus, rest)
            if value is None:
                return ()
            clause = replace(clause, value=value)
        commands: list[Command] = []
        refusals: list[str] = []
        # Shared by the clause's devices: what it means is worked out once per set of
        # capabilities, not for each of thousands of devices.
        meanings: Meanings = {}
        reads = needs_read(clause)
        for device_id in devices:
            device = self.home.device(device_id)
            state: Mapping[str, Any] | None = None
            if reads:
                got = self._read(draft, device_id, read)
                if isinstance(got, HubError):
                    refusals.append(
                        f"读不到{shown(device.name)}现在的状态："
                        f"{FAULT_WORDS.get(got.reason, got.reason)}"
                    )
                    continue
                state = got
            planned = plan(clause, device, state, meanings)
            if isinstance(planned, Refusal):
                refusals.append(planned.reason)
            else:
                commands.append(planned)
        if refusals:
            # Every device left out is said, even when others went ahead.
            draft.say("rejected", "；".join(dict.fromkeys(refusals)))
        if commands and clause.when is not None:
            self._schedule(draft, commands, clause.when, clause.condition, focus)
        elif commands:
            self._batch(draft, commands, clause, condition=clause.condition, focus=focus)
        return tuple(c.device for c in commands)

    def _batch(
        self,
        draft: Draft,
        commands: Sequence[Command],
        clause: Clause | None,
        *,
        scene: str | None = None,
        condition: Condition | None = None,
        focus: Sequence[str] = (),
        confirmed: bool = False,
    ) -> None:
        """Validate, hold the high-risk ones for confirmation, queue the rest to be sent."""
        ready: list[Command] = []
        held: list[Command] = []
        planned, overlay = draft.planned, draft.overlay
        for command in commands:
            key = (command.device, command.command, command.params_text)
            if key in planned:
                continue  # 客厅灯和客厅灯: one device gets one identical command per turn
            planned.add(key)
            device = self.home.device(command.device)
            error = params_error(device, command.command, command.params)
            if error is not None:  # never send what the schema refuses
                draft.failures.append(Report.failure(command, error))
                draft.say("rejected", f"{shown(device.name)}没有执行：{error}")
                continue
            if not confirmed and is_high_risk(device, command.command):
                held.append(command)
                continue
            ready.append(command)
            if command.device in overlay:  # read earlier in the turn: later reads see this
                self._expect(draft, command)
        if ready or scene is not None:
            draft.parts.append(Batch(ready, clause, scene))
        if held:
            draft.held.extend(held)
            names = "、".join(shown(self.home.device(c.device).name) for c in held)
            verb = COMMAND_VERBS.get(held[0].command, "打开")
            draft.say("confirm", f"确定要{verb}{names}吗？请说“确认”。")
            draft.session.pending = PendingConfirm(
                tuple(draft.held), condition, tuple(focus), draft.text
            )

    def _expect(self, draft: Draft, command: Command) -> None:
        state = draft.overlay.get(command.device)
        if state is not None:
            draft.overlay[command.device] = apply_command(state, command.command, command.params)

    def _read(self, draft: Draft, device_id: str, read: Reader) -> Mapping[str, Any] | HubError:
        """A fresh read, once per turn; later reads see what this turn already planned."""
        state = draft.overlay.get(device_id)
        if state is not None:
            return state
        got = read(device_id)
        if isinstance(got, HubError):
            draft.failures.append({"device": device_id, "command": "read", "reason": got.reason})
            return got
        draft.overlay[device_id] = dict(got)
        return got

    def _confirmed(self, draft: Draft, pending: PendingConfirm, read: Reader) -> None:
        """确认: re-check the condition against a fresh read, then send what waited (or, for a
        delayed command, schedule it: its condition is checked when it fires)."""
        if pending.when is not None:
            self._schedule(
                draft, pending.commands, pending.when, pending.condition, pending.focus, True
            )
            return
        if not self._condition_holds(draft, pending.condition, list(pending.focus), read):
            return
        self._batch(draft, list(pending.commands), None, confirmed=True)

    # --- delayed commands ---------------------------------------------------------

    def _schedule(
        self,
        draft: Draft,
        commands: Sequence[Command],
        when: Timing,
        condition: Condition | None,
        focus: Sequence[str],
        confirmed: bool = False,
    ) -> None:
        """半小时后关空调: resolved and validated now, held for 确认 now if risky, sent later."""
        now = self.clock.now()
        try:
            at = fire_time(when, now)
        except ScheduleError as err:
            draft.say("rejected", f"这个时间定不了：{err}")
            return
        for command in commands:
            device = self.home.device(command.device)
            error = params_error(device, command.command, command.params)
            if error is not None:
                draft.say("rejected", f"{shown(device.name)}没法定时：{error}")
                return
        risky = [c for c in commands if is_high_risk(self.home.device(c.device), c.command)]
        if risky and not confirmed:
            names = "、".join(shown(self.home.device(c.device).name) for c in risky)
            verb = COMMAND_VERBS.get(risky[0].command, "打开")
            draft.held.extend(commands)
            draft.say("confirm", f"确定要{when_phrase(at, now)}{verb}{names}吗？请说“确认”。")
            draft.session.pending = PendingConfirm(
                tuple(commands), condition, tuple(focus), draft.text, when
            )
            return
        guard = self._condition_json(draft, condition, focus) if condition else None
        schedule = Schedule(
            new_schedule_id(),
            draft.session.id,
            draft.user,
            at,
            tuple(commands),
            draft.text,
            guard,
            now,
        )
        try:
            self.schedules.add(schedule)
        except JiayuError as err:
            draft.say("rejected", f"定时没有记下来：{err}")
            return
        draft.scheduled.append(schedule.result_json())
        draft.devices.extend(c.device for c in commands)
        draft.say(
            "scheduled", f"好的，{when_phrase(at, now)}{done_phrase(self.home, None, commands)[1:]}"
        )

    def _condition_json(
        self, draft: Draft, condition: Condition, focus: Sequence[str]
    ) -> dict[str, Any] | None:
        """A condition kept with a schedule: which sensors to read and what to compare, so it
        is checked against fresh reads when the schedule fires (even after a restart)."""
        sources = self._condition_sources(draft, condition, focus)
        return {
            "sources": sources or [],
            "attribute": condition.attribute,
            "op": condition.op,
            "number": condition.number,
            "where": _place_words(condition.subject),
        }

    def _schedules(self, draft: Draft, clause: Clause, devices: Sequence[str] | None) -> None:
        """取消定时 / 还有多久关空调: this session's schedules, for these devices if said."""
        now = self.clock.now()
        if clause.action == "schedule_cancel":
            try:
                gone = self.schedules.cancel_where(session=draft.session.id, devices=devices)
            except JiayuError as err:
                draft.say("rejected", f"定时没有取消：{err}")
                return
            if not gone:
                draft.say("noop", "现在没有这样的定时。")
                return
            done = "，".join(
                f"{when_phrase(g.at, now)}{done_phrase(self.home, None, g.commands)[1:]}"
                for g in gone[:3]
            )
            draft.say("executed", f"好的，已取消{len(gone)}个定时（{done}）")
            return
        waiting = self.schedules.pending(session=draft.session.id, devices=devices)
        if not waiting:
            draft.say("answered", "现在没有这样的定时。")
            return
        draft.say(
            "answered",
            "，".join(
                f"{when_phrase(w.at, now)}{done_phrase(self.home, None, w.commands)[1:]}"
                for w in waiting[:3]
            ),
        )

    def run_due(self, now: datetime | None = None) -> list[Result]:
        """Send the schedules whose time has come (for hubs on the sync API; the asyncio runtime
        fires them by itself). Each is validated again and its condition checked first."""
        if self.runner is None:
            raise TypeError("this engine's hub is an AsyncHub: schedules fire by themselves")
        results: list[Result] = []
        for schedule in self.schedules.pop_due(now or self.clock.now()):
            session = self.session(schedule.session)
            with session.lock:
                draft = self._fire_draft(schedule, self.runner.read)
                report = self.runner.run(draft.batches, session=session.id, text=schedule.text)
                result = self.finish(draft, report, told=False, remember=False)
            session.messages.append(f"定时的操作：{result.reply}")
            results.append(result)
        return results

    def _fire_draft(self, schedule: Schedule, read: Reader) -> Draft:
        draft = Draft(schedule.text, self.session(schedule.session), user=schedule.user)
        draft.source = "grammar"
        guard = schedule.condition
        if guard is not None and not self._guard_holds(draft, guard, read):
            return draft
        self._batch(draft, list(schedule.commands), None, confirmed=True)
        return draft

    def _guard_holds(self, draft: Draft, guard: Mapping[str, Any], read: Reader) -> bool:
        values: list[float] = []
        for device_id in guard.get("sources", ()):
            if not self.home.has_device(device_id):
                continue
            got = self._read(draft, device_id, read)
            value = None if isinstance(got, HubError) else got.get(guard["attribute"])
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.append(float(value))
        return self._compare(
            draft, values, guard["attribute"], guard["op"], float(guard["number"]), guard["where"]
        )

    async def _fire(self, schedule: Schedule) -> None:
        """The asyncio runtime's schedule fire: the same checks as run_due, sent in the
        background runner, and what came of it queued for the session's next reply."""
        import asyncio

        runner = self._async_runner()
        loop = asyncio.get_running_loop()

        def read(device_id: str) -> Mapping[str, Any] | HubError:
            return asyncio.run_coroutine_threadsafe(runner.read(device_id), loop).result()

        draft = await asyncio.to_thread(self._fire_draft, schedule, read)
        number = next(self._turns)
        sending = runner.submit(
            draft.batches,
            session=schedule.session,
            text=schedule.text,
            notify=self._notifier(schedule.session, number),
        )
        await self._settle(draft, sending, number, remember=False)

    # --- preferences ------------------------------------------------------------

    def _preference_answer(self, draft: Draft, pending: PendingClarify, answer: Clause) -> bool:
        """你喜欢的温度是多少？— 26度: store the value said; False when it is no such answer."""
        value = answer.value
        if answer.target is not None or value is None or value.kind != "absolute":
            return False
        stored: float | str | None = value.word if value.word is not None else value.number
        if stored is None or pending.preference is None:
            return False
        try:
            self.preferences.set(_user(draft), pending.preference, stored)
        except JiayuError:
            return False
        return True

    def _remember(self, draft: Draft, clause: Clause) -> None:
        """记住我喜欢26度 / 我看电视的音量是20: stored per user, said back."""
        value = clause.value
        attribute = _preference_attribute(value)
        if value is None or attribute is None:
            draft.say("rejected", "没听清要记住什么。")
            return
        device_type = clause.target.device_type if clause.target is not None else None
        stored: float | str | None = value.word if value.word is not None else value.number
        if stored is None:
            draft.say("rejected", "没听清要记住什么。")
            return
        try:
            kept = self.preferences.set(
                _user(draft), preference_key(attribute, device_type), stored
            )
        except JiayuError as err:
            draft.say("rejected", f"这个记不了：{err}")
            return
        draft.say("executed", f"好的，记住了，{_preference_phrase(attribute, kept)}")

    def _preferred(
        self,
        draft: Draft,
        clause: Clause,
        devices: Sequence[str],
        focus: Sequence[str],
        rest: tuple[Clause, ...],
    ) -> Value | None:
        """调到我喜欢的温度: the user's stored value; when there is none, ask for it (the
        answer is stored, then the clause runs)."""
        assert clause.value is not None
        device = self.home.device(devices[0])
        attribute = clause.value.attribute or _main_preference(device)
        if attribute is None:
            draft.say("rejected", f"{shown(device.name)}没有可以按习惯调的设置")
            return None
        stored = self.preferences.preferred(_user(draft), attribute, device.type)
        if stored is None:
            key = preference_key(attribute, None)
            draft.options.extend(devices)
            draft.say("clarify", f"你喜欢的{attribute_word(attribute)}是多少？说一下我就记住。")
            draft.asked = True
            draft.session.pending = PendingClarify(
                replace(clause, value=replace(clause.value, attribute=attribute)),
                tuple(devices),
                False,
                rest,
                tuple(focus),
                draft.text,
                key,
            )
            return None
        if isinstance(stored, str):
            return Value("absolute", attribute, None, stored)
        return Value("absolute", attribute, float(stored))

    def _scene(self, draft: Draft, clause: Clause) -> tuple[str, ...]:
        assert clause.scene is not None
        scene = self.home.scene(clause.scene)
        commands = [Command(s.device, s.command, dict(s.params)) for s in scene.steps]
        self._batch(draft, commands, None, scene=scene.name)
        batch = draft.parts[-1]
        if isinstance(batch, Batch) and batch.scene == scene.name:
            delays = {(s.device, s.command): s.delay_s for s in scene.steps}
            batch.delays = tuple(delays.get((c.device, c.command), 0.0) for c in batch.commands)
        return tuple(dict.fromkeys(c.device for c in commands))

    def _query(self, draft: Draft, clause: Clause, devices: Sequence[str], read: Reader) -> None:
        parts: list[str] = []
        found: list[tuple[str, str, Any]] = []
        for device_id in devices:
            device = self.home.device(device_id)
            attribute = query_attribute(device, clause)
            if attribute is None:
                continue
            got = self._read(draft, device_id, read)
            if isinstance(got, HubError):
                parts.append(
                    f"{shown(device.name)}读不到：{FAULT_WORDS.get(got.reason, got.reason)}"
                )
                continue
            value = got.get(attribute)
            draft.answers.append({"device": device_id, "attribute": attribute, "value": value})
            draft.devices.append(device_id)
            found.append((device_id, attribute, value))
            place_only = clause.target is not None and clause.target.is_place_only
            if place_only and isinstance(value, int | float) and not isinstance(value, bool):
                # 客厅温度多少 asks about the room, so the room answers: 客厅现在27.5度.
                room = shown(self.home.room(device.room).name)
                parts.append(reading_phrase(room, attribute, float(value)))
            else:
                parts.append(answer_phrase(self.home, device, attribute, value))
        if clause.question is not None and found:
            parts = [self._summary(clause, found)] + [p for p in parts if "读不到" in p]
        draft.say("answered" if found else "rejected", "，".join(parts) or "读不到这个状态")

    def _summary(self, clause: Clause, found: Sequence[tuple[str, str, Any]]) -> str:
        """A set or yes/no question answered in one phrase: 有，客厅灯和卧室灯开着."""
        expected = True if clause.expected is None else clause.expected
        wants = {d: _wanted(clause.attribute, a, expected) for d, a, _ in found}
        matching = [d for d, a, v in found if state_word(a, v) == state_word(a, wants[d])]
        others = [d for d, _, _ in found if d not in matching]
        attribute = found[0][1]
        word = state_word(attribute, wants[found[0][0]])
        other_word = state_word(attribute, not wants[found[0][0]])
        noun = _noun(clause)
        if clause.question == "count":
            if not matching:
                return f"没有{noun}{word}"
            return f"有{len(matching)}个{noun}{word}：{self._listing(matching)}"
        if clause.question == "which":
            return f"{self._listing(matching)}{word}" if matching else f"没有{noun}{word}"
        if clause.question == "any":
            if not matching:
                return f"没有，{noun}都{other_word}"
            return f"有，{self._listing(matching)}{word}"
        # all / yes_no: every device asked about is in the state asked about
        if not others:
            both = "都" if len(matching) > 1 else ""
            return f"是的，{self._listing(matching)}{both}{word}"
        return f"没有，{self._listing(others)}{other_word}"

    def _listing(self, devices: Sequence[str]) -> str:
        """Up to four names; more are counted, not read out."""
        names = [shown(self.home.device(d).name) for d in dict.fromkeys(devices)]
        if len(names) > 4:
            return "、".join(names[:3]) + f"等{len(names)}个"
        return names[0] if len(names) == 1 else "、".join(names[:-1]) + "和" + names[-1]

    def _condition_holds(
        self,
        draft: Draft,
        condition: Condition | None,
        focus: Sequence[str],
        read: Reader,
    ) -> bool:
        """Check a condition once against a fresh read; False records why."""
        if condition is None:
            return True
        sources = self._condition_sources(draft, condition, focus)
        if sources is None:
            draft.say("rejected", f"不知道要读哪里的{attribute_word(condition.attribute)}")
            return False
        values: list[float] = []
        for device_id in sources:
            got = self._read(draft, device_id, read)
            if isinstance(got, HubError):
                continue
            value = got.get(condition.attribute)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.append(float(value))
        return self._compare(
            draft,
            values,
            condition.attribute,
            condition.op,
            condition.number,
            _place_words(condition.subject),
        )

    def _condition_sources(
        self, draft: Draft, condition: Condition, focus: Sequence[str]
    ) -> list[str] | None:
        """The devices whose reading a condition compares; None when no place is known."""
        if condition.subject is None:
            room = (
                focus[-1] if focus else draft.area or next(iter(draft.session.recent_rooms), None)
            )
            if room is None:
                return None
            return [
                d.id
                for d in self.home.devices_in_room(room)
                if reading_attribute(d, condition.attribute) == condition.attribute
            ]
        resolution = self.resolver.resolve(
            Clause("query", _as_set(condition.subject), attribute=condition.attribute),
            draft.session,
            area=draft.area,
        )
        found = list(resolution.devices) if isinstance(resolution, Found) else []
        return [
            d
            for d in found
            if reading_attribute(self.home.device(d), condition.attribute) == condition.attribute
        ]

    def _compare(
        self,
        draft: Draft,
        values: Sequence[float],
        attribute: str,
        op: str,
        number: float,
        where: str,
    ) -> bool:
        """Whether the readings pass the comparison; the reply says what was read."""
        if not values:
            draft.say("rejected", f"读不到{where}的{attribute_word(attribute)}，所以什么都没做")
            return False
        reading = sum(values) / len(values)
        phrase = reading_phrase(where, attribute, reading)
        if not _OPS[op](reading, number):
            draft.say(
                "noop",
                f"{phrase}，没有{_OP_WORDS[op]}"
                f"{reading_phrase('', attribute, number)}，所以没有执行",
            )
            return False
        draft.parts.append(phrase)
        return True

    # --- the Result ------------------------------------------------------------

    def finish(
        self, draft: Draft, report: Report, *, told: bool = True, remember: bool = True
    ) -> Result:
        """The Result of a planned and run turn; updates the session. `told`: the reply
        starts with the session's queued messages (the async path said them already);
        `remember`: the turn is the user's (a schedule firing is not a turn of theirs)."""
        session = draft.session
        outcomes = list(draft.outcomes)
        replies: list[str] = []
        failures = list(draft.failures)
        for part in draft.parts:
            if isinstance(part, str):
                replies.append(part)
                continue
            if part.background:
                outcomes.append("executed")
                replies.append(f"好的，{shown(part.scene or '')}开始了")
                continue
            replies.extend(self._batch_phrases(part))
            failures.extend(Report.failure(c, reason) for c, reason in part.failed)
            if part.sent:
                outcomes.append("executed")
            elif part.failed:
                outcomes.append("rejected")
        if report.audit_failed:
            outcomes.append("rejected")
            replies.append("审计日志写不进去，后面的操作没有执行")
        sent = draft.sent()
        if not outcomes:
            outcomes.append("noop")
        outcome = most_blocking(outcomes)
        if outcome != "confirm" and isinstance(session.pending, PendingConfirm):
            session.pending = None  # the question was overtaken by what else the turn said
        if remember:
            devices = tuple(dict.fromkeys([*draft.devices, *(c.device for c in sent)]))
            rooms = tuple(dict.fromkeys(self.home.device(d).room for d in devices))
            session.remember(draft.text, outcome, devices, rooms, tuple(sent))
        reply = "，".join(r for r in replies if r)
        if outcome == "executed" and not reply.startswith("好的"):
            reply = "好的，" + reply
        if told:
            queued = list(session.messages)
            session.messages.clear()
            if queued:
                reply = "。".join([*queued, reply])
        return Result(
            draft.text,
            outcome,
            [_command_json(c) for c in sent],
            draft.answers,
            list(dict.fromkeys(draft.options)),
            reply,
            draft.source,  # type: ignore[arg-type]
            self._compact(draft),
            to_json(draft.compiled) if draft.compiled is not None else {},
            failures,
            pending=[_command_json(c) for c in draft.held] if outcome == "confirm" else [],
            scheduled=draft.scheduled,
            timings=draft.timings,
        )

    def _batch_phrases(self, batch: Batch) -> list[str]:
        phrases: list[str] = []
        if batch.scene is not None:
            name = shown(batch.scene)
            if batch.sent and not batch.failed:
                phrases.append(f"好的，已执行{name}")
            elif batch.sent:
                phrases.append(f"{name}已部分执行")
            elif batch.failed:
                phrases.append(f"{name}没有执行成功")
        elif batch.sent:
            phrases.append(done_phrase(self.home, batch.clause, batch.sent))
        for command, reason in batch.failed:
            phrases.append(
                f"{shown(self.home.device(command.device).name)}没有执行："
                f"{FAULT_WORDS.get(reason, reason)}"
            )
        return phrases

    def _compact(self, draft: Draft) -> list[dict[str, Any]]:
        if draft.llm_compact is not None:
            return draft.llm_compact
        if draft.parsed is None:
            return [dict(u) for u in UNKNOWN]
        return compact(
            draft.parsed,
            self._split_room,
            self._type_of,
            lambda place, noun: self.resolver.composed(place, noun) is not None,
        )

    def _split_room(self, name: str) -> tuple[str | None, str]:
        word = self.home.leading_room_word(name)
        return (word, name[len(word) :]) if word is not None else (None, name)

    def _type_of(self, name: str) -> str:
        match = self.names.lookup(name)
        if match is None:
            return "Unknown"
        types = {self.home.device(d).type for d in match.devices}
        return types.pop() if len(types) == 1 else "Unknown"


def _handled(result: Result, number: int, never: asyncio.Future[Result]) -> Handled:
    never.set_result(result)
    return Handled(result.reply, result.outcome, [], [], [], [], number, never)


def _fallback(llm: LLMClient, home: Home) -> Fallback:
    # Imported here: a grammar-only engine never loads the fallback (nor dashscope).
    from jiayu.compiler.llm import Fallback

    return Fallback(llm, home)


def _warm(lexicon: Lexicon, names: NameIndex) -> None:
    """Build the lexicon's and the name index's pinyin data in a background thread."""

    def build() -> None:
        lexicon.pinyin_index()
        names.warm()
        # Like the engine's own build: what lives as long as the engine is kept out of later
        # full collections, which would otherwise rescan every key (~40 ms on a big home).
        gc.freeze()

    threading.Thread(target=build, name="jiayu-pinyin", daemon=True).start()


def _command_json(command: Command) -> dict[str, Any]:
    return {"device": command.device, "command": command.command, "params": dict(command.params)}


def _rooms(target: Target) -> list[str]:
    return [p.id for p in target.places if p.kind == "room" and p.id]


def _as_set(target: Target) -> Target:
    # A condition reads every sensor of the place, not one of them.
    if target.places and not target.name and not target.type_word:
        return Target(places=target.places, quantifier="all")
    return target


def _place_words(target: Target | None) -> str:
    if target is None:
        return "这里"
    words = [p.text for p in target.places]
    if target.name is not None:
        words.append(target.name.said)
    elif target.type_word:
        words.append(target.type_word)
    return "".join(words) or "这里"


def _noun(clause: Clause) -> str:
    target = clause.target
    if target is None:
        return "设备"
    return target.type_word or (shown(target.name.said) if target.name else "设备")


def _negated_phrase(clause: Clause) -> str:
    verb = _NEGATED_VERBS.get(clause.action, "动")
    what = _place_words(clause.target) if clause.target is not None else ""
    return f"不{verb}{what if what != '这里' else ''}了" if clause.target else f"不{verb}了"


def _dropped(home: Home, commands: Iterable[Command]) -> str:
    names = "、".join(dict.fromkeys(shown(home.device(c.device).name) for c in commands))
    return f"刚才等你确认的{names}没有执行"


def _not_understood(compiled: Compiled, stray: Sequence[Clause]) -> str:
    """Which words were not understood: the reply names them (never more than a few)."""
    words: list[str] = []
    if isinstance(compiled, NoParse):
        words = [t.said for t in compiled.tokens if t.match == "unknown"]
        if not words and compiled.reason in ("unexpected_word", "unattached"):
            words = [compiled.text[compiled.position : compiled.position + 6]]
        if compiled.reason in ("empty", "no_words"):
            return "抱歉，我没听清要做什么。"
        if compiled.reason == "not_home":
            return "抱歉，这个我帮不上忙，我只会控制家里的设备。"
    for clause in stray:
        if clause.target is not None:
            words.append(_place_words(clause.target))
    words = [w for w in dict.fromkeys(words) if w]
    if len(stray) == 1 and len(compiled.clauses if isinstance(compiled, Parse) else ()) == 1:
        return "要对它做什么呢？"
    if not words:
        return "抱歉，我没听懂，什么都没有执行。"
    shown_words = "、".join(f"“{shown(w)}”" for w in words[:3])
    return f"抱歉，我没听懂{shown_words}，什么都没有执行。"


def _known_room(home: Home, area: str | None) -> str | None:
    """The speaker's room, when the hub named a room this home has (anything else is ignored
    rather than trusted: it must never widen what a command reaches)."""
    if area is None:
        return None
    try:
        return home.room(area).id
    except KeyError:
        log.warning("jiayu.unknown_area", extra={"area": area})
        return None


@dataclass(frozen=True)
class _Step:
    """A scene step for the scene runner: the command and how long to wait before it."""

    command: Command
    delay_s: float


def _path(path: str | os.PathLike[str] | None) -> Path | None:
    return Path(path) if path is not None else None


def _user(draft: Draft) -> str:
    # Without a user from the hub, the household shares one set of preferences.
    return draft.user or "default"


def _preference_attribute(value: Value | None) -> str | None:
    if value is None:
        return None
    if value.attribute is not None:
        return value.attribute
    return "target_temperature" if value.unit == "°C" else None


def _preference_phrase(attribute: str, value: float | int | str) -> str:
    if attribute == "color_temp" and isinstance(value, str):
        return "你喜欢" + {"warm": "暖光", "cool": "冷光", "natural": "自然光"}.get(value, value)
    return f"你喜欢的{attribute_word(attribute)}是{value_phrase(attribute, value)}"


def _main_preference(device: Device) -> str | None:
    """What 按我的习惯 sets on a device when no attribute is said: its main setting."""
    return value_attribute(device, Value("absolute"))


def _wanted(asked: str | None, read: str, expected: Any) -> Any:
    """The state a question asks about, in the attribute actually read: 门关好了吗 asks
    about on/open, and a lock that is closed is locked."""
    if read == "locked" and asked != "locked":
        return not expected
    return expected
