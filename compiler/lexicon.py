"""The lexicon: fixed vocabulary plus one home's names, and the segmenter over it.

Chinese has no spaces, so the utterance is segmented by dynamic programming
over every lexicon match, minimising (unknown characters, pinyin-matched
characters, tokens). Greedy longest match would split 关小白 as 关小|白; the
minimum-unknown split finds 关|小白. Pinyin matches are tried only when the
exact segmentation leaves unknown characters, so the common case stays fast,
and a pinyin reading may never cut through a word said exactly (关掉卫生间 is
关掉 + 卫生间 even when 掉卫 sounds like 调为): a fixed word said exactly beats a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from typing import Any, NamedTuple, cast

from jiayu.compiler.numbers import (
    KELVIN_FLOOR,
    NUMBER_START,
    TIME_START,
    TIME_WORDS,
    scan_number,
    scan_time,
)
from jiayu.compiler.pinyin import char_key, name_keys
from jiayu.grammar.morphology import doing_asked
from jiayu.grammar.vocab import (
    ADDRESSEES,
    CLASSIFIERS,
    COMPOUND_WORDS,
    DEMONSTRATIVES,
    FILLER_WORDS,
    GREETINGS,
    HELPED_FOR,
    LOCK_STEM,
    NAME_SYNONYMS,
    REQUESTS,
    ROOM_SYNONYMS,
    SCENE_ENDS,
    SET_CLASSIFIERS,
    SIZE_ADJECTIVES,
    SIZE_NAMES,
    STATEMENT_END,
    TABLES,
    UNHEARD,
    WAKE_WORDS,
)
from jiayu.home import Home
from jiayu.ir import MatchKind, Timing, Token
from jiayu.text import plain_name

FILLER = "FILLER"
CLF = "CLF"
COMPOUND = "COMPOUND"
# Fixed words a home's own names take over (a device called 宝贝 is that device).
_SOFT_KINDS = frozenset({"NOT_HOME", "NAME", "PRESET", "CALLED"})
UNKNOWN = "NAME"  # unknown spans become names the resolver may still find fuzzily

# How many syllables of a pinyin key's beginnings are kept to end a slip search early. Most
# spans that begin no key are known by their first syllable or two; the few that go on are
# tried to the end, and keeping every longer beginning would cost megabytes in a home of
# 10,000 devices (305房间 reads san ling wu fang jian).
_KNOWN_STARTS = 3
# Device words: the only place a one-syllable slip (等 for 灯) is believed.
_ONE_SYLLABLE_KINDS = frozenset({"TYPE"})
# The only words believed when they are only heard (a pinyin reading): the home's names,
# places and scenes, the device types, and 打开/关闭 — what a recogniser gets wrong and a
# slip of which is asked back or acts on the device said. Every other word is believed only
# when said exactly. Found by the fail-closed property, one kind at a time, until the list was
# turned round: sounds read as 确认 must never confirm an unlock; 佟侍 read as 同时 made a
# clause boundary; 乭仸 as 什么 a question beside a sent command; 乽亖 as 这台 a reference;
# 妈 as 吗; 打开一半仁 as 一半儿 opened a curtain; 仕云 as 室温 a query clause; 灯侊 as 橙光
# coloured the light strips orange.
_BY_SOUND_KINDS = frozenset({"NAME", "TYPE", "ROOM", "FLOOR", "GROUP", "SCENE", "ON", "OFF"})
# Kinds that name the same sort of thing: a reading by sound may not swallow a word of its
# family said exactly (a device's name or type; a place).
_FAMILY = {"NAME": "DEVICE", "TYPE": "DEVICE", "ROOM": "PLACE", "FLOOR": "PLACE", "GROUP": "PLACE"}


class Entry(NamedTuple):
    """One surface form in the lexicon. A named tuple, not a frozen dataclass: a home of
    10,000 devices makes tens of thousands, and a frozen dataclass takes twice as long to
    make."""

    kind: str
    """The grammar terminal it lexes as."""
    value: Any
    """The payload (an id, an attribute, a direction)."""
    canonical: str
    """The surface itself: what a pinyin match is corrected to."""
    match: MatchKind
    """exact for names and vocabulary, alias for a home alias."""


def _fixed_entries(*, soft: bool) -> dict[str, Entry]:
    # tuple.__new__, not Entry(...): a named tuple's own __new__ is a Python function, and
    # some 5,000 entries are made at import (1.39 → 0.95 ms).
    new = tuple.__new__
    entries: dict[str, Entry] = {}
    if not soft:
        for word in (*FILLER_WORDS, *WAKE_WORDS):
            entries[word] = new(Entry, (FILLER, None, word, "exact"))
        for word in CLASSIFIERS:
            entries[word] = new(Entry, (CLF, None, word, "exact"))
        for word, parts in COMPOUND_WORDS.items():
            entries[word] = new(Entry, (COMPOUND, parts, word, "exact"))
    for kind, table in TABLES.items():
        if (kind in _SOFT_KINDS) == soft:
            for word, value in table.items():
                entries[word] = new(Entry, (kind, value, word, "exact"))
    return entries


_Word = tuple[Entry | None, MatchKind, bool, str | None]
"""What the segmenter finds for a span: (its entry, how it matches, whether it begins a longer
word, and the word when its token is one kept in Lexicon._made: any word but a compound);
_PREFIX when it only begins longer words (Lexicon.__init__)."""
_PREFIX: _Word = (None, "unknown", True, None)
_Number = tuple[Any, MatchKind, bool, None]
"""A number, a time or a pinyin reading found by the segmenter, in a _Word's shape."""
_UNKNOWN_STEP: _Word = (None, "unknown", False, None)
_Segmentation = tuple[list[int], list[_Word | _Number]]
"""A segmentation as how it ends at each offset: where its last step starts, and what that
step read (_tokens reads it from the end)."""
_FIXED = _fixed_entries(soft=False)
_SOFT = _fixed_entries(soft=True)


def _home_entries(home: Home) -> tuple[dict[str, Entry], frozenset[str], list[str]]:
    """Every entry, by its surface; every character of the names of the home's devices,
    groups and scenes; and the surfaces whose entry is the home's own. One pass, each name
    made plain once."""
    # Later entries win a shared surface. Device names come first, then places and scenes,
    # then the fixed vocabulary: a home cannot turn 确认 or 所有 into one of its names, and a
    # bare name 灯 stays the type word 灯 (the resolver still tries it as a name). Words of
    # other domains (天气, 你好) come first of all: a scene may well be called 晚安.
    entries: dict[str, Entry] = {
        **dict(_room_variants(home)),
        **dict(_name_variants(home)),
        **dict(_scene_variants(home)),
    }
    names: list[str] = []  # their characters are taken all at once, at the end
    # Most rooms have the same few bare names (台灯, 空调): each is made plain only once.
    bare_entries: dict[str, Entry] = {}
    for device in home.devices:
        key = plain_name(device.name)
        entries[key] = Entry("NAME", key, key, "exact")
        names.append(key)
        for alias in device.aliases:
            key = plain_name(alias)
            entries[key] = Entry("NAME", key, key, "alias")
            names.append(key)
        for preset in device.presets:
            # A device's own preset words (宝宝风): a value, unless a name or the fixed
            # vocabulary says the same (both come later and win).
            key = plain_name(preset)
            entries[key] = Entry("PRESET", key, key, "exact")
        bare = home.bare_name(device)
        if bare:
            entry = bare_entries.get(bare)
            if entry is None:
                key = plain_name(bare)
                entry = bare_entries[bare] = Entry("NAME", key, key, "exact")
            entries[entry.canonical] = entry
    for kind, items in (
        ("ROOM", home.rooms),
        ("FLOOR", home.floors),
        ("GROUP", home.groups),
        ("SCENE", home.scenes),
    ):
        for item in items:
            for word, match in ((item.name, "exact"), *((a, "alias") for a in item.aliases)):
                key = plain_name(word)
                entries[key] = Entry(kind, item.id, key, match)  # type: ignore[arg-type]
                if kind in ("GROUP", "SCENE"):
                    names.append(key)
    own = [word for word in entries if word not in _FIXED]
    return {**_SOFT, **entries, **_FIXED}, frozenset("".join(names)), own


def _scene_variants(home: Home) -> Iterable[tuple[str, Entry]]:
    """A scene said with another word for "scene" than its name ends in (睡眠模式 as 睡眠场景),
    and its alias with any (晚安 as 晚安模式, 晚安场景): aliases of the scene (the home's own
    entries come later and win)."""
    for scene in home.scenes:
        for word in (scene.name, *scene.aliases):
            key = plain_name(word)
            base = next((key[: -len(end)] for end in SCENE_ENDS if key.endswith(end)), key)
            if base:
                for end in SCENE_ENDS:
                    yield base + end, Entry("SCENE", scene.id, base + end, "alias")


def _room_variants(home: Home) -> Iterable[tuple[str, Entry]]:
    """Rooms said by another everyday word (睡房 for 卧室), as aliases; a variant the home
    uses for anything else is left to the home (its own entries come later and win)."""
    found: dict[str, set[str]] = {}
    for room in home.rooms:
        for word in (room.name, *room.aliases):
            key = plain_name(word)
            for usual, variant in ROOM_SYNONYMS:
                if usual in key:
                    found.setdefault(key.replace(usual, variant), set()).add(room.id)
    for said, rooms in found.items():
        if len(rooms) == 1:  # a variant two rooms could mean names neither
            yield said, Entry("ROOM", rooms.pop(), said, "alias")


def name_variants(name: str) -> Iterator[str]:
    """A device's plain name (or bare name) said by another word for the same thing: 阳台雨棚
    for 阳台遮阳棚, 雨棚 for 遮阳棚 (the resolver finds the device by these too)."""
    for usual, variant in NAME_SYNONYMS:
        if usual in name:
            yield name.replace(usual, variant)


def _name_variants(home: Home) -> Iterable[tuple[str, Entry]]:
    """The variants of the devices' names as names of their own (the home's own names come
    later and win)."""
    for device in home.devices:
        bare = home.bare_name(device)
        for word in (device.name, *device.aliases, *((bare,) if bare else ())):
            for said in name_variants(plain_name(word)):
                yield said, Entry("NAME", said, said, "alias")


def _fixed_words() -> dict[str, _Word]:
    """The fixed vocabulary's words and their beginnings, as Lexicon._words holds them: made
    once per process, copied by each home's lexicon."""
    fixed = {**_SOFT, **_FIXED}
    words: dict[str, _Word] = {}
    for word in fixed:
        # Longest first, stopping at one already there: then so are all shorter ones. (A
        # while loop: a range per word was a third of the time of making these.)
        end = len(word) - 1
        while end and (prefix := word[:end]) not in words:
            words[prefix] = _PREFIX
            end -= 1
    for word, entry in fixed.items():
        kept = word if entry.kind != COMPOUND else None
        words[word] = (entry, entry.match, word in words, kept)
    return words


_FIXED_WORDS = _fixed_words()
_FIXED_MAX_LEN = max(map(len, _FIXED_WORDS))
_FIXED_PLACES = frozenset(
    # The fixed place words, read from their two tables (each word whose entry kept the
    # table's kind) rather than by another pass over every fixed word.
    word
    for kind in ("HOME", "THIS_ROOM")
    for word in TABLES[kind]
    if _FIXED[word].kind == kind
)
_FIXED_NAMES = tuple(word for word, entry in _SOFT.items() if entry.kind == "NAME")


_fixed_keys: list[dict[str, tuple[str, ...]]] = []


def _fixed_sounds() -> dict[str, tuple[str, ...]]:
    """How each fixed word heard by sound may be heard (name_keys): worked out once per
    process, at the first lexicon's first slip, and shared by every home's."""
    if not _fixed_keys:
        _fixed_keys.append(
            {
                word: name_keys(word)
                for word, entry in _FIXED.items()
                if entry.kind in _BY_SOUND_KINDS and not word.isascii() and word not in UNHEARD
            }
        )
    return _fixed_keys[0]


TOKENS_KEPT = 1024
"""Tokens of words said exactly kept per lexicon, by offset and word (~0.5 KB each).

A Token is frozen, and a word said exactly at an offset always makes the same one, so it is
made once and shared by every compile that says it there: making one was a sixth of lexing
a sentence never said before, and people say the same words at the same places (打开 first).
Of the peer sentences not said before, 82% of the tokens were kept from the other half
(cachegrind: lex 80.7k → 67.1k instructions a sentence)."""


class Lexicon:
    """Fixed vocabulary plus one home's names; immutable once built, shared by threads."""

    def __init__(self, home: Home) -> None:
        entries, name_chars, own = _home_entries(home)
        self.entries: dict[str, Entry] = entries
        self.name_chars: frozenset[str] = name_chars
        """Every character of the home's names: an unknown word sharing none of them is no
        slip of a name (compiler/parse.py)."""
        # Every beginning of a word: (the word's entry and how it matches, or None twice when
        # it only begins longer words; whether it begins a longer one). One lookup per span
        # tells the segmenter what it found and whether to go on, without touching the entry:
        # a span past a word no longer one begins is not looked up at all. The fixed
        # vocabulary's are made once (_FIXED_WORDS); only the home's own words are added here.
        words = dict(_FIXED_WORDS)
        for word in own:
            # Longest first, stopping at one already there: then so are all shorter ones.
            # Names in a big home share long prefixes (305房间台灯, 305房间空调).
            for end in range(len(word) - 1, 0, -1):
                prefix = word[:end]
                got = words.get(prefix)
                if got is None:
                    words[prefix] = _PREFIX
                    continue
                if not got[2]:  # a word of its own that now begins a longer one
                    words[prefix] = (got[0], got[1], True, got[3])
                break
        for word in own:
            entry = entries[word]
            got = words.get(word)
            begins = got is not None and (got[0] is None or got[2])
            words[word] = (entry, entry.match, begins, word if entry.kind != COMPOUND else None)
        self._words = words
        self._max_len = max([_FIXED_MAX_LEN, *map(len, own)])
        # The two characters either side of each place a name could be split by 的 (插排|插座2
        # gives 排插): a 的 between two others splits no name (Lexicon._names_across_de). Not
        # after a place's whole name: 客厅的灯 is read by the resolver, as a place and a noun.
        places = {word for word in own if entries[word].kind in _PLACES} | _FIXED_PLACES
        named = [w for w in (*own, *_FIXED_NAMES) if entries[w].kind == "NAME"]
        self._splits = frozenset(
            {
                key[j - 1 : j + 1]
                for key in named
                for j in range(1, len(key))
                if key[:j] not in places
            }
        )
        self._pinyin: tuple[dict[str, tuple[Entry, ...]], frozenset[str]] | None = None
        self._made: dict[tuple[int, str], Token] = {}

    def pinyin_index(self) -> dict[str, tuple[Entry, ...]]:
        """Toneless keys of every non-filler entry; built on the first slip, then kept."""
        return self._sounds()[0]

    def _sounds(self) -> tuple[dict[str, tuple[Entry, ...]], frozenset[str]]:
        """The pinyin index, and every key in it cut short after one of its first
        _KNOWN_STARTS syllables: a span of at most that many syllables whose key is neither
        one of these nor a key of the index starts no key at all."""
        if self._pinyin is None:
            index: dict[str, list[Entry]] = {}
            fixed = _fixed_sounds()
            for word, entry in self.entries.items():
                if entry.kind not in _BY_SOUND_KINDS or word.isascii() or word in UNHEARD:
                    continue
                keys = fixed.get(word) if entry is _FIXED.get(word) else None
                for key in name_keys(word) if keys is None else keys:
                    index.setdefault(key, []).append(entry)
            starts: set[str] = set()
            for key in index:
                # Longest first, stopping at one already kept: then so are all shorter ones.
                start = " ".join(key.split(" ", _KNOWN_STARTS)[:-1])
                while start and start not in starts:
                    starts.add(start)
                    start = start.rpartition(" ")[0]
            # One assignment: a thread lexing while the warm-up builds sees both or neither.
            self._pinyin = ({k: tuple(v) for k, v in index.items()}, frozenset(starts))
        return self._pinyin

    def lex(self, text: str) -> list[Token]:
        """Segment a normalised utterance into tokens (fillers included, for explanation)."""
        # A time needs a time word (_TIME_WORD); most utterances have none, so never scan
        # for one.
        timely = _TIME_WORD.search(text) is not None
        found = self._segment_exact(text, timely) or self._segment(text, timely)
        tokens = _tokens(text, found, self._made)
        if "的" in text or "里" in text or "嘅" in text:  # every 的 word has one (_DE_WORD)
            tokens = self._names_across_de(text, tokens)  # most utterances have none
        return _word_roles(tokens, text)

    def _names_across_de(self, text: str, tokens: list[Token]) -> list[Token]:
        """A device's name said with 的 inside is that name (CONTRACTS: a mention equal to a
        name ignoring 的): 插排的插座2 is the device 插排插座2, and 插排的灯 the device 插排灯,
        not the device 插排 (a type word) with a value 2. The segmenter cannot see such a name,
        as 的 splits the word. Only name words, type words, numbers and places around 的 are
        joined, never across a verb: 把插排的灯调到2 keeps its value."""
        de = _DE_WORD.search(text)
        splits, n = self._splits, len(text)
        while de is not None:
            before, after = de.start() - 1, de.end()
            if before >= 0 and after < n and text[before] + text[after] in splits:
                break
            de = _DE_WORD.search(text, after)
        else:
            return tokens  # no 的 stands where a name could be split
        parts = _NAME_PARTS
        for d in range(1, len(tokens) - 1):  # a 的 first or last splits nothing
            if (
                tokens[d].kind == "DE"
                and tokens[d + 1].kind in parts
                and tokens[d - 1].kind in parts
                and (joined := self._name_across(tokens, d)) is not None
            ):
                i, k, entry = joined
                start, end = tokens[i].start, tokens[k].start + len(tokens[k].said)
                said = text[start:end]
                name = Token("NAME", entry.canonical, said, start, entry.match, entry.value)
                # Rarely another name is split further on: look again in the joined words.
                return self._names_across_de(text, [*tokens[:i], name, *tokens[k + 1 :]])
        return tokens

    def _name_across(self, tokens: list[Token], d: int) -> tuple[int, int, Entry] | None:
        """The longest name said across the 的 at `d`: (its first token, its last, the name's
        entry). A place begins none: 客厅的灯和空调 is the room's (the resolver reads it)."""
        left = d
        while left > 0 and tokens[left - 1].kind in _NAME_PARTS:
            left -= 1
        right = d
        while right + 1 < len(tokens) and tokens[right + 1].kind in _NAME_PARTS:
            right += 1
        for i in range(left, d):
            if tokens[i].kind not in _NAME_START:
                continue
            for k in range(right, d, -1):
                for key in _spellings(tokens[i : k + 1]):
                    entry = self.entries.get(key)
                    if entry is not None and entry.kind == "NAME":
                        return i, k, entry
        return None

    def _segment_exact(self, text: str, timely: bool) -> _Segmentation | None:
        """The best segmentation of `text` into words and numbers said exactly (the fewest
        tokens; of equal counts, the first found), or None when every segmentation leaves a
        character unknown: lex then reads the utterance again, with pinyin (_segment).

        No segmentation with an unknown character is kept, and no word is looked up from an
        offset only one reaches: the best segmentation, when one leaves nothing unknown, is made
        of the same steps the full costs (_segment) would find, as a segmentation with an
        unknown character costs more than any without, and of those none ties another."""
        n = len(text)
        best = [n + 1] * (n + 1)  # more tokens than any segmentation has: not reached
        best[0] = 0
        # How the best segmentation up to an offset ends: the step's start, and what it read
        # (a word's own _Word, never made here, or a number's).
        segmentation: _Segmentation = ([0] * (n + 1), [_UNKNOWN_STEP] * (n + 1))
        self._said(text, timely, best, segmentation, n)
        return segmentation if best[n] <= n else None

    def _said(
        self,
        text: str,
        timely: bool,
        best: list[int],
        segmentation: _Segmentation,
        reached: int,
        heard: Callable[[int, int], None] | None = None,
    ) -> None:
        """The dynamic programme both segmenters share: from each offset in turn whose best
        cost is under `reached`, every word and number said exactly is kept as the way to its
        end when one step more costs less than the best way there so far; `heard(i, step)`
        adds the ways from `i` the exact words are not (_segment: an unknown character and
        the words heard). One loop for every offset, not a call per offset: the calls were
        about a tenth of lexing an utterance never said before (its bytecodes)."""
        start_of, step_of = segmentation
        get = self._words.get
        # Where a number (or, in a timely utterance, a time) may start: a cheap test before
        # scanning for one.
        starts = TIME_START if timely else NUMBER_START
        # No word has the NUL normalize drops: a lookup past the last character finds
        # nothing, so the lookups stop there without a test of the offset at every step.
        padded = text + "\0"
        for i, ch in enumerate(text):
            step = best[i] + 1
            if step > reached:
                continue  # reached by no segmentation the caller keeps
            if heard is not None:
                heard(i, step)
            # No beginning of a word is longer than the longest word: the lookups stop there.
            # A while loop, not `for end in range(...)`: a range per offset cost a fifth of
            # the segmentation (7.0 → 5.6 µs a peer sentence, in a tight loop).
            end = i + 1
            word = get(ch)
            while word is not None:
                if word[0] is not None and step < best[end]:
                    best[end] = step
                    start_of[end] = i
                    step_of[end] = word
                if not word[2]:
                    break
                end += 1
                word = get(padded[i:end])
            if ch in starts:
                for end, value in _numbers_at(text, i, timely):
                    if step < best[end]:
                        best[end] = step
                        start_of[end] = i
                        step_of[end] = (value, "exact", False, None)

    def _segment(self, text: str, timely: bool) -> _Segmentation:
        """The best segmentation of `text` when some character is said by no word: words said
        exactly, words heard (pinyin) and unknown characters, the fewest unknown characters
        first, then the fewest heard words, then the fewest tokens; of equal costs, the first
        found."""
        n = len(text)
        # The cost of a segmentation is (unknown chars, pinyin-matched tokens, tokens), packed
        # into one int of three `width`-bit fields so that ints compare as the tuples would,
        # cheaper than building and comparing a tuple at every step. No field can exceed
        # n < 2**width, so none carries into the next.
        width = n.bit_length()
        slip, unknown = 1 << width, 1 << 2 * width
        worst = unknown * (n + 1)  # worse than any segmentation
        best = [worst] * (n + 1)
        best[0] = 0
        # How the best segmentation up to an offset ends, as in _segment_exact.
        start_of = [0] * (n + 1)
        step_of: list[_Word | _Number] = [_UNKNOWN_STEP] * (n + 1)
        words = self._words
        sounds, sound_starts = self._sounds()
        inside = self._exact_interiors(text)
        # Each character's reading, once: said_key reads every character on its own, so
        # the key of text[i:end] is " ".join(heard[i:end]).
        heard = [char_key(ch) for ch in text]

        def unknown_or_heard(i: int, step: int) -> None:
            # One unknown character more. The ways from one offset never tie (a word said
            # exactly costs less than one heard, and that less than an unknown character),
            # so the order they are tried in from it changes nothing.
            if step + unknown < best[i + 1]:
                best[i + 1] = step + unknown
                start_of[i + 1] = i
                step_of[i + 1] = _UNKNOWN_STEP
            if i in inside:
                return
            # Slips count per token: one corrected word (台等 → 台灯) beats a classifier
            # plus a corrected syllable.
            slipped = step + slip
            for end in range(i + 1, min(i + 8, n) + 1):
                key = " ".join(heard[i:end])
                matches = sounds.get(key, ())
                if not matches and end - i <= _KNOWN_STARTS and key not in sound_starts:
                    break  # a longer span's key is this one and more syllables
                if end in inside:
                    continue
                # A word of the same family said exactly at the start of the span, with
                # more after it: the reading would add only the rest (灯侊 is 灯 and
                # noise, not 灯光; 灯代 is 灯 and noise, not the bare name 灯带).
                said = {
                    _FAMILY.get(w.kind, w.kind)
                    for j in range(i + 1, end)
                    if (w := words.get(text[i:j], _PREFIX)[0])
                }
                for entry in matches:
                    if end - i == 1 and entry.kind not in _ONE_SYLLABLE_KINDS:
                        continue
                    if _FAMILY.get(entry.kind, entry.kind) in said:
                        continue
                    if entry.canonical != text[i:end] and slipped < best[end]:
                        best[end] = slipped
                        start_of[end] = i
                        step_of[end] = (entry, "pinyin", False, None)

        # Every offset is reached (at worst by an unknown character from the one before), so
        # best[i] is always a real cost here; a strictly cheaper cost replaces a kept one, so
        # among equals the first found wins.
        self._said(text, timely, best, (start_of, step_of), worst, unknown_or_heard)
        return start_of, step_of

    def _exact_interiors(self, text: str) -> frozenset[int]:
        """Offsets strictly inside a word of two or more characters said exactly: a pinyin
        reading may not start or end there (it would cut 关掉 to read 掉卫 as 调为)."""
        inside: set[int] = set()
        words, max_len = self._words, self._max_len
        for i in range(len(text)):
            for end in range(i + 2, min(i + max_len, len(text)) + 1):
                word = words.get(text[i:end])
                if word is None:
                    break
                entry = word[0]
                if entry is not None and entry.kind != FILLER:
                    inside.update(range(i + 1, end))
        return frozenset(inside)


class _Tenths(float):
    """A number said in tenths (三成): 30, in percent."""


_TIME_WORD = re.compile("|".join(map(re.escape, TIME_WORDS)))


def _numbers_at(text: str, i: int, timely: bool) -> list[tuple[int, Any]]:
    """The number and the time said from `i` (a time only when `timely`), as (end, value or
    Timing): the number first, as the segmenter tries them (of equal costs, the first wins).
    Scanned for by the segmenter only where a word may start: not from the 0 of 30, which only
    an unknown 3 reaches."""
    found: list[tuple[int, Any]] = []
    ch = text[i]
    if ch in NUMBER_START:
        number = scan_number(text, i)
        if number is not None:
            end, value = number
            if text.startswith("成", end) and 0 < value <= 10:
                end, value = end + 1, _Tenths(value * 10)  # 三成 is 30%
            found.append((end, value))
    if timely and ch in TIME_START:
        timing = scan_time(text, i)
        if timing is not None:
            found.append(timing)
    return found


def _tokens(
    text: str, segmentation: _Segmentation, made: dict[tuple[int, str], Token]
) -> list[Token]:
    """The tokens of a segmentation (Lexicon._segment), read from its end back to its start
    (no list of its steps is made only to be read once), then turned round."""
    start_of, step_of = segmentation
    tokens: list[Token] = []
    add = tokens.append
    end = len(text)
    while end > 0:
        start = start_of[end]
        what, match, _, kept = step_of[end]
        if kept is not None:
            # A word said exactly, most of every utterance: its token is most often kept.
            # (Only a word's own _Word has one to keep, so `what` is its entry.)
            add(made.get((start, kept)) or _kept(made, start, cast(Entry, what)))
        elif what is None:
            # A run of unknown characters is one token: English or another domain's words
            # leave dozens of them, and making a Token for each character only to merge it
            # into the next was much of what compiling them cost.
            while start > 0 and step_of[start][0] is None:
                start = start_of[start]
            add(_unknown(text, start, end))
        elif type(what) is Entry:
            kind, value, canonical, _ = what  # one unpacking, not three attribute lookups
            if kind == COMPOUND:
                # Its parts are read from its start: one may be said in no character (停洗衣:
                # the washer is understood, not said).
                at, parts = start, []
                for part, surface, meant, length in value:
                    parts.append(Token(part, surface, text[at : at + length], at, match, meant))
                    at += length
                tokens += reversed(parts)
            else:  # a word heard (pinyin): every other word is kept, and read above
                add(Token(kind, canonical, text[start:end], start, match, value))
        else:
            said = text[start:end]
            if isinstance(what, Timing):
                add(Token("TIME", said, said, start, "exact", what))
            elif isinstance(what, _Tenths):
                add(Token("PCT", "成", "成", end - 1, "exact", "%"))
                add(Token("NUM", said[:-1], said[:-1], start, "exact", float(what)))
            else:
                add(Token("NUM", said, said, start, "exact", what))
        end = start
    tokens.reverse()
    return tokens


def _kept(made: dict[tuple[int, str], Token], start: int, entry: Entry) -> Token:
    """The token of a word said exactly at `start`, kept for the next utterance that says it
    there. Said as the entry is spelt (its canonical form is its surface): no slice."""
    token = made.get((start, entry.canonical))
    if token is None:
        if len(made) >= TOKENS_KEPT:
            made.clear()  # bounded; refilled by what is said next
        kind, value, canonical, match = entry
        token = made[start, canonical] = Token(kind, canonical, canonical, start, match, value)
    return token


# The words a name said with 的 inside is made of (Lexicon._names_across_de), and those it
# may begin with.
_NAME_PARTS = frozenset({"NAME", "TYPE", "ROOM", "NUM", "DE"})
_NAME_START = frozenset({"NAME", "TYPE", "NUM"})
_PLACES = frozenset({"ROOM", "FLOOR", "GROUP"})
_AT_WORDS = frozenset({"在", "喺"})  # Cantonese 喺 is 在
# The 的 words (DE), longest first, as the segmenter takes them.
_DE_WORD = re.compile("|".join(sorted(TABLES["DE"], key=len, reverse=True)))


def _spellings(words: list[Token]) -> list[str]:
    """The ways a name may spell these words without 的: each number as said, or in digits."""
    keys = [""]
    for t in words:
        if t.kind == "NUM":
            keys = [key + form for key in keys for form in _number_forms(t)]
        elif t.kind != "DE":
            keys = [key + t.said for key in keys]
    return keys


def _number_forms(token: Token) -> tuple[str, ...]:
    """How a name may write a number said: as said (插座二), and in digits (插座2)."""
    value = token.value
    if isinstance(value, float) and value.is_integer() and str(int(value)) != token.said:
        return token.said, str(int(value))
    return (token.said,)


def _word_roles(tokens: list[Token], text: str) -> list[Token]:
    """The passes that give words the role their neighbours decide, in order (`text`: the
    utterance the tokens cover).

    Each pass changes only words of a few kinds, and most utterances have none of them: a
    pass is skipped when none of its kinds was lexed (_adverbs: no separator, no 和, and no
    kind twice, so no verb said twice). The passes only ever turn a word into a filler, a
    count, a separator or a role of the same word (NEG → CANCEL), so the kinds lexed are all
    a later pass can meet (tests/test_lexer_passes.py checks that the skips change nothing).
    """
    kinds = set(map(_KIND, tokens))  # no bytecode a token
    last = text.rstrip(_STOPS)[-1:]  # the last character said (吗, 不 …): looked at thrice
    if "NOT_HOME" in kinds:
        tokens = _greeted(tokens)  # 你好，打开灯
        kinds = set(map(_KIND, tokens))
    if "CALLED" in kinds:
        tokens = _called(tokens, text)  # 妈妈，我要开灯
        kinds = set(map(_KIND, tokens))
    if "NUM" in kinds and not kinds.isdisjoint(_NAMED_VALUES):
        tokens = _values_apart(tokens)  # 空调制冷26度: two values, as 空调制冷，26度
        kinds = set(map(_KIND, tokens))
    if "TYPE" in kinds and _DEMONSTRATIVE_SAID.search(text):
        tokens = _pointed_at(tokens)  # 这灯太亮了: 这 alone before a type word
        kinds = set(map(_KIND, tokens))
    if "QWORD" in kinds and FILLER in kinds:
        tokens = _asked_of_the_assistant(tokens)  # 你在干嘛
        kinds = set(map(_KIND, tokens))
    if "还是" in text and FILLER in kinds:
        tokens = _one_alternative(tokens, text)  # 电视开着还是关着: one look at the text first
        kinds = set(map(_KIND, tokens))
    if "SET" in kinds and not kinds.isdisjoint(_SWITCHING):
        tokens = _type_word_rejoined(tokens)
        kinds = set(map(_KIND, tokens))
    if "REL" in kinds and "TYPE" in kinds:
        tokens = _sized_name(tokens, text)  # 关小灯: 关 + a lamp called 小灯
        kinds = set(map(_KIND, tokens))
    if "ALL" in kinds and _WHOLE_OR_SET in text:
        tokens = _set_by_one(tokens)  # 空调整个二十六度: 整个 sets, it does not widen
        kinds = set(map(_KIND, tokens))
    if (
        last in _ASKING_ENDS
        and not kinds.isdisjoint(_VALUE_SAID)
        and kinds.isdisjoint(_SAYS_WHAT_IS_ASKED)
    ):
        tokens = _value_asked(tokens)  # 温度为24度吗: one look at the last character first
        kinds = set(map(_KIND, tokens))
    if "QSET" in kinds or _MARKS_STATE.search(text) or text.endswith(_STATE_ENDS):
        said = tokens
        tokens = _rejoined(tokens)
        if "QSET" in kinds:
            tokens = _amount_asked(_which_of_any(tokens))
        tokens = _copula_state(_state_framed(tokens))
        if tokens is not said:
            kinds = set(map(_KIND, tokens))
    if "DE" in kinds and FILLER in kinds and _HELPING_SAID.search(text):
        tokens = _possessed(tokens)
        kinds = set(map(_KIND, tokens))
    if "ASKED" in kinds and "TYPE" in kinds:
        tokens = _lock_asked(tokens)
        kinds = set(map(_KIND, tokens))
    if "QVERB" in kinds and not kinds.isdisjoint(_ASKING_KINDS):
        tokens = _looked_at(tokens)
        kinds = set(map(_KIND, tokens))
    if "ON" in kinds and ("IF" in kinds or "的话" in text):
        tokens = _state_in_condition(tokens)
        kinds = set(map(_KIND, tokens))
    if "着" in text and not kinds.isdisjoint(_SWITCHING) and not _CANTONESE_SAID.search(text):
        tokens = _state_stated(tokens)
        kinds = set(map(_KIND, tokens))
    if not kinds.isdisjoint(_STATE_KINDS):  # most utterances have none
        tokens = _state_asked(tokens)
        kinds = set(map(_KIND, tokens))
    if last in _ASKING_ENDS and ("了" in text or "咗" in text):
        tokens = _done_asked(tokens)  # 开了空调吗: one look at the text first
        kinds = set(map(_KIND, tokens))
    if "THIS_ROOM" in kinds and "ROOM" in kinds:
        tokens = _room_pointed_at(tokens)
    if last == "不" and "NEG" in kinds:
        tokens = _request_tagged(tokens)  # 可以帮我关下窗帘不: one look at the end first
    if FILLER in kinds and not kinds.isdisjoint(_VALUE_BEFORE):
        tokens = _softened_numbers(tokens)
    repeated = len(kinds) < len(tokens)  # counted before _counts merges 三+个
    if repeated or not kinds.isdisjoint(_PASS_KINDS):
        return _passes(tokens, text, kinds, repeated)
    return tokens  # most utterances: not even a copy of the list is made


_SWITCHING = frozenset({"ON", "OFF"})


def _type_word_rejoined(tokens: list[Token]) -> list[Token]:
    """主卧的开关为1: an on/off verb said right before a set verb, whose characters together
    begin with a type word and end with a word that brings a value, are that type word and
    that word (开关 + 为), not two verbs (开 + 关为): the two readings have as many words, and
    nobody orders "on" and "set to" in one breath of three characters."""
    out: list[Token] | None = None  # a copy, made at the first change (most make none)
    for i in range(1, len(tokens)):
        verb, setter = tokens[i - 1], tokens[i]
        if (
            setter.kind != "SET"
            or verb.kind not in _SWITCHING
            or verb.start + len(verb.said) != setter.start
        ):
            continue
        for cut in range(1, len(setter.said)):
            noun, to = verb.said + setter.said[:cut], setter.said[cut:]
            if noun in TABLES["TYPE"] and to in TABLES["TO"]:
                out = out or list(tokens)
                out[i - 1] = _type_word(noun, verb.start, verb.match)
                at = setter.start + cut
                out[i] = Token("TO", to, to, at, setter.match, TABLES["TO"][to])
                break
    return tokens if out is None else out


# 整个 is "whole" (整个客厅) and, like 来个 and 搞个, the verb that sets a value said next.
_WHOLE_OR_SET = "整个"
_SET_VALUES = frozenset({"NUM", "PCT_PRE", "HALF", "EXTREME", "MODE", "SPEED", "COLOR", "PRESET"})


def _set_by_one(tokens: list[Token]) -> list[Token]:
    """空调给我整个二十六度: 整个 right before a value sets it (as 来个 and 搞个 do); it never
    widens the clause to every device, which it did (every air conditioner set to 26)."""
    out = tokens
    for i in range(len(tokens) - 1):
        token = tokens[i]
        if (
            token.kind == "ALL"
            and token.said == _WHOLE_OR_SET
            and tokens[i + 1].kind in _SET_VALUES
        ):
            out = [*out[:i], _as(token, "SET", "set"), *out[i + 1 :]]
    return out


# A switching verb and a size (开大, 开小, 关小: SIZE_ADJECTIVES), by the verb's kind.
_SIZED = {
    verb + size: "ON" if verb in TABLES["ON"] else "OFF"
    for verb, sizes in SIZE_ADJECTIVES.items()
    for size in sizes
    if size in SIZE_NAMES
}


def _sized_name(tokens: list[Token], text: str) -> list[Token]:
    """关小灯 / 开小灯 / 开大灯: a switching verb and a size said first in a clause, right before a
    light's type word, are the verb and a light called by its size (小灯 a small lamp, 大灯 the main
    light), not a change of the type's value: 关小灯 turns a lamp off and never dims the lights.
    The size and the type word are one word the vocabulary does not know, a name the resolver
    finds, or refuses by name (the whole-utterance gate). After its device a size is a change
    as ever (灯开大一点)."""
    out: list[Token] | None = None  # a copy, made at the first change (most make none)
    for i in range(len(tokens) - 1):
        verb, noun = tokens[i], tokens[i + 1]
        kind = _SIZED.get(verb.said) if verb.kind == "REL" else None
        if (
            kind is None
            or noun.kind != "TYPE"
            or noun.value != "Light"  # 开大窗帘 opens the curtain wide: no cover is called 大窗帘
            or verb.start + len(verb.said) != noun.start
        ):
            continue
        before = next((t for t in reversed(tokens[:i]) if t.kind != FILLER), None)
        if before is not None and before.kind not in _CLAUSE_START:
            continue  # 客厅灯开大 / 把灯开小: a change of what was said before
        out = out or list(tokens)
        stem = verb.said[:-1]
        out[i] = Token(kind, stem, stem, verb.start, verb.match, kind.lower())
        out[i + 1] = _unknown(text, verb.start + len(stem), noun.start + len(noun.said))
    return tokens if out is None else out


# What may follow the asking word at the end of an utterance.
_STOPS = STATEMENT_END + "?？"
# Words that order (a verb) or ask (a question word) themselves: with one, a final 吗 is a
# polite order's (能把温度调到24度吗) or the question's own, and the lexer drops it.
_SAYS_WHAT_IS_ASKED = frozenset(
    {"ON", "OFF", "SET", "SETV", "REL", "MEDIA", "FEATURE", "PACE", "QVERB", "QWORD", "QSTATE"}
    | {"QSET", "COMPLAINT", "PROGRESS", "STATE", "ASKED", "REMEMBER", "PREF", "HABIT", "CHANGE"}
)


# An attribute or a value said.
_VALUE_SAID = frozenset({"ATTR", "NUM", "EXTREME", "HALF", "COLOR", "MODE", "SPEED", "PRESET"})


def _value_asked(tokens: list[Token]) -> list[Token]:
    """温度为24度吗 / 亮度是五十吗 / 空调26度吗: a value said with no verb, then 吗, asks
    whether it is so; it orders nothing. Its 吗 is kept as an asking word (no rule of the
    grammar ends a value so), and the utterance is not understood as an order."""
    last = len(tokens) - 1
    while last >= 0 and tokens[last].kind == "SEP":
        last -= 1
    if last < 0 or tokens[last].kind != FILLER or tokens[last].text not in _ASKING_PARTICLES:
        return tokens
    return [*tokens[:last], _as(tokens[last], "ASKED", "asked"), *tokens[last + 1 :]]


_ASKING_PARTICLES = frozenset({"吗", "么"})  # an utterance asking ends so


# The words that say a state is, not that it should be: 灯是打开, 门已上锁 and 窗帘正在打开
# ask, 打开灯 acts.
_SAYS_STATE = frozenset(
    {"是", "系", "是否", "是不是", "系唔系", "是唔是", "处于", "已", "已经", "正在", "正", "在"}
)
# Said after an on/off verb said last, they ask whether its state holds unless the speaker
# asks someone to act (vocab.REQUESTS): 全部的电源关上吗, 书房灯开着不.
_ASKS_STATE = frozenset({"吗", "么", "不", "冇"})
# A 的 said last may belong to a state (遮阳篷关的, 风扇都关的): the state passes read it.
_STATE_ENDS = ("的", "嘅")
_MARKS_STATE = re.compile("|".join(sorted({w[0] for w in _SAYS_STATE} | _ASKS_STATE)))
# Said between those words and the verb: fillers and 都 (是否都关闭, 都是已上锁).
_BETWEEN = frozenset({FILLER, "DOU"})
# Said after the state, they add nothing to it (关的, 打开的吗, 开了吗).
_AFTER_STATE = frozenset({"DE", "ASKED"})


# The negations a state may begin with (没上锁, 无锁), and the asking words 没/没有.
_NEGATIONS = ("没有", "没", "无", "冇")


def _rejoined(tokens: list[Token]) -> list[Token]:
    """A question the segmenter split where two readings have as many words, read as asked:
    - 没 + 上锁了吗 asks the negated state (没上锁了吗: is it unlocked?);
    - 有 + 没有锁 before a state is 有没有 + 锁 (有没有锁是已解锁的);
    - 几多度 before a device's kind counts (有几多度门係锁着嘅: Hong Kong's 度 is 道), and a
      classifier said again after a set question's (有几个道大门) adds nothing."""
    out: list[Token] | None = None  # a copy, made at the first change (most make none)
    b = -1  # the index of the last word kept (not a filler)
    for i, token in enumerate(tokens):
        kind = token.kind
        if kind == FILLER:
            continue
        if b >= 0:
            before = tokens[b]
            change: tuple[int, Token] | None = None
            if kind == "QSTATE" and before.kind == "ASKED" and before.text in _NEGATIONS:
                attribute, value = token.value
                change = (b, _as(before, FILLER, None))
                out = out or list(tokens)
                out[i] = _as(token, "QSTATE", (attribute, not value))
            elif (
                kind == "STATE"
                and before.kind == "QSET"
                and before.value == "any"
                and token.text.startswith(_NEGATIONS)
                and token.text.lstrip("没有无冇") in TABLES["TYPE"]
                and any(t.kind in _STATES for t in tokens[i + 1 :])
            ):
                noun = token.text.lstrip("没有无冇")
                at = token.start + len(token.said) - len(noun)
                change = (i, _type_word(noun, at, token.match))
            elif (
                kind in _SUBJECTS
                and before.kind == "QWORD"
                and before.text.endswith("度")
                and before.text[:-1] in ("几", "多少", "几多")
                and any(t.kind in _STATES for t in tokens[i + 1 :])
            ):
                change = (b, _as(before, "QSET", "count"))
            elif (
                before.kind == "QSET"
                and before.value in ("which", "count")
                and token.said in SET_CLASSIFIERS
                and token.match == "unknown"
            ):
                change = (i, _as(token, FILLER, None))
            if change is not None:
                out = out or list(tokens)
                out[change[0]] = change[1]
        b = i
    return tokens if out is None else out


# What a state may be said of, and the words that say one.
_SUBJECTS = frozenset({"NAME", "TYPE"})
_STATES = frozenset({"STATE", "QSTATE", "ON", "OFF"})


def _state_framed(tokens: list[Token]) -> list[Token]:
    """The words around a state that make it one:
    - a place said after a state question (遮阳篷是打开中的阳台, 前门锁是否没上锁的吗在门口里)
      is where the device asked about is: it is read first, as 阳台遮阳篷是打开中的;
    - 状态/状况 after a state or an on/off verb (处于关闭的状态, 在打开中状态吗) is that state;
    - 在 right before one (车库灯在关着, 后门锁在锁了吗) says it is being so, as 正在 does."""
    words = _said_at(tokens)
    if len(words) < 3:
        return tokens
    out = _place_after_state(tokens, words)
    if out is not tokens:
        tokens = out
        words = _said_at(tokens)
    n = len(words) - 1
    last = tokens[words[n]]
    # Whether more than the verb says a state: a 状态, a 的 or an asking word after it.
    marked = last.kind in _AFTER_STATE
    if last.kind == "ATTR" and last.value == "state":
        k = n - 1
        if tokens[words[k]].kind == "DE":
            k -= 1
        if tokens[words[k]].kind in _STATES:
            out = list(out)
            for i in words[k + 1 :]:
                out[i] = _as(out[i], FILLER, None)
            n, marked = k, True
    elif marked and n > 1:
        n -= 1  # 关的, 关着的吗: the state is said before
    said = tokens[words[n]]
    if n < 1 or said.kind not in _STATES:
        return out
    at = words[n - 1]
    marked = (
        marked
        or any(t.text in _ASKS_STATE or t.text == "了" for t in tokens[words[n] + 1 :])
        or (n > 1 and tokens[words[n - 2]].kind == "DE")  # 台灯的在开: no place after 在
    )
    # 在 before an on/off verb alone (灯在打开) may be an action's place or time: a state
    # only with a mark of one (在关状态吗, 在开着, 在开的吗).
    marked = marked or said.kind not in ("ON", "OFF") or said.text.endswith("着")
    if tokens[at].text == "在" and tokens[at].kind == "TO" and marked:
        out = [*out[:at], _as(out[at], FILLER, None), *out[at + 1 :]]
    return out


def _place_after_state(tokens: list[Token], words: list[int]) -> list[Token]:
    """A place said last ([在] 阳台 [里]) after a device and the state asked of it: the
    tokens with the place said first and its 在 and 里 left out, else `tokens`."""
    n = len(words) - 1
    if tokens[words[n]].kind == "DE" and tokens[words[n]].text == "里":
        n -= 1
    end = n
    while n >= 0 and tokens[words[n]].kind in _PLACES:
        n -= 1
    if n == end or n < 1:
        return tokens
    place = words[n + 1 : end + 1]
    if tokens[words[n]].kind == "TO" and tokens[words[n]].text == "在":
        n -= 1
    said = tokens[words[n]]
    stated = said.kind in ("STATE", "QSTATE", "ASKED") or (
        said.kind in ("DE", "ON", "OFF")
        or (
            (said.kind == "ATTR" and said.value == "state")
            and any(
                t.text in _SAYS_STATE and (t.kind == FILLER or said.kind == "ATTR")
                for t in tokens[: words[n]]
            )
        )
    )
    if not stated or not any(tokens[i].kind in _SUBJECTS for i in words[:n]):
        return tokens
    rest = [
        _as(t, FILLER, None) if i > words[n] else t for i, t in enumerate(tokens) if i not in place
    ]
    return [*(tokens[i] for i in place), *rest]


def _which_of_any(tokens: list[Token]) -> list[Token]:
    """有哪个吊扇开着 / 有没有哪些门没锁 / 有几盏灯开着: "whether any" said before "which" or
    "how many" asks that question of the set; the 有 part adds nothing to it."""
    out = tokens
    before = -1  # the index of the last word kept (not a filler)
    for i, token in enumerate(tokens):
        if token.kind == FILLER:
            continue
        if (
            token.kind == "QSET"
            and token.value != "any"
            and before >= 0
            and tokens[before].kind == "QSET"
            and tokens[before].value == "any"
        ):
            out = [*out[:before], _as(tokens[before], FILLER, None), *out[before + 1 :]]
        before = i
    return out


def _amount_asked(tokens: list[Token]) -> list[Token]:
    """主人房有几度 / 温度有多少: 有 before an amount asked, or 有多少 said last of an attribute,
    is "amounts to", not a question over a set."""
    words = _said_at(tokens)
    out = tokens
    for n, i in enumerate(words):
        token = tokens[i]
        if token.kind != "QSET" or token.text not in ("有", "有多少", "有几多"):
            continue
        after = tokens[words[n + 1]] if n + 1 < len(words) else None
        before = tokens[words[n - 1]] if n else None
        if token.text == "有" and after is not None and after.kind == "QWORD":
            out = [*out[:i], _as(token, FILLER, None), *out[i + 1 :]]
        elif after is None and before is not None and _valued(token, tokens, words, n):
            out = [*out[:i], _as(token, "QWORD", None), *out[i + 1 :]]
    return out


def _valued(asked: Token, tokens: list[Token], words: list[int], n: int) -> bool:
    """Whether `asked` (有, 有多少: words[n], said last) asks a value: after an attribute
    (温度有多少), or 有多少 after a device's name (温湿度计有多少, 灯带的有多少)."""
    before = tokens[words[n - 1]]
    if before.kind == "ATTR":
        return True
    if before.kind == "DE" and n > 1:
        before = tokens[words[n - 2]]
    return before.kind == "NAME" and asked.text != "有"


def _copula_state(tokens: list[Token]) -> list[Token]:
    """灯都是打开吗 / 全部灯光都是关闭 / 窗户是否都已上锁 / 有灯处于关的吗: a copula (是, 系,
    是否, 处于), 已 (already) or 正在 (being) before an on/off verb said last says a state,
    never a command (no one orders with 是, nor what is done or being done already); so does a
    set question's verb
    (有电源关的). In a set question the verb is the state asked about; else it asks whether
    the state holds (QSTATE). A 的 or asking word after the verb belongs to the state."""
    words = _said_to_the_stop(tokens)
    # At most a 的 and an asking word after the verb (关的, 关了没, 关的不).
    n = len(words) - 1
    while n > 0 and len(words) - n <= 2:
        said = tokens[words[n]]
        if said.kind not in _AFTER_STATE and said.text not in _STATE_TAGS:
            break
        n -= 1
    if n < 0:
        return tokens
    after, last = words[n + 1 :], words[n]
    verb = tokens[last]
    if verb.kind not in ("ON", "OFF") or any(t.kind in _NO_STATE for t in tokens):
        return tokens
    asks_set = any(t.kind == "QSET" for t in tokens)
    before = last - 1
    while (
        before >= 0 and tokens[before].kind in _BETWEEN and tokens[before].text not in _SAYS_STATE
    ):
        before -= 1
    if (
        not asks_set
        and (before < 0 or tokens[before].kind not in _BETWEEN)
        and not _asks_itself(tokens, last, after)
    ):
        return tokens
    out = list(tokens)
    for i in after:
        out[i] = _as(tokens[i], FILLER, None)
    if not asks_set:
        locks = verb.kind == "OFF" and "锁" in verb.text  # 上锁 says locked, 解锁 says open
        asked = ("locked", True) if locks else ("on", verb.kind == "ON")
        out[last] = _as(verb, "QSTATE", asked)
    return out


def _greeted(tokens: list[Token]) -> list[Token]:
    """你好，打开灯: a greeting said first, before more words, is said to the assistant, as a
    wake word is: a filler. Alone (你好) it stays a word of another domain."""
    words = _said_at(tokens)
    first = words[0]
    if len(words) > 1 and tokens[first].kind == "NOT_HOME" and tokens[first].text in GREETINGS:
        return [*tokens[:first], _as(tokens[first], FILLER, None), *tokens[first + 1 :]]
    return tokens


# Values said by a word (制冷, 高速, 自然风); a number's unit (度, %) ends the number's value.
_NAMED_VALUES = frozenset({"MODE", "SPEED", "PRESET", "COLOR"})
_UNITS = frozenset({"DEG", "PCT", "KELVIN"})


def _values_apart(tokens: list[Token]) -> list[Token]:
    """空调制冷26度 / 空调开26度制冷 / 空调高风26度 / 灯调到暖光50: a value said by a word (its
    attribute may follow it: 制冷模式) and a number said right after it, or before it, are two
    values of one clause, as if a pause were between them (空调制冷，26度): a pause is put
    there, said in no character, and the second value takes the first's device, as a clause
    after a pause does."""
    out: list[Token] = []
    for i, token in enumerate(tokens):
        if i and out[-1].kind != "SEP":
            before = tokens[i - 1]
            if before.kind == "ATTR" and i > 1 and tokens[i - 2].kind in _NAMED_VALUES:
                before = tokens[i - 2]  # 制冷模式26度: the value's attribute said after it
            named_then_number = before.kind in _NAMED_VALUES and token.kind == "NUM"
            number_then_named = token.kind in _NAMED_VALUES and (
                before.kind in _UNITS or before.kind == "NUM"
            )
            if named_then_number or number_then_named:
                out.append(Token("SEP", "", "", token.start, "exact", "sep"))
        out.append(token)
    return out if len(out) != len(tokens) else tokens


def _any_of(chars: Iterable[str]) -> re.Pattern[str]:
    """A look for any of these characters in a text: a regex class, about five times cheaper
    than a set's isdisjoint over the text (0.47 → 0.1 µs a sentence, on every utterance)."""
    return re.compile("[" + "".join(sorted(chars)) + "]")


_DEMONSTRATIVE = frozenset(DEMONSTRATIVES)
_DEMONSTRATIVE_SAID = _any_of(_DEMONSTRATIVE)


def _pointed_at(tokens: list[Token]) -> list[Token]:
    """这灯太亮了 / 那空调关了: a demonstrative said alone right before a type word points at
    a device of that type, as 这个 and 那台 do (IT). Elsewhere 这 is no word and 那 a filler
    (那关灯吧: then): only this place makes either a pointer."""
    out = tokens
    for i in range(len(tokens) - 1):
        token, after = tokens[i], tokens[i + 1]
        if (
            (token.match == "unknown" or token.kind == FILLER)  # 那 alone is a filler (那关灯吧)
            and token.said in _DEMONSTRATIVE
            and after.kind == "TYPE"
            and token.start + 1 == after.start
        ):
            out = [
                *out[:i],
                Token("IT", token.said, token.said, token.start, "exact", "it"),
                *out[i + 1 :],
            ]
    return out


_ADDRESSED = frozenset(ADDRESSEES)
_DOING_ASKED = frozenset(doing_asked())


def _asked_of_the_assistant(tokens: list[Token]) -> list[Token]:
    """你在干嘛 / 您在忙什么: what someone is doing, asked right after 你 said first, is asked of
    the assistant, not of a device: another domain's, as 你是谁 is. (扫地机器人在干嘛 asks
    the device's state.)"""
    words = _said_at(tokens)
    if (
        words
        and words[0] > 0  # 你 said first, before the question
        and all(t.kind == FILLER for t in tokens[: words[0]])
        and tokens[words[0] - 1].text in _ADDRESSED
        and tokens[words[0]].kind == "QWORD"
        and tokens[words[0]].text in _DOING_ASKED
    ):
        first = words[0]
        return [*tokens[:first], _as(tokens[first], "NOT_HOME", "not_home"), *tokens[first + 1 :]]
    return tokens


# What follows whom a speaker calls, for the call to be one: a pause, a request, 把 or a verb;
# never 的, a place or a device, which say whose (妈妈的灯, 爸爸房间).
_AFTER_CALLED = frozenset({FILLER, "SEP", "BA"})


def _called(tokens: list[Token], text: str) -> list[Token]:
    """妈妈，我要开灯 / 老伴儿把电视给关了: a person called first, before a request or a verb, is
    said to that person; the home hears the rest, and the call is a filler. Said anywhere
    else (妈妈的灯, 打开外婆房间的灯) the word is one nothing here explains: the whole-utterance
    gate decides, as for any unknown word."""
    words = _said_at(tokens)
    out = list(tokens)
    for n, i in enumerate(words):
        token = tokens[i]
        if token.kind != "CALLED":
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            n == 0
            and len(words) > 1  # 妈妈啊 alone calls, and asks nothing of the home
            and after is not None
            and (after.kind in _AFTER_CALLED or after.kind in _VERBS)
            and tokens[words[1]].kind not in _PLACES
        ):
            out[i] = _as(token, FILLER, None)
        else:
            out[i] = _unknown(text, token.start, token.start + len(token.said))
    return out


def _one_alternative(tokens: list[Token], text: str) -> list[Token]:
    """A state asked as a choice (电视开着还是关着, 窗帘是开的还是关的, 门锁着还是开着) is asked as
    one of them: the answer says which holds. The word said as a state is kept (锁着, 关着),
    else the second; the other, with its 的, says nothing more."""
    for k, word in enumerate(tokens):
        if word.kind != FILLER or word.text != "还是" or not 0 < k < len(tokens) - 1:
            continue
        left = k - 1
        while left > 0 and tokens[left].kind in _AROUND_CHOICE:
            left -= 1
        right = k + 1
        if tokens[left].kind not in _CHOICES or tokens[right].kind not in _CHOICES:
            if any(t.kind in _ACTING for t in tokens[:k]) and any(
                t.kind in _ACTING for t in tokens[k + 1 :]
            ):
                # 开灯还是关灯: which of two commands is asked, never both done: not understood.
                unknown = _unknown(text, word.start, word.start + len(word.said))
                return [*tokens[:k], unknown, *tokens[k + 1 :]]
            return tokens
        dropped = (
            range(k + 1, k + 2)
            if tokens[left].kind == "STATE" != tokens[right].kind
            else (range(left, k))
        )
        return [_as(t, FILLER, None) if i in dropped else t for i, t in enumerate(tokens)]
    return tokens


_CHOICES = frozenset({"ON", "OFF", "STATE"})
_AROUND_CHOICE = frozenset({"DE", FILLER})


def _request_tagged(tokens: list[Token]) -> list[Token]:
    """A request said with 不 last (可以帮我关下窗帘不, 灯能关一下不: "or not?") asks someone to
    act: the 不 is a tag, as 行不 is, when a request word and a verb that acts are said."""
    words = _said_to_the_stop(tokens)  # a final ？ or 。 ends it
    last = words[-1] if words else 0
    if (
        last > 0
        and tokens[last].text == "不"
        and any(t.text in REQUESTS for t in tokens)
        and any(t.kind in _ACTING for t in tokens[:last])
    ):
        return [*tokens[:last], _as(tokens[last], FILLER, None), *tokens[last + 1 :]]
    return tokens


_ACTING = frozenset({"ON", "OFF", "SET", "SETV", "REL", "ADJ", "MEDIA", "FEATURE"})


# A copula inside a condition or beside a question word is not asking about the verb's state.
_NO_STATE = frozenset({"IF", "THEN", "QWORD", "QVERB"})


def _asks_itself(tokens: list[Token], verb: int, after: list[int]) -> bool:
    """An on/off verb said last asks whether its state holds when an asking word (or a 的:
    `after`) follows it (关上吗, 开着不, 关的) and nothing asks someone to act: no request
    (请, 帮我, 能不能, 一下, 好吗: vocab.REQUESTS) and no 把/将 before the target. With one, it
    is a polite command."""
    if not after and not any(t.text in _ASKS_STATE for t in tokens[verb + 1 :]):
        return False
    return not any(t.kind == "BA" or t.text in REQUESTS for t in tokens)


# The kinds _state_asked reads: a state, or a word after one (锁着嘅, 是不是关着嘅).
_STATE_KINDS = frozenset({"STATE", "ASKED", "QSTATE"})


# Said after a state, they ask whether it holds: 开着的不 (开着的吗).
_STATE_TAGS = frozenset({"不", "冇"})


def _state_asked(tokens: list[Token]) -> list[Token]:
    """窗户是关闭中的吗 / 车库门打开着: a state said last, of what was said before it, and no
    set question (哪些) or condition (如果) around it, asks whether it holds (QSTATE)."""
    last = len(tokens) - 1
    while last >= 0 and (tokens[last].kind == FILLER or _ends(tokens[last])):
        last -= 1
    out = tokens
    if last > 0 and tokens[last].text in _STATE_TAGS and tokens[last - 1].kind == "STATE":
        # 排气扇是开着的不 / 门锁咗冇: a 不 after a state asks, as 吗 does.
        out = [*tokens[:last], _as(tokens[last], FILLER, None), *tokens[last + 1 :]]
        tokens, last = out, last - 1
    if last > 0 and tokens[last].kind in _AFTER_STATE:
        # 关闭中的吗 is segmented 关闭中 + 的吗, 锁着嘅 锁着 + 嘅, 已解锁着了吗 … + 了吗: the
        # 的 or the asking word belongs to the state said before it.
        said = last - 1
        while said >= 0 and tokens[said].kind == FILLER:
            said -= 1
        if said > 0 and tokens[said].kind in ("STATE", "QSTATE"):
            out = [*out[:last], _as(tokens[last], FILLER, None), *out[last + 1 :]]
            last = said
    if last <= 0 or tokens[last].kind != "STATE":
        return out  # most utterances: one look at the last word
    if any(t.kind in ("QSET", "IF", "THEN") for t in tokens):
        return out
    return [*out[:last], _as(out[last], "QSTATE", out[last].value), *out[last + 1 :]]


_HELPING_SAID = _any_of({word[0] for word in HELPED_FOR})


def _possessed(tokens: list[Token]) -> list[Token]:
    """给孩子的设备: a request for someone (给孩子, 帮奶奶) said right before 的 names whose the
    thing is, not for whom it is done; it is not a wrapper then, and what it names is looked
    for as a name (a home's group 孩子的设备 is not "every device")."""
    out: list[Token] | None = None  # a copy, made at the first change (most make none)
    for i in range(len(tokens) - 1):
        token = tokens[i]
        if token.kind == FILLER and token.text in HELPED_FOR and tokens[i + 1].kind == "DE":
            out = out or list(tokens)
            out[i] = Token(UNKNOWN, token.text, token.said, token.start, "unknown", token.said)
    return tokens if out is None else out


def _lock_asked(tokens: list[Token]) -> list[Token]:
    """门锁锁了没有: 锁 (alone the type word) said after what it is said of and before an
    asking word is the verb whose state is asked (锁了 + 没有 and 锁 + 了没有 are as many
    words, and a lock said twice asks nothing)."""
    words = _said_at(tokens)
    out = tokens
    for n in range(1, len(words) - 1):
        i = words[n]
        if (
            tokens[i].kind == "TYPE"
            and tokens[i].text == LOCK_STEM
            and tokens[words[n - 1]].kind in _SUBJECTS
            and tokens[words[n + 1]].kind == "ASKED"
        ):
            out = [*out[:i], _as(tokens[i], "OFF", "off"), *out[i + 1 :]]
    return out


# The kinds a question that asks itself is said with (关了没有, 关没关, 有没有关).
_ASKING_KINDS = frozenset({"ASKED", "QSTATE", "QSET"})


def _looked_at(tokens: list[Token]) -> list[Token]:
    """(帮我)看看书房灯关了没有 / 瞅瞅灯开着没 / 查一下门锁没锁 / 看看灯有没有关: a verb of
    looking said first, before a question that asks itself whether a verb happened (了没有,
    没得, 关没关, 有没有 …), adds nothing to it: the question is asked. Only the asking word
    said last makes it so; a 吗 after the verb (看看灯开着吗) is left as it was."""
    words = _said_to_the_stop(tokens)
    if len(words) < 2 or tokens[words[0]].kind != "QVERB":
        return tokens
    last = tokens[words[-1]]
    if last.kind == "QSTATE":
        if last.text.endswith(tuple(_ASKING_PARTICLES)):
            return tokens
    elif last.kind in _STATES:
        # 有没有关 / 有没有灯开着: whether any is so.
        if not any(tokens[i].kind == "QSET" and tokens[i].value == "any" for i in words):
            return tokens
    elif last.kind != "ASKED" or len(words) < 3 or tokens[words[-2]].kind not in _SWITCHING:
        return tokens
    first = words[0]
    return [*tokens[:first], _as(tokens[first], FILLER, None), *tokens[first + 1 :]]


# A target word said before the verb of a condition.
_CONDITION_TARGET = frozenset({"NAME", "TYPE", "IT", "ROOM", "GROUP", "DE", "THIS_ROOM"})
# How an on-verb ends when it says a state (开着, 开起: being on), not an order to keep it so.
_BEING = ("着", "起", "住", "中")


def _state_in_condition(tokens: list[Token]) -> list[Token]:
    """如果书房灯开着就关掉 / 电视要是开着就关了 / 风扇开起的话关了: the first verb after 如果
    (or before 的话), said right after its target (如果 may stand between them) and ending in a
    mark of being (开着, 开起), is the state the condition tests, not the command 开着 (keep
    it on) it is when said alone."""
    out: list[Token] | None = None  # a copy, made at the first change (most make none)
    opened = False  # after an IF, before that condition's verb
    target = False  # a target word said since
    for i, token in enumerate(tokens):
        if token.kind == FILLER:
            continue
        if token.kind == "IF":
            opened = True  # a target said right before it stays said (电视要是开着)
            continue
        if token.kind in _CONDITION_TARGET:
            target = True
            continue
        if token.kind == "ON" and target and token.text.endswith(_BEING):
            tested = opened or _said_next(tokens, i) == "的话"
            if tested:
                out = out or list(tokens)
                out[i] = _as(token, "STATE", ("on", True))
        opened = target = False
    return tokens if out is None else out


# What a state is stated of: a device, a kind, or one referred to (它开着).
_STATED_OF = _SUBJECTS | {"IT"}
# Words only Cantonese says: there 开着 is a verb and its result (switch it on: 书房嘅灯开着),
# not a state, so _state_stated leaves it.
_CANTONESE_SAID = _any_of("嘅咗啲佢喺唔冇")
# Said after a verb of being, they ask to keep it so (冰箱开着吧): a suggestion, not a statement.
_SUGGESTING = frozenset({"吧", "呗"})


def _state_stated(tokens: list[Token]) -> list[Token]:
    """后门锁开着 / 客厅灯打开着 / 风扇开着呢: a switching verb of being (the verb and 着)
    said last, right after what it is said of, with nothing asking anyone to act (no 把/将, no
    request word, no other verb, no 吧), states a state; said to a home, that asks whether it
    holds (speech drops the 吗), and never switches anything. 把灯开着 and 灯开着吧 stay orders to
    keep it on, and 如果灯开着 the condition (_state_in_condition). Said in Cantonese it is
    the order (the caller does not call this then)."""
    words = _said_to_the_stop(tokens)
    if len(words) < 2:
        return tokens
    at = words[-1]
    verb = tokens[at]
    if (
        verb.kind not in _SWITCHING
        or not verb.text.endswith("着")
        or TABLES[verb.kind].get(verb.text[:-1]) is None  # 打着, 弄着: 着 is the result
        or tokens[words[-2]].kind not in _STATED_OF
    ):
        return tokens
    for i, token in enumerate(tokens):
        if i != at and (
            token.kind in _VERBS
            or token.kind in _NOT_STATED
            or token.text in REQUESTS
            or (i > at and token.text in _SUGGESTING)
        ):
            return tokens
    return [*tokens[:at], _as(verb, "QSTATE", ("on", verb.kind == "ON")), *tokens[at + 1 :]]


# Words that make a verb of being something else than a statement: an order (把), a condition
# or a set question (哪些灯开着, read by its own rule), and a scope the listener is to act
# over (所有书房嘅灯开着, 呢度灯开着: Home Assistant's Cantonese orders say 开着 for 打开).
_NOT_STATED = frozenset({"BA", "IF", "THEN", "QSET", "NEG", "ALL", "THIS_ROOM"})


def _said_next(tokens: list[Token], i: int) -> str | None:
    return tokens[i + 1].text if i + 1 < len(tokens) else None


def _room_pointed_at(tokens: list[Token]) -> list[Token]:
    """儿童房这里多少度 / 次卧这边多热: 这里 said right after a room points at that room, as
    那边 does (饭厅那边); it is not the speaker's room as well."""
    return [
        _as(t, FILLER, None) if t.kind == "THIS_ROOM" and i and tokens[i - 1].kind == "ROOM" else t
        for i, t in enumerate(tokens)
    ]


# Where a value is said next: a softener there (一下, 一哈) begins with the number 一.
_VALUE_BEFORE = frozenset({"PCT_PRE", "SET", "SETV", "TO"})


_SWITCHED = frozenset({"ON", "OFF"})
_ASKING_ENDS = ("吗", "么")


def _done_asked(tokens: list[Token]) -> list[Token]:
    """开了空调吗 / 关咗灯吗: a switching verb said first with its 了 (or 咗), what it switches,
    and 吗 last ask whether it was done, as 开了空调没有 does; they order nothing (能开空调吗
    has no 了, and stays a polite order)."""
    words = [i for i, t in enumerate(tokens) if t.kind != FILLER]
    last = tokens[-1]
    if len(words) < 2 or last.kind != FILLER or last.text not in _ASKING_ENDS:
        return tokens
    verb = tokens[words[0]]
    after = tokens[words[0] + 1] if words[0] + 1 < len(tokens) else None
    done = verb.text.endswith(("了", "咗")) or (after is not None and after.text in ("了", "咗"))
    if verb.kind not in _SWITCHED or not done or tokens[words[1]].kind not in _SUBJECTS:
        return tokens
    return [*tokens[:-1], _as(last, "ASKED", "asked")]


def _softened_numbers(tokens: list[Token]) -> list[Token]:
    """调到百分之一哈: the segmenter reads 一哈 as one softener (fewer words), but where a
    value is said next its 一 is the value, and only the rest softens."""
    out: list[Token] = []
    last: Token | None = None  # the last word kept (not a filler)
    for token in tokens:
        if (
            token.kind == FILLER
            and len(token.said) > 1
            and token.said[0] == "一"
            and last is not None
            and last.kind in _VALUE_BEFORE
        ):
            rest = token.said[1:]
            last = Token("NUM", "一", "一", token.start, "exact", 1.0)
            out += (last, Token(FILLER, rest, rest, token.start + 1, "exact", None))
            continue
        out.append(token)
        if token.kind != FILLER:
            last = token
    return out


def _passes(tokens: list[Token], text: str, kinds: set[str], repeated: bool) -> list[Token]:
    """_word_roles' passes, each skipped when none of its kinds was lexed."""
    # 三把 is a count; 把 said first (把客厅灯调到30) follows no number. The 把 of a count is
    # always the word 把 said as itself (no compound or reading makes one), so it is in the
    # text after its first character.
    if CLF in kinds or ("BA" in kinds and "NUM" in kinds and text.find("把", 1) > 0):
        tokens = _counts(tokens)
    if "SEP" in kinds or "AND" in kinds or repeated:  # else no verb is said twice
        tokens = _adverbs(tokens)
    if not kinds.isdisjoint(_ROLE_KINDS) or ("ON" in kinds and "NUM" in kinds):
        tokens = _roles(tokens)
    if kinds.isdisjoint(_SPOKEN_READS):
        return tokens
    return _spoken(tokens, kinds)


_KIND = attrgetter("kind")


def _unknown(text: str, start: int, end: int) -> Token:
    said = text[start:end]
    return Token(UNKNOWN, said, said, start, "unknown", said)


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
        "FEATURE",
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
    "COLOR",
    "NOTCH",
    "STATE",
    "ASKED",
    "EXCEPT_POST",
}


def _adverbs(tokens: list[Token]) -> list[Token]:
    """Words whose role depends on where the clause stands:
    - 再 after the target and before the verb (把它们再打开) means "again", not "and then",
      so it is dropped like a filler;
    - 、/和 right after a finished clause (客厅灯关掉、卧室灯打开) separates clauses;
    - a verb said twice in a row (打开打开客厅灯) is said once."""
    out: list[Token] = []
    last: Token | None = None  # the last word kept (not a filler)
    has_verb = False
    has_words = False
    for token in tokens:
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
        if token.kind != FILLER:
            last = token
    return out


def _counts(tokens: list[Token]) -> list[Token]:
    """三个 / 两盏 / 两把: a number and a classifier make one COUNT token."""
    out: list[Token] = []
    # Whether the last word kept is a number: it is the word before, as a number is kept as
    # it is, and no number is ever merged into the word before it.
    after_number = False
    for token in tokens:
        kind = token.kind
        if after_number and (kind == CLF or (kind == "BA" and token.text == "把")):
            prev = out[-1]
            out[-1] = Token(
                "COUNT",
                prev.said + token.said,
                prev.said + token.said,
                prev.start,
                "exact",
                int(prev.value),
            )
            after_number = False
            continue
        if kind == CLF:
            token = Token(FILLER, token.text, token.said, token.start, token.match, None)
        out.append(token)
        after_number = kind == "NUM"
    return out


_PLACES = frozenset({"ROOM", "FLOOR", "GROUP", "HOME", "THIS_ROOM"})
_KEEPABLE = _PLACES | {"NAME", "TYPE"}  # what 别动/留着 may keep


# The kinds _roles changes (ON only after a number: 2700开).
_ROLE_KINDS = frozenset({"NEG", "TO", "EXCEPT_POST"})


def _roles(tokens: list[Token]) -> list[Token]:
    """Words whose kind depends on their neighbours:
    - 别/不要/不用 with nothing after them to negate (不用，谢谢) is a cancel;
    - 开 right after a number of a thousand or more (2700开) is the kelvin unit;
    - 在 at the start of a clause, before a place (在客厅切到下一首), says where; so does 在
      before the places that end a clause (关窗帘在这里);
    - 别动/留着 at the start of a clause, before what they keep (别动客厅灯，关掉所有灯),
      take it away like 除了."""
    words = _said_at(tokens)
    out = list(tokens)
    for n, i in enumerate(words):
        token = tokens[i]
        after = tokens[words[n + 1]] if n + 1 < len(words) else None
        before = tokens[words[n - 1]] if n > 0 else None
        if token.kind == "NEG" and (after is None or after.kind in ("SEP", "CANCEL")):
            out[i] = _as(token, "CANCEL", "cancel")
        elif (
            token.kind == "ON"
            and token.text == "开"
            and before is not None
            and before.kind == "NUM"
            and before.value >= KELVIN_FLOOR
        ):
            out[i] = _as(token, "KELVIN", "K")
        elif (
            token.kind == "TO"
            and token.text in _AT_WORDS
            and after is not None
            and (after.kind in _PLACES or after.kind == "THIS_ROOM")
            and (before is None or before.kind == "SEP" or _places_end(tokens, words[n + 1 :]))
        ):
            out[i] = _as(token, "AT", "at")
        elif (
            token.kind == "EXCEPT_POST"
            and (before is None or before.kind == "SEP")
            and after is not None
            and after.kind in _KEEPABLE
        ):
            out[i] = _as(token, "EXCEPT", "except")
    return out


def _places_end(tokens: list[Token], rest: list[int]) -> bool:
    """Whether the words at `rest` are places (and 的) up to the end of their clause."""
    for i in rest:
        kind = tokens[i].kind
        if kind == "SEP":
            return True
        if kind not in _PLACES and kind != "DE":
            return False
    return True


def _said_at(tokens: list[Token]) -> list[int]:
    """Where the words said are (every token but the fillers)."""
    return [i for i, t in enumerate(tokens) if t.kind != FILLER]


def _said_to_the_stop(tokens: list[Token]) -> list[int]:
    """Where the words said are, but the stops that end the utterance (关了么？ asks as
    关了么 does)."""
    words = _said_at(tokens)
    while words and _ends(tokens[words[-1]]):
        words.pop()
    return words


def _ends(token: Token) -> bool:
    return token.kind == "SEP" and token.text in _STOPS


def _type_word(noun: str, at: int, match: MatchKind) -> Token:
    """The type word `noun`, said at `at`, where a pass rejoins what the segmenter split."""
    return Token("TYPE", noun, noun, at, match, TABLES["TYPE"][noun])


def _as(token: Token, kind: str, value: Any) -> Token:
    return Token(kind, token.text, token.said, token.start, token.match, value)


# 随便/任意 said on their own (随便开一盏灯, 开任意一盏灯): "any one", carried by the count.
_ANY_ALONE = frozenset({"随便", "任意", "任选", "随便挑"})
# What a Cantonese 啲 follows when it means 一点 (暗啲, 大声啲); elsewhere it is "the" (啲灯).
_DI_AFTER = frozenset({"ADJ", "REL"})


def _spoken(tokens: list[Token], kinds: set[str]) -> list[Token]:
    """Everyday words whose role depends on the rest of their clause:
    - 随便/任意 before a verb or a count: the count of one (or the verb's target) is "any";
    - 佢 after its clause has named a target resumes it (開咗TV佢): a particle;
    - 啲 not after an adjective or verb (熄晒啲燈) is "the", and 晒 ending a clause (全部熄晒)
      repeats the 都 already said: particles;
    - 好的 right before 那就 (好的，那就关灯吧) agrees with oneself, it confirms nothing;
    - 取消 … 静音 around the device (取消客厅电视静音) is 取消静音 said in two parts;
    - a cancel word said again (算了不要了, 不用了算了) is one cancel.

    `kinds`: every kind lexed (the words whose role this decides are among them)."""
    out = list(tokens)
    if "CONFIRM" in kinds:
        words = _said_at(tokens)
        said = [tokens[i] for i in words]
        # 好的，那就关灯吧: 好的 runs into 那就 and what follows; a comma between is no pause.
        then = 2 if len(said) > 3 and said[1].kind == "SEP" and not said[1].text.isalnum() else 1
        if (
            said
            and said[0].kind == "CONFIRM"
            and len(said) > then + 1
            and said[then].kind == "THEN"
        ):
            for i in words[: then + 1]:
                out[i] = _as(tokens[i], FILLER, None)
    if kinds.isdisjoint(_SPOKEN_KINDS) and "NEG" not in kinds:  # _roles makes NEG a CANCEL
        return out  # most utterances: no word whose role the clause decides
    clause: list[int] = []  # indexes of this clause's words (fillers left out)
    for i, token in enumerate(out):
        if token.kind == FILLER:
            continue
        if token.kind in _CLAUSE_START:
            _clause_roles(out, clause)
            clause = []
            continue
        clause.append(i)
    _clause_roles(out, clause)
    return out


# The kinds _clause_roles may change: without one of them it changes nothing.
_SPOKEN_KINDS = frozenset({"ANY", "IT", "YIDIAN", "DOU", "CANCEL", "CONFIRM"})
# "That one" said between a place and a device word (书房那台风扇), a request's 可以, and
# the words that undo a mute said around the device (取消/解除客厅电视静音).
_DEMONSTRATIVES = frozenset({"那台", "这台", "那盏", "这盏", "那个", "这个", "𠮶个", "呢个"})
_ASKING = frozenset({"可以"})
_DEVICE_WORDS = frozenset({"TYPE", "NAME"})
_UNDOING = frozenset({"取消", "解除"})
# The kinds without which _spoken changes nothing (_roles makes NEG a CANCEL).
_SPOKEN_READS = _SPOKEN_KINDS | {"CONFIRM", "NEG"}
# A kind one of _word_roles' passes reads: without one (and no kind twice) none runs. A
# number, as a count (三个) or before a kelvin 开 (2700开).
_PASS_KINDS = frozenset({CLF, "SEP", "AND", "NUM"}) | _ROLE_KINDS | _SPOKEN_READS


def _clause_roles(out: list[Token], clause: list[int]) -> None:
    named = False
    for n, i in enumerate(clause):
        token = out[i]
        before = out[clause[n - 1]] if n > 0 else None
        rest = n + 1 < len(clause)  # words after this one in the clause
        if token.kind == "ANY" and token.text in _ANY_ALONE:
            one = next((j for j in clause[n + 1 :] if _is_count_of_one(out[j])), None)
            if one is not None:
                out[one] = _as(out[one], "ANY", "any")
                out[i] = _as(token, FILLER, None)
        elif (
            (token.kind == "IT" and token.text == "佢" and named)
            or (
                token.kind == "YIDIAN"
                and token.text == "啲"
                and (before is None or before.kind not in _DI_AFTER)
            )
            or (token.kind == "DOU" and token.text == "晒" and not rest)
        ):
            out[i] = _as(token, FILLER, None)
        elif (
            token.kind == "IT"
            and token.text in _DEMONSTRATIVES
            and before is not None
            and (
                (before.kind in _PLACES and rest and out[clause[n + 1]].kind in _DEVICE_WORDS)
                or before.kind in _DEVICE_WORDS
            )
        ) or (token.kind == "CONFIRM" and token.text in _ASKING and n == 0 and rest):
            # 书房那台风扇, 冰箱那个: "that" beside a device word points at nothing more;
            # 可以把灯打开吗: 可以 before a command asks for it, it confirms nothing.
            out[i] = _as(token, FILLER, None)
        elif (
            token.kind == "CANCEL"
            and token.text in _UNDOING
            and rest
            and out[clause[-1]].kind == "MEDIA"
            and out[clause[-1]].value == "mute"
        ):
            out[i] = _as(token, FILLER, None)
            last = clause[-1]
            out[last] = Token(
                "MEDIA", "取消静音", out[last].said, out[last].start, "exact", "unmute"
            )
        elif token.kind == "CANCEL" and before is not None and before.kind == "CANCEL":
            out[i] = _as(token, FILLER, None)
        if token.kind in _KEEPABLE or token.kind == "IT":
            named = True


def _is_count_of_one(token: Token) -> bool:
    return token.kind == "COUNT" and token.value == 1
