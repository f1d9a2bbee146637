"""Long scenes (an ambience set step by step: 帮我放松一下, 营造观影氛围) run in the background.

A scene whose steps wait (`delay_s`) would hold the turn for minutes; instead the engine
answers at once and hands the steps to the home's `SceneRunner`, one asyncio task that sends
them in order, each after its delay on the injected clock. Only one runs per home: a new
scene replaces the running one, and 算了/停下/取消/不要了 cancels it. How it ended (finished or
failed) goes to `on_done`, which the engine queues for the next turn's reply (the session's
message queue); a cancelled scene is not told there, because the user has just been told, but
to `on_cancelled`, so the runtime can publish it. `on_start` and one of the two endings let
the runtime publish the scene.* events: a scene told as started is always told
as ended, and a `SceneOutcome.status` is the event's name after "scene.".

The runner is bound to its event loop: call it from the loop's thread (the asyncio runtime).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, Protocol, TypeVar

from jiayu.executor.clock import Clock
from jiayu.executor.hubs.base import HubError

log = logging.getLogger(__name__)


class Step(Protocol):
    """What the runner needs of a step: how long to wait before sending it."""

    @property
    def delay_s(self) -> float:
        """Seconds to wait, after the step before it, before this step is sent."""
        ...


S = TypeVar("S", bound=Step)


@dataclass(frozen=True)
class StepFailure:
    """A step the hub failed; the scene went on with the next one."""

    index: int
    """The step's position in the scene, from 0."""
    device: str
    reason: str
    """The HubError's reason (offline, timeout, refused, or the hub's own words)."""


@dataclass(frozen=True)
class SceneOutcome:
    """How a scene ended."""

    status: Literal["finished", "failed", "cancelled"]
    """finished: every step was sent; failed: a step failed at the hub (`failures`; the scene
    went on with the rest) or an error that was not the hub's stopped it (`error`); cancelled:
    `cancel` or a newer scene stopped it, and no step after that was sent."""
    sent_steps: tuple[int, ...]
    """The positions (from 0) of the steps handed to run_step that returned without an error,
    in order: what the scene's Result lists as sent."""
    total: int
    """How many steps the scene has."""
    failures: tuple[StepFailure, ...] = ()
    error: str | None = None
    """For failed: what stopped it, when it was not the hub."""

    @property
    def sent(self) -> int:
        """How many steps were sent."""
        return len(self.sent_steps)

    @property
    def ok(self) -> bool:
        """Every step was sent."""
        return self.status == "finished"


class _Run:
    """One started scene: its task, and a flag that outlives a run_step that swallows the
    task's cancellation (then the flag alone keeps the next step from being sent)."""

    def __init__(self) -> None:
        self.cancelled = False
        self.task: asyncio.Task[None] | None = None


class SceneRunner:
    """Runs at most one long scene at a time, for one home."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._run: _Run | None = None
        # Every task not yet ended, cancelled ones included: a step in flight when its scene
        # was cancelled is still winding down, and `wait` waits for it too.
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def running(self) -> bool:
        """A scene is under way."""
        run = self._run
        return run is not None and run.task is not None and not run.task.done()

    def start(
        self,
        steps: Sequence[S],
        run_step: Callable[[S], Awaitable[None]],
        on_done: Callable[[SceneOutcome], None],
        *,
        on_start: Callable[[], None] | None = None,
        on_cancelled: Callable[[SceneOutcome], None] | None = None,
    ) -> None:
        """Cancel the running scene, if any, and start this one on the running event loop.
        ValueError (before anything is cancelled) when a step's delay is not a finite number
        of seconds ≥ 0.

        `on_start` is called when the scene's task begins (a scene cancelled before that is
        told nothing at all); then exactly one of `on_done` (finished or failed) and
        `on_cancelled`. A callback that raises is logged and changes nothing."""
        for step in steps:
            if not (math.isfinite(step.delay_s) and step.delay_s >= 0):
                raise ValueError(f"a scene step waits {step.delay_s} seconds")
        self.cancel()
        run = _Run()
        run.task = asyncio.get_running_loop().create_task(
            self._send(run, tuple(steps), run_step, on_done, on_start, on_cancelled),
            name="jiayu-scene",
        )
        self._tasks.add(run.task)
        run.task.add_done_callback(self._tasks.discard)
        self._run = run

    def cancel(self) -> bool:
        """Stop the running scene: no step after this call is sent, and its on_cancelled (not
        on_done) is told what was. False when no scene was running."""
        run, self._run = self._run, None
        if run is None or run.task is None or run.task.done():
            return False
        run.cancelled = True
        run.task.cancel()
        return True

    async def wait(self) -> None:
        """Return when every scene started here has ended, cancelled ones included (for a
        clean shutdown, and for tests)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    async def _send(
        self,
        run: _Run,
        steps: tuple[S, ...],
        run_step: Callable[[S], Awaitable[None]],
        on_done: Callable[[SceneOutcome], None],
        on_start: Callable[[], None] | None,
        on_cancelled: Callable[[SceneOutcome], None] | None,
    ) -> None:
        _tell("on_start", on_start)
        sent: list[int] = []
        failures: list[StepFailure] = []
        error: str | None = None
        try:
            for index, step in enumerate(steps):
                if step.delay_s > 0:
                    await self.clock.sleep_until(self.clock.now() + timedelta(seconds=step.delay_s))
                if run.cancelled:
                    break
                try:
                    await run_step(step)
                except HubError as exc:
                    # One lamp offline does not spoil the rest of the evening.
                    failures.append(StepFailure(index, exc.device, exc.reason))
                else:
                    sent.append(index)
        except asyncio.CancelledError:
            run.cancelled = True  # by `cancel`, or by the loop shutting down
            raise
        except Exception as exc:
            log.exception("a scene stopped at step %d", len(sent) + len(failures))
            error = str(exc)
        finally:
            # Also on the way out of a cancellation: a step in flight then is not counted sent.
            status: Literal["finished", "failed", "cancelled"] = (
                "cancelled" if run.cancelled else "failed" if failures or error else "finished"
            )
            self._end(
                run,
                SceneOutcome(status, tuple(sent), len(steps), tuple(failures), error),
                on_done,
                on_cancelled,
            )

    def _end(
        self,
        run: _Run,
        outcome: SceneOutcome,
        on_done: Callable[[SceneOutcome], None],
        on_cancelled: Callable[[SceneOutcome], None] | None,
    ) -> None:
        if self._run is run:
            self._run = None
        if outcome.status == "cancelled":
            _tell("on_cancelled", on_cancelled, outcome)
        else:
            _tell("on_done", on_done, outcome)


def _tell(name: str, callback: Callable[..., None] | None, *args: object) -> None:
    """Call back the scene's caller; its bug must not stop the scene or the loop."""
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:
        log.exception("a scene's %s failed", name)
