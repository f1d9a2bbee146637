"""The name index of one home: which devices a said name can mean, and how well.

Exact names and aliases (compared as `plain_name`: normalised like an utterance, without
的), bare names (客厅台灯 → 台灯), and a fuzzy stage for what the lexer could not place:
candidates come from a character-bigram index, then `rapidfuzz.fuzz.ratio` scores them, on
the characters and on the toneless pinyin. (WRatio and partial_ratio assume words
separated by spaces, which unspaced Chinese does not have.)
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from jiayu.compiler.lexicon import name_variants
from jiayu.compiler.pinyin import name_keys, said_key
from jiayu.home import Home
from jiayu.ir import MatchKind
from jiayu.text import plain_name

FUZZY_CUTOFF = 75.0
"""Lowest fuzz.ratio (0-100) a fuzzy candidate may score; below it a name is not found."""
FUZZY_MARGIN = 8.0
"""A fuzzy winner must beat the runner-up by this much, or the mention is ambiguous."""


@dataclass(frozen=True)
class NameMatch:
    """Devices a mention can mean, and how it matched them."""

    devices: tuple[str, ...]
    """Device ids, in home order."""
    kind: MatchKind
    """exact, alias (a device alias or bare name), pinyin or fuzzy."""
    score: float
    """1.0 for exact and alias; the fuzz ratio / 100 otherwise."""


class NameIndex:
    """Built once per home; immutable and shared by every session and thread."""

    def __init__(self, home: Home) -> None:
        full: dict[str, list[str]] = defaultdict(list)
        alias: dict[str, list[str]] = defaultdict(list)
        bare: dict[str, list[str]] = defaultdict(list)
        bare_of: dict[str, str] = {}
        for device in home.devices:
            full[plain_name(device.name)].append(device.id)
            for a in device.aliases:
                alias[plain_name(a)].append(device.id)
            b = home.bare_name(device)
            if b:
                key = bare_of[device.id] = plain_name(b)
                bare[key].append(device.id)
        # Another word for the same thing (雨棚 for the bare name 遮阳棚, 阳台雨棚 for 阳台遮阳棚),
        # unless the home calls something by it already.
        said = {*full, *alias, *bare}
        for device in home.devices:
            bare_key = bare_of.get(device.id)
            for variant in name_variants(bare_key) if bare_key else ():
                if variant not in said:
                    bare[variant].append(device.id)
            for name in (device.name, *device.aliases):
                for variant in name_variants(plain_name(name)):
                    if variant not in said:
                        alias[variant].append(device.id)
        self._full = {k: tuple(v) for k, v in full.items()}
        self._alias = {k: tuple(v) for k, v in alias.items()}
        self._bare = {k: tuple(v) for k, v in bare.items()}
        # A room's devices by bare name come from the room (洗手间的灯 is its few devices),
        # not from every device with that bare name: a 10,000-device home has 1,400 灯.
        self._bare_of = bare_of
        self._in_room = home.devices_in_room
        surfaces: dict[str, set[str]] = defaultdict(set)
        for table in (self._full, self._alias, self._bare):
            for name, ids in table.items():
                surfaces[name].update(ids)
        order = {d.id: i for i, d in enumerate(home.devices)}
        self._surfaces = {k: tuple(sorted(v, key=order.__getitem__)) for k, v in surfaces.items()}
        # Every answer `exact` and `lookup` can give, made once: a turn then costs a key and a
        # dict read, not merging tuples and building a match (the matches are immutable).
        exact = {k: NameMatch(v, "alias", 1.0) for k, v in self._alias.items()}
        exact.update((k, NameMatch(v, "exact", 1.0)) for k, v in self._full.items())
        self._exact = exact
        merged: dict[str, NameMatch] = {}
        for key in {*self._full, *self._alias, *self._bare}:
            ids = (*self._full.get(key, ()), *self._alias.get(key, ()), *self._bare.get(key, ()))
            kind: MatchKind = "exact" if key in self._full else "alias"
            merged[key] = NameMatch(tuple(dict.fromkeys(ids)), kind, 1.0)
        self._merged = merged
        self._fuzzy: _FuzzyData | None = None
        self._fuzzy_lock = threading.Lock()

    def warm(self) -> None:
        """Build what `fuzzy` needs now rather than on the first mention it is asked about."""
        self._fuzzy_data()

    def _fuzzy_data(self) -> _FuzzyData:
        # Built on first need: the pinyin keys are most of the index's cost (and read the
        # pinyin table), and most turns never get here. Once, under a lock, as sessions on
        # several threads share the index.
        fuzzy = self._fuzzy
        if fuzzy is None:
            with self._fuzzy_lock:
                if self._fuzzy is None:
                    self._fuzzy = _FuzzyData.of(self._surfaces)
                fuzzy = self._fuzzy
        return fuzzy

    def exact(self, mention: str) -> NameMatch | None:
        """A full name or alias match (the device itself); None if there is none."""
        return self._exact.get(_key(mention))

    def bare_in_room(self, bare: str, room: str) -> tuple[str, ...]:
        """Devices in `room` whose bare name is `bare` (客厅 + 灯 → the device 客厅灯)."""
        key = _key(bare)
        return tuple(d.id for d in self._in_room(room) if self._bare_of.get(d.id) == key)

    def lookup(self, mention: str) -> NameMatch | None:
        """Full name, alias or bare name, merged; None if none matches exactly."""
        return self._merged.get(_key(mention))

    def fuzzy(self, mention: str) -> list[tuple[str, NameMatch]]:
        """Names close to the mention, best first: (name, match) with score >= FUZZY_CUTOFF."""
        # Imported here: only a name not found exactly needs it, and it costs start-up.
        from rapidfuzz import fuzz

        key = plain_name(mention)
        if not key:
            return []
        data = self._fuzzy_data()
        candidates = {name for gram in _bigrams(key) for name in data.bigrams.get(gram, ())}
        heard = said_key(key)
        scored = []
        for name in candidates:
            score = max(fuzz.ratio(key, name), max(fuzz.ratio(heard, k) for k in data.keys[name]))
            if score >= FUZZY_CUTOFF:
                scored.append((score, name))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [
            (name, NameMatch(self._surfaces[name], "fuzzy", score / 100)) for score, name in scored
        ]


_key = lru_cache(maxsize=4096)(plain_name)
"""`plain_name` of a mention, remembered: a home's turns say the same few names again and
again, and normalising one costs more than the lookup it is for."""


@dataclass(frozen=True)
class _FuzzyData:
    bigrams: Mapping[str, tuple[str, ...]]
    """Character bigram → the names that have it."""
    keys: Mapping[str, tuple[str, ...]]
    """Name → its toneless pinyin keys."""

    @staticmethod
    def of(names: Mapping[str, object]) -> _FuzzyData:
        bigrams: dict[str, set[str]] = defaultdict(set)
        for name in names:
            for gram in _bigrams(name):
                bigrams[gram].add(name)
        return _FuzzyData(
            {k: tuple(sorted(v)) for k, v in bigrams.items()},
            {name: name_keys(name) for name in names},
        )


def _bigrams(text: str) -> set[str]:
    if len(text) < 2:
        return {text}
    return {text[i : i + 2] for i in range(len(text) - 1)}
