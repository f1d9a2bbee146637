"""The asyncio driver of the planner: plan on the event loop, answer at once (say first,
act after), send in the background, and tell what came of it in events and later replies.

The same effect generators as the sync `Engine.turn` (planner/turn.py); here a Read is
awaited for all its devices at once, the LLM's one blocking call runs in a worker thread, and
the batches go to the `AsyncRunner`. Kept schedules fire from `start()` (or `async with
engine`), a long scene runs in the background with its own events.
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jiayu import drivers
from jiayu.executor.arun import AsyncRunner
from jiayu.executor.events import Event, EventKind
from jiayu.executor.hubs import HubError
from jiayu.executor.scenes import SceneOutcome, SceneRunner
from jiayu.executor.scheduler import Scheduler
from jiayu.grammar.phrases import say
from jiayu.ir import Command
from jiayu.planner.draft import Draft
from jiayu.planner.effects import Consult, Read, Send, Steps
from jiayu.planner.finish import announce, answers_json, commands_json, decided, late_failures
from jiayu.planner.plan import Batch
from jiayu.planner.timing import Schedule
from jiayu.planner.turn import fire
from jiayu.resolver.session import Session
from jiayu.result import Outcome, Result
from jiayu.text import shown

if TYPE_CHECKING:
    from jiayu.engine import Engine

Notify = Callable[[str, Command, str | None], None]


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


@dataclass(frozen=True)
class _Step:
    """A scene step for the scene runner: the command and how long to wait before it."""

    command: Command
    delay_s: float


class Runtime:
    """One engine's asyncio runtime, on one event loop."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.loop = asyncio.get_running_loop()
        parallel, timeout = engine.limits
        self.runner = AsyncRunner(engine.hub, engine.audit, parallel=parallel, timeout=timeout)
        self.turns = itertools.count(1)
        # Per session, so turns of one session are planned in the order they arrive (an
        # asyncio.Lock is FIFO); weak, so a lock leaves with its session.
        self.locks: weakref.WeakKeyDictionary[Session, asyncio.Lock] = weakref.WeakKeyDictionary()
        self.scheduler: Scheduler | None = None
        self.scenes = SceneRunner(engine.clock)
        self.background: set[asyncio.Task[Any]] = set()

    def on_this_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def start(self) -> None:
        """Fire kept schedules from now on (a no-op when already started)."""
        if self.scheduler is None:
            engine = self.engine
            self.scheduler = Scheduler(
                engine.schedules,
                engine.clock,
                self.fire,
                on_dropped=engine.sessions.tell_dropped,
                has_device=engine.home.has_device,
            )
            self.scheduler.start()

    async def aclose(self) -> None:
        """Stop firing schedules (they stay in the store) and a running long scene."""
        scheduler, self.scheduler = self.scheduler, None
        if scheduler is not None:
            await scheduler.stop()
        self.scenes.cancel()
        await self.scenes.wait()
        if self.background:
            await asyncio.gather(*self.background, return_exceptions=True)
        await self.runner.aclose()

    async def handle(
        self, text: str, session_id: str, *, area: str | None, user: str | None
    ) -> Handled:
        """Plan one turn and answer at once; the commands are sent in the background.

        Reads the plan depends on (queries, conditions, relative values) happen before the
        reply, since the reply says what they found. Events go to `engine.events`; a failure
        that arrives after the reply is told at the start of the session's next reply."""
        engine = self.engine
        session = engine.session(session_id)
        lock = self.locks.setdefault(session, asyncio.Lock())
        async with lock:
            steps = engine.steps(text, session, area, user)
            try:
                draft = await self._until_send(steps)
            except Exception:
                number = next(self.turns)
                result = drivers.crashed(session, text)
                self._publish("turn.failed", session_id, number, reply=result.reply)
                future: asyncio.Future[Result] = self.loop.create_future()
                future.set_result(result)
                return Handled(result.reply, result.outcome, [], [], [], [], number, future)
            self.start()
            engine.warm()
            reply = announce(draft)
            if draft.stop_scene and self.scenes.cancel():
                # 换个风格 asks which scene is next: the question follows the news.
                asks = decided(draft) == "clarify"
                reply = say("done.stopped_then", reply=reply) if asks else say("done.stopped")
            reply = drivers.told_first(session, reply)
            # Numbered when queued: per device, commands go out in turn-number order.
            number = next(self.turns)
            notify = self._notifier(session_id, number)
            scene = None
            now: list[Batch] = []
            for batch in draft.batches:
                if any(batch.delays) and scene is None:
                    scene = self._pace(batch, draft, notify, number)
                else:
                    now.append(batch)
            sending = self.runner.submit(now, session=session_id, text=text, notify=notify)
        outcome = decided(draft)
        done = self._spawn(self._settle(steps, draft, sending, scene, number))
        return Handled(
            reply,
            outcome,
            commands_json(draft.planned_commands()),
            commands_json(draft.held) if outcome == "confirm" else [],
            list(dict.fromkeys(draft.options)),
            answers_json(draft.answers),
            number,
            done,
        )

    async def fire(self, schedule: Schedule) -> None:
        """A schedule whose time has come: the same checks as `run_due`, sent in the
        background runner, and what came of it told in the session's next reply."""
        engine = self.engine
        session = engine.session(schedule.session)
        inputs = engine.inputs(session, None, schedule.user)
        steps = fire(schedule, inputs)
        draft = await self._until_send(steps)
        if not any(batch.commands for batch in draft.batches):
            # Nothing goes out (dropped as risky now, or its condition unmet): told, as the
            # sync API tells every schedule it fires.
            session.messages.append(say("told.fired", reply=announce(draft)))
        number = next(self.turns)
        notify = self._notifier(schedule.session, number)
        sending = self.runner.submit(
            draft.batches, session=session.id, text=schedule.text, notify=notify
        )
        await self._settle(steps, draft, sending, None, number)

    async def _until_send(self, steps: Steps) -> Draft:
        """Drive the planner, awaiting what it asks for, up to the batches it wants sent."""
        answer: Any = None
        while True:
            effect = steps.send(answer)
            if isinstance(effect, Send):
                return effect.draft
            if isinstance(effect, Read):
                answer = await self.runner.read_many(effect.devices)
            elif isinstance(effect, Consult):
                answer = await asyncio.to_thread(drivers.consult, self.engine.fallback, effect)
            else:
                answer = drivers.write(self.engine.schedules, self.engine.preferences, effect)

    async def _settle(
        self,
        steps: Steps,
        draft: Draft,
        sending: asyncio.Task[Any],
        scene: asyncio.Future[SceneOutcome] | None,
        number: int,
    ) -> Result:
        """When every command of the turn has been tried (a long scene's last step too):
        the final Result, its events, and any failure queued for the next reply."""
        session = draft.ctx.session
        try:
            report = await sending
            if scene is not None:
                await scene
            for batch in draft.batches:
                position = {id(c): i for i, c in enumerate(batch.commands)}
                batch.sent.sort(key=lambda c: position[id(c)])
            try:
                steps.send(report.audit_failed)
                raise RuntimeError("the planner went on after its Send")
            except StopIteration as stop:
                result: Result = stop.value
        except Exception:
            result = drivers.crashed(session, draft.text, draft.sent())
            self._publish("turn.failed", session.id, number, reply=result.reply)
            return result
        late = late_failures(draft)
        if report.audit_failed:
            late.append(say("failed.audit_some"))
        session.messages.extend(say("told.earlier", what=p) for p in late)
        self._publish(
            "turn.failed" if late else "turn.done", session.id, number, reply=result.reply
        )
        return result

    def _pace(
        self, batch: Batch, draft: Draft, notify: Notify, number: int
    ) -> asyncio.Future[SceneOutcome]:
        """Hand a scene whose steps wait to the home's scene runner (one at a time; a new one
        replaces it). The future ends with the scene: finished, failed or cancelled."""
        session = draft.ctx.session
        name = batch.scene or ""
        ended: asyncio.Future[SceneOutcome] = self.loop.create_future()
        steps = [_Step(c, d) for c, d in zip(batch.commands, batch.delays, strict=True)]

        async def run_step(step: _Step) -> None:
            single = Batch([step.command])
            await self.runner.submit([single], session=session.id, text=draft.text, notify=notify)
            batch.sent.extend(single.sent)
            batch.failed.extend(single.failed)
            if single.failed:
                raise HubError(step.command.device, single.failed[0][1])

        def ended_as(outcome: SceneOutcome) -> None:
            self._publish(f"scene.{outcome.status}", session.id, number, scene=name)  # type: ignore[arg-type]
            if outcome.ok:
                session.messages.append(say("told.scene_done", scene=shown(name)))
            elif outcome.status == "failed":
                missed = outcome.total - outcome.sent
                session.messages.append(say("told.scene_missed", scene=shown(name), missed=missed))
            if not ended.done():
                ended.set_result(outcome)

        self.scenes.start(
            steps,
            run_step,
            ended_as,
            on_start=lambda: self._publish("scene.started", session.id, number, scene=name),
            on_cancelled=ended_as,
        )
        return ended

    def _notifier(self, session_id: str, number: int) -> Notify:
        def notify(kind: str, command: Command, reason: str | None) -> None:
            event_kind: EventKind = f"command.{kind}"  # type: ignore[assignment]
            self.engine.events.publish(
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

    def _publish(
        self,
        kind: EventKind,
        session: str,
        number: int,
        *,
        reply: str | None = None,
        scene: str | None = None,
    ) -> None:
        self.engine.events.publish(Event(kind, session, number, reply=reply, scene=scene))

    def _spawn(self, work: Any) -> asyncio.Task[Result]:
        task: asyncio.Task[Result] = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task
