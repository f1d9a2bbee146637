"""Unit tests of the compiler stages: numbers, normalisation, segmentation, parse, IR."""

from __future__ import annotations

import pytest

from jiayu.compiler import CONFIDENCE_THRESHOLD, compile_text
from jiayu.compiler.numbers import chinese_integer, scan_number
from jiayu.engine import Engine
from jiayu.ir import NoParse, Parse
from jiayu.text import normalize


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("二十六", 26),
        ("两", 2),
        ("十", 10),
        ("十五", 15),
        ("一百", 100),
        ("四千五", 4500),
        ("四千五百", 4500),
        ("三十", 30),
        ("一二", 12),
        ("零", 0),
        ("一万", 10000),
    ],
)
def test_chinese_numerals_read_as_integers(numeral: str, value: int) -> None:
    assert chinese_integer(numeral) == value


@pytest.mark.parametrize(
    ("text", "end", "value"),
    [("26度", 2, 26.0), ("26.5度", 4, 26.5), ("二十六点五度", 5, 26.5), ("4500k", 4, 4500.0)],
)
def test_numbers_are_scanned_to_their_end(text: str, end: int, value: float) -> None:
    assert scan_number(text, 0) == (end, value)


def test_malformed_numerals_are_not_numbers() -> None:
    assert chinese_integer("十十") is None
    assert scan_number("灯", 0) is None


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("把客廳燈關了", "把客厅灯关了"),
        ("调到２６度", "调到26度"),
        ("打开 客厅 灯", "打开客厅灯"),
        ("开灯\x00\x07", "开灯"),
        ("开灯😀", "开灯"),
        ("ＨＥＹ", "hey"),
        ("26°C", "26度"),
    ],
)
def test_normalisation_gives_one_form_per_character(raw: str, norm: str) -> None:
    assert normalize(raw) == norm


def _parse(engine: Engine, text: str) -> Parse:
    compiled = compile_text(text, engine.lexicon)
    assert isinstance(compiled, Parse), compiled
    return compiled


def _kinds(engine: Engine, text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.said) for t in _parse(engine, text).tokens if t.kind != "FILLER"]


def test_segmentation_minimises_unknown_characters_not_greedy(engine: Engine) -> None:
    # Greedy longest match takes 关小 and strands 白; 关 + 大白 leaves nothing unknown.
    assert _kinds(engine, "关大白") == [("OFF", "关"), ("NAME", "大白")]


def test_a_device_name_is_one_token(engine: Engine) -> None:
    assert _kinds(engine, "打开客厅灯") == [("ON", "打开"), ("NAME", "客厅灯")]


def test_a_pinyin_slip_on_a_device_word_is_corrected_with_lower_confidence(
    engine: Engine,
) -> None:
    parsed = _parse(engine, "客厅等打开")
    slip = next(t for t in parsed.tokens if t.said.endswith("等"))
    assert (slip.text, slip.match) == ("客厅灯", "pinyin")
    assert CONFIDENCE_THRESHOLD < parsed.confidence < 1.0


def test_a_two_syllable_slip_on_a_room_is_corrected(engine: Engine) -> None:
    tokens = _parse(engine, "卧式的灯关掉").tokens
    assert (tokens[0].kind, tokens[0].value, tokens[0].match) == ("ROOM", "bedroom", "pinyin")


def test_a_single_syllable_slip_is_not_believed_outside_device_words(engine: Engine) -> None:
    # 凯 (kai) sounds like 开 but a verb is not a device word: no correction.
    compiled = compile_text("凯客厅灯", engine.lexicon)
    tokens = compiled.tokens
    assert all(not (t.said == "凯" and t.match == "pinyin") for t in tokens)


def test_exact_words_never_trigger_pinyin_matching(engine: Engine) -> None:
    assert all(t.match == "exact" for t in _parse(engine, "把卧室的灯打开").tokens)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("😀😀", "empty"),
        ("请谢谢", "no_words"),
        ("打开关闭客厅灯", "unexpected_word"),
        ("如果客厅温度超过", "incomplete"),
    ],
)
def test_failures_are_values_with_a_named_reason(engine: Engine, text: str, reason: str) -> None:
    compiled = compile_text(text, engine.lexicon)
    assert isinstance(compiled, NoParse)
    assert compiled.reason == reason
    assert 0 <= compiled.position <= len(compiled.text)


def test_an_unexpected_word_failure_names_the_word_and_its_position(engine: Engine) -> None:
    compiled = compile_text("打开客厅灯度", engine.lexicon)
    assert isinstance(compiled, NoParse)
    assert compiled.detail.startswith("did not expect")
    assert compiled.text[compiled.position :] == "度"


def test_exclusion_compiles_to_an_exact_excluded_place(engine: Engine) -> None:
    clause = _parse(engine, "打开除卧室以外所有的灯").clauses[0]
    assert clause.action == "on"
    assert clause.target is not None
    assert clause.target.quantifier == "all"
    assert clause.target.device_type == "Light"
    assert [p.id for e in clause.target.exclude for p in e.places] == ["bedroom"]


def test_postfix_exclusion_takes_the_place_just_said(engine: Engine) -> None:
    target = _parse(engine, "所有的灯卧室除外都打开").clauses[0].target
    assert target is not None
    assert [p.id for e in target.exclude for p in e.places] == ["bedroom"]
    assert target.places == ()


def test_places_joined_by_and_share_the_noun(engine: Engine) -> None:
    target = _parse(engine, "客厅和卧室的灯都关掉").clauses[0].target
    assert target is not None
    assert [p.id for p in target.places] == ["living", "bedroom"]
    assert target.type_word == "灯"


def test_two_named_targets_become_two_clauses(engine: Engine) -> None:
    clauses = _parse(engine, "打开客厅灯和电视").clauses
    assert [c.action for c in clauses] == ["on", "on"]


def test_a_condition_takes_its_attribute_from_the_unit(engine: Engine) -> None:
    condition = _parse(engine, "要是卧室低于百分之四十就打开加湿器").clauses[0].condition
    assert condition is not None
    assert (condition.attribute, condition.op, condition.number) == ("humidity", "<", 40.0)


@pytest.mark.parametrize(
    ("text", "number", "unit"),
    [
        ("空调调到二十六度半", 26.5, "°C"),
        ("空调调到26.5度", 26.5, "°C"),
        ("亮度调到百分之三十", 30.0, "%"),
        ("窗帘开一半", 50.0, "%"),
        ("色温调到4500k", 4500.0, "K"),
    ],
)
def test_absolute_values_keep_number_and_unit(
    engine: Engine, text: str, number: float, unit: str
) -> None:
    value = _parse(engine, text).clauses[-1].value
    assert value is not None
    assert (value.kind, value.number, value.unit) == ("absolute", number, unit)


def test_a_relative_change_with_an_amount_keeps_the_amount(engine: Engine) -> None:
    value = _parse(engine, "把空调温度调低两度").clauses[0].value
    assert value is not None
    assert (value.kind, value.attribute, value.number, value.direction) == (
        "relative",
        "target_temperature",
        2.0,
        -1,
    )


def test_a_clause_without_target_carries_none_for_the_resolver(engine: Engine) -> None:
    clauses = _parse(engine, "书房空调调到26度，风速调大").clauses
    assert clauses[0].target is not None
    assert clauses[1].target is None


def test_a_scene_alias_alone_runs_the_scene(engine: Engine) -> None:
    clause = _parse(engine, "我回来了").clauses[0]
    assert (clause.action, clause.scene) == ("scene", "scene_home")


def test_a_lexicon_is_built_from_the_home_not_the_grammar(demo_engine: Engine) -> None:
    # Home names are lexicon entries; the grammar text never mentions them.
    from jiayu.compiler.parse import GRAMMAR_TEXT

    assert "大白" in demo_engine.lexicon.entries
    assert "大白" not in GRAMMAR_TEXT
