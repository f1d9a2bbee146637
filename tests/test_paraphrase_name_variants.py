"""A device's name said with another word for the same thing (客厅的电灯 for 客厅灯, 阳台雨棚 for
阳台遮阳棚: `vocab.NAME_SYNONYMS`) means what the name does: composed on generated homes, the
variant, with or without 的 and with any on/off verb, gives the turn the name gives."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _ORDER_OFF, _ORDER_ON, SETTINGS, _engine, _switched_devices

from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import NAME_SYNONYMS


@st.composite
def _variant(draw: st.DrawFn) -> tuple[int, str, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    switched = _switched_devices(home)
    varied = [
        (d, room, bare) for d, room, bare in switched if any(u in bare for u, _ in NAME_SYNONYMS)
    ]
    assume(varied)
    _device, room, bare = draw(st.sampled_from(varied))
    usual, variant = draw(st.sampled_from([(u, v) for u, v in NAME_SYNONYMS if u in bare]))
    verb = draw(st.sampled_from([*_ORDER_ON, *_ORDER_OFF]))
    link = draw(st.sampled_from(("", "的")))
    said = verb + room + link + bare
    return index, said, verb + room + link + bare.replace(usual, variant, 1)


def _turn(index: int, text: str) -> tuple[str, list[dict[str, object]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "variants")
    return result.outcome, result.commands


@settings(SETTINGS, max_examples=300)
@given(_variant())
def test_a_name_said_with_another_word_for_it_is_the_name(case: tuple[int, str, str]) -> None:
    index, named, varied = case
    assert _turn(index, varied) == _turn(index, named), (named, varied)
