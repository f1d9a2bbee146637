"""A complaint said of a device by its name (客厅灯太亮了, 卧室空调有点冷, 电视太吵了) is a step
back from what that device does too much of: the same turn as the change that says so (把客厅灯
调暗一点, 把卧室空调调暖一点). Composed on generated homes from every degree and ending of the
qualities; the companion puts an unrelated word where the name was, and nothing is sent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _UNRELATED, SETTINGS, _devices, _engine

from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import DEGREE_ENDINGS, DEGREES, QUALITIES

# What each complaint asks of the device, as the change that says it, and the devices that do.
_MEANT = {
    "bright": ("调暗", lambda d: d.type == "Light" and "brightness" in d.capabilities),
    "dark": ("调亮", lambda d: d.type == "Light" and "brightness" in d.capabilities),
    "hot": ("调冷", lambda d: d.type == "AirConditioner"),
    "cold": ("调暖", lambda d: d.type == "AirConditioner"),
}


@st.composite
def _complaint(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    kind = draw(st.sampled_from(sorted(_MEANT)))
    change, fits = _MEANT[kind]
    devices = _devices(_engine(index).home, fits)
    _device, room, bare = draw(st.sampled_from(devices))
    quality = draw(st.sampled_from(QUALITIES[kind]))
    if draw(st.booleans()):
        said = draw(st.sampled_from(DEGREES)) + quality
    else:
        said = quality + draw(st.sampled_from(DEGREE_ENDINGS))
    name = draw(st.sampled_from(_UNRELATED)) if unrelated else room + bare
    return (
        index,
        name + said + draw(st.sampled_from(("", "了", "的"))),
        "把" + room + bare + change + "一点",
    )


def _turn(index: int, text: str) -> tuple[str, list[dict[str, object]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home)).turn(text, "device-complaints")
    return result.outcome, result.commands


@settings(SETTINGS, max_examples=400)
@given(_complaint())
def test_a_complaint_about_a_named_device_steps_it_back(case: tuple[int, str, str]) -> None:
    index, said, change = case
    assert _turn(index, said) == _turn(index, change), (said, change)


@settings(SETTINGS, max_examples=200)
@given(_complaint(unrelated=True))
def test_a_complaint_about_an_unrelated_word_sends_nothing(case: tuple[int, str, str]) -> None:
    index, said, _change = case
    assert _turn(index, said)[1] == [], said
