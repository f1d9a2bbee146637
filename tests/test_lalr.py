"""The run-time LALR parser (compiler/lalr.py) against Lark's own parser of the same grammar.

The tables are computed by Lark ahead of time (compiler/tables.py); these tests check that
the shipped file is current, and that running it gives exactly Lark's trees, and Lark's
error position and expected kinds, on every corpus sentence and on sequences near them.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Lark, Tree
from lark import Token as LarkToken
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer

from jiayu.cases import load_cases
from jiayu.compiler import lalr
from jiayu.compiler.lalr import TABLES_FILE, Leaf, Node, Stuck, Tables, grammar_text
from jiayu.compiler.lexicon import FILLER
from jiayu.compiler.tables import build_tables
from jiayu.engine import Engine
from jiayu.text import normalize

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
KINDS = sorted(lalr.tables().terminals - {lalr.END})


class _Given(Lexer):
    """The tokens are already made: the kinds are the input."""

    def __init__(self, conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[LarkToken]:  # type: ignore[override]
        yield from data


@cache
def _lark() -> Lark:
    return Lark(grammar_text(), parser="lalr", lexer=_Given, maybe_placeholders=True)


def _by_lark(kinds: tuple[str, ...], lark: Lark | None = None) -> Any:
    """Lark's answer in a comparable form: the tree as nested tuples, or (index, expected);
    by the parser of jiayu's grammar unless another is given."""
    stream = [LarkToken(kind, kind, start_pos=i) for i, kind in enumerate(kinds)]
    try:
        return _shape((lark or _lark()).parse(stream))
    except UnexpectedInput as err:
        token = getattr(err, "token", None)
        index = None if token is None or token.type == "$END" else token.start_pos
        return ("stuck", index, tuple(sorted(getattr(err, "expected", ()))))


def _shape(tree: Any) -> Any:
    if isinstance(tree, Tree):
        return (str(tree.data), tuple(_shape(c) for c in tree.children))
    if isinstance(tree, Node):
        return (tree.data, tuple(_shape(c) for c in tree.children))
    if isinstance(tree, LarkToken):
        return (tree.type, tree.start_pos)
    if isinstance(tree, Leaf):
        return (tree.kind, tree.index)
    if isinstance(tree, Stuck):
        return ("stuck", tree.index, tree.expected)
    raise AssertionError(f"not a tree: {tree!r}")


def _ours(kinds: tuple[str, ...]) -> Any:
    return _shape(lalr.tables().parse(kinds))


@cache
def _corpus_kinds() -> list[tuple[str, ...]]:
    """The kind sequence of every corpus utterance (history turns included), on its home."""
    engines: dict[Path, Engine] = {}
    seen: dict[tuple[str, ...], None] = {}
    for path in sorted(CORPUS.glob("*.jsonl")):
        for case in load_cases(path):
            if case.home not in engines:
                engines[case.home] = Engine.from_file(case.home)
            for text in (*case.history, case.text):
                tokens = engines[case.home].lexicon.lex(normalize(text))
                seen[tuple(t.kind for t in tokens if t.kind != FILLER)] = None
    return list(seen)


def test_the_shipped_tables_are_built_from_the_grammar_as_it_is() -> None:
    shipped = json.loads(resources.files("jiayu.grammar").joinpath(TABLES_FILE).read_text())
    assert shipped["grammar"] == grammar_text(), (
        "grammar/jiayu.lark changed: run `uv run python -m jiayu.compiler.tables`"
    )
    assert shipped == json.loads(json.dumps(build_tables(grammar_text()), ensure_ascii=False))


def test_each_state_is_read_from_its_line_as_lark_built_it_the_empty_one_too() -> None:
    # The parse reads a state's line when it first reaches it; reading all of them gives
    # Lark's actions, and the state after the whole parse (no actions) reads as none.
    shipped = Tables(lalr._load())
    for state in range(len(shipped.states)):
        shipped._read(state)
    built = [_actions(line) for line in build_tables(grammar_text())["states"]]
    assert shipped.states == built
    assert {} in shipped.states


def _actions(line: str) -> dict[str, int]:
    words = line.split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


def test_every_corpus_sentence_parses_as_lark_parses_it() -> None:
    sequences = _corpus_kinds()
    assert len(sequences) > 500
    different = [k for k in sequences if _ours(k) != _by_lark(k)]
    assert different == []
    parsed = sum(not isinstance(lalr.tables().parse(k), Stuck) for k in sequences)
    assert parsed > len(sequences) // 2  # the comparison covers real trees, not only errors


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_near_a_corpus_sentence_it_parses_or_stops_as_lark_does(data: st.DataObject) -> None:
    """One to three edits (insert, delete, replace a kind) of a real sentence's kinds: the
    shapes people nearly say, and the errors the NoParse replies are made from."""
    kinds = list(data.draw(st.sampled_from(_corpus_kinds())))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(kinds)))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        if edit == "insert" or not kinds:
            kinds.insert(at, data.draw(st.sampled_from(KINDS)))
        elif edit == "delete":
            del kinds[min(at, len(kinds) - 1)]
        else:
            kinds[min(at, len(kinds) - 1)] = data.draw(st.sampled_from(KINDS))
    assert _ours(tuple(kinds)) == _by_lark(tuple(kinds))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KINDS), max_size=10))
def test_any_kind_sequence_parses_or_stops_as_lark_does(kinds: list[str]) -> None:
    assert _ours(tuple(kinds)) == _by_lark(tuple(kinds))


TOY = """
%declare A B C _D
start: item+
?item: A | pair | _inner | kept | dropped
pair: A B -> couple
_inner: C C
!kept: _D B
dropped: B _D
"""


@pytest.mark.parametrize(
    "kinds",
    [
        ("A",),
        ("A", "B"),
        ("C", "C"),
        ("_D", "B"),
        ("B", "_D"),
        ("A", "C", "C", "_D", "B"),
        ("B",),
        (),
    ],
)
def test_every_tree_shaping_rule_matches_lark_on_a_grammar_that_uses_them(
    kinds: tuple[str, ...],
) -> None:
    # ?rule, aliases, _rule splicing, a filtered _TOKEN and a !rule that keeps it: the
    # shapes compiler/tables.py mirrors, each against Lark on the same toy grammar.
    lark = Lark(TOY, parser="lalr", lexer=_Given, maybe_placeholders=True)
    assert _shape(Tables(build_tables(TOY)).parse(kinds)) == _by_lark(kinds, lark)


def test_a_grammar_edited_since_the_tables_were_written_is_parsed_by_its_own_tables(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A grammar author's edit: the file's tables are stale, so they are built from the text.
    edited = grammar_text().replace("?body: clauses", "?body: clauses\n     | QWORD QWORD -> twice")
    monkeypatch.setattr(lalr, "grammar_text", lambda: edited)
    with caplog.at_level(logging.WARNING, logger="jiayu.compiler.lalr"):
        built = Tables(lalr._load())
    assert "python -m jiayu.compiler.tables" in caplog.text
    assert _shape(built.parse(("QWORD", "QWORD"))) == (
        "start",
        (("twice", (("QWORD", 0), ("QWORD", 1))),),
    )
    assert isinstance(lalr.tables().parse(("QWORD", "QWORD")), Stuck)  # shipped: unchanged


def test_compiling_an_utterance_imports_neither_lark_nor_asyncio() -> None:
    # Lark (with hashlib, hence OpenSSL, and regex) and asyncio (with ssl) were most of the
    # start-up time and memory; a sync turn needs neither. importlib.resources (tempfile,
    # shutil, bz2, lzma), tempfile and uuid (platform) cost ~5 ms of a first reply.
    code = (
        "import sys\n"
        "from jiayu.engine import Engine\n"
        f"engine = Engine.from_file({str(CORPUS / 'homes' / 'demo.json')!r})\n"
        "assert engine.turn('打开客厅灯').outcome == 'executed'\n"
        "unwanted = ('lark', 'asyncio', 'ssl', 'hashlib', 'importlib.resources',\n"
        "            'tempfile', 'uuid')\n"
        "print(sorted(m for m in unwanted if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_jiayu_parse_shows_the_tree_with_the_words_said(demo_engine: Engine) -> None:
    from jiayu.explain import explain

    shown = explain("把客厅的灯关掉", demo_engine).splitlines()
    tree = shown[shown.index("tree") + 1 : shown.index("ir")]
    assert [line.strip() for line in tree] == [
        "start",
        "clauses",
        "target_tail",
        "BA  把",
        "target",
        "ROOM  客厅",
        "DE  的",
        "TYPE  灯",
        "t_off",
        "OFF  关掉",
    ]
    assert tree[3].startswith("        BA")  # a child is indented under its parent
    stuck = explain("客厅 把", demo_engine)
    assert "tree" not in stuck.splitlines() and "no parse" in stuck
