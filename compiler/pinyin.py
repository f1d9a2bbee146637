"""Toneless pinyin keys, for names that a speech recogniser wrote with the wrong characters.

客厅等 and 客厅灯 share the key "ke ting deng". The home's side is expanded over
heteronyms (重 is zhong or chong) so a name matches however its characters are
read; what was said is read the common way only, which keeps lexing fast.

The readings come from pinyin_readings.txt, which scripts/gen_pinyin_table.py generates from
pypinyin's single-character dictionary; pypinyin itself is not imported. Importing it cost
~55 MiB and ~170 ms, most of it its phrase dictionary (~44 MiB), with which a known word got
one reading per character (重庆: chong qing). Without phrases a name's keys cover the other
readings of its characters, most likely first (see `name_keys`); the bound still keeps the
phrase reading of every word of the corpus homes. The table is read on first need (a slip,
or the engine's background warm-up), not with this module: ~13 ms, ~0.5 MiB kept.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from itertools import combinations, product

from jiayu.jsonfile import shipped_text

MAX_VARIANTS = 8
"""Heteronym readings kept per name: enough for real names, bounded for odd ones."""


@dataclass(frozen=True)
class _Table:
    """Every character's readings, without an object per character: ~40k characters, of
    which ~7k have more than one reading."""

    syllables: tuple[str, ...]
    """Every reading; the arrays below hold indexes into it."""
    common: array[int]
    """Code point → 1 + its common reading's index; 0 for a character with no reading."""
    others_of: array[int]
    """The code points that have other readings, ascending."""
    others_start: array[int]
    """Where each of them starts in `others` (one more entry: the end)."""
    others: array[int]
    """The other readings, most common first."""

    @staticmethod
    def load() -> _Table:
        text = shipped_text("jiayu.compiler", "pinyin_readings.txt")
        head, tail = text.split("\n\n")
        rows = [line.split(" ") for line in head.splitlines() if not line.startswith("#")]
        index = {syllable: i for i, (syllable, _) in enumerate(rows)}
        common = array("H", bytes(2 * (max(ord(max(chars)) for _, chars in rows) + 1)))
        for i, (_, chars) in enumerate(rows, 1):
            for ch in chars:
                common[ord(ch)] = i
        others_of, others_start, others = array("I"), array("I"), array("H")
        for line in tail.splitlines():
            ch, *readings = line.split(" ")
            others_of.append(ord(ch))
            others_start.append(len(others))
            # A reading that is no character's common one gets its index here.
            others.extend(index.setdefault(r, len(index)) for r in readings)
        others_start.append(len(others))
        return _Table(tuple(index), common, others_of, others_start, others)

    def common_reading(self, ch: str) -> str | None:
        """The character's common reading; None if it has none."""
        code = ord(ch)
        i = self.common[code] if code < len(self.common) else 0
        return self.syllables[i - 1] if i else None

    def readings(self, ch: str) -> tuple[str, ...]:
        """Every reading of the character, most common first; the character itself if none."""
        first = self.common_reading(ch)
        if first is None:
            return (ch,)
        code = ord(ch)
        at = bisect_left(self.others_of, code)
        if at == len(self.others_of) or self.others_of[at] != code:
            return (first,)
        start, end = self.others_start[at], self.others_start[at + 1]
        return (first, *(self.syllables[i] for i in self.others[start:end]))


_table: _Table | None = None
_table_lock = threading.Lock()


def _readings() -> _Table:
    # Under a lock: the engine's background warm-up and a turn with a slip may both be first.
    global _table
    table = _table
    if table is None:
        with _table_lock:
            if _table is None:
                _table = _Table.load()
            table = _table
    return table


def char_key(ch: str) -> str:
    """The common toneless reading of one character; the character itself if it has none."""
    return _readings().common_reading(ch) or ch


def said_key(text: str) -> str:
    """The key of what was said: one reading per character."""
    return " ".join(map(char_key, text))


def name_keys(text: str) -> tuple[str, ...]:
    """Every key a home name can be heard as (heteronyms expanded, at most MAX_VARIANTS).

    Most likely first, so that the bound drops the least likely: the common reading of
    every character (the name's `said_key`), then the keys that read one character another
    way, then two, and so on; among those, the ones using more common readings first."""
    table = _readings()
    readings = [table.readings(ch) for ch in text]
    said = [r[0] for r in readings]
    keys = {" ".join(said): None}
    varying = [i for i, r in enumerate(readings) if len(r) > 1]
    for n in range(1, len(varying) + 1):
        if len(keys) == MAX_VARIANTS:
            break
        # A change: (a character's position, the index of the reading it takes). Listing a
        # whole level stays cheap: a level past the first is reached only when the first gave
        # fewer than MAX_VARIANTS keys, that is when the name has that few other readings.
        level = [
            tuple(zip(at, picks, strict=True))
            for at in combinations(varying, n)
            for picks in product(*(range(1, len(readings[i])) for i in at))
        ]
        level.sort(key=lambda changes: sum(pick for _, pick in changes))
        for changes in level:
            variant = said.copy()
            for i, pick in changes:
                variant[i] = readings[i][pick]
            keys[" ".join(variant)] = None
            if len(keys) == MAX_VARIANTS:
                break
    return tuple(keys)
