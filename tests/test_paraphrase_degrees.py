"""A complaint is degree + quality, whatever the degree word and however it ends: every degree
the tables hold (太, 有点, 贼, 怪, 好鬼, 有够 …) before a quality, or an ending after it (热得要死,
冻爆了), with or without 的 or a particle closing it (挺冷的, 蛮热的啊), means what 太 + the quality
means in the same room. The fail-closed companion: a degree before an unrelated word sends
nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _UNRELATED, SETTINGS, _engine

from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import DEGREE_ENDINGS, DEGREES, QUALITIES

_QUALITIES = sorted(
    {q for kind, qs in QUALITIES.items() if kind not in ("high", "low") for q in qs} - {"大声"}
)
_CLOSING = ("", "的", "了", "啊", "呀", "的啊", "了啊", "啦")


@st.composite
def _complaint(draw: st.DrawFn) -> str:
    quality = draw(st.sampled_from(_QUALITIES))
    if draw(st.booleans()):
        said = draw(st.sampled_from(DEGREES)) + quality
    else:
        said = quality + draw(st.sampled_from(DEGREE_ENDINGS))
    return said + draw(st.sampled_from(_CLOSING))


def _turn(index: int, text: str, room: str) -> tuple[str, list[dict[str, object]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "degrees", area=room)
    return result.outcome, result.commands


@settings(SETTINGS, max_examples=500)
@given(st.integers(0, len(_HOMES) - 1), _complaint(), st.integers(0, 99))
def test_any_degree_and_quality_is_that_complaint(index: int, said: str, pick: int) -> None:
    home = _engine(index).home
    room = home.rooms[pick % len(home.rooms)].id
    quality = next(q for q in sorted(_QUALITIES, key=len, reverse=True) if q in said)
    assert _turn(index, said, room) == _turn(index, "太" + quality, room), said


@settings(SETTINGS, max_examples=200)
@given(st.integers(0, len(_HOMES) - 1), st.sampled_from(DEGREES), st.sampled_from(_UNRELATED))
def test_a_degree_before_an_unrelated_word_sends_nothing(
    index: int, degree: str, word: str
) -> None:
    home = _engine(index).home
    assert _turn(index, degree + word, home.rooms[0].id)[1] == [], degree + word
