"""Long scenes in the background: order and delays, cancel, replacement, failures."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from jiayu.executor.clock import ManualClock, SystemClock
from jiayu.executor.hubs.base import HubError
from jiayu.executor.scenes import SceneOutcome, SceneRunner, StepFailure
from jiayu.home import SceneStep

START = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)


def steps(*spec: tuple[str, float]) -> list[SceneStep]:
    return [SceneStep(device, "turn_on", {}, delay_s=delay) for device, delay in spec]


class Hub:
    """Records each step the runner sends, and when; a test waits for the next one."""

    def __init__(self, clock: ManualClock | SystemClock) -> None:
        self.clock = clock
        self.sent: list[tuple[str, datetime]] = []
        self.outcomes: list[SceneOutcome] = []
        self.cancelled: list[SceneOutcome] = []
        self.told: list[str] = []  # the scene.* events a runtime would publish, in order
        self._more = asyncio.Event()

    async def run_step(self, step: SceneStep) -> None:
        self.sent.append((step.device, self.clock.now()))
        self._more.set()

    def on_done(self, outcome: SceneOutcome) -> None:
        self.outcomes.append(outcome)
        self.told.append(f"scene.{outcome.status}")
        self._more.set()

    def on_start(self) -> None:
        self.told.append("scene.started")

    def on_cancelled(self, outcome: SceneOutcome) -> None:
        self.cancelled.append(outcome)
        self.told.append(f"scene.{outcome.status}")

    def start(self, runner: SceneRunner, scene: list[SceneStep]) -> None:
        """Start a scene with every callback recorded."""
        runner.start(
            scene,
            self.run_step,
            self.on_done,
            on_start=self.on_start,
            on_cancelled=self.on_cancelled,
        )

    async def wait_sent(self, count: int) -> list[str]:
        while len(self.sent) < count:
            self._more.clear()
            await asyncio.wait_for(self._more.wait(), timeout=5)
        return [device for device, _ in self.sent]


async def finished(runner: SceneRunner) -> None:
    await asyncio.wait_for(runner.wait(), timeout=5)


async def asleep(clock: ManualClock) -> None:
    await asyncio.wait_for(clock.wait_for_sleepers(), timeout=5)


def test_steps_are_sent_in_order_each_after_its_delay() -> None:
    async def main() -> tuple[list[tuple[str, datetime]], list[SceneOutcome]]:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)
        runner.start(steps(("a", 0), ("b", 60), ("c", 120)), hub.run_step, hub.on_done)
        assert runner.running
        await asleep(clock)
        assert await hub.wait_sent(1) == ["a"]
        clock.advance(60)
        await hub.wait_sent(2)
        await asleep(clock)
        clock.advance(119)
        clock.advance(1)
        await finished(runner)
        assert not runner.running
        return hub.sent, hub.outcomes

    sent, outcomes = asyncio.run(main())
    assert sent == [
        ("a", START),
        ("b", START + timedelta(seconds=60)),
        ("c", START + timedelta(seconds=180)),
    ]
    assert outcomes == [SceneOutcome("finished", (0, 1, 2), 3)]
    assert outcomes[0].ok


def test_a_scene_cancelled_midway_sends_no_later_step_and_tells_only_on_cancelled() -> None:
    async def main() -> Hub:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)
        hub.start(runner, steps(("a", 0), ("b", 60), ("c", 60)))
        await hub.wait_sent(1)
        await asleep(clock)
        assert runner.cancel() is True  # 算了
        clock.advance(600)
        await finished(runner)
        assert clock.sleepers == 0
        assert runner.cancel() is False
        return hub

    hub = asyncio.run(main())
    assert [d for d, _ in hub.sent] == ["a"]
    assert hub.outcomes == []  # on_done: the user has just been told
    assert hub.cancelled == [SceneOutcome("cancelled", (0,), 3)]
    assert hub.told == ["scene.started", "scene.cancelled"]


def test_a_step_in_flight_when_cancelled_is_the_last_even_if_it_swallows_the_cancel() -> None:
    async def main() -> tuple[list[str], list[SceneOutcome]]:
        clock = ManualClock(START)
        runner = SceneRunner(clock)
        tried: list[str] = []
        in_flight = asyncio.Event()

        async def run_step(step: SceneStep) -> None:
            tried.append(step.device)
            if step.device == "a":
                in_flight.set()
                # A careless hub adapter that eats the cancellation and carries on.
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    return

        told: list[SceneOutcome] = []
        runner.start(
            steps(("a", 0), ("b", 0), ("c", 0)), run_step, told.append, on_cancelled=told.append
        )
        await asyncio.wait_for(in_flight.wait(), timeout=5)
        assert runner.cancel()
        await finished(runner)
        return tried, told

    # "a" returned without an error, so it counts as sent; nothing after it went out.
    assert asyncio.run(main()) == (["a"], [SceneOutcome("cancelled", (0,), 3)])


def test_a_new_scene_replaces_the_running_one() -> None:
    async def main() -> Hub:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)
        hub.start(runner, steps(("a1", 0), ("a2", 60), ("a3", 60)))
        await hub.wait_sent(1)
        await asleep(clock)
        # 换个风格: the relaxing scene gives way to the cinema one.
        hub.start(runner, steps(("b1", 0), ("b2", 30)))
        await hub.wait_sent(2)
        await asleep(clock)
        clock.advance(300)
        await finished(runner)
        return hub

    hub = asyncio.run(main())
    assert [d for d, _ in hub.sent] == ["a1", "b1", "b2"]
    assert hub.cancelled == [SceneOutcome("cancelled", (0,), 3)]
    assert hub.outcomes == [SceneOutcome("finished", (0, 1), 2)]
    # The old scene is told ended before the new one is told started.
    assert hub.told == ["scene.started", "scene.cancelled", "scene.started", "scene.finished"]


def test_a_step_the_hub_fails_is_reported_and_the_rest_still_run() -> None:
    async def main() -> tuple[list[str], list[SceneOutcome]]:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)

        async def run_step(step: SceneStep) -> None:
            if step.device == "lamp":
                raise HubError("lamp", "offline")
            await hub.run_step(step)

        runner.start(steps(("a", 0), ("lamp", 0), ("c", 0)), run_step, hub.on_done)
        await finished(runner)
        return [d for d, _ in hub.sent], hub.outcomes

    sent, outcomes = asyncio.run(main())
    assert sent == ["a", "c"]
    assert outcomes == [SceneOutcome("failed", (0, 2), 3, (StepFailure(1, "lamp", "offline"),))]
    assert not outcomes[0].ok


def test_an_error_that_is_not_the_hubs_stops_the_scene_and_is_reported() -> None:
    async def main() -> tuple[list[str], list[SceneOutcome]]:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)

        async def run_step(step: SceneStep) -> None:
            if step.device == "b":
                raise KeyError("b")
            await hub.run_step(step)

        runner.start(steps(("a", 0), ("b", 0), ("c", 0)), run_step, hub.on_done)
        await finished(runner)
        return [d for d, _ in hub.sent], hub.outcomes

    sent, outcomes = asyncio.run(main())
    assert sent == ["a"]
    assert outcomes == [SceneOutcome("failed", (0,), 3, (), "'b'")]
    assert outcomes[0].sent == 1


def test_callbacks_that_raise_do_not_escape_or_stop_the_scene() -> None:
    async def main() -> tuple[bool, list[str]]:
        clock = ManualClock(START)
        runner = SceneRunner(clock)
        sent: list[str] = []

        async def run_step(step: SceneStep) -> None:
            sent.append(step.device)

        def broken(*_: object) -> None:
            raise RuntimeError("the message queue is full")

        runner.start(steps(("a", 0), ("b", 0)), run_step, broken, on_start=broken)
        await finished(runner)
        return runner.running, sent

    assert asyncio.run(main()) == (False, ["a", "b"])


@pytest.mark.parametrize("delay", [-1.0, float("nan"), float("inf")])
def test_a_step_with_a_bad_delay_is_refused_before_the_running_scene_is_touched(
    delay: float,
) -> None:
    async def main() -> list[str]:
        clock = ManualClock(START)
        hub = Hub(clock)
        runner = SceneRunner(clock)
        runner.start(steps(("a", 0), ("b", 60)), hub.run_step, hub.on_done)
        await asleep(clock)
        with pytest.raises(ValueError, match="waits"):
            runner.start(steps(("x", delay)), hub.run_step, hub.on_done)
        assert runner.running
        clock.advance(60)
        await finished(runner)
        return [d for d, _ in hub.sent]

    assert asyncio.run(main()) == ["a", "b"]


def test_a_scene_runs_on_the_system_clock_with_real_delays() -> None:
    async def main() -> tuple[float, Sequence[SceneOutcome]]:
        clock = SystemClock()
        hub = Hub(clock)
        runner = SceneRunner(clock)
        started = time.monotonic()
        runner.start(steps(("a", 0.05), ("b", 0.05)), hub.run_step, hub.on_done)
        await finished(runner)
        return time.monotonic() - started, hub.outcomes

    took, outcomes = asyncio.run(main())
    assert outcomes == [SceneOutcome("finished", (0, 1), 2)]
    assert 0.09 <= took < 2.0
