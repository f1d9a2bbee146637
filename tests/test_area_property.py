"""Properties of the speaker's room: 这里 never acts outside it, whatever is said around it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.engine import Engine
from jiayu.home import Home

_VERBS = ("打开", "关掉", "关闭", "把{t}打开", "把{t}关了", "{t}调亮一点", "{t}调到50")
_NOUNS = ("灯", "空调", "窗帘", "插座", "电视", "音箱", "风扇", "所有设备", "所有的灯", "灯和空调")
_HERE = ("这里", "这儿", "这里的", "这儿的")
_FILLERS = ("", "帮我", "请", "麻烦")


def _sentence(verb: str, here: str, noun: str, filler: str) -> str:
    target = here + noun
    return filler + (verb.format(t=target) if "{t}" in verb else verb + target)


@settings(max_examples=150, deadline=None)
@given(
    st.data(),
    st.sampled_from(_VERBS),
    st.sampled_from(_HERE),
    st.sampled_from(_NOUNS),
    st.sampled_from(_FILLERS),
)
def test_here_never_acts_outside_the_speakers_room(
    demo_engine: Engine, data: st.DataObject, verb: str, here: str, noun: str, filler: str
) -> None:
    home: Home = demo_engine.home
    area = data.draw(st.sampled_from([r.id for r in home.rooms]))
    engine = demo_engine.fresh()
    text = _sentence(verb, here, noun, filler)
    result = engine.turn(text, area=area)
    for command in (*result.commands, *result.pending):
        assert home.device(command["device"]).room == area, (text, area, command)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(_VERBS), st.sampled_from(_NOUNS))
def test_here_without_a_known_area_never_guesses_a_room_it_was_not_told(
    demo_engine: Engine, data: st.DataObject, verb: str, noun: str
) -> None:
    # No area and no room said before: 这里 must ask, never act.
    engine = demo_engine.fresh()
    result = engine.turn(_sentence(verb, "这里", noun, ""))
    assert result.commands == []
