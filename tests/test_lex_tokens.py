"""The tokens read from a segmentation with unknown characters (the pinyin pass, _segment):
they cover the utterance in order, each token where it is said, and a run of unknown
characters is one token, never two side by side (_tokens reads a run at once)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jiayu.cli import demo_home_path
from jiayu.compiler.lexicon import _TIME_WORD, COMPOUND, Lexicon, _tokens
from jiayu.home import load_home

_LEXICON = Lexicon(load_home(demo_home_path()))
# Not compounds: their parts need not cover what was said (停洗衣 understands the washer).
_WORDS = sorted(w for w, entry in _LEXICON.entries.items() if entry.kind != COMPOUND)
# Words, numbers, and characters no word has (so the exact pass finds nothing and the
# pinyin pass runs), some of which sound like words (等 for 灯).
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(["3", "30", "三成", "半小时后", "hello"]),
    st.sampled_from("侊乭仸等佟侍xyz"),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=7).map("".join))
@example("乭仸打开客厅灯侊侊")  # runs of unknown characters at both ends and inside
@example("xyz")  # nothing but one run
def test_pinyin_pass_tokens_cover_the_text_with_one_token_a_run(text: str) -> None:
    timely = _TIME_WORD.search(text) is not None
    tokens = _tokens(text, _LEXICON._segment(text, timely), {})
    at = 0
    for token in tokens:
        assert token.start == at
        assert text[token.start : token.start + len(token.said)] == token.said
        at = token.start + len(token.said)
    assert at == len(text)
    assert "".join(t.said for t in tokens) == text
    for before, after in pairwise(tokens):
        assert not (before.match == "unknown" and after.match == "unknown")
