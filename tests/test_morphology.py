"""The vocabulary composes its words (grammar/morphology.py): the tables hold morphemes and
the irregular words, never a form the morphology derives, and a composed form lexes as the
one word of its class, so no softener or aspect inside it is read as a number or a value."""

from __future__ import annotations

import pytest

from jiayu.cli import demo_home_path
from jiayu.compiler.lexicon import Lexicon
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import ASPECTS, COMPOUNDS, FILLERS, LISTED, TABLES
from jiayu.home import load_home


def test_no_table_lists_a_form_its_morphology_derives() -> None:
    for kind, forms in derived().items():
        listed = set(LISTED.get(kind, {})) & set(forms)
        assert not listed, f"TABLES[{kind!r}] lists forms its morphology derives: {sorted(listed)}"
    composed = {word for forms in derived().values() for word in forms}
    assert not set(FILLERS) & composed
    assert not set(COMPOUNDS) & composed


def test_a_listed_word_of_another_class_keeps_its_class() -> None:
    # 关着 and 锁着 are states (哪些灯关着), though 关/锁 + 着 is a composed form too.
    assert TABLES["STATE"]["关着"] == ("on", False)
    assert "关着" not in TABLES["OFF"] and "锁着" not in TABLES["OFF"]
    every = [word for table in TABLES.values() for word in table]
    assert len(every) == len(set(every)), "a surface in two classes"


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon(load_home(demo_home_path()))


@pytest.mark.parametrize(
    ("said", "kind", "value"),
    [
        ("整开", "ON", "on"),
        ("开一哈", "ON", "on"),
        ("开起来了", "ON", "on"),
        ("关掉咗", "OFF", "off"),
        ("闩埋", "OFF", "off"),
        ("锁住", "OFF", "off"),
        ("设定为", "SET", "set"),
        ("改为", "SET", "set"),
        ("变小", "REL", (None, -1, 0)),
        ("有点燥", "COMPLAINT", "dry"),
        ("冻死了", "COMPLAINT", "cold"),
        ("闷得很", "COMPLAINT", "hot"),
        ("太大", "COMPLAINT", "high"),
    ],
)
def test_a_composed_form_is_one_word_of_its_class(
    lexicon: Lexicon, said: str, kind: str, value: object
) -> None:
    tokens = [t for t in lexicon.lex(said) if t.kind != "FILLER"]
    assert [(t.kind, t.value) for t in tokens] == [(kind, value)]


@pytest.mark.parametrize("aspect", ASPECTS)
def test_an_aspect_after_a_verb_is_never_a_number(lexicon: Lexicon, aspect: str) -> None:
    for verb in ("开", "关", "打开", "关闭"):
        kinds = {t.kind for t in lexicon.lex("客厅灯" + verb + aspect)}
        assert "NUM" not in kinds and "COUNT" not in kinds, verb + aspect
