"""The compile's shortcuts must mean what the long way means, whatever words are said:
the build function written once per tree shape calls the rules as a recursive walk of the
tree would, and compile_text skips looking for words outside the home, and the confidence
product, only when they could not have found anything."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.compiler.build import Builder, Unsupported, _joined_parts, builder_of
from jiayu.compiler.confidence import CERTAIN, confidence
from jiayu.compiler.lalr import Leaf, Node
from jiayu.compiler.lexicon import FILLER, Lexicon
from jiayu.compiler.parse import _outside, parse_kinds
from jiayu.grammar.vocab import TABLES
from jiayu.home import Home, load_home
from jiayu.ir import Token
from jiayu.text import normalize

_HOME: Home = load_home("corpus/homes/demo.json")
# Every word of the vocabulary and every name of the home, as random utterances use them
# (the same pool the compile equivalence dump draws from).
_POOL = sorted({w for table in TABLES.values() for w in table}) + sorted(
    {d.name for d in _HOME.devices} | {r.name for r in _HOME.rooms}
)
_SAID = st.lists(st.sampled_from(_POOL), min_size=1, max_size=7).map("".join)


@cache
def _lexicon() -> Lexicon:
    return Lexicon(_HOME)


def _words(text: str) -> tuple[str, list[Token], list[Token]]:
    norm = normalize(text)
    tokens = _lexicon().lex(norm)
    return norm, tokens, [t for t in tokens if t.kind != FILLER]


def _walked(builder: Builder, tree: Node) -> Any:
    """The reference: every rule's method on its children, walked recursively."""
    children = [_walked(builder, c) if type(c) is Node else c for c in tree.children]
    return getattr(builder, tree.data)(*children)


def _outcome(run: Any) -> Any:
    try:
        return run()
    except Unsupported as err:
        return ("unsupported", str(err), err.reason, err.position)


@settings(max_examples=400, deadline=None)
@given(_SAID)
def test_a_shapes_build_function_builds_what_the_walk_builds(text: str) -> None:
    _, _, words = _words(text)
    tree = parse_kinds(tuple(t.kind for t in words))
    if not isinstance(tree, Node):
        return
    build = builder_of(tree)  # called as a compile calls it: its words are its defaults
    by_walk = Builder(words)
    by_shape = Builder(words)
    assert _outcome(lambda: build(by_shape)) == _outcome(lambda: _walked(by_walk, tree))
    # What a build leaves behind for later rules (scenes said, where selections were) too.
    assert by_shape._scenes == by_walk._scenes
    assert sorted(by_shape._select_at.values()) == sorted(by_walk._select_at.values())


@settings(max_examples=400, deadline=None)
@given(_SAID)
def test_words_all_known_and_matched_for_sure_skip_nothing(text: str) -> None:
    norm, tokens, words = _words(text)
    matches = {t.match for t in words}
    if "unknown" not in matches and all(t.kind != "NOT_HOME" for t in words):
        assert _outside(norm, words, tokens, _lexicon().name_chars) is None
    if matches <= CERTAIN:
        assert confidence(words) == 1.0


def test_the_shortcuts_can_fail() -> None:
    """The properties above see unknown words, words of another domain and uncertain
    matches (else they would hold vacuously)."""
    seen = set()
    for text in ("打开小白", "今天天气怎么样", "打开可厅灯", "打开客厅灯"):
        _, _, words = _words(text)
        seen |= {t.match for t in words} | {t.kind for t in words}
    assert {"unknown", "NOT_HOME", "exact"} <= seen


@settings(max_examples=400, deadline=None)
@given(_SAID)
def test_a_run_of_one_part_is_what_joining_its_parts_makes_of_it(text: str) -> None:
    """_split returns a one-part run as it was read when it names what it means or is only
    places; joining the parts must give the same (place-only runs are common: 客厅的)."""
    _, _, words = _words(text)
    run = [Leaf(t.kind, i) for i, t in enumerate(words) if t.kind != "AND"]
    builder = Builder(words)
    assert builder._split(run) == _joined_parts([builder._one_target(run)])


def _read_run(read: Any, *args: Any) -> Any:
    """A run's targets as `read` reads them, and what the rules after it read of it."""

    def shown() -> Any:
        run = read(*args)
        return (list(run), run.start, run.exclusion_only, run.after)

    return _outcome(shown)


# The words a run of target words is made of, 的, 和 and the exclusion words among them,
# so that the random runs below meet each of them often.
_TARGET_KINDS = ["DE", "AND", "EXCEPT", "EXCEPT_END", "EXCEPT_POST", "ALL", "DOU", "ANY"]
_TARGET_KINDS += ["IT", "OTHER", "HOME", "THIS_ROOM", "TYPE"]
_TARGET_WORDS = sorted(
    {w for kind in _TARGET_KINDS for w in TABLES[kind]}
    | {d.name for d in _HOME.devices}
    | {r.name for r in _HOME.rooms}
    | {"两个", "三盏"}
)
_RUN = st.lists(
    st.sampled_from(_TARGET_WORDS) | st.sampled_from(_POOL), min_size=1, max_size=6
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_RUN)
def test_a_run_read_at_once_is_what_the_general_reading_makes_of_it(text: str) -> None:
    """target() reads a run of plain words of one part at once; every run of words (with
    的, 和 and 除外 among them) must read as the general reading (_target) reads it, and
    leave the same scenes said."""
    _, _, words = _words(text)
    leaves = [Leaf(t.kind, i) for i, t in enumerate(words)]
    for begin in range(len(leaves)):
        for end in range(begin, len(leaves) + 1):
            run = leaves[begin:end]
            at_once, general = Builder(words), Builder(words)
            assert _read_run(at_once.target, *run) == _read_run(general._target, run)
            assert at_once._scenes == general._scenes
