"""The words people compose from the vocabulary's morphemes, derived once per process.

grammar/vocab.py lists morphemes by their class: verb stems, their complements and aspects,
degrees and qualities, change verbs, wrappers. A speaker composes them freely (关掉了, 整开,
开一哈, 锁埋, 有点闷, 冻死了, 变小), so the surface forms are derived here, once, when
grammar/vocab.py is first imported (its last lines call `compose`), and every home's lexicon
shares them. A form the tables list is kept as listed: a derived form never takes a surface
another table (or a filler, or a compound) says.

The functions read the morphemes from grammar/vocab.py when called, not when this module is
imported: vocab.py calls them from its own last lines, with every morpheme already defined.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import Any, NamedTuple

_PACE_ENDS = "快慢"  # a word ending in a pace keeps its 一点 (凉快一点 is not 凉 + 快一点)


class Vocabulary(NamedTuple):
    """The vocabulary the lexicon knows."""

    tables: dict[str, dict[str, Any]]
    """Every table's listed and composed words, by kind."""
    fillers: tuple[str, ...]
    """The fillers and the wrappers."""
    compounds: dict[str, Any]
    """The listed compounds and those composed here."""
    unheard: frozenset[str]
    """Switching verbs believed only when said exactly, never by their sound."""


def _vocab() -> ModuleType:
    from jiayu.grammar import vocab  # by now defined down to the line that calls compose()

    return vocab


def _bound_aspects(v: ModuleType) -> tuple[str, ...]:
    """An aspect the lexer drops as a filler anyway (了, 一下, 一哈) needs no form of its own:
    the verb and the filler are read as two words, fewer than a number would make of 一. Only
    the others are composed with a verb (开着, 关咗, 开返)."""
    return tuple(a for a in v.ASPECTS if a not in v.FILLERS and a not in v.WRAPPERS)


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
    v: ModuleType, stems: tuple[str, ...], complements: tuple[str, ...], results: tuple[str, ...]
) -> list[str]:
    """A switching verb with or without a complement (开, 开起来: a one-syllable verb takes
    one; 开启 and 关闭 are verb and result already), a verb of doing with its result (整开),
    a one-syllable verb and its object 机 (开机, 关机), each with or without an aspect (开着,
    关咗, 整开返), and a one-syllable verb said twice around 一 (开一开)."""
    bases = _said_plainly(stems, complements)
    bases += [verb + result for verb in v.DOING_VERBS for result in results]
    bases += [stem + power for stem in stems if len(stem) == 1 for power in v.POWER_OBJECTS]
    endings = ("", *_bound_aspects(v))  # once: the comprehension would remake it per base
    forms = [base + aspect for base in bases for aspect in endings]
    forms += [stem + "一" + stem for stem in stems if len(stem) == 1]
    return forms


def _off_words(v: ModuleType) -> list[str]:
    # 锁 alone is the type word (门锁): only its forms with a complement or any aspect
    # switch (锁了, 锁一下), never 锁 and a filler.
    locked = [v.LOCK_STEM + end for end in (*v.OFF_COMPLEMENTS, *v.ASPECTS)]
    return [*_switching(v, v.OFF_STEMS, v.OFF_COMPLEMENTS, v.OFF_RESULTS), *locked]


def _relative_words(v: ModuleType) -> dict[str, Any]:
    adjectives = {word: how for word, how in v.TABLES["ADJ"].items() if how[1] != 0 or how[2] != 0}
    words = {verb + adj: how for verb in v.CHANGE_VERBS for adj, how in adjectives.items()}
    sides = {
        **{adj: how for adj, how in adjectives.items() if len(adj) == 1},
        **v.TOWARD_SIDES,
    }
    words.update(
        {
            toward + side + link + verb: how
            for toward in v.TOWARD
            for side, how in sides.items()
            for link in ("", "了")
            for verb in v.TOWARD_VERBS
        }
    )
    for verb, sizes in v.SIZE_ADJECTIVES.items():
        words.update({verb + adj: adjectives[adj] for adj in sizes})
    return words


def _complaint_words(v: ModuleType) -> dict[str, str]:
    words: dict[str, str] = {}
    for kind, qualities in v.QUALITIES.items():
        for quality in qualities:
            for degree in v.DEGREES:
                words[degree + quality] = kind
            if kind not in ("high", "low"):  # 大死了 says nothing of what is too big
                for ending in v.DEGREE_ENDINGS:
                    words[quality + ending] = kind
            if quality in v.QUALITIES_ALONE:
                words[quality] = kind
    felt = {word: kind for word, kind in words.items() if kind in v.FELT}
    # A person's feeling said with no degree too (我冷, 我热了): only after who feels it.
    felt.update({quality: kind for kind in v.FELT for quality in v.QUALITIES[kind]})
    words.update({feeler + word: kind for feeler in v.FEELERS for word, kind in felt.items()})
    return words


def _asked_qualities(v: ModuleType) -> dict[str, str]:
    """A quality asked as itself, not itself (热不热, Cantonese 热唔热, 潮不潮): a question of
    the attribute it is a complaint about (temperature, humidity, volume …)."""
    words: dict[str, str] = {}
    for attribute, kinds in v.COMPLAINT_SUBJECTS.items():
        for kind in kinds:
            for quality in v.QUALITIES.get(kind, ()):
                for neg in v.NOT_SAID:
                    words.setdefault(quality + neg + quality, attribute)
    return words


def _state_words(v: ModuleType) -> dict[str, tuple[str, bool]]:
    words: dict[str, tuple[str, bool]] = {}
    for state, verbs in v.STATE_VERBS.items():
        for verb in verbs:
            for aspect in v.STATE_ASPECTS:
                if aspect == "紧" and len(verb) == 1:
                    continue  # 关紧, 锁紧: shut it tight, a command
                if aspect in ("住", "起") and state != ("on", True):
                    continue  # 关住, 锁起: keep it shut, shut it, a command
                words[verb + aspect] = state
                words[verb + aspect + "的"] = state
            for aspect in v.STATE_PERFECT:
                words[verb + aspect + "的"] = state
            if len(verb) > 1:  # 开的 would split names (台开的灯): a state with 的 alone is
                words[verb + "的"] = state  # said of a two-syllable verb (打开的, 关闭的)
    for word in v.STATE_UNLOCKED:
        words[word + "的"] = ("locked", False)
        if not word.startswith("解"):  # 解锁 alone is the command
            words[word] = ("locked", False)
        else:  # 解锁着, 解锁中的: a state, as 打开着 is
            for aspect in v.STATE_ASPECTS:
                words[word + aspect] = words[word + aspect + "的"] = ("locked", False)
    return words


def _stative_asked(v: ModuleType) -> dict[str, tuple[str, bool]]:
    """亮了吗, 亮了没有, 亮没得: a state verb that switches nothing (亮 is an adjective, not an
    order) said with an asking word asks whether the state holds; 开了没有 is asked by the
    verb and the asking word the grammar reads as two words."""
    switching = {*v.ON_STEMS, *v.OFF_STEMS, v.LOCK_STEM, *v.TABLES["ON"], *v.TABLES["OFF"]}
    return {
        verb + asked: state
        for state, verbs in v.STATE_VERBS.items()
        for verb in verbs
        if verb not in switching
        for asked in v.PROGRESS_ASKED
    }


def _looking(v: ModuleType) -> list[str]:
    """瞅瞅, 看一看, 瞧一下, 看一眼: a verb of looking said twice or softened (看 alone is not
    one: 看电视)."""
    return [
        form
        for stem in v.LOOK_STEMS
        for form in (stem + stem, stem + "一" + stem, *(stem + soft for soft in v.LOOK_SOFTENERS))
    ]


def _asked_either_way(v: ModuleType) -> dict[str, tuple[str, bool]]:
    """关没关, 开没开, 锁没锁: a state verb, a negation and the verb again ask whether the
    state holds."""
    return {
        verb + neg + verb: state
        for state, verbs in v.STATE_VERBS.items()
        for verb in verbs
        for neg in v.NOT_HAPPENED
    }


def _asked_after_a_verb(v: ModuleType) -> dict[str, Any]:
    """是多少, 设的多少度, 定的几度, 显示什么模式: a question word after a verb of being or of
    setting asks the same (of what the device is set to, or shows); 在干嘛, 正在做什么: what a
    device is doing is its state."""
    what = _what_asked(v)
    # After a lead only 什么's own (设的什么模式): every what-word's would double the forms.
    said_after = {word: how for word, how in what.items() if word.startswith("什么")}
    bases = {**{base: v.TABLES["QWORD"][base] for base in v.ASKED_BASES}, **said_after}
    asked = {lead + base: how for lead in asked_leads() for base, how in bases.items()}
    return {**what, **asked, **dict.fromkeys(doing_asked(), "state")}


def _what_asked(v: ModuleType) -> dict[str, str]:
    """什么模式, 啥颜色, 咩状态: a word for "what" and what it names ask that attribute."""
    return {
        what + noun: attribute for what in v.WHAT_WORDS for noun, attribute in v.WHAT_ASKED.items()
    }


def asked_leads() -> list[str]:
    """是, 显示, 设的, 定咗, 调的是: what may lead a question word asking what a device is set
    to."""
    v = _vocab()
    return [*v.ASKED_BEING, *(verb + mark for verb in v.ASKED_VERBS for mark in v.ASKED_MARKS)]


def doing_asked() -> list[str]:
    """在干嘛, 正在做什么, 喺度做乜: what a device is doing, asked (the lexer reads them after 你
    too: compiler/lexicon.py)."""
    v = _vocab()
    return [
        lead + verb + what
        for lead in v.DOING_LEADS
        for verb in v.DOING_ASKED_VERBS
        for what in v.DOING_WHAT
    ]


def _kept(v: ModuleType) -> list[str]:
    """起夜灯留着, 只留客厅的灯, 先留着吧, 客厅灯开着就行: keeping a device out of the rest."""
    kept = [
        lead + keep + tail
        for lead in v.KEEPING_LEADS
        for keep in v.KEEPING
        if lead or len(keep) > 1
        for tail in v.KEPT_TAILS
    ]
    return [*kept, *(stay + tail for stay in v.STAYING for tail in v.KEPT_TAILS if tail)]


def _how_long(v: ModuleType) -> list[str]:
    """还有多久洗完, 还要多久才能扫好, 多久烘干, 洗完还要多久: how long a device has left, with
    what it is doing said before or after."""
    done = [verb + result for verb in v.PROGRESS_VERBS for result in v.PROGRESS_RESULTS]
    before = [
        asked + link + verb for asked in v.HOW_LONG for link in v.HOW_LONG_LINKS for verb in done
    ]
    after = [verb + asked for verb in done for asked in v.HOW_LONG if asked != "多久"]
    return [*before, *after]


def _separated(v: ModuleType) -> dict[str, dict[str, Any]]:
    """静个音, 摇一下头, 摇一摇头, 摇摇头: a verb and its object listed as one word (SEPARABLE),
    parted by a softener or a classifier, or around the verb said again, by the kind and value
    of the word."""
    out: dict[str, dict[str, Any]] = {}
    for kind, table in v.TABLES.items():
        for word in v.SEPARABLE:
            if word in table:
                verb, thing = word[0], word[1:]
                parted = [verb + between + thing for between in v.SEPARATED_BY]
                parted += [verb + "一" + verb + thing, verb + verb + thing]
                out.setdefault(kind, {}).update(dict.fromkeys(parted, table[word]))
    return out


def _flat(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(word for group in groups for word in group))


def morphemes() -> dict[str, tuple[tuple[str, ...], bool]]:
    """The morpheme classes the forms are composed from, by name: (morphemes, whether a form
    begins with one of them). What `jiayu coverage` counts in place of the composed forms."""
    v = _vocab()
    return {
        "ON_STEMS": (v.ON_STEMS, True),
        "OFF_STEMS": ((*v.OFF_STEMS, v.LOCK_STEM), True),
        "DOING_VERBS": (v.DOING_VERBS, True),
        "SET_STEMS": (v.SET_STEMS, True),
        "CHANGE_VERBS": ((*v.CHANGE_VERBS, *v.SIZE_ADJECTIVES), True),
        "TOWARD": (v.TOWARD, True),
        "TOWARD_SIDES": (tuple(v.TOWARD_SIDES), False),
        "TOWARD_VERBS": (v.TOWARD_VERBS, False),
        "DEGREES": (v.DEGREES, True),
        "PROGRESS_VERBS": (v.PROGRESS_VERBS, True),
        "RETURN_VERBS": (v.RETURN_VERBS, True),
        "REPLAY_VERBS": (v.REPLAY_VERBS, True),
        "UNDO_VERBS": (v.UNDO_VERBS, True),
        "STATE_VERBS": (_flat(v.STATE_VERBS.values()), True),
        "STATE_UNLOCKED": (v.STATE_UNLOCKED, True),
        "ON_COMPLEMENTS": (v.ON_COMPLEMENTS, False),
        "OFF_COMPLEMENTS": (v.OFF_COMPLEMENTS, False),
        "ON_RESULTS": (v.ON_RESULTS, False),
        "OFF_RESULTS": (v.OFF_RESULTS, False),
        "ASPECTS": (v.ASPECTS, False),
        "SET_TO": (v.SET_TO, False),
        "DEGREE_ENDINGS": (v.DEGREE_ENDINGS, False),
        "QUALITIES": (_flat((*v.QUALITIES.values(), v.QUALITIES_ALONE)), False),
        "PROGRESS_RESULTS": (v.PROGRESS_RESULTS, False),
        "DOCKS": (v.DOCKS, False),
        "THIS_TRACK": (v.THIS_TRACK, False),
        "PAUSE_WORDS": (v.PAUSE_WORDS, False),
        "PROGRESS_ASKED": (v.PROGRESS_ASKED, False),
        "STATE_ASPECTS": ((*v.STATE_ASPECTS, *v.STATE_PERFECT), False),
        "NOT_SAID": (v.NOT_SAID, False),
        "LOOK_STEMS": (v.LOOK_STEMS, True),
        "LOOK_SOFTENERS": (v.LOOK_SOFTENERS, False),
        "STOP_RESULTS": (v.STOP_RESULTS, False),
        "SILENT": (v.SILENT, False),
        "NOT_HAPPENED": (v.NOT_HAPPENED, False),
        "ASKED_LEADS": ((*v.ASKED_BEING, *v.ASKED_VERBS), True),
        "ASKED_MARKS": (v.ASKED_MARKS, False),
        "ASKED_BASES": (v.ASKED_BASES, False),
        "WHAT_WORDS": (v.WHAT_WORDS, True),
        "WHAT_ASKED": (tuple(v.WHAT_ASKED), False),
        "DOING_LEADS": (v.DOING_LEADS, True),
        "DOING_ASKED_VERBS": (v.DOING_ASKED_VERBS, False),
        "DOING_WHAT": (v.DOING_WHAT, False),
        "HOW_LONG": (v.HOW_LONG, True),
        "HOW_LONG_LINKS": (v.HOW_LONG_LINKS, False),
        "GEARS": (v.GEARS, False),
        "MOVING_STEMS": (v.MOVING_STEMS, True),
        "SETTING_BY_ONE": (v.SETTING_BY_ONE, True),
        "POWER_OBJECTS": (v.POWER_OBJECTS, False),
        "NOTCH_COUNTS": (tuple(v.NOTCH_COUNTS), True),
        "NOTCH_UNITS": (v.NOTCH_UNITS, False),
        "LOCKED_VERBS": (v.LOCKED_VERBS, True),
        "KEEPING": ((*v.KEEPING, *v.STAYING), True),
        "KEEPING_LEADS": (v.KEEPING_LEADS, True),
        "KEPT_TAILS": (v.KEPT_TAILS, False),
        "SEPARABLE": (v.SEPARABLE, True),
        "SEPARATED_BY": (v.SEPARATED_BY, False),
        "DEMONSTRATIVES": (v.DEMONSTRATIVES, True),
        "POINTING_CLASSIFIERS": (v.POINTING_CLASSIFIERS, False),
    }


def derived() -> dict[str, dict[str, Any]]:
    """Every composed form, by the kind of word it is (the grammar terminal), before the
    listed words are taken out."""
    v = _vocab()
    endings = ("", *_bound_aspects(v))
    forms: dict[str, dict[str, Any]] = {
        # In this order: 开着 is the command (keep it on), 关着 and 锁着 the states.
        "ON": dict.fromkeys(
            (
                *_switching(v, v.ON_STEMS, v.ON_COMPLEMENTS, v.ON_RESULTS),
                *(stem + started for stem in v.MOVING_STEMS for started in v.MOVING_STARTED),
            ),
            "on",
        ),
        "STATE": _state_words(v),
        "OFF": dict.fromkeys(_off_words(v), "off"),
        "SET": dict.fromkeys(
            (
                *(stem + to for stem in v.SET_STEMS for to in v.SET_TO),
                *(verb + "个" for verb in v.SETTING_BY_ONE),
            ),
            "set",
        ),
        "REL": _relative_words(v),
        "QSTATE": {
            **_stative_asked(v),
            **_asked_either_way(v),
            **{
                verb + asked: ("locked", True)
                for verb in v.LOCKED_VERBS
                for asked in v.PROGRESS_ASKED
            },
        },
        "QVERB": dict.fromkeys(_looking(v), "query"),
        "QWORD": {**_asked_qualities(v), **_asked_after_a_verb(v)},
        "IT": dict.fromkeys(
            (this + one for this in v.DEMONSTRATIVES for one in v.POINTING_CLASSIFIERS), "it"
        ),
        "COMPLAINT": {**_complaint_words(v), **v.COMPLAINT_WORDS},
        "MEDIA": {
            **dict.fromkeys(
                (verb + dock for verb in v.RETURN_VERBS for dock in v.DOCKS), "return_to_base"
            ),
            **dict.fromkeys(
                (
                    verb + this + played
                    for verb in v.REPLAY_VERBS
                    for this in v.THIS_TRACK
                    for played in v.PLAYED
                ),
                "previous_track",
            ),
            **dict.fromkeys(
                (undo + pause for undo in v.UNDO_VERBS for pause in v.PAUSE_WORDS), "play"
            ),
            # 把电视整没声: a verb of doing that leaves it with no sound mutes it.
            **dict.fromkeys(
                (verb + silent for verb in v.DOING_VERBS for silent in v.SILENT), "mute"
            ),
            **dict.fromkeys(
                (
                    verb + result + aspect
                    for verb in v.DOING_VERBS
                    for result in v.STOP_RESULTS
                    for aspect in endings
                ),
                "stop",
            ),
        },
        "HOWLONG": dict.fromkeys(_how_long(v), "howlong"),
        "NOTCH": {
            count + unit: steps for count, steps in v.NOTCH_COUNTS.items() for unit in v.NOTCH_UNITS
        },
        "EXCEPT_POST": dict.fromkeys(_kept(v), "post"),
        "EXTREME": {
            word + gear: ("fan_speed", way)
            for word, (attribute, way) in v.TABLES["EXTREME"].items()
            if attribute is None
            for gear in v.GEARS
        },
        "PROGRESS": dict.fromkeys(
            (
                verb + result + asked
                for verb in v.PROGRESS_VERBS
                for result in v.PROGRESS_RESULTS
                for asked in v.PROGRESS_ASKED
            ),
            "progress",
        ),
    }
    for kind, parted in _separated(v).items():
        forms.setdefault(kind, {}).update(parted)
    return forms


def compose() -> Vocabulary:
    """The listed tables with the composed forms added (a listed word keeps its class; of
    two classes composing the same form, the first derived wins), the fillers with the wrappers, and
    the compounds with those a composed form needs."""
    v = _vocab()
    composed = derived()
    listed: dict[str, dict[str, Any]] = v.TABLES
    taken = {word for table in listed.values() for word in table}
    taken.update(v.FILLERS, v.COMPOUNDS)
    tables = {kind: dict(table) for kind, table in listed.items()}
    for kind, forms in composed.items():
        table = tables.setdefault(kind, {})
        for word, value in forms.items():
            if word not in taken:
                table[word] = value
                taken.add(word)
    fillers = (*v.FILLERS, *(w for w in v.WRAPPERS if w not in taken))
    compounds = dict(v.COMPOUNDS)
    # A word ending in a pace keeps its 一点: 调凉快一点 is not 调凉 + 快一点.
    little = listed["YIDIAN"]
    for kind in ("ADJ", "REL"):
        for word, how in tables[kind].items():
            if word[-1] in _PACE_ENDS:
                for bit in little:
                    compounds.setdefault(
                        word + bit, ((kind, word, how, len(word)), ("YIDIAN", bit, 1, len(bit)))
                    )
    # A loudness said around its 一点 (小点声, 调大一点声, 整小点声, 细啲声): the loudness (with
    # the verb: 调小声), its 一点, and 声.
    for word, how in listed["ADJ"].items():
        if len(word) == 2 and word.endswith("声"):
            for verb in ("", *v.LOUDNESS_VERBS):
                kind = "REL" if verb else "ADJ"
                for bit in v.LOUDNESS_BITS:
                    compounds.setdefault(
                        verb + word[0] + bit + "声",
                        (
                            (kind, verb + word, how, len(verb) + 1),
                            ("YIDIAN", bit, 1, len(bit)),
                            ("FILLER", "声", None, 1),
                        ),
                    )
    plain = {
        *_said_plainly(v.ON_STEMS, v.ON_COMPLEMENTS),
        *_said_plainly(v.OFF_STEMS, v.OFF_COMPLEMENTS),
    }
    # Of the switching verbs, only the stems and their complements are believed by sound:
    # a listed word heard in noise (堻乳 as 进入) would switch something no one named.
    unheard = frozenset(w for kind in ("ON", "OFF") for w in tables[kind] if w not in plain)
    return Vocabulary(tables, fillers, compounds, unheard)
