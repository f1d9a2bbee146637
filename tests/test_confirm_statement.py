"""Issue 19, family 2: only a statement confirms, within `confirm_ttl_s`, by the user who
asked, in the session that asked — over generated conversations on the real engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.result import Result

HOME = Path(__file__).parent.parent / "corpus" / "homes" / "demo.json"
TTL = 60.0
RISKY_TYPES = {"Lock", "Valve", "GarageDoor"}
CLOSING = {"lock", "close", "close_valve", "turn_off", "stop"}

OPENERS = ["打开门锁", "把入户门锁打开", "门锁解锁", "打开燃气阀门", "把总水阀打开", "开一下煤气阀"]
YES = [
    "确认",
    "对",
    "是的",
    "好的",
    "好的，确认",
    "确认。",
    "对对",
    "是的，确认！",
    "嗯嗯",
    "行",
    "可以",
]
# Questions, written as people ask them: particles, marks, A-not-A, question words.
QUESTION_STEMS = ["确认", "对", "是", "好的", "确定", "你确认", "你确定", "可以", "真的确认"]
QUESTION_TAILS = ["吗", "？", "?", "吗？", "呢", "么", "嘛", " 吗", "吗。"]
OTHER = ["关灯", "算了", "好吧", "确认吧", "确认，打开客厅灯", "嗯"]
# A question about something else is a question too: answered, and nothing dropped.
ASIDE = ["客厅灯开着吗", "门锁锁着吗？", "燃气阀门关着吗"]
A_NOT_A = ["对不对", "是不是", "确定不确定", "确不确认", "好不好"]


def questions() -> st.SearchStrategy[str]:
    marked = st.builds(
        lambda s, t: s + t, st.sampled_from(QUESTION_STEMS), st.sampled_from(QUESTION_TAILS)
    )
    return st.one_of(marked, st.sampled_from(A_NOT_A + ASIDE))


Step = tuple[str, str, str | None, str, float]  # kind, session, user, text, seconds before


def steps() -> st.SearchStrategy[list[Step]]:
    sessions = st.sampled_from(["a", "b"])
    users = st.sampled_from([None, "u1", "u2"])
    gap = st.sampled_from([0.0, 1.0, 30.0, 59.0, 61.0, 200.0])
    text = st.one_of(
        st.tuples(st.just("open"), st.sampled_from(OPENERS)),
        st.tuples(st.just("yes"), st.sampled_from(YES)),
        st.tuples(st.just("question"), questions()),
        st.tuples(st.just("other"), st.sampled_from(OTHER)),
    )
    step = st.builds(lambda t, s, u, g: (t[0], s, u, t[1], g), text, sessions, users, gap)
    return st.lists(step, min_size=1, max_size=12)


def opening(engine: Engine, result: Result) -> list[dict[str, object]]:
    """The commands of `result` that open a lock, valve or garage door, wholly or partly."""
    out = []
    for c in result.commands:
        device = engine.home.device(str(c["device"]))
        params = c.get("params") or {}
        assert isinstance(params, dict)
        partly = any(float(v) > 0 for k, v in params.items() if k in ("position", "tilt"))
        if device.type in RISKY_TYPES and (c["command"] not in CLOSING or partly):
            out.append(c)
    return out


@dataclass
class Asked:
    at: float
    user: str | None


@dataclass
class Model:
    """What the test itself knows: per session, the confirmation asked by the last turn that
    was not a question (None once any other statement came)."""

    asked: dict[str, Asked | None] = field(default_factory=dict)


ENGINE = Engine.from_file(HOME)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps())
def test_no_opening_without_a_statement_confirmation(conversation: list[Step]) -> None:
    clock = ManualClock()
    engine = ENGINE.fresh()
    engine.clock, engine.confirm_ttl_s = clock, TTL
    model = Model()
    elapsed = 0.0
    for kind, session, user, text, gap in conversation:
        clock.advance(gap)
        elapsed += gap
        result = engine.turn(text, session, user=user)
        assert "出了点问题" not in result.reply, text  # no path through the rules crashes
        before = model.asked.get(session)
        opened = opening(engine, result)
        if opened:
            assert kind == "yes", (text, opened)
            assert before is not None, (text, opened)
            assert elapsed - before.at <= TTL, (text, elapsed - before.at)
            assert before.user is None or before.user == user, (text, before.user, user)
        if kind == "question":
            continue  # a question drops nothing
        if kind == "yes" and result.outcome == "confirm" and not opened:
            continue  # another user's yes: refused, and the asking user's confirmation kept
        asked = kind == "open" and result.outcome == "confirm"
        model.asked[session] = Asked(elapsed, user) if asked else None


def engine_at(clock: ManualClock) -> Engine:
    engine = ENGINE.fresh()
    engine.clock = clock
    return engine


@pytest.mark.parametrize("question", ["确认吗", "对吗", "你确定吗", "是不是", "对了？", "确认?"])
def test_a_question_asks_again_and_keeps_the_confirmation(question: str) -> None:
    engine = engine_at(ManualClock())
    assert engine.turn("打开门锁", "s").outcome == "confirm"
    again = engine.turn(question, "s")
    assert again.outcome == "confirm" and again.commands == []
    assert again.pending == [{"device": "lock_front", "command": "unlock", "params": {}}]
    assert "还没有执行" in again.reply
    done = engine.turn("确认", "s")
    assert done.commands == [{"device": "lock_front", "command": "unlock", "params": {}}]


@pytest.mark.parametrize("after", ["确认", "关闭客厅灯"])
def test_after_the_ttl_nothing_is_confirmed_and_the_turn_is_an_ordinary_one(after: str) -> None:
    clock = ManualClock()
    engine = engine_at(clock)
    engine.turn("打开门锁", "s")
    clock.advance(60.5)
    late = engine.turn(after, "s")
    if after == "确认":
        assert late.commands == [] and late.reply.startswith("确认已过期，没有执行")
    else:
        assert late.outcome == "executed", late.reply  # not a crash, not a question
    assert engine.turn("确认", "s").commands == []


def test_only_the_user_who_asked_confirms_and_only_in_their_session() -> None:
    engine = engine_at(ManualClock())
    engine.turn("打开门锁", "s", user="mum")
    assert engine.turn("确认", "other-session", user="mum").commands == []
    stranger = engine.turn("确认", "s", user="kid")
    assert stranger.commands == [] and stranger.outcome == "confirm"
    assert engine.turn("确认", "s").commands == []  # no user named is not mum either
    assert engine.turn("确认", "s", user="mum").commands[0]["command"] == "unlock"


@pytest.mark.parametrize("said", ["好吧", "确认吧", "确认，打开客厅灯"])
def test_another_users_statement_that_confirms_nothing_drops_the_question(said: str) -> None:
    """What would not confirm from the user who asked is no wrong-user confirmation either:
    it drops the question, as it does when the asker says it, and a later 确认 opens nothing."""
    engine = engine_at(ManualClock())
    engine.turn("打开门锁", "s", user="mum")
    assert engine.turn(said, "s", user="kid").outcome != "confirm"
    assert engine.turn("确认", "s", user="mum").commands == []
