"""The lexicon: fixed vocabulary plus one home's names, and the segmenter over it.

Chinese has no spaces, so the utterance is segmented by dynamic programming
over every lexicon match, minimising (unknown characters, pinyin-matched
characters, tokens). Greedy longest match would split 关小白 as 关小|白; the
minimum-unknown split finds 关|小白. Pinyin matches are tried only when the
exact segmentation leaves unknown characters, so the common case stays fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jiayu.compiler.numbers import NUMBER_START, scan_number
from jiayu.compiler.pinyin import name_keys, said_key
from jiayu.grammar.vocab import CLASSIFIERS, FILLERS, TABLES, WAKE_WORDS
from jiayu.home import Home, plain_name
from jiayu.ir import MatchKind, Token

FILLER = "FILLER"
CLF = "CLF"
UNKNOWN = "NAME"  # unknown spans become names the resolver may still find fuzzily

# Device words: the only place a one-syllable slip (等 for 灯) is believed.
_ONE_SYLLABLE_KINDS = frozenset({"TYPE"})


@dataclass(frozen=True)
class Entry:
    """One surface form in the lexicon."""

    kind: str
    """The grammar terminal it lexes as."""
    value: Any
    """The payload (an id, an attribute, a direction)."""
    canonical: str
    """The surface itself: what a pinyin match is corrected to."""
    match: MatchKind
    """exact for names and vocabulary, alias for a home alias."""


def _fixed_entries() -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for word in (*FILLERS, *WAKE_WORDS):
        entries[word] = Entry(FILLER, None, word, "exact")
    for word in CLASSIFIERS:
        entries[word] = Entry(CLF, None, word, "exact")
    for kind, table in TABLES.items():
        for word, value in table.items():
            entries[word] = Entry(kind, value, word, "exact")
    return entries


_FIXED = _fixed_entries()


def _home_entries(home: Home) -> Iterable[tuple[str, Entry]]:
    # Later entries win a shared surface. Device names come first, then places and scenes,
    # then the fixed vocabulary: a home cannot turn 确认 or 所有 into one of its names, and a
    # bare name 灯 stays the type word 灯 (the resolver still tries it as a name).
    for device in home.devices:
        for word, match in ((device.name, "exact"), *((a, "alias") for a in device.aliases)):
            key = plain_name(word)
            yield key, Entry("NAME", key, key, match)  # type: ignore[arg-type]
        bare = home.bare_name(device)
        if bare:
            key = plain_name(bare)
            yield key, Entry("NAME", key, key, "exact")
    for kind, items in (
        ("ROOM", home.rooms),
        ("FLOOR", home.floors),
        ("GROUP", home.groups),
        ("SCENE", home.scenes),
    ):
        for item in items:
            for word, match in ((item.name, "exact"), *((a, "alias") for a in item.aliases)):
                key = plain_name(word)
                yield key, Entry(kind, item.id, key, match)  # type: ignore[arg-type]
    yield from _FIXED.items()


class Lexicon:
    """Fixed vocabulary plus one home's names; immutable once built, shared by threads."""

    def __init__(self, home: Home) -> None:
        self.entries: dict[str, Entry] = dict(_home_entries(home))
        self._prefixes = frozenset(w[:i] for w in self.entries for i in range(1, len(w) + 1))
        self._max_len = max(map(len, self.entries))
        self._pinyin: dict[str, tuple[Entry, ...]] | None = None

    def pinyin_index(self) -> dict[str, tuple[Entry, ...]]:
        """Toneless keys of every non-filler entry; built on the first slip, then kept."""
        if self._pinyin is None:
            index: dict[str, list[Entry]] = {}
            for word, entry in self.entries.items():
                if entry.kind in (FILLER, CLF) or word.isascii():
                    continue
                for key in name_keys(word):
                    index.setdefault(key, []).append(entry)
            self._pinyin = {k: tuple(v) for k, v in index.items()}
        return self._pinyin

    def lex(self, text: str) -> list[Token]:
        """Segment a normalised utterance into tokens (fillers included, for explanation)."""
        path = self._segment(text, use_pinyin=False)
        if any(kind is None for _, _, kind, _ in path):
            path = self._segment(text, use_pinyin=True)
        return _tokens(text, path)

    def _segment(self, text: str, *, use_pinyin: bool) -> list[tuple[int, int, Any, MatchKind]]:
        n = len(text)
        # cost = (unknown chars, pinyin-matched tokens, tokens); back = (start, entry, match)
        best: list[tuple[int, int, int] | None] = [None] * (n + 1)
        back: list[tuple[int, Any, MatchKind]] = [(0, None, "unknown")] * (n + 1)
        best[0] = (0, 0, 0)
        entries, prefixes, max_len = self.entries, self._prefixes, self._max_len
        pinyin_index = self.pinyin_index() if use_pinyin else None
        for i in range(n):
            cost = best[i]
            if cost is None:
                continue
            unknown, slips, count = cost
            step = (unknown, slips, count + 1)
            for end in range(i + 1, min(i + max_len, n) + 1):
                word = text[i:end]
                if word not in prefixes:
                    break
                entry = entries.get(word)
                if entry is not None:
                    _relax(best, back, end, step, (i, entry, entry.match))
            if text[i] in NUMBER_START:
                number = scan_number(text, i)
                if number is not None:
                    _relax(best, back, number[0], step, (i, number[1], "exact"))
            if pinyin_index is not None:
                for end in range(i + 1, min(i + 8, n) + 1):
                    matches = pinyin_index.get(said_key(text[i:end]))
                    if not matches:
                        continue
                    for entry in matches:
                        if end - i == 1 and entry.kind not in _ONE_SYLLABLE_KINDS:
                            continue
                        if entry.canonical == text[i:end]:
                            continue
                        # Slips count per token: one corrected word (台等 → 台灯) beats
                        # a classifier plus a corrected syllable.
                        cost = (unknown, slips + 1, count + 1)
                        _relax(best, back, end, cost, (i, entry, "pinyin"))
            _relax(best, back, i + 1, (unknown + 1, slips, count + 1), (i, None, "unknown"))
        path: list[tuple[int, int, Any, MatchKind]] = []
        end = n
        while end > 0:
            start, what, match = back[end]
            path.append((start, end, what, match))
            end = start
        path.reverse()
        return path


def _relax(
    best: list[tuple[int, int, int] | None],
    back: list[tuple[int, Any, MatchKind]],
    end: int,
    cost: tuple[int, int, int],
    how: tuple[int, Any, MatchKind],
) -> None:
    current = best[end]
    if current is None or cost < current:
        best[end] = cost
        back[end] = how


def _tokens(text: str, path: list[tuple[int, int, Any, MatchKind]]) -> list[Token]:
    tokens: list[Token] = []
    for start, end, what, match in path:
        said = text[start:end]
        if what is None:
            last = tokens[-1] if tokens else None
            if (
                last is not None
                and last.match == "unknown"
                and last.start + len(last.said) == start
            ):
                merged = last.said + said
                tokens[-1] = Token(UNKNOWN, merged, merged, last.start, "unknown", merged)
            else:
                tokens.append(Token(UNKNOWN, said, said, start, "unknown", said))
        elif isinstance(what, Entry):
            tokens.append(Token(what.kind, what.canonical, said, start, match, what.value))
        else:
            tokens.append(Token("NUM", said, said, start, "exact", what))
    return _adverbs(_counts(tokens))


# Tokens that make a clause's verb; 再 before the verb is an adverb, after it a new clause.
_VERBS = frozenset(
    {
        "ON",
        "OFF",
        "SET",
        "SETV",
        "REL",
        "ADJ",
        "EXTREME",
        "MEDIA",
        "QVERB",
        "QWORD",
        "QSTATE",
        "REPEAT",
        "CONFIRM",
        "CANCEL",
    }
)
_CLAUSE_START = frozenset({"SEP", "IF", "THEN"})


# What a clause can end with: after these, 和/、 starts a new clause.
_CLAUSE_END = _VERBS | {
    "YIDIAN",
    "NUM",
    "DEG",
    "DEG_HALF",
    "PCT",
    "KELVIN",
    "HALF",
    "MODE",
    "SPEED",
}


def _adverbs(tokens: list[Token]) -> list[Token]:
    """Words whose role depends on where the clause stands:
    - 再 after the target and before the verb (把它们再打开) means "again", not "and then",
      so it is dropped like a filler;
    - 、/和 right after a finished clause (客厅灯关掉、卧室灯打开) separates clauses;
    - a verb said twice in a row (打开打开客厅灯) is said once."""
    out: list[Token] = []
    has_verb = False
    has_words = False
    for token in tokens:
        last = next((t for t in reversed(out) if t.kind != FILLER), None)
        if token.kind == "SEP" and token.text == "再" and has_words and not has_verb:
            out.append(Token(FILLER, token.text, token.said, token.start, token.match, None))
            continue
        if token.kind == "AND" and last is not None and last.kind in _CLAUSE_END and has_words:
            token = Token("SEP", token.text, token.said, token.start, token.match, "sep")
        elif (
            last is not None
            and token.kind in _VERBS
            and last.kind == token.kind
            and last.text == token.text
        ):
            out.append(Token(FILLER, token.text, token.said, token.start, token.match, None))
            continue
        if token.kind in _CLAUSE_START:
            has_verb = has_words = False
        elif token.kind in _VERBS:
            has_verb = True
        elif token.kind != FILLER:
            has_words = True
        out.append(token)
    return out


def _counts(tokens: list[Token]) -> list[Token]:
    """三个 / 两盏 / 两把: a number and a classifier make one COUNT token."""
    out: list[Token] = []
    for token in tokens:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "NUM"
            and (token.kind == CLF or (token.kind == "BA" and token.text == "把"))
        ):
            out[-1] = Token(
                "COUNT",
                prev.said + token.said,
                prev.said + token.said,
                prev.start,
                "exact",
                int(prev.value),
            )
        elif token.kind == CLF:
            out.append(Token(FILLER, token.text, token.said, token.start, token.match, None))
        else:
            out.append(token)
    return out
