"""Compile an utterance: normalise, lex, parse (LALR), build the IR.

The parse runs the grammar's LALR tables, computed by Lark ahead of time and read once per
process (compiler/lalr.py). A home change rebuilds only the lexicon (compiler/lexicon.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import NamedTuple

from jiayu.compiler.build import Builder, Unsupported, builder_of
from jiayu.compiler.confidence import CERTAIN, confidence
from jiayu.compiler.lalr import Node, Stuck, tables
from jiayu.compiler.lexicon import FILLER, Lexicon
from jiayu.ir import Clause, Compiled, NoParse, Parse, Token
from jiayu.text import MAX_LENGTH, normalize

_KIND = attrgetter("kind")
_MATCH = attrgetter("match")

MAX_CLAUSES = 20
"""More actions than this in one breath is not a home command; it is refused whole."""

TREE_CACHE_SIZE = 4096
"""Parse trees kept, by the sequence of token kinds they were parsed from."""


class _Parsed(NamedTuple):
    """A parse tree, and its build function (compiler/build.py builder_of) with the tree's
    words already given: it is called with the Builder alone."""

    tree: Node
    build: Callable[[Builder], tuple[Clause, ...]]


_trees: dict[tuple[str, ...], _Parsed | Stuck] = {}


def _parsed(kinds: tuple[str, ...]) -> _Parsed | Stuck:
    """The parse of a sequence of token kinds, or where it got stuck.

    The tree depends on the kinds alone (its leaves carry only the kind and the index into
    the utterance's words, which the Builder reads), and people say the same few shapes
    again and again, so trees are kept by kind sequence, with their build function: a hit
    skips the LALR parse. The Builder never changes a tree, so a kept one is shared between
    threads safely."""
    found = _trees.get(kinds)
    if found is None:
        tree = tables().parse(kinds)
        found = tree if isinstance(tree, Stuck) else _Parsed(tree, builder_of(tree))
        if len(_trees) >= TREE_CACHE_SIZE:
            _trees.clear()  # bounded; refilled by what is said next
        _trees[kinds] = found
    return found


def parse_kinds(kinds: tuple[str, ...]) -> Node | Stuck:
    """The parse tree of a sequence of token kinds, or where it got stuck."""
    found = _parsed(kinds)
    return found if isinstance(found, Stuck) else found.tree


def compile_text(text: str, lexicon: Lexicon) -> Compiled:
    """Compile one utterance; never raises for any input string."""
    return compile_normalized(text, normalize(text), lexicon)


def compile_normalized(text: str, norm: str, lexicon: Lexicon) -> Compiled:
    """compile_text of `text` whose normal form `norm` the caller has already (the compile
    cache keys by it)."""
    if not norm:
        return NoParse(norm, 0, "empty", "nothing was said")
    if len(text) > MAX_LENGTH:
        return NoParse(
            norm, MAX_LENGTH, "too_long", f"longer than {MAX_LENGTH} characters: not a home command"
        )
    tokens = lexicon.lex(norm)
    # The kinds and matches are read in C (map over attrgetter), not by a Python loop per
    # word; most utterances have no filler, and then the words are the tokens.
    kinds = tuple(map(_KIND, tokens))
    words: Sequence[Token] = tokens
    if FILLER in kinds:
        words = [t for t in tokens if t.kind != FILLER]
        kinds = tuple(map(_KIND, words))
    if not words:
        return NoParse(norm, 0, "no_words", "only fillers or politeness", tuple(tokens))
    matches = set(map(_MATCH, words))
    # Most utterances have no unknown word and none of another domain: nothing to look for.
    if "unknown" in matches or "NOT_HOME" in kinds:
        outside = _outside(norm, words, tokens, lexicon.name_chars)
        if outside is not None:
            return outside
    if kinds[-1] == "SEP" and words[-1].text.isalnum():
        # 打开客厅灯然后 / …同时: a connective word last means the rest was cut off (or was
        # not a connective at all: 佟侍 heard as 同时). Acting on the first half is acting on
        # half a sentence; trailing punctuation is only punctuation.
        return NoParse(
            norm,
            words[-1].start,
            "incomplete",
            f"the sentence stops after “{words[-1].said}”: what was to follow is missing",
            tuple(tokens),
        )
    parsed = _trees.get(kinds) or _parsed(kinds)  # a kept tree, most often: no call
    if isinstance(parsed, Stuck):
        return _no_parse(norm, words, tokens, parsed)
    try:
        clauses = parsed.build(Builder(words))
    except Unsupported as err:
        return NoParse(norm, err.position, err.reason, str(err), tuple(tokens))
    if len(clauses) > MAX_CLAUSES:
        return NoParse(
            norm,
            0,
            "too_many_clauses",
            f"more than {MAX_CLAUSES} actions in one utterance",
            tuple(tokens),
        )
    sure = 1.0 if matches <= CERTAIN else confidence(words)  # most words are said exactly
    return Parse(norm, clauses, sure, tuple(tokens))


# Words that make an utterance about the home: without one, unknown words are another
# domain's (天气怎么样, 今天星期几), and the reply says so instead of "没有找到天气".
_HOME_KINDS = frozenset(
    {
        "ON",
        "OFF",
        "SET",
        "SETV",
        "REL",
        "EXTREME",
        "MEDIA",
        "FEATURE",
        "ROOM",
        "FLOOR",
        "GROUP",
        "SCENE",
        "TYPE",
        "HOME",
        "THIS_ROOM",
        "ATTR",
        "QSTATE",
        "TIMER",
        "REMEMBER",
        "PREF",
        "HABIT",
        "STATE",
        "COLOR",
        "MODE",
        "SPEED",
    }
)
# Where an unknown word is in target position, so it may be a device name the resolver
# can still find (fuzzily) or refuse by name: after a verb, a place, 把 or 和, or before
# a type word (起夜灯), 的, or a verb or value that would act on it (小白打开).
_BEFORE_NAME = frozenset(
    {
        "ON",
        "OFF",
        "SETV",
        "REL",
        "MEDIA",
        "FEATURE",
        "QVERB",
        "BA",
        "ROOM",
        "FLOOR",
        "GROUP",
        "HOME",
        "THIS_ROOM",
        "DE",
        "AND",
        "ALL",
        "DOU",
        "COUNT",
        "EXCEPT",
        "NEG",
        "AT",
        "OTHER",
    }
)
_AFTER_NAME = frozenset(
    {
        "TYPE",
        "DE",
        "AND",
        "ON",
        "OFF",
        "SET",
        "REL",
        "ADJ",
        "MEDIA",
        "FEATURE",
        "ATTR",
        "QSTATE",
        "EXCEPT_POST",
        "EXCEPT_END",
        "DOU",
        "EXTREME",
        "NEG",
        "HALF",
        "COLOR",
        "MODE",
        "SPEED",
    }
)


def _outside(
    norm: str, words: Sequence[Token], tokens: Sequence[Token], name_chars: frozenset[str]
) -> NoParse | None:
    """A NoParse for words that are not a home command, before parsing: a word of another
    domain (天气, 几点了), or an unknown word that does not stand where a device name
    would. With nothing about the home at all the reason is not_home."""
    strays = [
        t
        for i, t in enumerate(words)
        if t.kind == "NOT_HOME"
        or (t.match == "unknown" and not _looks_like_name(words, i, name_chars))
    ]
    if not strays:
        return None
    known = any(t.kind in _HOME_KINDS or (t.kind == "NAME" and t.match != "unknown") for t in words)
    shown = "、".join(t.said for t in strays[:3])
    if not known:
        return NoParse(
            norm, strays[0].start, "not_home", f"not about the home: {shown}", tuple(tokens)
        )
    return NoParse(
        norm, strays[0].start, "unexpected_word", f"words that fit nowhere: {shown}", tuple(tokens)
    )


def _looks_like_name(words: Sequence[Token], i: int, name_chars: frozenset[str]) -> bool:
    """An unknown word may be a device name said loosely when it stands where a name
    stands and shares a character with some name of the home (小白 for 大白); anything
    else (蓝色 in 那个蓝色的东西, 讲个笑话 after a comma) is not understood."""
    if not any(ch in name_chars for ch in words[i].said):
        return False
    before = words[i - 1].kind if i > 0 else None
    after = words[i + 1].kind if i + 1 < len(words) else None
    return before in _BEFORE_NAME or (after in _AFTER_NAME and before != "IT")


def _no_parse(norm: str, words: Sequence[Token], tokens: Sequence[Token], stuck: Stuck) -> NoParse:
    index = stuck.index
    if index is None or index >= len(words):
        return NoParse(
            norm,
            len(norm),
            "incomplete",
            "the sentence stops before it says what to do",
            tuple(tokens),
        )
    word = words[index]
    expected = stuck.expected
    detail = f"did not expect {word.kind} “{word.said}” here"
    if expected:
        detail += f"; expected one of {', '.join(expected[:8])}"
    return NoParse(norm, word.start, "unexpected_word", detail, tuple(tokens))
