"""A type word said with no place, in a room that has devices of that type, means the room's:
when none of them can do what is asked, that is said and nothing is sent, never another room's
that can (风扇摇头 in a bedroom whose fan cannot, while the living room's can). Composed on
generated homes: rooms, which of them hold a device of the type and which one of those can,
the command and its wrappers, the room spoken in. The companions: spoken where the one that
can is, or in a room with none of the type, that one acts; with an unrelated word, nothing
is sent."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _UNRELATED, SETTINGS, _wrap

from jiayu.engine import Engine
from jiayu.home import parse_home

_ROOMS = ("客厅", "卧室", "书房", "主卧", "次卧", "儿童房", "餐厅", "阳台")
# A type, its bare name, its type words, what every one has, the ability only some have
# (with the state it needs), and commands that need that ability.
_KINDS = (
    (
        "Fan",
        "风扇",
        ("风扇", "电扇"),
        ["onoff"],
        ("oscillation", {"oscillating": False}),
        ("风扇摇头", "让{t}摇头", "{t}开始摇头吧", "打开{t}的摇头"),
        ("oscillate_on", {}),
    ),
    (
        "Blind",
        "窗帘",
        ("窗帘",),
        ["cover"],
        ("tilt", {"tilt": 0}),
        ("{t}叶片调到一半", "把{t}的角度调到一半", "{t}的叶片调到百分之五十"),
        ("set_tilt", {"value": 50}),
    ),
)


@st.composite
def _home_and_turn(
    draw: st.DrawFn, *, where: str, unrelated: bool = False
) -> tuple[Engine, str, str, tuple[str, str, dict[str, Any]]]:
    """(engine, the room spoken in, text, the command the one that can would be sent); the
    room is one whose devices cannot ("lacking"), the one that can ("able"), or one with none
    of the type ("without")."""
    kind, bare, words, caps, (ability, ability_state), forms, (command, params) = draw(
        st.sampled_from(_KINDS)
    )
    names = draw(st.lists(st.sampled_from(_ROOMS), min_size=3, max_size=6, unique=True))
    rooms = [{"id": f"r{i}", "name": name, "aliases": []} for i, name in enumerate(names)]
    holding = draw(st.integers(2, len(rooms) - (where == "without")))  # rooms with the type
    able = draw(st.integers(0, holding - 1))
    devices = []
    for i in range(holding):
        state: dict[str, Any] = {"on": False} if "onoff" in caps else {"position": 0}
        device_caps = list(caps)
        if i == able:
            device_caps.append(ability)
            state.update(ability_state)
        devices.append(
            {
                "id": f"d{i}",
                "name": names[i] + bare,
                "room": f"r{i}",
                "type": kind,
                "capabilities": device_caps,
                "state": state,
            }
        )
    home = parse_home({"version": 1, "name": "家", "rooms": rooms, "devices": devices}, "drawn")
    if where == "able":
        room = f"r{able}"
    elif where == "without":
        room = f"r{draw(st.integers(holding, len(rooms) - 1))}"
    else:
        room = f"r{draw(st.sampled_from([i for i in range(holding) if i != able]))}"
    form = draw(st.sampled_from(forms))
    text = form.format(t=draw(st.sampled_from(words)))
    if unrelated:
        noise = draw(st.sampled_from(_UNRELATED))
        said = (noise + text, text + noise) + ((form.format(t=noise),) if "{t}" in form else ())
        text = draw(st.sampled_from(said))
    return Engine(home), room, _wrap(draw, text), (f"d{able}", command, params)


def _sent(engine: Engine, room: str, text: str) -> tuple[str, list[Any]]:
    result = engine.turn(text, "speaker-room", area=room)
    return result.outcome, [(c["device"], c["command"], c["params"]) for c in result.commands]


@settings(SETTINGS, max_examples=300)
@given(_home_and_turn(where="lacking"))
def test_in_a_room_whose_devices_cannot_nothing_is_sent_elsewhere(case: Any) -> None:
    engine, room, text, _meant = case
    assert _sent(engine, room, text) == ("rejected", []), (text, room)


@settings(SETTINGS, max_examples=200)
@given(st.one_of(_home_and_turn(where="able"), _home_and_turn(where="without")))
def test_where_the_one_that_can_is_or_in_a_room_without_the_type_it_acts(case: Any) -> None:
    engine, room, text, meant = case
    assert _sent(engine, room, text) == ("executed", [meant]), (text, room)


@settings(SETTINGS, max_examples=200)
@given(_home_and_turn(where="able", unrelated=True))
def test_with_an_unrelated_word_nothing_is_sent(case: Any) -> None:
    engine, room, text, _meant = case
    _outcome, sent = _sent(engine, room, text)
    assert sent == [], (text, room)
