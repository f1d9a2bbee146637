"""Make what was said comparable with the lexicon: one form per character.

Full-width forms become half-width (NFKC), traditional, Hong Kong and Taiwan text becomes
simplified through OpenCC (hk2s, then tw2sp with its phrases: 冷氣 → 冷气, 檯燈 → 台灯), Latin
letters lower case; control characters, emoji and spaces are removed.
The names in a home go through the same function (`plain_name`), so a device named
`TV` or `書房檯燈` is reached by saying it.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable

MAX_LENGTH = 2000
"""Longer input is cut here: no home command is this long, and work stays bounded."""

# Control, format, private-use and unassigned characters, emoji and combining marks.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "So", "Sk", "Mn", "Me"})


# Characters of GB 2312 that traditional text writes for another simplified one (开著 is
# 开着, 开了麽 is 开了么, 乾 is 干): text with one goes through OpenCC too.
_TRADITIONAL_TOO = "著麽乾"

# Text made only of lower-case ASCII letters, digits and ideographs, all of them in GB 2312
# (the simplified character set: no script converter changes one) and none of them
# _TRADITIONAL_TOO, is already normal. Most names and utterances are, and checking that is
# several times cheaper than the steps, which matters for a home of 100,000 names. (With a
# character class leaving _TRADITIONAL_TOO out instead of the three `in` tests below, an
# unseen turn measured about 8k instructions more: benchmarks/instructions.py.)
_PLAIN = re.compile("[a-z0-9\u4e00-\u9fa5]*")


def _simplified(text: str) -> bool:
    """Whether every character of the text is in GB 2312: no ideograph of it is traditional
    (one outside it may be, or be a rarer simplified one)."""
    try:
        text.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def _ideograph(ch: str) -> bool:
    """Whether a character is a CJK ideograph (the unified blocks and their extensions, and
    the compatibility block): only these may be traditional."""
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or ch >= "\U00020000"


_converters: list[Callable[[str], str]] = []
_converters_lock = threading.Lock()


def _to_simplified(text: str) -> str:
    """Hong Kong and Taiwan text in simplified characters and mainland words, by OpenCC
    (loaded once, the first time a character that may be traditional is seen)."""
    if not _converters:
        with _converters_lock:
            if not _converters:
                import opencc  # only now: most processes never see a traditional character

                _converters.extend(opencc.OpenCC(config).convert for config in ("hk2s", "tw2sp"))
    hk2s, tw2sp = _converters
    # tw2sp reads 么 as the traditional 幺 (one), but by then it is hk2s's simplified 麼: the
    # asking particle (开了麼) or a part of 什么 and 怎么, which hk2s has already converted. So
    # 么 is kept: what is between is converted.
    return _KEPT.join(map(tw2sp, hk2s(text).split(_KEPT)))


_KEPT = "么"


def normalize(text: str) -> str:
    """The normalised form of an utterance (or a name)."""
    if (
        len(text) <= MAX_LENGTH
        and _PLAIN.fullmatch(text)
        and _simplified(text)
        and "著" not in text  # _TRADITIONAL_TOO
        and "麽" not in text
        and "乾" not in text
    ):
        return text
    text = unicodedata.normalize("NFKC", text[: MAX_LENGTH * 2])[:MAX_LENGTH]
    if (
        not _simplified(text) and any(_ideograph(ch) and not _simplified(ch) for ch in text)
    ) or any(ch in text for ch in _TRADITIONAL_TOO):
        text = _to_simplified(text)
    text = text.lower().replace("°c", "度").replace("°", "度")
    # Speech recognisers put spaces at random between Chinese words; none carries meaning.
    return "".join(
        ch
        for ch in text
        if not ch.isspace() and unicodedata.category(ch) not in _DROPPED_CATEGORIES
    )


def plain_name(text: str) -> str:
    """The text as names are compared: normalised, and without 的 (客厅的灯 is 客厅灯)."""
    return normalize(text).replace("的", "")


MAX_SHOWN_NAME = 12
"""Device names are data: in replies they are cut to this many characters."""


def shown(name: str) -> str:
    """A device or place name as it may appear in a reply: length-limited."""
    return name if len(name) <= MAX_SHOWN_NAME else name[: MAX_SHOWN_NAME - 1] + "…"
