"""`jiayu coverage`: which grammar rules, rule alternatives and fixed words the corpus
exercises, so a grammar author sees what no case tests.

    jiayu coverage [FILE...] [--json]      (default: every case file of the bundled corpus)

Grammar: every text of every case (history turns included) is compiled on its case's home;
the tokens of each one that compiles are parsed again by a twin of the grammar in which no
rule is inlined (the `?` marks removed: the language and its LALR tables are the same, only
the tree keeps every rule's node; `_rule`s, which Lark always inlines, are renamed for
the twin). Each node is then matched to the alternative of the
source grammar (`a | b -> alias`) its children spell, so coverage speaks of the lines of
grammar/jiayu.lark, not of Lark's expanded rules.

Words: a fixed word (jiayu.grammar.vocab) is covered when some text lexes it exactly (a
pinyin-corrected slip does not count: the word itself was not said); a numeral character or
a classifier when it is part of a number or count that some text says; a compound (锁门)
when its parts are lexed from it; a room synonym (睡房) when it is lexed as its room. Forms the
morphology composes (关掉了, 有点燥, 设定为) are not words of their own here: their morphemes
are (关, 掉, 有点, 燥, 设定, 为 in grammar/morphology.py's classes), each covered when a form
said exactly begins with it (a verb stem, a degree) or holds it after its first character (a
complement, an aspect, a quality).

Exits 1 when anything is uncovered, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Tree
from lark import Token as LarkToken
from lark.lexer import Lexer

from jiayu.cases import Case, load_cases
from jiayu.compiler import Lexicon, compile_text
from jiayu.compiler.lalr import grammar_text
from jiayu.compiler.lexicon import CLF, FILLER, Entry
from jiayu.grammar import morphology, vocab
from jiayu.home import load_home, parse_home
from jiayu.ir import Parse, Token
from jiayu.text import normalize

# --- the grammar's source alternatives ----------------------------------------------------


@dataclass(frozen=True)
class Alternative:
    """One `|`-separated alternative of a rule in grammar/jiayu.lark."""

    rule: str
    """The rule it belongs to."""
    index: int
    """Its position among the rule's alternatives, from 0."""
    expansion: str
    """Its right-hand side as written (without the alias)."""
    alias: str | None
    """The tree node name it builds (`-> alias`), if any."""

    @property
    def label(self) -> str:
        return f"{self.rule}: {self.expansion}" + (f" -> {self.alias}" if self.alias else "")


_RULE_START = re.compile(r"^\??([a-z_][a-z0-9_]*)\s*:(.*)$")
_ITEM = re.compile(r"\s*(->\s*[a-z_][a-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|[()\[\]|?*+])")


def alternatives(grammar: str) -> list[Alternative]:
    """Every rule alternative of a Lark grammar written in this project's style (one rule
    per definition, continuation lines starting with `|`, no literals or templates)."""
    bodies: dict[str, list[str]] = {}
    current: str | None = None
    for raw in grammar.splitlines():
        line = raw.split("//", 1)[0].rstrip()
        if not line.strip() or line.startswith("%"):
            continue
        start = _RULE_START.match(line)
        if start:
            current = start.group(1)
            bodies[current] = [start.group(2)]
        elif current is not None and line[0].isspace():
            bodies[current].append(line)
        else:
            raise ValueError(f"grammar line not understood: {raw!r}")
    out: list[Alternative] = []
    for rule, lines in bodies.items():
        for index, alt in enumerate(_split_top(_items(" ".join(lines)))):
            alias = alt[-1][2:].strip() if alt and alt[-1].startswith("->") else None
            body = alt[:-1] if alias else alt
            out.append(Alternative(rule, index, _spell(body), alias))
    return out


def _items(text: str) -> list[str]:
    items: list[str] = []
    pos = 0
    while pos < len(text.rstrip()):
        found = _ITEM.match(text, pos)
        if not found:
            raise ValueError(f"grammar text not understood at {text[pos:]!r}")
        items.append(found.group(1))
        pos = found.end()
    return items


def _split_top(items: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    depth = 0
    for item in items:
        depth += (item in "([") - (item in ")]")
        if item == "|" and depth == 0:
            parts.append([])
        else:
            parts[-1].append(item)
    return parts


def _spell(items: list[str]) -> str:
    text = " ".join(items)
    text = re.sub(r" ([?*+])", r"\1", text)
    return re.sub(r"([(\[]) ", r"\1", re.sub(r" ([)\]])", r"\1", text))


class _Compiler:
    """Turns an alternative's EBNF into a regular expression over the names of a tree
    node's children, each followed by one space."""

    def __init__(self, names_of: dict[str, list[str]]) -> None:
        self.names_of = names_of  # rule -> every node name that rule's subtree can carry

    def pattern(self, expansion: str) -> re.Pattern[str]:
        self.items = _items(expansion)
        self.pos = 0
        regex = self._alternation()
        if self.pos != len(self.items):
            raise ValueError(f"unbalanced grammar expansion {expansion!r}")
        return re.compile(regex)

    def _alternation(self) -> str:
        branches = [self._sequence()]
        while self.pos < len(self.items) and self.items[self.pos] == "|":
            self.pos += 1
            branches.append(self._sequence())
        return "(?:" + "|".join(branches) + ")"

    def _sequence(self) -> str:
        out = ""
        while self.pos < len(self.items) and self.items[self.pos] not in ("|", ")", "]"):
            item = self.items[self.pos]
            self.pos += 1
            if item in ("(", "["):
                atom = self._alternation() + ("?" if item == "[" else "")
                self.pos += 1  # the ")" or "]"
            elif item[0].isupper():
                atom = f"(?:{re.escape(item)} )"
            else:
                names = self.names_of.get(item, [item])
                atom = "(?:" + "|".join(f"{re.escape(n)} " for n in names) + ")"
            if self.pos < len(self.items) and self.items[self.pos] in ("?", "*", "+"):
                atom += self.items[self.pos]
                self.pos += 1
            out += atom
        return out


KEEP = "keep_"
"""Prefix given to `_rule` names in the twin grammar, taken off again when reading trees."""
_INLINED = re.compile(r"(?<![A-Za-z0-9_])(_[a-z][a-z0-9_]*)")


def _source_name(name: str) -> str:
    return name[len(KEEP) :] if name.startswith(KEEP + "_") else name


class _Given(Lexer):
    """Lark's custom-lexer hook: the tokens come from our lexicon."""

    def __init__(self, conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[LarkToken]:  # type: ignore[override]
        yield from data


@dataclass(frozen=True)
class GrammarMap:
    """The source alternatives of a grammar and the uninlined twin parser that finds them."""

    alternatives: tuple[Alternative, ...]
    patterns: tuple[re.Pattern[str], ...]
    by_node: dict[str, tuple[int, ...]]
    """node name -> indexes of the alternatives that can build such a node."""
    parser: Lark

    @classmethod
    def build(cls, grammar: str) -> GrammarMap:
        alts = alternatives(grammar)
        names_of: dict[str, list[str]] = {}
        for alt in alts:
            names = names_of.setdefault(alt.rule, [alt.rule])
            if alt.alias and alt.alias not in names:
                names.append(alt.alias)
        compiler = _Compiler(names_of)
        by_node: dict[str, list[int]] = {}
        for i, alt in enumerate(alts):
            by_node.setdefault(alt.alias or alt.rule, []).append(i)
        twin = re.sub(r"^\?", "", grammar, flags=re.MULTILINE)
        # Lark always inlines rules named _x; renamed, they keep their nodes too.
        twin = _INLINED.sub(KEEP + r"\1", twin)
        return cls(
            tuple(alts),
            tuple(compiler.pattern(alt.expansion) for alt in alts),
            {node: tuple(ids) for node, ids in by_node.items()},
            Lark(twin, parser="lalr", lexer=_Given),
        )

    def walk(self, tree: Tree[LarkToken]) -> Iterator[int | str]:
        """The alternative index of every node of the tree, or the node's name when no
        alternative spells its children (a gap in this mapping, reported, never hidden)."""
        for node in tree.iter_subtrees():
            spelled = "".join(
                f"{child.type if isinstance(child, LarkToken) else _source_name(child.data)} "
                for child in node.children
                if child is not None  # an absent [optional] (Lark's maybe_placeholders)
            )
            name = _source_name(str(node.data))
            hits: list[int | str] = [
                i for i in self.by_node.get(name, ()) if self.patterns[i].fullmatch(spelled)
            ]
            yield from hits or [name]


@cache
def _grammar_map() -> GrammarMap:
    return GrammarMap.build(grammar_text())


# --- the fixed vocabulary -------------------------------------------------------------------

NUMERAL = "NUMERAL"
"""The table name given to vocab.DIGITS and vocab.UNITS, read by the number scanner."""
COMPOUND = "COMPOUND"
"""Words lexed as several tokens (锁门 → 锁上 + 门)."""
ROOM_SYNONYM = "ROOM_SYNONYM"
"""The everyday variants of vocab.ROOM_SYNONYMS, which become aliases of a home's rooms."""
_KIND_NAMES = {CLF: "CLASSIFIER"}


@cache
def _vocabulary() -> dict[str, Entry]:
    """The lexer's fixed vocabulary as the lexicon builds it, listed and composed words alike:
    the entries of a lexicon on a home with nothing of its own."""
    empty = parse_home({"version": 1, "name": "-", "devices": []}, "the fixed vocabulary")
    return dict(Lexicon(empty).entries)


def _compounds() -> dict[str, Any]:
    """Each compound word → its parts, as the lexer reads it."""
    return {w: e.value for w, e in _vocabulary().items() if e.kind == COMPOUND}


@cache
def composed_words() -> frozenset[str]:
    """The forms only the morphology makes: in the lexer's tables, in no listed table."""
    listed = {word for table in vocab.LISTED.values() for word in table}
    made = {word for table in vocab.TABLES.values() for word in table}
    return frozenset(made - listed - set(vocab.FILLER_WORDS) - set(vocab.COMPOUND_WORDS))


def fixed_words() -> dict[str, tuple[str, ...]]:
    """Every fixed word and morpheme → the vocabulary tables or morpheme classes it is in (a
    wake word is a filler the lexer drops, named apart here)."""
    tables: dict[str, list[str]] = {}
    wake = frozenset(vocab.WAKE_WORDS)
    composed = composed_words()
    listed: list[tuple[str, Iterable[str]]] = [
        *(
            ("WAKE" if word in wake else _KIND_NAMES.get(entry.kind, entry.kind), (word,))
            for word, entry in _vocabulary().items()
            if word not in composed
        ),
        *((name, words) for name, (words, _) in morphology.morphemes().items()),
        (ROOM_SYNONYM, (variant for _, variant in vocab.ROOM_SYNONYMS)),
        (NUMERAL, (*vocab.DIGITS, *vocab.UNITS)),
    ]
    for kind, words in listed:
        for word in words:
            tables.setdefault(word, []).append(kind)
    return {word: tuple(kinds) for word, kinds in tables.items()}


def words_in(
    tokens: Sequence[Token], fixed: dict[str, tuple[str, ...]], text: str = ""
) -> Iterator[str]:
    """The fixed words the tokens of a normalised `text` exercise."""
    for token in tokens:
        if token.kind in ("NUM", "COUNT"):
            yield from (ch for ch in token.said if NUMERAL in fixed.get(ch, ()))
            if token.kind == "COUNT":
                yield token.said[-1]  # the classifier (两盏 → 盏)
        elif token.said != token.text:
            pass  # a pinyin slip (等 for 灯) or a compound's part: not said as written
        elif token.text in composed_words():
            yield from _morphemes_of(token.text)
        elif token.text in fixed:
            yield token.text
        for word, parts in _compounds().items():
            # A compound is lexed as its parts: its first part starts where the word does.
            _, canonical, _, said = parts[0]
            if (
                token.text == canonical
                and token.said == word[:said]
                and text.startswith(word, token.start)
            ):
                yield word


@cache
def _morpheme_sets() -> tuple[frozenset[str], frozenset[str]]:
    """The morphemes a form begins with (stems, degrees) and all of them."""
    classes = morphology.morphemes().values()
    leading = frozenset(w for words, lead in classes if lead for w in words)
    return leading, frozenset(w for words, _ in classes for w in words)


def _morphemes_of(form: str) -> Iterator[str]:
    """The morphemes a composed form is made of, read as the longest that begins it and
    then, left to right, the longest at each place (a character no morpheme starts, the 一
    of 开一开 or the 的 of 打开的, is glue); a form that is itself a morpheme is that one."""
    leading, every = _morpheme_sets()
    if form in every:
        yield form
        return
    at = next((n for n in range(len(form), 0, -1) if form[:n] in leading), 0)
    if not at:
        return
    yield form[:at]
    while at < len(form):
        n = next((n for n in range(len(form) - at, 0, -1) if form[at : at + n] in every), 0)
        if n:
            yield form[at : at + n]
        at += n or 1


# --- measuring --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Coverage:
    """How often the corpus exercised each grammar alternative and each fixed word."""

    alternatives: dict[Alternative, int]
    words: dict[str, int]
    tables: dict[str, tuple[str, ...]]
    """Each fixed word's vocabulary tables, for the report."""
    unmapped: dict[str, int]
    """Tree nodes no alternative spells: a bug in this module if ever non-empty."""
    texts: int
    parsed: int

    @property
    def rules(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for alt, hits in self.alternatives.items():
            counts[alt.rule] += hits
        return dict(counts)

    def uncovered_rules(self) -> list[str]:
        return [rule for rule, hits in self.rules.items() if not hits]

    def uncovered_alternatives(self) -> list[Alternative]:
        return [alt for alt, hits in self.alternatives.items() if not hits]

    def uncovered_words(self) -> list[str]:
        return [word for word, hits in self.words.items() if not hits]

    def unreachable_words(self) -> list[str]:
        """Uncovered words no utterance can ever produce: normalisation rewrites them before
        lexing (full-width punctuation, traditional characters, spaces), so the vocabulary
        should list their normal form instead."""
        return [word for word in self.uncovered_words() if normalize(word) != word]

    @property
    def complete(self) -> bool:
        return not (self.uncovered_alternatives() or self.uncovered_words() or self.unmapped)

    def to_json(self) -> dict[str, Any]:
        return {
            "texts": self.texts,
            "parsed": self.parsed,
            "rules": {"total": len(self.rules), "uncovered": self.uncovered_rules()},
            "alternatives": {
                "total": len(self.alternatives),
                "uncovered": [a.label for a in self.uncovered_alternatives()],
            },
            "words": {
                "total": len(self.words),
                "uncovered": {w: list(self.tables[w]) for w in self.uncovered_words()},
                "unreachable": self.unreachable_words(),
            },
            "unmapped": self.unmapped,
        }

    def text(self) -> str:
        rules, alts, words = self.rules, self.alternatives, self.words
        lines = [
            f"{self.texts} texts, {self.parsed} parsed",
            f"rules         {_covered(rules)}",
            f"alternatives  {_covered(alts)}",
            f"fixed words   {_covered(words)}",
        ]
        if self.uncovered_alternatives():
            lines.append("uncovered alternatives:")
            lines += [f"  {a.label}" for a in self.uncovered_alternatives()]
        if self.uncovered_words():
            lines.append("uncovered fixed words:")
            by_table: dict[str, list[str]] = {}
            for word in self.uncovered_words():
                by_table.setdefault("/".join(self.tables[word]), []).append(word)
            lines += [f"  {table}: {' '.join(ws)}" for table, ws in sorted(by_table.items())]
        if unreachable := self.unreachable_words():
            shown = " ".join(f"{w}→{normalize(w)}" for w in unreachable)
            lines.append(f"never reach the lexer (normalisation rewrites them): {shown}")
        if self.unmapped:
            lines.append(f"tree nodes no alternative spells (a coverage bug): {self.unmapped}")
        return "\n".join(lines)


def _covered(counts: dict[Any, int]) -> str:
    return f"{sum(1 for hits in counts.values() if hits)}/{len(counts)} covered"


def texts_of(cases: Iterable[Case]) -> Iterator[tuple[Path, str]]:
    """(home, text) for every turn of every case, history first, each pair once."""
    seen: set[tuple[Path, str]] = set()
    for case in cases:
        for text in (*case.history, case.text):
            if (case.home, text) not in seen:
                seen.add((case.home, text))
                yield case.home, text


def measure(cases: Iterable[Case]) -> Coverage:
    """Coverage of the grammar and the fixed words by these cases."""
    grammar = _grammar_map()
    fixed = fixed_words()
    alt_hits = [0] * len(grammar.alternatives)
    words: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    lexicons: dict[Path, Lexicon] = {}
    texts = parsed = 0
    for home, text in texts_of(cases):
        if home not in lexicons:
            lexicons[home] = Lexicon(load_home(home))
        compiled = compile_text(text, lexicons[home])
        texts += 1
        words.update(words_in(compiled.tokens, fixed, compiled.text))
        if not isinstance(compiled, Parse):
            continue
        parsed += 1
        # The same token stream compile_text gave its parser (fillers are not grammar).
        stream = [
            LarkToken(t.kind, t.text, start_pos=i)
            for i, t in enumerate(t for t in compiled.tokens if t.kind != FILLER)
        ]
        for hit in grammar.walk(grammar.parser.parse(stream)):
            if isinstance(hit, int):
                alt_hits[hit] += 1
            else:
                unmapped[hit] += 1
    return Coverage(
        dict(zip(grammar.alternatives, alt_hits, strict=True)),
        {word: words[word] for word in fixed},
        fixed,
        dict(unmapped),
        texts,
        parsed,
    )


def corpus_files() -> list[Path]:
    """The case files of the bundled corpus."""
    folder = Path(str(resources.files("jiayu.corpus")))
    return sorted(folder.glob("*.jsonl"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `jiayu coverage` options."""
    parser.add_argument(
        "files", nargs="*", type=Path, help="corpus case files (default: the bundled corpus)"
    )
    parser.add_argument("--json", action="store_true", help="the report as one JSON object")


def run(args: argparse.Namespace) -> int:
    """Report coverage; 1 when any alternative or fixed word is uncovered, else 0."""
    cases = [case for path in args.files or corpus_files() for case in load_cases(path)]
    coverage = measure(cases)
    if args.json:
        print(json.dumps(coverage.to_json(), ensure_ascii=False))
    else:
        print(coverage.text())
    return 0 if coverage.complete else 1
