"""Make what was said comparable with the lexicon: one form per character.

Full-width forms become half-width (NFKC), traditional characters become
simplified, Latin letters lower case; control characters, emoji and spaces are removed.
The names in a home go through the same function (`plain_name`), so a device named
`TV` or `書房檯燈` is reached by saying it.
"""

from __future__ import annotations

import re
import unicodedata

from jiayu.grammar.traditional import TRADITIONAL

MAX_LENGTH = 2000
"""Longer input is cut here: no home command is this long, and work stays bounded."""

_TRANSLATE = str.maketrans(TRADITIONAL)
# Control, format, private-use and unassigned characters, emoji and combining marks.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "So", "Sk", "Mn", "Me"})


def _ranges(codepoints: list[int]) -> str:
    spans: list[tuple[int, int]] = []
    for c in codepoints:
        if spans and spans[-1][1] == c - 1:
            spans[-1] = (spans[-1][0], c)
        else:
            spans.append((c, c))
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in spans)


# Text made only of characters every step above leaves alone (lower-case ASCII letters,
# digits, simplified ideographs) is already normal. Most names and utterances are, and
# checking that is several times cheaper than the steps, which matters for a home of
# 100,000 names.
_ALREADY_NORMAL = re.compile(
    "[a-z0-9"
    + _ranges(
        [
            c
            for c in range(0x4E00, 0xA000)
            if chr(c) not in TRADITIONAL and unicodedata.category(chr(c)) == "Lo"
        ]
    )
    + "]*"
)


def normalize(text: str) -> str:
    """The normalised form of an utterance (or a name)."""
    if len(text) <= MAX_LENGTH and _ALREADY_NORMAL.fullmatch(text):
        return text
    text = unicodedata.normalize("NFKC", text[: MAX_LENGTH * 2])[:MAX_LENGTH]
    text = text.translate(_TRANSLATE).lower().replace("°c", "度").replace("°", "度")
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
