"""The lexer skips a word-role pass when no word of its kinds was lexed: the skips must
change nothing, whatever words are said in whatever order."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jiayu.compiler.lexicon import (
    _SPOKEN_KINDS,
    CLF,
    FILLER,
    _adverbs,
    _counts,
    _roles,
    _spoken,
    _word_roles,
)
from jiayu.ir import Token

# Words of the kinds the passes read or change, and a few they leave alone; the same word
# may come twice (打开打开三个灯), and numbers above and below a thousand (2700开).
_WORDS: list[tuple[str, str, Any]] = [
    ("ON", "打开", "on"),
    ("ON", "开", "on"),
    ("OFF", "关掉", "off"),
    ("SET", "调到", "set"),
    ("NUM", "三", 3.0),
    ("NUM", "2700", 2700.0),
    ("NUM", "一", 1.0),
    (CLF, "个", None),
    (CLF, "盏", None),
    ("BA", "把", "ba"),
    ("SEP", "再", "sep"),
    ("SEP", "，", "sep"),
    ("SEP", "然后", "sep"),
    ("AND", "和", "and"),
    ("NEG", "别", "neg"),
    ("NEG", "不要", "neg"),
    ("TO", "在", "to"),
    ("EXCEPT_POST", "留着", "except"),
    ("ROOM", "客厅", "living"),
    ("TYPE", "灯", "Light"),
    ("NAME", "台灯", "台灯"),
    ("ANY", "随便", "any"),
    ("IT", "佢", "it"),
    ("YIDIAN", "啲", "yidian"),
    ("DOU", "晒", "all"),
    ("CANCEL", "取消", "cancel"),
    ("CANCEL", "算了", "cancel"),
    ("MEDIA", "静音", "mute"),
    ("CONFIRM", "好的", "confirm"),
    ("THEN", "那就", "then"),
    ("ADJ", "暗", "dark"),
    (FILLER, "吧", None),
]


def _tokens(picked: list[int]) -> list[Token]:
    tokens: list[Token] = []
    at = 0
    for i in picked:
        kind, text, value = _WORDS[i]
        tokens.append(Token(kind, text, text, at, "exact", value))
        at += len(text)
    return tokens


# A few words at a time, so that one is often said twice (打开打开) and next to a count.
_SAID = st.lists(st.integers(0, len(_WORDS) - 1), min_size=1, max_size=4, unique=True).flatmap(
    lambda few: st.lists(st.sampled_from(few), max_size=9)
)


@settings(max_examples=1500, deadline=None)
@given(_SAID)
@example([0, 0, 4, 7])  # 打开打开三个: the count merges two words, a verb is still said twice
@example([4, 9])  # 三把: a count, though no classifier was said (把 is read from the text)
def test_skipping_a_pass_changes_nothing(picked: list[int]) -> None:
    tokens = _tokens(picked)
    every_kind = {kind for kind, _, _ in _WORDS} | _SPOKEN_KINDS
    unskipped = _spoken(_roles(_adverbs(_counts(list(tokens)))), every_kind)
    assert _word_roles(list(tokens), "".join(t.said for t in tokens)) == unskipped
