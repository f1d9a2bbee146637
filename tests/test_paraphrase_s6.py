"""Forms composed from the morphology's classes on generated homes, each with its meaning
known by construction, and a companion that replaces one slot with an unrelated word and
checks that nothing is sent:

- a verb of looking (瞅瞅, 看一眼, 瞧一下 …) before a question that asks itself (关没关,
  开着没, 锁没锁) asks it: answered about the device, never an action;
- a switching verb of being said after its device with no request (书房灯开着, 書房燈開著呢)
  states a state: it is asked, never switched; with 把 it is the order to keep it on;
- a verb of doing with 停 (整停, 搞停了) is 停: the device's stop, as the contract's table
  of verbs says (a curtain stops, a player pauses);
- a question in traditional script ending in 麼 (開了麼) is a question, as 吗 is;
- a complaint that names the kind of its actuator (灯太亮了, 灯光有点刺眼) said in a room
  dims every light lit there, and asks for the room when none is known.

The generators of tests/test_paraphrase.py and tests/test_paraphrase_questions.py are used
as they are.
"""

from __future__ import annotations

from typing import Any

import opencc
from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMES,
    _ON,
    _REQUESTS,
    _UNRELATED,
    SETTINGS,
    _devices,
    _engine,
)
from test_paraphrase_questions import _answered, _switchable

from jiayu.actions import VERB_COMMANDS
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import DEGREES, DOING_VERBS, QUALITIES, STOP_RESULTS, TABLES
from jiayu.text import normalize

# The verbs of looking the morphology composes, and the questions that ask themselves
# (a verb, a negation and the verb again) by the state they ask: (attribute, value).
_LOOKS = sorted(w for w in derived()["QVERB"] if TABLES["QVERB"].get(w) == "query")
_EITHER_WAY = {
    on: sorted(
        w
        for w, v in derived()["QSTATE"].items()
        if v == ("on", on) and TABLES["QSTATE"].get(w) == v and w[0] == w[-1]
    )
    for on in (True, False)
}
_ASKED_AFTER = ("开着没", "开着没有", "关了没", "关了没有", "开了没得", "有没有关", "有没有打开")
_PARTICLES = ("", "呢", "啊", "呀")
# Switching verbs of being: a verb the morphology composes, and 着 (开着, 打开着, 整开着).
_BEING = sorted(w for w in _ON if w.endswith("着") and w[:-1] in TABLES["ON"])


@st.composite
def _looked(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """[帮我] look-verb device [的] question: (home, text, the device asked about)."""
    index, device, room, bare = draw(_switchable())
    look = draw(st.sampled_from(_LOOKS))
    asked = draw(st.sampled_from((*_EITHER_WAY[True], *_EITHER_WAY[False], *_ASKED_AFTER)))
    slot = draw(st.sampled_from(("look", "bare", "asked"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    look, bare, asked = (
        noise if slot == part else said
        for part, said in (("look", look), ("bare", bare), ("asked", asked))
    )
    helper = draw(st.sampled_from(("", "帮我", "你帮我", "给我")))
    text = helper + look + room + draw(st.sampled_from(("", "的"))) + bare + asked
    return index, text + draw(st.sampled_from(_PARTICLES)), device.id


@settings(SETTINGS, max_examples=600)
@given(_looked())
def test_a_verb_of_looking_before_a_question_asks_it(case: tuple[int, str, str]) -> None:
    index, text, device = case
    outcome, sent, answered = _answered(index, text)
    # 有没有 asks whether any is so: of 客厅的灯, every light of the room.
    meant = device in answered if "有没有" in text else answered == {device}
    assert (outcome, sent, meant) == ("answered", [], True), text


@st.composite
def _stated(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """device [的] verb-of-being [particle], in either script: (home, text, device)."""
    index, device, room, bare = draw(_switchable())
    verb = draw(st.sampled_from(_BEING))
    slot = draw(st.sampled_from(("verb", "bare", "after"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "verb":
        verb = noise
    elif slot == "bare":
        bare = noise
    text = room + draw(st.sampled_from(("", "的"))) + bare + verb
    text += draw(st.sampled_from(_PARTICLES)) + (noise if slot == "after" else "")
    if draw(st.booleans()):
        text = _traditional(text)
    return index, text, device.id


@settings(SETTINGS, max_examples=600)
@given(_stated())
def test_a_verb_of_being_said_after_its_device_is_asked_never_switched(
    case: tuple[int, str, str],
) -> None:
    index, text, device = case
    outcome, sent, answered = _answered(index, text)
    assert (outcome, sent, answered) == ("answered", [], {device}), text


@settings(SETTINGS, max_examples=300)
@given(_switchable(), st.sampled_from(_BEING), st.sampled_from(("把", "请把", "帮我把")))
def test_a_verb_of_being_after_ba_orders_it_kept_on(
    switchable: tuple[int, Any, str, str], verb: str, ba: str
) -> None:
    index, device, room, bare = switchable
    outcome, sent, _answers = _answered(index, ba + room + bare + verb)
    assert (outcome, [(c["device"], c["command"]) for c in sent]) == (
        "executed",
        [(device.id, "turn_on")],
    ), ba + room + bare + verb


def _stop_command(device: Any) -> str | None:
    """The command 停 means on the device, by the contract's table of verbs (actions.py)."""
    return next((c for cap, c in VERB_COMMANDS["stop"] if cap in device.capabilities), None)


@st.composite
def _stopped(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, tuple[str, str]]:
    """[request] 把 device verb-of-doing 停 [了]: (home, text, (device, command))."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(
        st.sampled_from(_devices(home, lambda d: _stop_command(d) is not None))
    )
    verb = draw(st.sampled_from(DOING_VERBS)) + draw(st.sampled_from(STOP_RESULTS))
    slot = draw(st.sampled_from(("verb", "bare"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "verb":
        verb = noise
    elif slot == "bare":
        bare = noise
    text = draw(st.sampled_from(_REQUESTS)) + "把" + room + bare + verb
    text += draw(st.sampled_from(("", "了", "吧")))
    command = _stop_command(device)
    assert command is not None
    return index, text, (device.id, command)


@settings(SETTINGS, max_examples=400)
@given(_stopped())
def test_a_verb_of_doing_with_ting_is_the_devices_stop(
    case: tuple[int, str, tuple[str, str]],
) -> None:
    index, text, expected = case
    outcome, sent, _answers = _answered(index, text)
    assert (outcome, [(c["device"], c["command"]) for c in sent]) == ("executed", [expected]), text


_S2TW = opencc.OpenCC("s2tw").convert


def _traditional(text: str) -> str:
    return _S2TW(text)


@st.composite
def _asked_mo(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """device [的] verb 麼 in traditional script: (home, text, device)."""
    index, device, room, bare = draw(_switchable())
    verb = draw(st.sampled_from(("开了", "开着", "关了", "关着", "关掉了")))
    slot = draw(st.sampled_from(("verb", "bare"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "verb":
        verb = noise
    elif slot == "bare":
        bare = noise
    text = room + draw(st.sampled_from(("", "的"))) + bare + verb
    return index, _traditional(text) + draw(st.sampled_from(("麼", "麽", "么"))), device.id


@settings(SETTINGS, max_examples=300)
@given(_asked_mo())
def test_a_traditional_question_ending_in_mo_is_asked(case: tuple[int, str, str]) -> None:
    index, text, device = case
    outcome, sent, answered = _answered(index, text)
    assert (outcome, sent, answered) == ("answered", [], {device}), text


_BRIGHT = sorted({degree + quality for degree in DEGREES for quality in QUALITIES["bright"]})
_LIGHT_WORDS = ("灯", "灯光", "这个灯")


@st.composite
def _glare(
    draw: st.DrawFn, *, unrelated: bool = False
) -> tuple[int, str, str, dict[str, Any], set[str]]:
    """light-word degree+bright [了] said in a room with some of its lights lit: (home, text,
    room, state, the lit dimmable lights of that room)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    dimmable = [d for d in home.devices if d.type == "Light" and "brightness" in d.capabilities]
    room = draw(st.sampled_from(sorted({d.room for d in dimmable})))
    here = [d for d in dimmable if d.room == room]
    lit = draw(st.lists(st.sampled_from(here), min_size=1, unique_by=lambda d: d.id))
    state = {d.id: {"on": d in lit, "brightness": 60} for d in here}
    subject = draw(st.sampled_from(_LIGHT_WORDS))
    quality = draw(st.sampled_from(_BRIGHT))
    slot = draw(st.sampled_from(("subject", "quality"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "subject":
        subject = noise
    elif slot == "quality":
        quality = noise
    text = subject + quality + draw(st.sampled_from(("", "了", "啦")))
    return index, text, room, state, {d.id for d in lit}


def _complained(
    index: int, text: str, area: str | None, state: dict[str, Any]
) -> tuple[str, set[tuple[str, str]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, state)).turn(text, "s6", area=area)
    return result.outcome, {(c["device"], c["command"]) for c in result.commands}


@settings(SETTINGS, max_examples=400)
@given(_glare())
def test_a_complaint_naming_the_lights_dims_every_lit_light_of_the_room(
    case: tuple[int, str, str, dict[str, Any], set[str]],
) -> None:
    index, text, room, state, lit = case
    outcome, sent = _complained(index, text, room, state)
    assert (outcome, sent) == ("executed", {(d, "set_brightness") for d in lit}), text
    # With no room known the room is asked, never guessed.
    outcome, sent = _complained(index, text, None, state)
    assert (outcome, sent) == ("clarify", set()), text


@settings(SETTINGS, max_examples=600)
@given(st.one_of(_stopped(unrelated=True), _glare(unrelated=True).map(lambda g: g[:2])))
def test_one_unrelated_word_in_a_composed_command_sends_nothing(case: tuple[int, str]) -> None:
    index, text = case[:2]
    engine = _engine(index)
    for area in (None, engine.home.rooms[0].id):
        result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "s6", area=area)
        assert result.commands == [] and result.pending == [], (text, result.outcome)


@settings(SETTINGS, max_examples=600)
@given(st.one_of(_looked(unrelated=True), _stated(unrelated=True), _asked_mo(unrelated=True)))
def test_one_unrelated_word_in_a_composed_question_answers_nothing(
    case: tuple[int, str, str],
) -> None:
    index, text, _device = case
    outcome, sent, answered = _answered(index, text)
    assert sent == [], (text, outcome)
    # A word sharing a character with a name of the home may be that name said loosely: the
    # planner decides; any other unrelated word is not understood.
    names = _engine(index).lexicon.name_chars
    said = normalize(text)
    if not any(ch in names for word in _UNRELATED if word in said for ch in word):
        assert (outcome, answered) == ("unknown", set()), text
