"""The segmenter's shortcuts (one dict of every word's beginnings that says whether a word
begins a longer one, so the lookups stop early; no word or number looked for from an offset only
an unknown character reaches) must find the segmentation the plain dynamic programme over every
span and every offset finds, ties broken the same way, whenever it leaves nothing unknown; and
leave something unknown exactly when that does."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jiayu.cli import demo_home_path
from jiayu.compiler.lexicon import _TIME_WORD, Lexicon, _numbers_at, _tokens
from jiayu.home import load_home
from jiayu.ir import MatchKind

Back = list[tuple[int, Any, MatchKind]]


def _plain_segment(lexicon: Lexicon, text: str) -> tuple[Back, bool]:
    """Every span looked up in the entries, costs compared as tuples (unknown characters,
    tokens): the same order of trials as the segmenter (words by their end, then numbers, then
    one unknown character), a strictly cheaper cost replacing a kept one."""
    n = len(text)
    longest = max(map(len, lexicon.entries))
    best: list[tuple[int, int]] = [(n + 1, 0)] * (n + 1)
    best[0] = (0, 0)
    back: Back = [(0, None, "unknown")] * (n + 1)
    timely = _TIME_WORD.search(text) is not None
    for i in range(n):
        unknown, tokens = best[i]
        step = (unknown, tokens + 1)
        for end in range(i + 1, min(i + longest, n) + 1):
            entry = lexicon.entries.get(text[i:end])
            if entry is not None and step < best[end]:
                best[end], back[end] = step, (i, entry, entry.match)
        for end, value in _numbers_at(text, i, timely):
            if step < best[end]:
                best[end], back[end] = step, (i, value, "exact")
        if (unknown + 1, tokens + 1) < best[i + 1]:
            best[i + 1], back[i + 1] = (unknown + 1, tokens + 1), (i, None, "unknown")
    return back, best[n][0] > 0


_LEXICON = Lexicon(load_home(demo_home_path()))
_WORDS = sorted(_LEXICON.entries)
# Words of the lexicon, their beginnings (which begin longer words but are none) and their
# ends (which may end a word that overlaps the next: 关小|白 or 关|小白), numbers and characters
# no word has: what a segmentation has to choose between.
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_WORDS).flatmap(lambda w: st.integers(1, len(w)).map(lambda k: w[:k])),
    st.sampled_from(_WORDS).flatmap(lambda w: st.integers(0, len(w) - 1).map(lambda k: w[k:])),
    st.sampled_from(
        ["3", "30", "2700", "一", "两", "三成", "零下五", "半小时后", "晚上十点", "21:30"]
    ),
    st.sampled_from("侊乭仸的了吧"),
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=6).map("".join))
@example("关小白")  # 关小|白 and 关|小白 cost the same: the first found wins
@example("调到30")  # a number is tried from each of its digits (调到3|0 too)
def test_the_segmenter_finds_what_every_span_looked_up_finds(text: str) -> None:
    timely = _TIME_WORD.search(text) is not None
    found = _LEXICON._segment_exact(text, timely)
    plain_back, plain_unknown = _plain_segment(_LEXICON, text)
    assert (found is None) == plain_unknown
    if found is not None:  # else the utterance is segmented again, with pinyin (Lexicon.lex)
        # No step of the plain programme says its token is kept (the fourth field), so its
        # tokens are all made by _tokens' general path: the kept words' shortcut must agree.
        plain = (
            [start for start, _, _ in plain_back],
            [(w, m, False, None) for _, w, m in plain_back],
        )
        assert _tokens(text, found, {}) == _tokens(text, plain, {})
