"""A state asked as a choice (电视开着还是关着, 窗帘是开的还是关的) is asked, and answered as the
question of either state is; two commands joined by 还是 (开灯还是关灯) ask which, so neither
is done. Composed on generated homes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _OFF, _ON, SETTINGS, _engine, _switched_devices

from jiayu.executor.hubs import SimulatedHub
from jiayu.result import Result

_CHOICES = (
    ("开着", "关着"),
    ("关着", "开着"),
    ("开的", "关的"),
    ("是开的", "关的"),
    ("开着", "关着的"),
)


@st.composite
def _device(draw: st.DrawFn) -> tuple[int, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    _d, room, bare = draw(st.sampled_from(_switched_devices(home)))
    return index, room + bare


def _turn(index: int, text: str) -> Result:
    engine = _engine(index)
    return engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "choices")


@settings(SETTINGS, max_examples=300)
@given(_device(), st.sampled_from(_CHOICES))
def test_a_state_asked_as_a_choice_is_answered(
    case: tuple[int, str], choice: tuple[str, str]
) -> None:
    index, device = case
    said = device + choice[0] + "还是" + choice[1]
    chosen = _turn(index, said)
    asked = _turn(index, device + "开着吗")
    assert (chosen.outcome, chosen.commands) == ("answered", []), said
    assert chosen.answers == asked.answers, said


@st.composite
def _two_commands(draw: st.DrawFn) -> tuple[int, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    devices = _switched_devices(home)
    (_a, room_a, bare_a), (_b, room_b, bare_b) = (draw(st.sampled_from(devices)) for _ in "ab")
    first = draw(st.sampled_from(_ON)) + room_a + bare_a
    return index, first + "还是" + draw(st.sampled_from(_OFF)) + room_b + bare_b


@settings(SETTINGS, max_examples=300)
@given(_two_commands())
def test_two_commands_joined_by_haishi_send_nothing(case: tuple[int, str]) -> None:
    index, said = case
    assert _turn(index, said).commands == [], said
