"""The paraphrase space of regional and everyday registers: forms composed from the classes
the morphology adds for them, with the meaning known by construction, on generated homes; each
with a fail-closed companion (one slot given an unrelated or a wrong word sends nothing).

- Requests for someone (帮奶奶, 给宝宝, 替爸爸) and requests passed on (妈妈说), and the
  regional requests and particles (劳烦, 烦请, 耶, 仲, the 儿 after a noun) change nothing
  around a command; a request for someone said before 的 names whose the thing is, and is
  looked for as a name, never dropped.
- A condition on a device's own state said with an on-verb of being (开着, 开起, 亮起, 打开着)
  after 如果/要是, or before 的话, tests that state: the command runs when it holds and nothing
  is sent when it does not.
- Tens said as one character (廿四, 卅) are numbers; followed by more than a digit, they are not.
- A person feeling hot or cold (我好热, 我有点冷, 我冻死了) is the complaint itself; 我 before a
  quality no one feels (我太暗) is not understood.
- A state no verb orders (亮) said with an asking word (亮了吗, 亮了没有, 亮没得) asks it.
- A verb of looking said first (看看, 帮我查一下) before a question that asks itself (关了没有,
  开起没得) asks it, and a request around it never makes it a command.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMES,
    _LINKS,
    _OFF,
    _UNRELATED,
    SETTINGS,
    _devices,
    _engine,
    _said,
    _switch,
    _switched_devices,
    _target,
)

from jiayu.compiler.numbers import chinese_integer, scan_number
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import (
    DIGITS,
    FEELERS,
    FELT,
    HELPED_FOR,
    PASSED_ON,
    QUALITIES,
    TABLES,
    TENS,
)

# --- requests for someone, regional requests and particles ----------------------------

_AROUND = (*HELPED_FOR, *PASSED_ON, "劳烦", "烦请", "劳烦您", "您看", "你看")
_AFTER = ("", "耶", "喔耶")


@settings(SETTINGS, max_examples=800)
@given(_switch(), st.sampled_from(_AROUND), st.sampled_from(_AFTER))
def test_a_request_for_someone_changes_nothing_around_a_command(
    case: tuple[int, str, tuple[str, str]], request: str, particle: str
) -> None:
    index, text, (device, command) = case
    said = request + text + particle
    outcome, sent = _said(_engine(index), said)
    assert (outcome, sent) == ("executed", [(device, command, {})]), said


@st.composite
def _possessed(draw: st.DrawFn) -> tuple[int, str]:
    """把 + a request for someone + 的 + a type word + a switching verb: someone's things."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    helped = draw(st.sampled_from(HELPED_FOR))
    kind = draw(st.sampled_from(("灯", "设备", "空调", "插座", "电视")))
    verb = draw(st.sampled_from(_OFF))
    order = draw(st.sampled_from(("ba", "target first")))
    target = helped + "的" + kind
    return index, ("把" + target + verb if order == "ba" else target + "都" + verb)


@settings(SETTINGS, max_examples=300)
@given(_possessed())
def test_a_request_for_someone_before_de_is_whose_and_sends_nothing(case: tuple[int, str]) -> None:
    index, text = case
    outcome, sent = _said(_engine(index), text)
    assert sent == [], (text, outcome)


# --- conditions on a device's own state -------------------------------------------------

_BEING_ON = ("开着", "开起", "亮着", "亮起", "打开着", "还开着", "还亮起")
_IFS = ("如果", "要是", "假如")


@st.composite
def _conditioned(
    draw: st.DrawFn, *, unrelated: bool = False
) -> tuple[int, str, dict[str, Any], str, bool]:
    """如果<target><being on>(的话)就<off verb>: (home, text, state, device, whether it is on)."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    on = draw(st.booleans())
    being = draw(st.sampled_from(_BEING_ON))
    if unrelated:
        being = draw(st.sampled_from(_UNRELATED))
    target = _target(room, draw(st.sampled_from(_LINKS)), device, bare)
    verb = draw(st.sampled_from(_OFF))
    frame = draw(st.sampled_from(("if", "if dehua", "dehua")))
    opener = draw(st.sampled_from(_IFS)) if frame != "dehua" else ""
    dehua = "的话" if frame != "if" else ""
    then = draw(st.sampled_from(("就", "就把它", "请", ""))) if dehua else "就"
    then = "就" if then == "就把它" else then  # 它 in the same sentence: not this property's
    text = opener + target + being + dehua + then + verb
    return index, text, {device.id: {"on": on}}, device.id, on


def _said_in(index: int, text: str, state: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, state)).turn(text, "registers")
    return result.outcome, [(c["device"], c["command"]) for c in result.commands]


@settings(SETTINGS, max_examples=800)
@given(_conditioned())
def test_a_condition_on_a_device_being_on_tests_its_state(
    case: tuple[int, str, dict[str, Any], str, bool],
) -> None:
    index, text, state, device, on = case
    outcome, sent = _said_in(index, text, state)
    if on:
        assert (outcome, sent) == ("executed", [(device, "turn_off")]), text
    else:
        assert (outcome, sent) == ("noop", []), text


@settings(SETTINGS, max_examples=300)
@given(_conditioned(unrelated=True))
def test_a_condition_with_an_unrelated_word_for_its_state_sends_nothing(
    case: tuple[int, str, dict[str, Any], str, bool],
) -> None:
    index, text, state, _device, _on = case
    _outcome, sent = _said_in(index, text, state)
    assert sent == [], text


# --- tens said as one character ---------------------------------------------------------

_ONES = [d for d in DIGITS if DIGITS[d] > 0 and d not in "两俩"]


@settings(SETTINGS, max_examples=200)
@given(st.sampled_from(sorted(TENS)), st.sampled_from(["", *_ONES]))
def test_tens_said_as_one_character_are_numbers(tens: str, ones: str) -> None:
    said = tens + ones
    assert chinese_integer(said) == TENS[tens] + (DIGITS[ones] if ones else 0)
    assert scan_number(said + "度", 0) == (len(said), float(TENS[tens] + DIGITS.get(ones, 0)))


@settings(SETTINGS, max_examples=200)
@given(st.sampled_from(sorted(TENS)), st.sampled_from(_ONES), st.sampled_from(["十", "百", *_ONES]))
def test_tens_with_more_than_a_digit_after_them_are_no_number(
    tens: str, ones: str, more: str
) -> None:
    assert chinese_integer(tens + ones + more) is None


# --- a person feeling hot or cold -------------------------------------------------------

_FELT = sorted(
    w
    for w, k in derived()["COMPLAINT"].items()
    if k in FELT and w in TABLES["COMPLAINT"] and not w.startswith(FEELERS)
)
_UNFELT = sorted(
    w
    for w, k in derived()["COMPLAINT"].items()
    if k in ("dark", "bright", "loud") and w in TABLES["COMPLAINT"]
)


@settings(SETTINGS, max_examples=300)
@given(st.integers(0, len(_HOMES) - 1), st.sampled_from(FEELERS), st.sampled_from(_FELT))
def test_a_person_feeling_it_is_the_complaint(index: int, feeler: str, word: str) -> None:
    home = _engine(index).home
    for room in home.rooms[:3]:
        alone = _engine(index).fresh(hub=SimulatedHub(home, {})).turn(word, "r", area=room.id)
        felt = (
            _engine(index).fresh(hub=SimulatedHub(home, {})).turn(feeler + word, "r", area=room.id)
        )
        assert (felt.outcome, felt.commands) == (alone.outcome, alone.commands), feeler + word


@settings(SETTINGS, max_examples=200)
@given(st.integers(0, len(_HOMES) - 1), st.sampled_from(FEELERS), st.sampled_from(_UNFELT))
def test_a_person_said_before_a_quality_no_one_feels_sends_nothing(
    index: int, feeler: str, word: str
) -> None:
    home = _engine(index).home
    result = (
        _engine(index)
        .fresh(hub=SimulatedHub(home, {}))
        .turn(feeler + word, "r", area=home.rooms[0].id)
    )
    assert result.commands == [], feeler + word


def _answered_about(index: int, text: str, device: str) -> None:
    """The text is answered about the device, and nothing is sent."""
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "registers")
    assert result.commands == [], text
    assert result.outcome == "answered", (text, result.outcome, result.reply)
    assert [a["device"] for a in result.answers] == [device], text


# --- a verb of looking before a question that asks itself -------------------------------

_LOOKING = ("看看", "查一下", "帮我看看", "帮我查一下", "您帮我看看", "麻烦看看")
_ASKED_AFTER = {
    "on": ("开了没有", "开起没得", "开了没", "打开了没有"),
    "off": ("关了没有", "关了没得", "关了没"),
}


@st.composite
def _looked(draw: st.DrawFn, *, wrong: bool = False) -> tuple[int, str, str, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    way = draw(st.sampled_from(sorted(_ASKED_AFTER)))
    asked = draw(st.sampled_from(_ASKED_AFTER[way]))
    if wrong:  # a 吗 after the verb: a request around it cannot be told from an order
        asked = asked.removesuffix("没有").removesuffix("没得").removesuffix("没") + "吗"
    target = _target(room, draw(st.sampled_from(_LINKS)), device, bare)
    return index, draw(st.sampled_from(_LOOKING)) + target + asked, device.id, way


@settings(SETTINGS, max_examples=400)
@given(_looked())
def test_looking_before_a_question_asks_it_and_sends_nothing(
    case: tuple[int, str, str, str],
) -> None:
    index, text, device, _way = case
    _answered_about(index, text, device)


@settings(SETTINGS, max_examples=200)
@given(_looked(wrong=True))
def test_looking_with_a_request_and_a_final_ma_never_acts(case: tuple[int, str, str, str]) -> None:
    index, text, _device, _way = case
    _outcome, sent = _said(_engine(index), text)
    assert sent == [], text


# --- a complaint said as wonder (这么冷, 咋这么黑) ---------------------------------------

_WONDER = ("这么", "咋这么", "怎么这么")
_QUALITIES = sorted(
    {q for kind, qs in QUALITIES.items() if kind not in ("high", "low") for q in qs} - {"大声"}
)


@settings(SETTINGS, max_examples=300)
@given(
    st.integers(0, len(_HOMES) - 1),
    st.sampled_from(_WONDER),
    st.sampled_from(_QUALITIES),
    st.sampled_from(("", "啊", "呢", "了")),
)
def test_a_complaint_said_as_wonder_is_the_complaint(
    index: int, wonder: str, quality: str, particle: str
) -> None:
    home = _engine(index).home
    room = home.rooms[index % len(home.rooms)].id
    plain = _engine(index).fresh(hub=SimulatedHub(home, {})).turn("太" + quality, "r", area=room)
    said = wonder + quality + particle
    wondered = _engine(index).fresh(hub=SimulatedHub(home, {})).turn(said, "r", area=room)
    assert (wondered.outcome, wondered.commands) == (plain.outcome, plain.commands), said


@settings(SETTINGS, max_examples=200)
@given(
    st.integers(0, len(_HOMES) - 1),
    st.sampled_from(_WONDER),
    st.sampled_from(_UNRELATED),
)
def test_wonder_before_an_unrelated_word_sends_nothing(index: int, wonder: str, word: str) -> None:
    home = _engine(index).home
    result = _engine(index).fresh(hub=SimulatedHub(home, {})).turn(wonder + word, "r")
    assert result.commands == [], wonder + word


# --- a state no verb orders, asked ------------------------------------------------------

# Of a light: whether it is on (锁没锁 asks what a lock is).
_STATIVE = sorted(w for w, (attribute, _) in derived()["QSTATE"].items() if attribute == "on")


@st.composite
def _stative(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_devices(home, lambda d: d.type == "Light")))
    asked = draw(st.sampled_from(_STATIVE))
    if unrelated:
        asked = draw(st.sampled_from(_UNRELATED)) + asked[1:]
    target = _target(room, draw(st.sampled_from(_LINKS)), device, bare)
    return index, target + asked, device.id


@settings(SETTINGS, max_examples=300)
@given(_stative())
def test_a_state_no_verb_orders_asked_is_answered(case: tuple[int, str, str]) -> None:
    index, text, device = case
    _answered_about(index, text, device)


@settings(SETTINGS, max_examples=200)
@given(_stative(unrelated=True))
def test_an_unrelated_word_asked_so_sends_nothing(case: tuple[int, str, str]) -> None:
    index, text, _device = case
    _outcome, sent = _said(_engine(index), text)
    assert sent == [], text
