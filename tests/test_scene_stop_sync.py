"""Under the sync API a scene's delayed steps wait in the schedule store for `run_due`;
算了 / 停下 / 换个风格 cancels the remaining ones of the session's scene (and says so), never a
timer the user set, not another session's scene, and the cancel outlasts a restart. The
schedules file marks a scene's step with an optional key, so files written before load as
they were."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.executor.schedules import Schedule, ScheduleStore, _parse, new_schedule_id
from jiayu.grammar.phrases import say
from jiayu.home import Home
from jiayu.ir import Command
from jiayu.preferences import StateFileError

NOON = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SCENE = "帮我放松一下"  # 放松模式: strip_living now, light_living after 3 s, the speaker 5 s later
SCENE_NAME = "放松模式"
PAST_EVERY_STEP = 60  # seconds: the scene's last step is 8 s in


def _engine(home: Home, clock: ManualClock, path: Path | None = None) -> Engine:
    return Engine(home, clock=clock, schedules_path=path)


def _sent(engine: Engine) -> list[str]:
    hub: SimulatedHub = engine.hub  # type: ignore[assignment]
    return [device for device, *_ in hub.sent]


def _scene_started(engine: Engine, session: str = "s") -> None:
    result = engine.turn(SCENE, session)
    assert [s["scene"] for s in result.scheduled] == [SCENE_NAME, SCENE_NAME]
    assert _sent(engine)[-1] == "strip_living"


def test_suanle_stops_the_scenes_remaining_steps(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock)
    _scene_started(engine)
    stopped = engine.turn("算了", "s")
    assert stopped.reply == say("done.stopped")
    assert stopped.outcome == "noop"
    clock.advance(PAST_EVERY_STEP)
    assert engine.run_due() == []
    assert _sent(engine) == ["strip_living"]
    # Nothing left to stop: the next 算了 is a plain 好的.
    assert engine.turn("算了", "s").reply == say("done.ok")


def test_other_words_for_stop_and_changing_style_stop_it_too(demo_home: Home) -> None:
    for words in ("停下", "别弄了", "换个风格"):
        clock = ManualClock(NOON)
        engine = _engine(demo_home, clock)
        _scene_started(engine)
        reply = engine.turn(words, "s").reply
        assert reply.startswith(say("done.stopped")), (words, reply)
        clock.advance(PAST_EVERY_STEP)
        assert engine.run_due() == [], words


def test_changing_style_asks_for_the_next_scene_after_saying_it_stopped(demo_home: Home) -> None:
    engine = _engine(demo_home, ManualClock(NOON))
    _scene_started(engine)
    result = engine.turn("换个风格", "s")
    assert result.outcome == "clarify"
    names = [s.name for s in demo_home.scenes]
    assert result.reply == say("done.stopped_then", reply=say("ask.other_scene", names=names))


def test_the_users_own_timers_survive_suanle_and_fire(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock)
    assert engine.turn("半小时后关书房灯", "s").outcome == "scheduled"
    # A timer whose text is the scene's name is still the user's: the text marks nothing.
    same_text = Schedule(
        new_schedule_id(),
        "s",
        None,
        NOON + timedelta(minutes=20),
        (Command("light_bedroom", "turn_off", {}),),
        SCENE_NAME,
        None,
        NOON,
    )
    engine.schedules.add(same_text)
    _scene_started(engine)
    assert engine.turn("算了", "s").reply == say("done.stopped")
    assert len(engine.schedules) == 2
    clock.advance(30 * 60)
    fired = engine.run_due()
    assert [r.commands[0]["device"] for r in fired] == ["light_bedroom", "light_study"]
    assert _sent(engine) == ["strip_living", "light_bedroom", "light_study"]


def test_suanle_from_another_session_leaves_this_sessions_scene(demo_home: Home) -> None:
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock)
    _scene_started(engine, "s")
    assert engine.turn("算了", "other").reply == say("done.ok")
    clock.advance(PAST_EVERY_STEP)
    assert [r.commands[0]["device"] for r in engine.run_due()] == [
        "light_living",
        "speaker_kitchen",
    ]


def test_cancelled_steps_stay_cancelled_after_a_restart(demo_home: Home, tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock, path)
    assert engine.turn("半小时后关书房灯", "s").outcome == "scheduled"
    _scene_started(engine)
    engine.turn("算了", "s")
    del engine
    again = _engine(demo_home, clock, path)
    assert [s.text for s in again.schedules.pending()] == ["半小时后关书房灯"]
    clock.advance(30 * 60)
    assert [r.commands[0]["device"] for r in again.run_due()] == ["light_study"]


def test_steps_kept_across_a_restart_are_still_known_as_the_scenes(
    demo_home: Home, tmp_path: Path
) -> None:
    path = tmp_path / "schedules.json"
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock, path)
    _scene_started(engine)
    del engine
    again = _engine(demo_home, clock, path)
    assert [s.scene for s in again.schedules.pending()] == [SCENE_NAME, SCENE_NAME]
    assert again.turn("算了", "s").reply == say("done.stopped")
    clock.advance(PAST_EVERY_STEP)
    assert again.run_due() == []


def test_a_scene_not_stopped_says_so_and_its_steps_still_fire(
    demo_home: Home, tmp_path: Path
) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    clock = ManualClock(NOON)
    engine = _engine(demo_home, clock, folder / "schedules.json")
    _scene_started(engine)
    folder.rename(tmp_path / "away")  # the file can no longer be written
    result = engine.turn("算了", "s")
    assert result.outcome == "rejected"
    assert not result.reply.startswith(say("done.stopped"))
    assert len(engine.schedules) == 2


def test_under_the_asyncio_runtime_suanle_keeps_the_users_timer(demo_home: Home) -> None:
    async def main() -> None:
        clock = ManualClock(NOON)
        engine = _engine(demo_home, clock)
        await (await engine.handle("半小时后关书房灯", "s")).result
        handled = await engine.handle(SCENE, "s")
        await clock.wait_for_sleepers(2)  # the timer's scheduler and the scene's next step
        stopped = await engine.handle("算了", "s")
        assert stopped.reply == say("done.stopped")
        await asyncio.wait_for(handled.result, 2)
        assert [s.text for s in engine.schedules.pending()] == ["半小时后关书房灯"]
        await engine.aclose()

    asyncio.run(main())


# The file


def _old_file_schedule(schedule_id: str) -> dict[str, object]:
    """A schedule as the file kept it before scenes had delayed steps (no "scene")."""
    return {
        "id": schedule_id,
        "session": "s",
        "user": None,
        "at": "2026-11-23T12:30:00+00:00",
        "commands": [{"device": "light_study", "command": "turn_off", "params": {}}],
        "text": "半小时后关书房灯",
        "condition": None,
        "created": "2026-11-23T12:00:00+00:00",
    }


def test_a_file_written_before_loads_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    old = {"version": 1, "schedules": [_old_file_schedule("a"), _old_file_schedule("b")]}
    path.write_text(json.dumps(old), encoding="utf-8")
    store = ScheduleStore(path)
    assert [(s.id, s.scene) for s in store.pending()] == [("a", None), ("b", None)]
    assert [s.to_json() for s in store.pending()] == old["schedules"]
    store.cancel("b")  # rewritten: what stays is written as it was
    assert json.loads(path.read_text(encoding="utf-8"))["schedules"] == [old["schedules"][0]]


def test_a_bad_scene_key_names_file_pointer_and_problem(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    doc = {"version": 1, "schedules": [_old_file_schedule("a"), _old_file_schedule("b")]}
    doc["schedules"][1]["scene"] = 3  # type: ignore[index]
    path.write_text(json.dumps(doc), encoding="utf-8")
    try:
        ScheduleStore(path)
    except StateFileError as err:
        assert str(err).splitlines() == [f"{path}: /schedules/1/scene: 3 is not a string"]
    else:
        raise AssertionError("a bad scene key was accepted")


_SESSIONS = st.sampled_from(["s", "t"])
_MARKS = st.one_of(st.none(), st.sampled_from([SCENE_NAME, "观影模式", ""]))


@given(st.lists(st.tuples(_SESSIONS, _MARKS, st.sampled_from([SCENE_NAME, "关灯"])), max_size=8))
def test_a_scene_stop_takes_exactly_that_sessions_scene_steps(
    kept: list[tuple[str, str | None, str]],
) -> None:
    store = ScheduleStore()
    for i, (session, scene, text) in enumerate(kept):
        at = NOON + timedelta(seconds=i + 1)
        command = (Command("light_study", "turn_off", {}),)
        store.add(Schedule(str(i), session, None, at, command, text, None, NOON, scene))
    before = store.pending()
    taken = store.cancel_where(session="s", scene_steps=True)
    assert taken == [s for s in before if s.session == "s" and s.scene is not None]
    assert store.pending() == [s for s in before if s not in taken]
    # Every one, marked or not, goes through the file and back as it was.
    document = {"version": 1, "schedules": [s.to_json() for s in before]}
    assert _parse(json.loads(json.dumps(document)), "f") == before
