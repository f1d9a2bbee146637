"""What a clause means on each set of capabilities (its command and the attribute it sets or
reads) is remembered across turns, keyed by `ability_key`, and shared by the resolver (which
devices can do it) and the planner (what each is sent): the key must hold everything
`_meaning` and its helpers read of a clause. Property: over any sequence of clauses (each
with neighbours that differ in one field, so keys collide exactly where the key says a field
does not matter), the resolver's verdicts are exactly `can_do`'s, and the remembered meanings
exactly `_meaning`'s, asked afresh, on every device of the demo home."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu import actions
from jiayu.actions import can_do
from jiayu.grammar.vocab import HUES
from jiayu.home import Home
from jiayu.ir import Clause, Place, Target, Value
from jiayu.resolver.names import NameIndex
from jiayu.resolver.resolve import Resolver

# Small spaces, so that many clauses of one example share a key and differ in the rest.
ACTIONS = ("on", "off", "set", "adjust", "query", "query", "set", "pause", "stop")
ATTRIBUTES = (None, "state", "on", "temperature", "humidity", "brightness", "illuminance")
SET_ATTRIBUTES = (None, "color", "color_temp", "target_temperature")
WORDS = (None, next(iter(HUES)), "warm", "sleep")

values = st.builds(
    Value,
    kind=st.sampled_from(("absolute", "relative", "extreme")),
    attribute=st.sampled_from(SET_ATTRIBUTES),
    number=st.sampled_from((None, 20.0)),
    word=st.sampled_from(WORDS),
    unit=st.sampled_from((None, "°C", "%")),
    direction=st.integers(-1, 1),
    warmth=st.sampled_from((0, 0, 0, 1)),
)
targets = st.one_of(
    st.none(),
    st.just(Target(places=(Place("room", "living", "客厅"),))),
    st.just(Target(places=(Place("room", "living", "客厅"),), type_word="灯")),
    st.just(Target(type_word="灯", device_type="Light")),
)
clauses = st.builds(
    Clause,
    action=st.sampled_from(ACTIONS),
    target=targets,
    value=st.one_of(st.none(), values),
    attribute=st.sampled_from(ATTRIBUTES),
)


@st.composite
def neighbours(draw: st.DrawFn) -> list[Clause]:
    """A clause and clauses that differ from it in one field: each shares its key exactly
    when the key deems that field irrelevant, which is what is under test."""
    first = draw(clauses)
    said = [first]
    for _ in range(draw(st.integers(1, 6))):
        field = draw(
            st.sampled_from(("action", "target", "attribute", *Value.__dataclass_fields__))
        )
        if field in ("action", "target", "attribute"):
            other = draw(clauses)
            said.append(replace(first, **{field: getattr(other, field)}))
        else:
            value = first.value or draw(values)
            other_value = draw(values)
            said.append(
                replace(first, value=replace(value, **{field: getattr(other_value, field)}))
            )
    return said


@settings(max_examples=500, deadline=None)
@given(
    st.lists(neighbours(), min_size=1, max_size=4).map(
        lambda lists: [c for group in lists for c in group]
    )
)
def test_remembered_verdicts_are_can_do(demo_home: Home, said: list[Clause]) -> None:
    actions._MEANINGS.clear()  # a fresh memory per example
    resolver = Resolver(demo_home, NameIndex(demo_home))
    everyone = tuple(d.id for d in demo_home.devices)
    for clause in said:
        expected = tuple(d.id for d in demo_home.devices if can_do(d, clause))
        assert resolver._able(everyone, clause) == expected, clause


@settings(max_examples=300, deadline=None)
@given(
    st.lists(neighbours(), min_size=1, max_size=4).map(
        lambda lists: [c for group in lists for c in group]
    )
)
def test_remembered_meanings_are_worked_out_afresh(demo_home: Home, said: list[Clause]) -> None:
    actions._MEANINGS.clear()  # a fresh memory per example
    for clause in said:
        for device in demo_home.devices:
            remembered = actions.meaning(device, clause, actions.meanings(clause))
            assert remembered == actions._meaning(device, clause), (clause, device.id)
