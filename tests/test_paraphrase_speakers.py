"""The speaker in the registers' own words changes nothing: a greeting (你好，…), wanting it
said with any word for "I" (我要, 俺想, 人家要, 阿拉要, 我哋要), a request for any of them (给俺,
帮老子), and every negation (别, 莫, 唔好) before a composed on/off command, on generated homes: the
greeting, the wanting and the request are the command, the negation sends nothing. The
fail-closed companions: an unrelated word after the speaker's words, or a greeting alone,
sends nothing."""

from __future__ import annotations

from hypothesis import given, settings
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
from jiayu.grammar.vocab import GREETINGS, HELPED_FOR, TABLES, WANTING

_NEGATIONS = sorted(TABLES["NEG"])


@st.composite
def _command(draw: st.DrawFn) -> tuple[int, str, tuple[str, str]]:
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    on = draw(st.booleans())
    verb = draw(st.sampled_from(_ORDER_ON if on else _ORDER_OFF))
    return index, verb + room + bare, (device.id, "turn_on" if on else "turn_off")


def _said(index: int, text: str) -> tuple[str, list[tuple[str, str]]]:
    engine = _engine(index)
    result = engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "speakers")
    return result.outcome, [(c["device"], c["command"]) for c in result.commands]


@settings(SETTINGS, max_examples=400)
@given(_command(), st.sampled_from((*WANTING, *HELPED_FOR)))
def test_the_speakers_words_before_a_command_are_the_command(
    case: tuple[int, str, tuple[str, str]], said: str
) -> None:
    index, command, meant = case
    assert _said(index, said + command) == ("executed", [meant]), said + command


@settings(SETTINGS, max_examples=300)
@given(_command(), st.sampled_from(_NEGATIONS))
def test_a_negation_before_a_command_sends_nothing(
    case: tuple[int, str, tuple[str, str]], negation: str
) -> None:
    index, command, _meant = case
    assert _said(index, negation + command)[1] == [], negation + command


@settings(SETTINGS, max_examples=200)
@given(_command(), st.sampled_from(WANTING), st.sampled_from(_UNRELATED))
def test_the_speakers_words_before_an_unrelated_word_send_nothing(
    case: tuple[int, str, tuple[str, str]], said: str, word: str
) -> None:
    index, command, _meant = case
    assert _said(index, said + word + command)[1] == [], said + word + command


@settings(SETTINGS, max_examples=300)
@given(_command(), st.sampled_from(GREETINGS), st.sampled_from(("，", ",", "", "！", "。")))
def test_a_greeting_before_a_command_is_the_command(
    case: tuple[int, str, tuple[str, str]], greeting: str, pause: str
) -> None:
    index, command, meant = case
    assert _said(index, greeting + pause + command) == ("executed", [meant]), greeting + command


@settings(SETTINGS, max_examples=50)
@given(st.integers(0, len(_HOMES) - 1), st.sampled_from(GREETINGS))
def test_a_greeting_alone_sends_nothing(index: int, greeting: str) -> None:
    assert _said(index, greeting)[1] == [], greeting


_TAGS = ("好吧", "行吧", "好的", "可好", "成吗", "中不", "要得不", "行不", "好不好")


@settings(SETTINGS, max_examples=300)
@given(_command(), st.sampled_from(_TAGS), st.sampled_from(("", "，")))
def test_a_tag_after_a_command_is_the_command(
    case: tuple[int, str, tuple[str, str]], tag: str, pause: str
) -> None:
    index, command, meant = case
    assert _said(index, command + pause + tag) == ("executed", [meant]), command + tag


@settings(SETTINGS, max_examples=100)
@given(st.sampled_from(("开锁", "把门锁打开", "解锁", "把车库门打开")), st.sampled_from(_TAGS))
def test_a_tag_never_confirms_the_command_it_follows(command: str, tag: str) -> None:
    from jiayu.engine import Engine

    result = Engine.demo().turn(command + tag, "tags")
    assert result.commands == [] and result.outcome in ("confirm", "unknown"), command + tag


@settings(SETTINGS, max_examples=300)
@given(_command(), st.sampled_from(("可以", "能", "帮我", "能不能", "可不可以", "麻烦你")))
def test_a_request_ending_in_bu_is_the_command(
    case: tuple[int, str, tuple[str, str]], request: str
) -> None:
    index, command, meant = case
    said = request + command + "不"
    assert _said(index, said) == ("executed", [meant]), said
