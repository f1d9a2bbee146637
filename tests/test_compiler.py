"""Unit tests of the compiler stages: numbers, normalisation, segmentation, parse, IR."""

from __future__ import annotations

from dataclasses import replace

import pytest

from jiayu.compiler import CONFIDENCE_THRESHOLD, compile_text
from jiayu.compiler.numbers import chinese_integer, scan_number
from jiayu.engine import Engine
from jiayu.home import Home
from jiayu.ir import NoParse, Parse, Target, Timing, Value
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
        ("一三", 13),  # digit by digit
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


@pytest.mark.parametrize("numeral", ["一两", "两三", "一二", "三四", "七八", "二两"])
def test_neighbouring_digits_say_about_not_a_number(numeral: str) -> None:
    """一两度 is one or two degrees: read digit by digit it was 12 (再高个一两度 set 30 °C)."""
    assert chinese_integer(numeral) is None


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
    from jiayu.compiler.lalr import grammar_text

    assert "大白" in demo_engine.lexicon.entries
    assert "大白" not in grammar_text()


# --- whole utterances only (issue 8 item 1) ----------------------------------------------


def _excluded_rooms(target: object) -> set[str | None]:
    assert isinstance(target, Target)
    return {p.id for e in target.exclude for p in e.places}


@pytest.mark.parametrize(
    ("text", "nouns", "rooms"),
    [
        ("打开所有灯，客厅和卧室除外", ["灯"], {"living", "bedroom"}),
        ("关掉所有空调，儿童房和主卧不用关", ["空调"], {"kids", "master"}),
        ("除了书房，打开所有灯和空调", ["灯", "空调"], {"study"}),
        ("打开所有灯和空调，书房除外", ["灯", "空调"], {"study"}),
        ("打开除书房外的灯和空调", ["灯", "空调"], {"study"}),
        ("所有空调和风扇都关掉，卧室的不用关", ["空调", "风扇"], {"bedroom"}),
        ("二楼除了儿童房的灯都关掉", ["灯"], {"kids"}),
        ("灯全部关掉，卧室不用关", ["灯"], {"bedroom"}),
    ],
)
def test_an_exclusion_applies_to_every_noun_of_the_phrase_it_limits(
    engine: Engine, text: str, nouns: list[str], rooms: set[str]
) -> None:
    clauses = _parse(engine, text).clauses
    assert [c.target.type_word for c in clauses if c.target] == nouns
    for clause in clauses:
        assert _excluded_rooms(clause.target) == rooms


def test_an_exclusion_by_name_said_after_the_clause_attaches_to_it(engine: Engine) -> None:
    (clause,) = _parse(engine, "把插座都关了，烧水壶和电饭煲除外").clauses
    assert clause.target is not None
    assert [e.name.text for e in clause.target.exclude if e.name] == ["烧水壶", "电饭煲"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("打开所有灯，客厅", "unexpected_word"),  # a target alone after a command
        ("书房除外", "unattached"),  # an exclusion with nothing to take it from
        # A word that names nothing: 东西 may begin a clause run on without a pause (灯关掉
        # 电视打开), which then never says what to do.
        ("打开所有的灯和那个蓝色的东西", "incomplete"),
        ("打开所有的灯和那个蓝色的东西关掉", "unexpected_word"),
        ("打开客厅灯，然后给我讲个笑话", "unexpected_word"),
        ("天气怎么样", "not_home"),
        ("今天星期几", "not_home"),
        ("几点了", "not_home"),
        ("你好", "not_home"),
    ],
)
def test_what_cannot_be_attached_is_a_no_parse_never_a_clause(
    engine: Engine, text: str, reason: str
) -> None:
    compiled = compile_text(text, engine.lexicon)
    assert isinstance(compiled, NoParse), compiled
    assert compiled.reason == reason


def test_a_stray_target_names_where_it_was_said(engine: Engine) -> None:
    compiled = compile_text("打开所有灯，客厅", engine.lexicon)
    assert isinstance(compiled, NoParse)
    assert compiled.text[compiled.position :] == "客厅"


def test_an_unknown_word_in_target_position_that_shares_a_name_character_is_a_name(
    engine: Engine,
) -> None:
    # 老伙计 is a device: 老伙伴 might be it said loosely, so the resolver decides.
    clause = _parse(engine, "把老伙伴关掉").clauses[0]
    assert clause.target is not None and clause.target.name is not None
    assert clause.target.name.match == "unknown"


def test_a_clarify_answer_may_name_several_places_or_all(engine: Engine) -> None:
    (both,) = _parse(engine, "客厅和卧室的").clauses
    assert both.action == "select" and both.target is not None
    assert [p.id for p in both.target.places] == ["living", "bedroom"]
    for text in ("两个都关", "都要"):
        (clause,) = _parse(engine, text).clauses
        assert clause.action == "select" and clause.target is not None
        assert clause.target.quantifier == "all"


# --- negation, cancel ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["别开灯", "不要关空调", "灯不用开了", "别把客厅灯关了"])
def test_a_negated_command_is_marked_never_reversed(engine: Engine, text: str) -> None:
    (clause,) = _parse(engine, text).clauses
    assert clause.negated
    assert clause.action in ("on", "off")


def test_negation_marks_only_its_own_clause(engine: Engine) -> None:
    clauses = _parse(engine, "别关烧水壶，把电饭煲关了").clauses
    assert [(c.action, c.negated) for c in clauses] == [("off", True), ("off", False)]


@pytest.mark.parametrize("text", ["算了", "不用了", "停下", "取消", "不要了", "不用"])
def test_stop_words_alone_cancel(engine: Engine, text: str) -> None:
    assert [c.action for c in _parse(engine, text).clauses] == ["cancel"]


# --- questions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "question", "attribute", "expected"),
    [
        ("有没有灯开着", "any", "on", True),
        ("哪些灯开着", "which", "on", True),
        ("几盏灯开着", "count", "on", True),
        ("客厅有几盏灯开着", "count", "on", True),
        ("所有门都锁了吗", "all", "locked", True),
        ("客厅灯是不是开着的", "yes_no", "on", True),
        ("门锁上锁了吗", "yes_no", "locked", True),
        ("书房灯关了没", "yes_no", "on", False),
        ("客廳燈係唔係開咗", "yes_no", "on", True),
    ],
)
def test_set_and_yes_no_questions(
    engine: Engine, text: str, question: str, attribute: str, expected: object
) -> None:
    clause = _parse(engine, text).clauses[0]
    assert (clause.action, clause.question, clause.attribute, clause.expected) == (
        "query",
        question,
        attribute,
        expected,
    )


def test_doors_and_windows_are_two_sets_asked_together(engine: Engine) -> None:
    clauses = _parse(engine, "门窗都关好了吗").clauses
    assert [(c.target.device_type, c.question) for c in clauses if c.target] == [
        ("Lock", "all"),
        ("Blind", "all"),
    ]


# --- timing, schedules, preferences ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "timing"),
    [
        ("半小时后关空调", Timing(delay_s=1800)),
        ("十分钟后把灯关了", Timing(delay_s=600)),
        ("一个半小时以后关掉客厅灯", Timing(delay_s=5400)),
        ("过二十分钟关灯", Timing(delay_s=1200)),
        ("晚上十点关灯", Timing(hour=22)),
        ("明天早上七点打开窗帘", Timing(hour=7, day=1)),
        ("下午三点半打开客厅空调", Timing(hour=15, minute=30)),
        ("十点一刻关灯", Timing(hour=10, minute=15)),
    ],
)
def test_delayed_commands_carry_when(engine: Engine, text: str, timing: Timing) -> None:
    clause = _parse(engine, text).clauses[0]
    assert clause.when == timing
    assert clause.action in ("on", "off")


def test_a_decimal_is_not_a_clock_time(engine: Engine) -> None:
    clause = _parse(engine, "空调调到二十六点五度").clauses[0]
    assert clause.when is None
    assert clause.value is not None and clause.value.number == 26.5


@pytest.mark.parametrize(
    ("text", "action", "type_word"),
    [
        ("取消定时", "schedule_cancel", None),
        ("取消关空调的定时", "schedule_cancel", "空调"),
        ("还有多久关空调", "schedule_query", "空调"),
    ],
)
def test_schedules_are_cancelled_and_asked_about(
    engine: Engine, text: str, action: str, type_word: str | None
) -> None:
    (clause,) = _parse(engine, text).clauses
    assert clause.action == action
    assert (clause.target.type_word if clause.target else None) == type_word


@pytest.mark.parametrize(
    ("text", "attribute", "number", "word"),
    [
        ("记住我喜欢26度", "target_temperature", 26.0, None),
        ("我喜欢暖光", "color_temp", None, "warm"),
        ("我看电视的音量是20", "volume", 20.0, None),
    ],
)
def test_preferences_are_remembered_with_their_value(
    engine: Engine, text: str, attribute: str, number: float | None, word: str | None
) -> None:
    (clause,) = _parse(engine, text).clauses
    assert clause.action == "remember" and clause.value is not None
    assert (clause.value.attribute, clause.value.number, clause.value.word) == (
        attribute,
        number,
        word,
    )


def test_a_preferred_value_is_asked_of_the_user_store(engine: Engine) -> None:
    (clause,) = _parse(engine, "调到我喜欢的温度").clauses
    assert clause.value == Value("preferred", "target_temperature")
    on, preferred = _parse(engine, "按我的习惯开灯").clauses
    assert (on.action, preferred.action, preferred.value) == ("on", "set", Value("preferred"))


# --- values, words, lexing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("客厅灯调到三成", Value("absolute", None, 30.0, None, "%")),
        ("客厅灯一半亮", Value("absolute", "brightness", 50.0, None, "%")),
        ("风扇大一档", Value("relative", "fan_speed", 1.0, direction=1)),
        ("风扇调高两档", Value("relative", "fan_speed", 2.0, direction=1)),
        ("客厅窗帘再开一点", Value("relative", direction=1)),
        ("色温2700开", Value("absolute", "color_temp", 2700.0, None, "K")),
        ("空调调到负五度", Value("absolute", "target_temperature", -5.0, None, "°C")),
        ("空调调到零下五度", Value("absolute", "target_temperature", -5.0, None, "°C")),
        ("客厅灯亮度百分之五十", Value("absolute", "brightness", 50.0, None, "%")),
        ("客厅灯调成暖光", Value("absolute", "color_temp", None, "warm")),
        ("书房台灯切成暖白光", Value("absolute", "color_temp", None, "warm")),
        ("主卧灯来个自然光", Value("absolute", "color_temp", None, "natural")),
        ("客厅灯调成冷白光", Value("absolute", "color_temp", None, "cool")),
        ("客厅风扇转速调大", Value("relative", "fan_speed", direction=1)),
        ("亮度拉满", Value("extreme", "brightness", direction=1)),
    ],
)
def test_spoken_values(engine: Engine, text: str, value: Value) -> None:
    assert _parse(engine, text).clauses[-1].value == value


@pytest.mark.parametrize(("numeral", "value"), [("一百零一", 101), ("三千零五十", 3050)])
def test_zero_keeps_the_next_digit_in_its_place(numeral: str, value: int) -> None:
    assert chinese_integer(numeral) == value


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("关掉卫生间灯", ["OFF", "NAME"]),
        ("打到26度", ["SET", "NUM", "DEG"]),
        ("打开大门锁", ["ON", "TYPE"]),
        ("打开客厅吸顶灯", ["ON", "ROOM", "NAME"]),
        ("空调全开", ["TYPE", "DOU", "ON"]),
        ("锁门", ["OFF", "TYPE"]),
        ("客廳嘅燈閂咗", ["ROOM", "DE", "TYPE", "OFF"]),
        ("打开睡房的灯", ["ON", "ROOM", "DE", "TYPE"]),
    ],
)
def test_exact_words_win_over_slips(engine: Engine, text: str, kinds: list[str]) -> None:
    compiled = compile_text(text, engine.lexicon)
    assert [t.kind for t in compiled.tokens if t.kind != "FILLER"] == kinds
    assert all(t.match != "pinyin" for t in compiled.tokens)


def test_a_pinyin_reading_never_cuts_a_word_said_exactly(demo_home: Home) -> None:
    # In a home without 卫生间, 关掉卫生间 must not become 关 + 掉卫(调为) + 生间.
    from jiayu.compiler import Lexicon

    home = replace(demo_home, rooms=tuple(r for r in demo_home.rooms if r.name != "卫生间"))
    tokens = Lexicon(home).lex("关掉卫生间")
    assert tokens[0].said == "关掉"


@pytest.mark.parametrize(
    ("text", "actions"),
    [
        ("把次卧空调打开调到24度", ["on", "set"]),
        ("关主卧灯开床头灯", ["off", "on"]),
        ("客厅灯关喽", ["off"]),
        ("窗帘放下来", ["off"]),
        ("客厅窗帘升起来", ["on"]),
        ("在客厅切到下一首", ["next_track"]),
        ("客厅音箱暂停音乐", ["pause"]),
        ("把场景切换到回家模式", ["scene"]),
        ("换台", ["next_track"]),
        ("别静音了", ["unmute"]),
    ],
)
def test_spoken_verbs_and_two_actions_without_a_separator(
    engine: Engine, text: str, actions: list[str]
) -> None:
    assert [c.action for c in _parse(engine, text).clauses] == actions


def test_a_leading_place_applies_to_the_clause(engine: Engine) -> None:
    (clause,) = _parse(engine, "在客厅切到下一首").clauses
    assert clause.target is not None
    assert [p.id for p in clause.target.places] == ["living"]


def test_the_pinyin_table_is_read_only_when_a_slip_needs_it() -> None:
    import subprocess
    import sys

    # Exact words never need readings: the table (~13 ms to read) waits for the first slip.
    code = (
        "import sys; from jiayu.cli import demo_home_path; from jiayu.home import load_home;"
        "from jiayu.compiler import Lexicon, compile_text, pinyin;"
        "lexicon = Lexicon(load_home(demo_home_path()));"
        "compile_text('打开客厅灯', lexicon); print(pinyin._table is None);"
        "compile_text('打开客厅等', lexicon); print(pinyin._table is None)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


@pytest.mark.parametrize(
    ("text", "actions"),
    [
        ("打开客厅灯关掉书房灯", [("on", False), ("off", False)]),
        ("客厅窗帘拉上打开客厅灯", [("off", False), ("on", False)]),
        ("算了吧，不开了", [("cancel", False), ("on", True)]),
    ],
)
def test_an_on_off_verb_after_a_clause_starts_a_new_one(
    engine: Engine, text: str, actions: list[tuple[str, bool]]
) -> None:
    assert [(c.action, c.negated) for c in _parse(engine, text).clauses] == actions


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("关掉所有灯，床头灯和客厅灯带留着别关", ["床头灯", "客厅灯带"]),
        ("别动客厅灯，关掉所有灯", ["客厅灯"]),
    ],
)
def test_keeping_words_take_away_before_or_after(
    engine: Engine, text: str, kept: list[str]
) -> None:
    (clause,) = _parse(engine, text).clauses
    assert clause.target is not None and clause.target.type_word == "灯"
    assert [e.name.text for e in clause.target.exclude if e.name] == kept
