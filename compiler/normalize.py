"""Make what was said comparable with the lexicon: one form per character.

Full-width forms become half-width (NFKC), traditional characters become
simplified, Latin letters lower case; control characters, emoji and spaces are removed.
"""

from __future__ import annotations

import unicodedata

from jiayu.grammar.traditional import TRADITIONAL

MAX_LENGTH = 2000
"""Longer input is cut here: no home command is this long, and work stays bounded."""

_TRANSLATE = str.maketrans(TRADITIONAL)
# Control, format, private-use and unassigned characters, emoji and combining marks.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "So", "Sk", "Mn", "Me"})


def normalize(text: str) -> str:
    """The normalised form of an utterance."""
    text = unicodedata.normalize("NFKC", text[: MAX_LENGTH * 2])[:MAX_LENGTH]
    text = text.translate(_TRANSLATE).lower().replace("°c", "度").replace("°", "度")
    # Speech recognisers put spaces at random between Chinese words; none carries meaning.
    return "".join(
        ch
        for ch in text
        if not ch.isspace() and unicodedata.category(ch) not in _DROPPED_CATEGORIES
    )
