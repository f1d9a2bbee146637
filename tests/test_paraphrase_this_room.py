"""Every word for the room one is in (这里, 这屋, 屋里, 房间里, 呢度 …) is the speaker's room: said
before a device of a generated home, it means what the room's own name would, in the room
the hub says the speaker is; with no room known it is asked, and nothing is sent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _ORDER_OFF, _ORDER_ON, SETTINGS, _engine, _switched_devices

from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import TABLES

_HERE = sorted(TABLES["THIS_ROOM"])
_LINKS = ("的", "")


@st.composite
def _here(draw: st.DrawFn) -> tuple[int, str, str, str]:
    """(home, room id, said with a word for here, said with the room's name)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    verb = draw(st.sampled_from([*_ORDER_ON, *_ORDER_OFF]))
    link = draw(st.sampled_from(_LINKS))
    here = draw(st.sampled_from(_HERE))
    return index, device.room, "把" + here + link + bare + verb, "把" + room + link + bare + verb


def _turn(index: int, text: str, area: str | None) -> tuple[str, list[dict[str, object]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "here", area=area)
    return result.outcome, result.commands


@settings(SETTINGS, max_examples=400)
@given(_here())
def test_a_word_for_here_is_the_speakers_room(case: tuple[int, str, str, str]) -> None:
    index, room, here, named = case
    assert _turn(index, here, room) == _turn(index, named, room), (here, room)


@settings(SETTINGS, max_examples=200)
@given(_here())
def test_with_no_room_known_a_word_for_here_sends_nothing(case: tuple[int, str, str, str]) -> None:
    index, _room, here, _named = case
    assert _turn(index, here, None)[1] == [], here
