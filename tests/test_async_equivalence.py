"""One planner, two runners: every corpus case gives the same final Result through the
asyncio API as through the sync API (outcome, commands in order, pending, answers, options)."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from jiayu.cases import Case, load_cases
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, load_home
from jiayu.result import Result

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _shape(result: Result) -> dict[str, Any]:
    return {
        "outcome": result.outcome,
        "commands": result.commands,
        "pending": result.pending,
        "answers": result.answers,
        "options": result.options,
        "failures": result.failures,
        "source": result.source,
    }


def test_every_corpus_case_gives_the_same_result_sync_and_async() -> None:
    cases = [c for path in sorted(CORPUS.glob("*.jsonl")) for c in load_cases(path)]
    homes: dict[Path, Home] = {}
    engines: dict[Path, Engine] = {}
    clock = ManualClock()

    def engine_for(case: Case) -> Engine:
        if case.home not in engines:
            homes[case.home] = load_home(case.home)
            engines[case.home] = Engine(homes[case.home], clock=clock)
        base = engines[case.home]
        return base.fresh(hub=SimulatedHub(base.home, case.state))

    async def settled(handled: Any) -> Result:
        # A scene whose steps wait runs in the background on the fake clock: move it on
        # until the turn's Result (which comes after the scene's last step) is there. Bounded
        # in real time, so a turn that never settles fails here instead of hanging the run.
        deadline = time.monotonic() + 10
        while not handled.result.done():
            assert time.monotonic() < deadline, f"turn {handled.turn} never settled"
            await asyncio.sleep(0.001)
            if clock.sleepers:
                clock.advance(60)
        result: Result = handled.result.result()
        return result

    async def run_async(case: Case) -> dict[str, Any]:
        engine = engine_for(case)
        for earlier in case.history:
            await settled(await engine.handle(earlier, case.id, area=case.area))
        shape = _shape(await settled(await engine.handle(case.text, case.id, area=case.area)))
        await engine.aclose()
        return shape

    def run_sync(case: Case) -> dict[str, Any]:
        engine = engine_for(case)
        for earlier in case.history:
            engine.turn(earlier, case.id, area=case.area)
        result = engine.turn(case.text, case.id, area=case.area)
        shape = _shape(result)
        if "会按时执行" in result.reply:
            # Under the sync API a scene's delayed steps are schedules that run_due sends.
            later = engine.run_due(clock.now() + timedelta(hours=1))
            shape["commands"] = shape["commands"] + [c for r in later for c in r.commands]
            shape["outcome"] = "executed"
            shape["paced"] = True
        return shape

    async def main() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        differ = []
        for case in cases:
            sync = run_sync(case)
            asyn = await run_async(case)
            if sync.pop("paced", False):
                # Sent in its own time: compared with the other clauses' commands as a multiset.
                for shape in (sync, asyn):
                    shape["commands"] = sorted(shape["commands"], key=repr)
            if sync != asyn:
                differ.append((case.id, sync, asyn))
        return differ

    differ = asyncio.run(main())
    assert len(cases) > 1000
    assert differ == [], differ[:3]
