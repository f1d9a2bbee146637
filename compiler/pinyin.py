"""Toneless pinyin keys, for names that a speech recogniser wrote with the wrong characters.

客厅等 and 客厅灯 share the key "ke ting deng". The home's side is expanded over
heteronyms (重 is zhong or chong) so a name matches however its characters are
read; what was said is read the common way only, which keeps lexing fast.

pypinyin is imported on the first slip, not with this module: its dictionaries take
~50 MiB and most of a second to load, and most utterances never need them.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import islice, product

MAX_VARIANTS = 8
"""Heteronym readings kept per name: enough for real names, bounded for odd ones."""


@lru_cache(maxsize=8192)
def char_key(ch: str) -> str:
    """The common toneless reading of one character; the character itself if it has none."""
    from pypinyin import Style, lazy_pinyin

    return lazy_pinyin(ch, style=Style.NORMAL, errors="default")[0]


def said_key(text: str) -> str:
    """The key of what was said: one reading per character."""
    return " ".join(char_key(ch) for ch in text)


def name_keys(text: str) -> tuple[str, ...]:
    """Every key a home name can be heard as (heteronyms expanded, at most MAX_VARIANTS)."""
    from pypinyin import Style, pinyin

    readings = pinyin(text, style=Style.NORMAL, heteronym=True, errors="default")
    choices = [list(dict.fromkeys(r)) for r in readings]
    keys = (" ".join(combo) for combo in product(*choices))
    return tuple(dict.fromkeys(islice(keys, MAX_VARIANTS)))
