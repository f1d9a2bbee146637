"""How sure the grammar is of a compile, from how each token matched.

Every token contributes a factor: exact and alias matches 1.0, a toneless
pinyin match 0.85 (0.7 for a single syllable, which collides far more often),
an unknown span the resolver may still find fuzzily 0.55. The confidence is
their product, so two slips weigh more than one.
"""

from __future__ import annotations

from collections.abc import Iterable

from jiayu.ir import Token

CONFIDENCE_THRESHOLD = 0.6
"""Below this the engine asks the LLM fallback (when configured) before trusting the grammar."""

_FACTORS = {"exact": 1.0, "alias": 1.0, "pinyin": 0.85, "fuzzy": 0.7, "unknown": 0.55}
CERTAIN = frozenset(match for match, factor in _FACTORS.items() if factor == 1.0)
"""How a token may match at no cost: tokens matched only so have confidence 1.0."""


def confidence(tokens: Iterable[Token]) -> float:
    """The product of the tokens' match factors, in [0, 1]."""
    score = 1.0
    for token in tokens:
        factor = _FACTORS[token.match]
        if token.match == "pinyin" and len(token.said) == 1:
            factor = 0.7
        score *= factor
    return round(score, 4)
