"""Clauses heard without a pause (speech recognisers often give no punctuation): a command
said target first (客厅灯关掉) runs on into the next one said target first too (电视打开), with
no separator, on generated homes: both are sent, in order. The fail-closed companion: when the
run-on clause starts with an unrelated word, nothing at all is sent, the first clause either."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMES,
    _ORDER_OFF,
    _ORDER_ON,
    _UNRELATED,
    SETTINGS,
    _engine,
    _switched_devices,
)

from jiayu.executor.hubs import SimulatedHub

_LINKED = ("", "也")  # 电视也关掉: said inside the second clause


@st.composite
def _run_on(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, list[tuple[str, str]]]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    switched = _switched_devices(home)
    first, second = draw(st.lists(st.sampled_from(switched), min_size=2, max_size=2, unique=True))
    assume(first[0].id != second[0].id)
    meant, said = [], []
    for (device, room, bare), link in ((first, ""), (second, draw(st.sampled_from(_LINKED)))):
        on = draw(st.booleans())
        verb = draw(st.sampled_from(_ORDER_ON if on else _ORDER_OFF))
        said.append(room + bare + link + verb)
        meant.append((device.id, "turn_on" if on else "turn_off"))
    if unrelated:
        noise = draw(st.sampled_from(_UNRELATED))
        device, room, bare = second
        said[1] = said[1].replace(room + bare, noise, 1)
    return index, "".join(said), meant


def _sent(index: int, text: str) -> tuple[str, list[tuple[str, str]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "run-on")
    return result.outcome, [(c["device"], c["command"]) for c in result.commands]


@settings(SETTINGS, max_examples=400)
@given(_run_on())
def test_two_target_first_clauses_without_a_pause_are_both_sent(
    case: tuple[int, str, list[tuple[str, str]]],
) -> None:
    index, text, meant = case
    assert _sent(index, text) == ("executed", meant), text


@settings(SETTINGS, max_examples=300)
@given(_run_on(unrelated=True))
def test_a_run_on_clause_starting_with_an_unrelated_word_sends_nothing(
    case: tuple[int, str, list[tuple[str, str]]],
) -> None:
    index, text, _meant = case
    assert _sent(index, text)[1] == [], text
