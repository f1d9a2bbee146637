"""Questions of state, composed from the lexicon's classes on generated homes: a device and a
state said with any copula, aspect and ending, a place said before or after, a set question
with any "whether any" before its "which" and classifier, and an on/off verb said last before
吗, are answered about the device meant and never act; the same verb with a request word (or
把) is a polite command and acts. Their companion replaces one slot with an unrelated word:
then nothing is answered and nothing is sent.

The generators of tests/test_paraphrase.py (homes, devices, requests, unrelated words) are
used as they are.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMES,
    _OFF,
    _ON,
    _REQUESTS,
    _UNRELATED,
    SETTINGS,
    _engine,
    _switched_devices,
)

from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import TABLES
from jiayu.home import Device

# The states of being on or off the lexicon keeps (a form another class lists keeps that
# class), by whether they say on.
_STATES = {
    on: sorted(
        w for w, v in derived()["STATE"].items() if TABLES["STATE"].get(w) == v == ("on", on)
    )
    for on in (True, False)
}
_TIMES = ("", "现在", "这会儿", "当前", "目前", "而家")
# What says a state is (not that it should be), Cantonese among them; 处于 and 在 may take
# 状态 after the state.
_COPULAS = ("", "是", "是不是", "是否", "处于", "在", "系", "系唔系")
_ENDINGS = ("", "吗", "呢", "的吗", "嘅", "嘅呀", "了吗", "咗", "咗吗", "呀")
_WHETHER = ("", "有", "有没有", "有无", "还有没有", "有冇", "有没有任何")
_WHICH = ("哪", "哪一", "边")
_CLASSIFIERS = ("个", "台", "盏", "只")


def _answered(index: int, text: str) -> tuple[str, list[Any], set[str]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "paraphrase")
    return result.outcome, result.commands, {a["device"] for a in result.answers}


@st.composite
def _switchable(draw: st.DrawFn) -> tuple[int, Device, str, str]:
    """A generated home and a device on it that is switched on and off, said as room + bare
    name: (home, device, room, bare name)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    return index, device, room, bare


@st.composite
def _state_question(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str | None]:
    """[time] device [的] copula state [[的]状态] [ending], or with the place said last (客厅灯
    said as 灯 … 在客厅里): (home, text, the device asked about)."""
    index, device, room, bare = draw(_switchable())
    copula = draw(st.sampled_from(_COPULAS))
    state = draw(st.sampled_from(_STATES[draw(st.booleans())]))
    frame = draw(st.sampled_from(("", "状态", "的状态"))) if copula in ("处于", "在") else ""
    # After 状态 only a particle (处于关闭的状态吗); a 的 is said once (开着的吗, not 开着的的吗).
    ending = draw(st.sampled_from(("", "吗", "呢", "呀") if frame else _ENDINGS))
    if state.endswith("的") and ending.startswith("的"):
        ending = ending[1:]
    place_last = draw(st.booleans()) and copula != ""
    slot = draw(st.sampled_from(("bare", "state", "before", "after"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "bare":
        bare = noise
    elif slot == "state":
        state = noise
    subject = bare if place_last else room + bare
    text = draw(st.sampled_from(_TIMES)) + subject + draw(st.sampled_from(("", "的")))
    text += copula + state + frame + ending
    if place_last:
        text += draw(st.sampled_from(("", "在"))) + room + draw(st.sampled_from(("", "里")))
    if slot == "before":
        text = noise + text
    elif slot == "after":
        text += noise
    return index, text, device.id


@st.composite
def _set_question(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str | None]:
    """[有/有没有/…] 哪[一]<classifier>/哪些 [place[的]] kind [copula] state: a set question."""
    index, _device, room, bare = draw(_switchable())
    which = draw(
        st.one_of(
            st.sampled_from(("哪些", "哪一些", "哪几个")),
            st.tuples(st.sampled_from(_WHICH), st.sampled_from(_CLASSIFIERS)).map("".join),
        )
    )
    place = draw(st.sampled_from(("", room, room + "的")))
    copula = draw(st.sampled_from(("", "是", "处于", "系")))
    state = draw(st.sampled_from(_STATES[draw(st.booleans())]))
    slot = draw(st.sampled_from(("bare", "state", "after"))) if unrelated else None
    noise = draw(st.sampled_from(_UNRELATED))
    if slot == "bare":
        bare = noise
    elif slot == "state":
        state = noise
    text = draw(st.sampled_from(_WHETHER)) + which + place + bare + copula + state
    if slot == "after":
        text += noise
    return index, text, None


@settings(SETTINGS, max_examples=900)
@given(_state_question())
def test_a_composed_state_question_answers_about_the_device_and_never_acts(
    case: tuple[int, str, str | None],
) -> None:
    index, text, device = case
    outcome, sent, answered = _answered(index, text)
    assert (outcome, sent, answered) == ("answered", [], {device}), text


@settings(SETTINGS, max_examples=500)
@given(_set_question())
def test_a_composed_set_question_is_answered_and_never_acts(
    case: tuple[int, str, str | None],
) -> None:
    index, text, _ = case
    outcome, sent, _answers = _answered(index, text)
    assert (outcome, sent) == ("answered", []), text


@st.composite
def _verb_asked(draw: st.DrawFn, *, requested: bool) -> tuple[int, str, tuple[str, str]]:
    """device [都] verb 吗/不: asks whether the state holds; with a request word, 一下 or 把
    it is a polite command."""
    index, device, room, bare = draw(_switchable())
    on = draw(st.booleans())
    verb = draw(st.sampled_from(_ON if on else _OFF))
    target = room + draw(st.sampled_from(("", "的"))) + bare
    if not requested:
        # 关好 + 吗 says 关 + 好吗: the request tag (a polite command), by the rule tested.
        assume(not verb.endswith("好"))
        # Known gap: 开开了吗 and 点亮着吗 are segmented 开 + 开了吗 and 点 + 亮着吗 (listed
        # questions), two words either way, and the first is left over: not understood,
        # nothing sent.
        assume(not (verb[:1] == verb[1:2] and verb[2:3] in ("了", "咗")))
        assume(not verb.endswith("着"))
        # Not 么 beside Cantonese 咗: the script's rules read a traditional text's 么 as 幺.
        asked = draw(st.sampled_from(("吗", "不") if "咗" in verb else ("吗", "么", "不")))
        if not verb.endswith("咗"):  # 关的不, 关掉的吗 (not 关咗的不: 咗的 ends a state)
            asked = draw(st.sampled_from(("", "的"))) + asked
        text = draw(st.sampled_from(_TIMES)) + target + verb + asked
    else:
        # 关咗吗 / 关着吗 ask whether it is done or so, whoever is asked: a request verb is
        # said without 咗 or 着.
        assume(not verb.endswith(("咗", "着")))
        how = draw(st.sampled_from(("request", "ba", "softened")))
        request = draw(st.sampled_from([r for r in _REQUESTS if r]))
        if how == "request":
            text = request + target + verb + "吗"
        elif how == "ba":
            text = "把" + target + verb + "吗"
        else:
            text = target + verb + draw(st.sampled_from(("一下", "一哈"))) + "吗"
    return index, text, (device.id, "turn_on" if on else "turn_off")


@settings(SETTINGS, max_examples=1000)
@given(st.booleans().flatmap(lambda asked: st.tuples(st.just(asked), _verb_asked(requested=asked))))
def test_an_on_off_verb_before_ma_asks_and_with_a_request_word_acts(
    case: tuple[bool, tuple[int, str, tuple[str, str]]],
) -> None:
    requested, (index, text, (device, command)) = case
    outcome, sent, answered = _answered(index, text)
    if requested:
        assert (outcome, [(c["device"], c["command"]) for c in sent]) == (
            "executed",
            [(device, command)],
        ), text
    else:
        assert (outcome, sent, answered) == ("answered", [], {device}), text


@settings(SETTINGS, max_examples=600)
@given(st.one_of(_state_question(unrelated=True), _set_question(unrelated=True)))
def test_a_question_with_one_unrelated_word_answers_nothing(
    case: tuple[int, str, str | None],
) -> None:
    index, text, _ = case
    outcome, sent, _answers = _answered(index, text)
    assert sent == [], (text, outcome)
    # A word sharing a character with a name of the home may be that name said loosely (飞机
    # beside 扫地机): the planner decides; any other unrelated word is not understood.
    names = _engine(index).lexicon.name_chars
    if not any(ch in names for word in _UNRELATED if word in text for ch in word):
        assert outcome != "answered", (text, outcome)
