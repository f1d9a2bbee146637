"""The words people compose from the vocabulary's morphemes, derived once per process.

grammar/vocab.py lists morphemes by their class: verb stems, their complements and aspects,
degrees and qualities, change verbs, wrappers. A speaker composes them freely (关掉了, 整开,
开一哈, 锁埋, 有点闷, 冻死了, 变小), so the surface forms are derived here, when the module is
first imported, and every home's lexicon shares them. A form the tables list is kept as
listed: a derived form never takes a surface another table (or a filler, or a compound) says.
"""

from __future__ import annotations

from typing import Any

from jiayu.grammar.vocab import (
    ASPECTS,
    CHANGE_VERBS,
    COMPLAINT_WORDS,
    COMPOUNDS,
    DEGREE_ENDINGS,
    DEGREES,
    DOING_VERBS,
    FILLERS,
    LOCK_STEM,
    OFF_COMPLEMENTS,
    OFF_RESULTS,
    OFF_STEMS,
    ON_COMPLEMENTS,
    ON_RESULTS,
    ON_STEMS,
    PROGRESS_ASKED,
    PROGRESS_RESULTS,
    PROGRESS_VERBS,
    QUALITIES,
    QUALITIES_ALONE,
    SET_STEMS,
    SET_TO,
    SIZE_ADJECTIVES,
    TABLES,
    WRAPPERS,
)

_PACE_ENDS = "快慢"  # a word ending in a pace keeps its 一点 (凉快一点 is not 凉 + 快一点)
# An aspect the lexer drops as a filler anyway (了, 一下, 一哈) needs no form of its own: the
# verb and the filler are read as two words, fewer than a number would make of 一. Only the
# others are composed with a verb (开着, 关咗, 开返).
_BOUND_ASPECTS = tuple(a for a in ASPECTS if a not in FILLERS and a not in WRAPPERS)


def _said_plainly(stems: tuple[str, ...], complements: tuple[str, ...]) -> list[str]:
    """The switching stems with or without a complement (a one-syllable verb takes one: 开起来;
    开启 and 关闭 are verb and result already). These are also the switching verbs a
    recogniser may mishear and be corrected to (关掉 for 关调); a form with an aspect or a
    verb of doing is believed only when said exactly, which keeps the index of sounds small."""
    return [
        stem + complement
        for stem in stems
        for complement in ("", *(complements if len(stem) == 1 else ()))
    ]


def _switching(
    stems: tuple[str, ...], complements: tuple[str, ...], results: tuple[str, ...]
) -> list[str]:
    """A switching verb with or without a complement (开, 开起来: a one-syllable verb takes
    one; 开启 and 关闭 are verb and result already), a verb of doing with its result (整开),
    each with or without an aspect (开着, 关咗, 整开返), and a one-syllable verb said twice
    around 一 (开一开)."""
    bases = _said_plainly(stems, complements)
    bases += [verb + result for verb in DOING_VERBS for result in results]
    forms = [base + aspect for base in bases for aspect in ("", *_BOUND_ASPECTS)]
    forms += [stem + "一" + stem for stem in stems if len(stem) == 1]
    return forms


def _off_words() -> list[str]:
    # 锁 alone is the type word (门锁): only its forms with a complement or any aspect
    # switch (锁了, 锁一下), never 锁 and a filler.
    locked = [LOCK_STEM + end for end in (*OFF_COMPLEMENTS, *ASPECTS)]
    return [*_switching(OFF_STEMS, OFF_COMPLEMENTS, OFF_RESULTS), *locked]


def _relative_words() -> dict[str, Any]:
    adjectives = {word: how for word, how in TABLES["ADJ"].items() if how[1] != 0 or how[2] != 0}
    words = {verb + adj: how for verb in CHANGE_VERBS for adj, how in adjectives.items()}
    for verb, sizes in SIZE_ADJECTIVES.items():
        words.update({verb + adj: adjectives[adj] for adj in sizes})
    return words


def _complaint_words() -> dict[str, str]:
    words: dict[str, str] = {}
    for kind, qualities in QUALITIES.items():
        for quality in qualities:
            for degree in DEGREES:
                words[degree + quality] = kind
            if kind not in ("high", "low"):  # 大死了 says nothing of what is too big
                for ending in DEGREE_ENDINGS:
                    words[quality + ending] = kind
    words.update(
        {
            quality: kind
            for kind, qs in QUALITIES.items()
            for quality in qs
            if quality in QUALITIES_ALONE
        }
    )
    return words


def derived() -> dict[str, dict[str, Any]]:
    """Every composed form, by the kind of word it is (the grammar terminal), before the
    listed words are taken out."""
    return {
        "ON": dict.fromkeys(_switching(ON_STEMS, ON_COMPLEMENTS, ON_RESULTS), "on"),
        "OFF": dict.fromkeys(_off_words(), "off"),
        "SET": dict.fromkeys((stem + to for stem in SET_STEMS for to in SET_TO), "set"),
        "REL": _relative_words(),
        "COMPLAINT": {**_complaint_words(), **COMPLAINT_WORDS},
        "PROGRESS": dict.fromkeys(
            (
                verb + result + asked
                for verb in PROGRESS_VERBS
                for result in PROGRESS_RESULTS
                for asked in PROGRESS_ASKED
            ),
            "progress",
        ),
    }


def _vocabulary(
    composed: dict[str, dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], tuple[str, ...], dict[str, Any]]:
    listed = {word for table in TABLES.values() for word in table}
    listed.update(FILLERS, COMPOUNDS)
    tables = {kind: dict(table) for kind, table in TABLES.items()}
    taken = set(listed)
    for kind, forms in composed.items():
        table = tables.setdefault(kind, {})
        for word, value in forms.items():
            if word not in taken:  # listed words keep their class; the first kind derived wins
                table[word] = value
                taken.add(word)
    fillers = (*FILLERS, *(w for w in WRAPPERS if w not in taken))
    compounds = dict(COMPOUNDS)
    # A word ending in a pace keeps its 一点: 调凉快一点 is not 调凉 + 快一点.
    little = TABLES["YIDIAN"]
    for kind in ("ADJ", "REL"):
        for word, how in tables[kind].items():
            if word[-1] in _PACE_ENDS:
                for bit in little:
                    compounds.setdefault(
                        word + bit, ((kind, word, how, len(word)), ("YIDIAN", bit, 1, len(bit)))
                    )
    return tables, fillers, compounds


_COMPOSED = derived()
WORDS, FILLER_WORDS, COMPOUND_WORDS = _vocabulary(_COMPOSED)
UNHEARD: frozenset[str] = frozenset(
    {word for kind in ("ON", "OFF") for word in _COMPOSED[kind]}
    - set(_said_plainly(ON_STEMS, ON_COMPLEMENTS))
    - set(_said_plainly(OFF_STEMS, OFF_COMPLEMENTS))
)
"""Composed switching verbs believed only when said exactly, never by their sound."""
"""The vocabulary the lexicon knows: every table's listed and composed words by kind, the
fillers with the wrappers, and the compounds (the vocabulary's and those composed here)."""
