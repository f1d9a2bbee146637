"""The planner's I/O rule, held over the whole corpus: a turn is driven as the generator it is
(`planner.turn`), each effect answered by the engine's own runner and stores, and the effects
it yields are looked at. At most one Read per clause (a clause that reads under a condition
reads its sensors with its devices), no device read twice, no write or LLM call asked twice
however many passes the turn takes; and the stores hold what the Result says was written."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from jiayu import drivers
from jiayu.cases import Case, load_cases
from jiayu.compiler.cache import compiled
from jiayu.compiler.understand import Understood, gate
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, load_home
from jiayu.planner.draft import write_key
from jiayu.planner.effects import AddSchedule, Consult, Read, Send, Write
from jiayu.resolver.session import PendingClarify, PendingConfirm, Session
from jiayu.result import Result

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
CASES = [case for path in sorted(CORPUS.glob("*.jsonl")) for case in load_cases(path)]


@cache
def _base(home: Path) -> Engine:
    return Engine(load_home(home))


def _clauses(engine: Engine, text: str, session: Session) -> int:
    """How many clauses this turn may plan: its own, and those of the question it answers."""
    kept = compiled(text, engine.lexicon)
    pending = session.pending
    verdict = kept.understood or gate(
        kept.compiled,
        answering=isinstance(pending, PendingClarify),
        fallback=False,
        session=session.id,
    )
    said = len(verdict.clauses) if isinstance(verdict, Understood) else 0
    if isinstance(pending, PendingClarify):
        said += 1 + len(pending.rest)
    elif isinstance(pending, PendingConfirm):
        said += 1  # a confirmation re-checks its condition
    return max(said, 1)


def _drive(
    engine: Engine, text: str, session: Session, area: str | None
) -> tuple[Result, list[Any]]:
    """One turn, every effect answered as `Engine.turn` answers it, and the effects yielded."""
    runner = engine.runner
    assert runner is not None
    steps = engine.steps(text, session, area, None)
    effects: list[Any] = []
    answer: Any = None
    while True:
        try:
            effect = steps.send(answer)
        except StopIteration as stop:
            return stop.value, effects
        effects.append(effect)
        if isinstance(effect, Read):
            answer = runner.read_many(effect.devices)
        elif isinstance(effect, Send):
            drivers.defer_scene_steps(engine.schedules, effect.draft)
            answer = runner.run(effect.draft.batches, session=session.id, text=text).audit_failed
        elif isinstance(effect, Consult):
            raise AssertionError("no LLM in the corpus")
        else:
            answer = drivers.write(engine.schedules, engine.preferences, effect)


def _check_effects(engine: Engine, text: str, session: Session, area: str | None) -> Result:
    clauses = _clauses(engine, text, session)
    before = len(engine.schedules.pending())
    result, effects = _drive(engine, text, session, area)
    reads = [e for e in effects if isinstance(e, Read)]
    assert len(reads) <= clauses, (text, reads)
    devices = [d for r in reads for d in r.devices]
    assert len(devices) == len(set(devices)), (text, "a device read twice", devices)
    writes = Counter(write_key(e) for e in effects if isinstance(e, Write))
    assert all(n == 1 for n in writes.values()), (text, "a write asked twice", writes)
    assert sum(isinstance(e, Consult) for e in effects) <= 1
    assert sum(isinstance(e, Send) for e in effects) == 1
    # What the turn wrote is what it says it wrote (scene steps are kept by the driver).
    added = [e for e in effects if isinstance(e, AddSchedule)]
    said = [s for s in result.scheduled if "scene" not in s]
    assert len(added) == len(said), (text, added, said)
    if not any(isinstance(e, Write) and not isinstance(e, AddSchedule) for e in effects):
        steps = sum(1 for s in result.scheduled if "scene" in s)
        assert len(engine.schedules.pending()) == before + len(added) + steps, text
    return result


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_corpus_turn_keeps_the_io_rule(case: Case) -> None:
    base = _base(case.home)
    engine = base.fresh(hub=SimulatedHub(base.home, case.state))
    session = engine.session(case.id)
    for earlier in (*case.history, case.text):
        with session.lock:
            _check_effects(engine, earlier, session, case.area)


def _engine(home: Home, **state: dict[str, Any]) -> Engine:
    clock = ManualClock(datetime(2026, 1, 5, 20, 0, tzinfo=UTC))
    return Engine(home, hub=SimulatedHub(home, state), clock=clock)


def test_a_complaint_over_several_devices_reads_them_in_one_read(demo_home: Home) -> None:
    engine = _engine(demo_home)
    session = engine.session("s")
    asked, _ = _drive(engine, "客厅太暗了", session, None)
    assert asked.outcome == "clarify"
    result, effects = _drive(engine, "全部", session, None)
    reads = [e for e in effects if isinstance(e, Read)]
    assert len(reads) == 1 and len(reads[0].devices) == 5, (result.reply, reads)
    assert result.outcome == "executed" and len(result.commands) == 5, result.reply


def test_a_conditional_adjust_reads_its_sensor_and_its_device_at_once(demo_home: Home) -> None:
    engine = _engine(demo_home)
    session = engine.session("s")
    result, effects = _drive(engine, "如果客厅温度超过20度就把客厅空调调低一度", session, None)
    reads = [e for e in effects if isinstance(e, Read)]
    assert len(reads) == 1, (result.reply, reads)
    assert "ac_living" in reads[0].devices


# Every write kind, beside another write or a stop in the same turn: each is answered by its
# own answer, never by the answer of the write asked in that position on another pass.


def _kept(engine: Engine) -> list[dict[str, Any]]:
    return [s.to_json() for s in engine.schedules.pending()]


def test_a_scene_change_beside_a_delayed_command_stores_one_schedule(demo_home: Home) -> None:
    engine = _engine(demo_home)
    result = engine.turn("换个风格，半小时后关客厅灯", "s")
    kept = _kept(engine)
    assert len(kept) == 1 and len(result.scheduled) == 1, (result.reply, kept)
    assert kept[0]["id"] == result.scheduled[0]["id"]
    assert "停下" not in result.reply  # no scene was running


def test_a_running_scene_stopped_beside_a_delayed_command(demo_home: Home) -> None:
    engine = _engine(demo_home)
    engine.turn("观影模式", "s")  # its delayed steps wait in the store (the sync API)
    assert any(s.scene for s in engine.schedules.pending())
    result = engine.turn("换个风格，半小时后关客厅灯", "s")
    kept = engine.schedules.pending()
    assert not any(s.scene for s in kept), "the scene's steps are cancelled"
    assert [s.id for s in kept] == [result.scheduled[0]["id"]], "the new timer stays"
    assert "停下" in result.reply


def test_a_cancel_beside_a_delayed_command(demo_home: Home) -> None:
    engine = _engine(demo_home)
    engine.turn("半小时后关客厅灯", "s")
    result = engine.turn("取消定时，一小时后关卧室灯", "s")
    kept = _kept(engine)
    assert len(kept) == 1 and kept[0]["id"] == result.scheduled[0]["id"], (result.reply, kept)
    assert kept[0]["commands"][0]["device"] != "light_living"


def test_a_preference_beside_a_delayed_command(demo_home: Home) -> None:
    engine = _engine(demo_home)
    result = engine.turn("记住我喜欢26度，半小时后关客厅灯", "s")
    assert len(_kept(engine)) == 1 and len(result.scheduled) == 1, result.reply
    assert engine.preferences.preferred("default", "target_temperature", None) == 26
    assert json.dumps(result.reply, ensure_ascii=False)


def test_two_delayed_commands_said_alike_are_two(demo_home: Home) -> None:
    engine = _engine(demo_home)
    result = engine.turn("半小时后关客厅灯，一小时后关客厅灯", "s")
    kept = _kept(engine)
    assert len(kept) == 2 == len(result.scheduled), result.reply
    assert {s["at"] for s in kept} == {
        (datetime(2026, 1, 5, 20, 0, tzinfo=UTC) + timedelta(minutes=m)).isoformat()
        for m in (30, 60)
    }
