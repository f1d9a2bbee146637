"""What the lexer's shortcuts rely on in every lexicon: a word said exactly is its entry's
canonical form (so _tokens takes the token's `said` from the entry, not from the text), and no
word has a NUL (so the segmenter's lookups end at one past the text's end)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.cli import demo_home_path
from jiayu.compiler.lexicon import TOKENS_KEPT, Lexicon
from jiayu.home import Home, load_home, parse_home

_SPEC = importlib.util.spec_from_file_location(
    "jiayu_bench_homegen", Path(__file__).resolve().parent.parent / "benchmarks" / "homegen.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_HOMEGEN = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_HOMEGEN)


def _surfaces_are_canonical(home: Home) -> None:
    for surface, entry in Lexicon(home).entries.items():
        assert entry.canonical == surface, (surface, entry)
        assert "\0" not in surface  # the segmenter ends its lookups at a NUL (Lexicon._said)


def test_every_demo_word_is_spelt_as_its_entry() -> None:
    _surfaces_are_canonical(load_home(demo_home_path()))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 300), st.integers(0, 10**6))
def test_every_generated_word_is_spelt_as_its_entry(devices: int, seed: int) -> None:
    _surfaces_are_canonical(parse_home(_HOMEGEN.generate_home(devices, seed=seed), "generated"))


_DEMO = load_home(demo_home_path())
_SHARED = Lexicon(_DEMO)
_WORDS = sorted(_SHARED.entries)
_TEXTS = st.lists(st.sampled_from([*_WORDS, "3", "两", "侊", "的"]), min_size=1, max_size=5).map(
    "".join
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=4))
def test_kept_tokens_are_those_a_new_lexicon_makes(texts: list[str]) -> None:
    """Tokens kept from earlier utterances (Lexicon._made) are the ones a lexicon that has
    lexed nothing makes, and the kept ones stay within their bound."""
    for text in texts:
        assert _SHARED.lex(text) == Lexicon(_DEMO).lex(text)
    assert len(_SHARED._made) <= TOKENS_KEPT
