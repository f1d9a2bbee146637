"""Invariants that must hold for every input, checked with hypothesis."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.compiler import compile_text
from jiayu.engine import Engine
from jiayu.ir import NoParse, Parse
from jiayu.result import PRECEDENCE

# Function-scoped fixtures are fine here: the engine fixture is cheap and read-only use.
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

COMMANDS = [
    "打开客厅灯",
    "把卧室的灯关掉",
    "空调调到26度",
    "客厅窗帘打开一半",
    "关闭所有插座",
    "书房台灯调亮一点",
    "打开除卧室以外所有的灯",
    "客厅温度多少",
    "把电视静音",
    "楼上的灯都关了",
    "把主卧空调调到制热模式",
    "客厅和书房的灯打开",
]
FILLERS_BEFORE = ["请", "麻烦", "帮我", "小爱同学，", "天猫精灵", "小度小度", "麻烦你", "请你帮我"]
FILLERS_AFTER = ["吧", "一下", "谢谢", "好吗", "，谢谢", "吧，谢谢"]
TRADITIONAL = {
    "打开客厅灯": "打開客廳燈",
    "把卧室的灯关掉": "把臥室的燈關掉",
    "空调调到26度": "空調調到26度",
    "客厅温度多少": "客廳溫度多少",
}
text_anything = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60
)
text_chinese = st.text(
    alphabet=st.sampled_from(
        list(
            "打开关闭客厅卧室灯空调调到度所有的除以外和都把它那个再来一次如果超过就温度一二三十半点"
            "亮暗高低大小，。吗吧请帮我书房台灯插座窗帘电视静音播放暂停"
        )
    ),
    max_size=30,
)


@SETTINGS
@given(text=st.one_of(text_anything, text_chinese))
def test_compile_never_raises_and_returns_a_parse_or_a_no_parse(engine: Engine, text: str) -> None:
    compiled = compile_text(text, engine.lexicon)
    assert isinstance(compiled, Parse | NoParse)
    if isinstance(compiled, Parse):
        assert 0.0 <= compiled.confidence <= 1.0
        assert compiled.clauses
        assert all(c.action for c in compiled.clauses)
    else:
        assert compiled.reason
        assert 0 <= compiled.position <= len(compiled.text)


@SETTINGS
@given(text=st.one_of(text_anything, text_chinese))
def test_a_turn_never_raises_and_reports_a_contract_outcome(engine: Engine, text: str) -> None:
    result = engine.fresh().turn(text)
    assert result.outcome in PRECEDENCE
    if result.outcome in ("unknown", "clarify", "rejected", "noop"):
        assert result.commands == [] or result.outcome == "rejected"


def test_huge_and_hostile_inputs_are_handled(engine: Engine) -> None:
    for text in (
        "打开客厅灯" * 2000,
        "😀" * 10000,
        "\x00\x01\x02" * 3000,
        "灯" * 10000,
        "a" * 10000,
        "打开" + "\u202e" * 50 + "客厅灯",
    ):
        result = engine.fresh().turn(text)
        assert result.outcome in PRECEDENCE


@SETTINGS
@given(
    command=st.sampled_from(COMMANDS),
    before=st.sampled_from(["", *FILLERS_BEFORE]),
    after=st.sampled_from(["", *FILLERS_AFTER]),
)
def test_fillers_and_politeness_never_change_the_ir(
    engine: Engine, command: str, before: str, after: str
) -> None:
    plain = compile_text(command, engine.lexicon)
    padded = compile_text(before + command + after, engine.lexicon)
    assert isinstance(plain, Parse) and isinstance(padded, Parse)
    assert padded.clauses == plain.clauses


@SETTINGS
@given(pair=st.sampled_from(sorted(TRADITIONAL.items())))
def test_traditional_and_simplified_give_the_same_ir(engine: Engine, pair: tuple[str, str]) -> None:
    simplified, traditional = pair
    a = compile_text(simplified, engine.lexicon)
    b = compile_text(traditional, engine.lexicon)
    assert isinstance(a, Parse) and isinstance(b, Parse)
    assert a.clauses == b.clauses


@SETTINGS
@given(
    excluded=st.sampled_from(["卧室", "书房", "二楼", "楼下", "主卧", "儿童房"]),
    noun=st.sampled_from(["灯", "插座", "窗帘", "空调", "设备"]),
    verb=st.sampled_from(["打开", "关闭", "关掉"]),
    form=st.sampled_from(
        [
            "{v}除{x}以外所有的{n}",
            "除了{x}，{v}所有{n}",
            "所有{n}{x}除外都{v}",
            "{v}除了{x}之外的{n}",
            "把除{x}外的{n}都{v}",
        ]
    ),
)
def test_a_clause_with_an_exclusion_never_commands_an_excluded_device(
    engine: Engine, excluded: str, noun: str, verb: str, form: str
) -> None:
    text = form.format(v=verb, x=excluded, n=noun)
    fresh = engine.fresh()
    result = fresh.turn(text)
    home = fresh.home
    floor = {"二楼": "f2", "楼下": "f1"}.get(excluded)
    room_ids = (
        {r.id for r in home.rooms_on_floor(floor)}
        if floor
        else {r.id for r in home.rooms if r.name == excluded}
    )
    assert room_ids
    for command in result.commands:
        assert home.device(command["device"]).room not in room_ids, (text, command)
