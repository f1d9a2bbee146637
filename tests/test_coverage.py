"""`jiayu coverage`: grammar alternatives found from parse trees, fixed words from tokens."""

from __future__ import annotations

import argparse
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from lark import Token as LarkToken

from jiayu import coverage
from jiayu.cases import load_cases
from jiayu.coverage import (
    Alternative,
    Coverage,
    GrammarMap,
    alternatives,
    fixed_words,
    measure,
    words_in,
)
from jiayu.ir import Token

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

TOY = """
// a comment
%declare ON OFF NAME NUM AND X
start: clause (AND clause)*
?clause: ON NAME NUM?     -> on   // trailing comment
       | OFF NAME         -> off
       | NAME
       | (ON | OFF) NUM+  -> on
       | NAME _verb NAME  -> pair
       | X [NUM] NAME     -> x
_verb: ON | OFF
"""


def test_alternatives_are_read_as_written() -> None:
    assert alternatives(TOY) == [
        Alternative("start", 0, "clause (AND clause)*", None),
        Alternative("clause", 0, "ON NAME NUM?", "on"),
        Alternative("clause", 1, "OFF NAME", "off"),
        Alternative("clause", 2, "NAME", None),
        Alternative("clause", 3, "(ON | OFF) NUM+", "on"),
        Alternative("clause", 4, "NAME _verb NAME", "pair"),
        Alternative("clause", 5, "X [NUM] NAME", "x"),
        Alternative("_verb", 0, "ON", None),
        Alternative("_verb", 1, "OFF", None),
    ]
    assert alternatives(TOY)[4].label == "clause: (ON | OFF) NUM+ -> on"


def test_each_tree_node_is_matched_to_the_alternative_its_children_spell() -> None:
    grammar = GrammarMap.build(TOY)
    kinds = ["ON", "NAME", "AND", "NAME", "AND", "OFF", "NUM", "NUM", "AND", "ON", "NAME", "NUM"]
    kinds += ["AND", "NAME", "OFF", "NAME", "AND", "X", "NAME", "AND", "X", "NUM", "NAME"]
    tree = grammar.parser.parse([LarkToken(k, k.lower(), start_pos=i) for i, k in enumerate(kinds)])
    hits = Counter(grammar.alternatives[h].label for h in grammar.walk(tree))  # type: ignore[index]
    assert hits == {
        "start: clause (AND clause)*": 1,
        "clause: ON NAME NUM? -> on": 2,
        "clause: NAME": 1,
        "clause: (ON | OFF) NUM+ -> on": 1,
        "clause: NAME _verb NAME -> pair": 1,
        "_verb: OFF": 1,
        "clause: X [NUM] NAME -> x": 2,
    }


def test_words_count_exact_fixed_words_numerals_and_classifiers_not_slips() -> None:
    fixed = fixed_words()
    tokens = [
        Token("FILLER", "麻烦", "麻烦", 0, "exact"),
        Token("ON", "打开", "打开", 2, "exact", "on"),
        Token("COUNT", "两盏", "两盏", 4, "exact", 2),
        Token("TYPE", "灯", "等", 6, "pinyin", "Light"),  # a slip: 灯 was not said
        Token("NUM", "二十六", "二十六", 7, "exact", 26.0),
        Token("NAME", "客厅灯", "客厅灯", 10, "exact", "客厅灯"),
    ]
    assert list(words_in(tokens, fixed)) == ["麻烦", "打开", "两", "盏", "二", "十", "六"]
    assert "ON_STEMS" in fixed["打开"] and "CLASSIFIER" in fixed["盏"]


def test_a_composed_form_counts_its_morphemes_not_itself() -> None:
    fixed = fixed_words()
    tokens = [
        Token("OFF", "关掉着", "关掉着", 0, "exact", "off"),
        Token("COMPLAINT", "有点燥", "有点燥", 3, "exact", "dry"),
        Token("OFF", "关掉", "关调", 6, "pinyin", "off"),  # a slip: nothing was said as written
    ]
    assert list(words_in(tokens, fixed)) == ["关", "掉", "着", "有点", "燥"]
    assert "关掉着" not in fixed and "有点燥" not in fixed
    assert "OFF_COMPLEMENTS" in fixed["掉"] and "DEGREES" in fixed["有点"]


def test_words_that_normalisation_rewrites_are_called_unreachable() -> None:
    words = {"，": 0, "冷氣": 0, "打开": 0, "关": 3}
    result = Coverage({}, words, {w: ("X",) for w in words}, {}, 0, 0)
    assert result.uncovered_words() == ["，", "冷氣", "打开"]
    assert result.unreachable_words() == ["，", "冷氣"]
    assert "never reach the lexer (normalisation rewrites them): ，→, 冷氣→冷气" in result.text()


def test_compounds_and_room_synonyms_count_from_what_was_said(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "homes" / "demo.json", tmp_path / "demo.json")
    path = tmp_path / "words.jsonl"
    case = {"id": "w1", "home": "demo.json", "text": "锁门，打开睡房的灯", "expect": {}}
    case["expect"] = {"outcome": "executed"}
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", "utf-8")
    covered = {w for w, hits in measure(load_cases(path)).words.items() if hits}
    assert {"锁门", "睡房"} <= covered
    assert "锁上" not in covered  # lexed from 锁门's 锁, not said


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    shutil.copy(CORPUS / "homes" / "demo.json", tmp_path / "demo.json")
    path = tmp_path / "tiny.jsonl"
    case = {
        "id": "t1",
        "home": "demo.json",
        "text": "麻烦打开客厅灯",
        "history": ["书房空调调到二十六度"],
        "expect": {"outcome": "executed"},
    }
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", "utf-8")
    return path


def test_measure_counts_history_turns_too(tiny: Path) -> None:
    result = measure(load_cases(tiny))
    assert (result.texts, result.parsed) == (2, 2)
    covered = {w for w, hits in result.words.items() if hits}
    assert covered == {"麻烦", "打开", "调", "到", "二", "十", "六", "度"}  # 调到: 调 + 到
    by_node = {a.alias or a.rule for a, hits in result.alternatives.items() if hits}
    assert {"head_on", "target_tail", "t_set"} <= by_node
    assert "head_off" not in by_node
    assert result.unmapped == {}
    assert not result.complete


def test_every_node_of_the_real_corpus_maps_to_a_source_alternative() -> None:
    cases = [case for path in sorted(CORPUS.glob("*.jsonl")) for case in load_cases(path)]
    result = measure(cases)
    assert result.unmapped == {}
    assert result.parsed > 0.9 * result.texts


def test_run_exits_non_zero_when_anything_is_uncovered(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    coverage.add_arguments(parser)
    assert coverage.run(parser.parse_args([str(tiny), "--json"])) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["texts"] == 2
    assert "OFF_STEMS" in report["words"]["uncovered"]["关"]  # a morpheme no text says
    assert "关" not in report["words"]["unreachable"]
    assert "head_clause: OFF target -> head_off" in report["alternatives"]["uncovered"]
