"""One planner, two runners: every corpus case gives the same final Result through the
asyncio API as through the sync API (outcome, commands in order, pending, answers, options)."""

from __future__ import annotations

import asyncio
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

    async def run_async(case: Case) -> dict[str, Any]:
        engine = engine_for(case)
        for earlier in case.history:
            await (await engine.handle(earlier, case.id, area=case.area)).result
        hub: SimulatedHub = engine.hub  # type: ignore[assignment]
        before = len(hub.sent)
        handled = await engine.handle(case.text, case.id, area=case.area)
        shape = _shape(await handled.result)
        if "开始了" in handled.reply or "开始了" in (await handled.result).reply:
            # A scene whose steps wait runs in the background: what it sent, once done (in
            # its own time, so compared with the other clauses' commands as a multiset).
            for _ in range(20):
                await asyncio.sleep(0.001)
                clock.advance(60)
            shape["commands"] = sorted(
                ({"device": d, "command": c, "params": p} for d, c, p in hub.sent[before:]),
                key=repr,
            )
            shape["paced"] = True
        await engine.aclose()
        return shape

    async def main() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        differ = []
        for case in cases:
            sync_engine = engine_for(case)
            for earlier in case.history:
                sync_engine.turn(earlier, case.id, area=case.area)
            sync = _shape(sync_engine.turn(case.text, case.id, area=case.area))
            asyn = await run_async(case)
            if asyn.pop("paced", False):
                sync["commands"] = sorted(sync["commands"], key=repr)
            if sync != asyn:
                differ.append((case.id, sync, asyn))
        return differ

    differ = asyncio.run(main())
    assert len(cases) > 1000
    assert differ == [], differ[:3]
