"""The LALR(1) parse of a sequence of token kinds, over tables Lark computed ahead of time.

The tables come from grammar/jiayu.tables.json (written by compiler/tables.py); this module
is the whole run-time side of the parser, so a process that compiles utterances never
imports Lark. The trees are the ones Lark's LALR parser builds from the same grammar
(tests/test_lalr.py checks them against Lark on every corpus sentence and on random kind
sequences), with our own two node classes instead of Lark's Tree and Token.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jiayu.jsonfile import shipped_text

log = logging.getLogger(__name__)

END = "$END"
"""The kind after the last word."""
TABLES_FILE = "jiayu.tables.json"
"""Next to jiayu.lark in the jiayu.grammar package; written by compiler/tables.py."""


def grammar_text() -> str:
    return shipped_text("jiayu.grammar", "jiayu.lark")


@dataclass(frozen=True, slots=True)
class Leaf:
    """One word of the utterance in a tree: its kind and its index among the words."""

    kind: str
    index: int


@dataclass(frozen=True, slots=True)
class Node:
    """A rule's node: its name (the rule's, or its alias) and its children."""

    data: str
    children: list[Node | Leaf]


@dataclass(frozen=True)
class Stuck:
    """Where the LALR parse of a kind sequence stopped."""

    index: int | None
    """The index of the word it did not expect; None when the words ran out."""
    expected: tuple[str, ...]
    """The kinds it would have taken there."""


@dataclass(frozen=True, slots=True)
class _Rule:
    origin: str
    """The rule's name: where the parse goes after reducing by it."""
    name: str
    """The name of the node it builds (its alias, if it has one)."""
    size: int
    expand_single: bool
    kept: tuple[tuple[int, bool], ...] | None
    """(child index, splice its children in) for each child kept; None keeps them all."""

    def build(self, children: list[Node | Leaf]) -> Node | Leaf:
        if self.kept is not None:
            shaped: list[Node | Leaf] = []
            for i, splice in self.kept:
                child = children[i]
                if splice and isinstance(child, Node):
                    shaped.extend(child.children)
                else:
                    shaped.append(child)
            children = shaped
        if self.expand_single and len(children) == 1:
            return children[0]
        return Node(self.name, children)


class Tables:
    """A grammar's parse table and rules, ready to run."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.start: int = data["start"]
        self.end: int = data["end"]
        self.terminals = frozenset(data["terminals"])
        self.rules = tuple(
            _Rule(origin, name, size, bool(expand), None if kept is None else _kept(kept))
            for origin, name, size, expand, kept in data["rules"]
        )
        # Each state's actions by token or rule name, read from its line of the tables when the
        # parse first reaches it (_read); _UNREAD until then. A line is the state's symbols and
        # actions, space-separated (`ON 12 NAME -40`): the file loads as some 500 strings
        # rather than 18,000 pairs (json: 0.3 ms, not 2.8 ms), and a first utterance reaches a
        # few dozen states. A list of plain dicts, not a dict filling itself (__missing__):
        # the parse's lookups stay the interpreter's fast ones (8.9 → 8.1 µs a parse).
        self._lines: list[str] = data["states"]
        self.states: list[dict[str, int]] = [_UNREAD] * len(self._lines)

    def parse(self, kinds: Sequence[str]) -> Node | Stuck:
        """The tree of `kinds` (token kinds, in order), or where the parse got stuck."""
        states, rules = self.states, self.rules
        stack = [self.start]
        values: list[Node | Leaf] = []
        count = len(kinds)
        i = 0
        while True:
            kind = kinds[i] if i < count else END
            action = states[stack[-1]].get(kind)
            if action is None:
                if states[stack[-1]] is _UNREAD:
                    # Every state on the stack was read when it was on top, so the goto after
                    # a reduction below never meets an unread one.
                    self._read(stack[-1])
                    continue
                expected = tuple(sorted(s for s in states[stack[-1]] if s in self.terminals))
                return Stuck(i if i < count else None, expected)
            if action >= 0:
                stack.append(action)
                values.append(Leaf(kind, i))
                i += 1
                continue
            rule = rules[-1 - action]
            if rule.size:
                children = values[-rule.size :]
                del stack[-rule.size :]
                del values[-rule.size :]
            else:
                children = []
            stack.append(states[stack[-1]][rule.origin])
            values.append(rule.build(children))
            if i >= count and stack[-1] == self.end:
                node = values[-1]
                assert isinstance(node, Node)  # the start rule is never inlined
                return node

    def _read(self, state: int) -> None:
        words = self._lines[state].split()  # none: the state after the whole parse
        # Two threads reading it first make equal dicts; either may stay.
        self.states[state] = dict(zip(words[::2], map(int, words[1::2]), strict=True))


_UNREAD: dict[str, int] = {}
"""The actions of a state not read yet (Tables._read); never changed."""


def _kept(kept: list[list[int]]) -> tuple[tuple[int, bool], ...]:
    return tuple((i, bool(splice)) for i, splice in kept)


_lock = threading.Lock()
_tables: Tables | None = None


def tables() -> Tables:
    """The process's tables: read once, on first use, from the shipped file; built with Lark
    when that file was made from another grammar text (the grammar was edited since)."""
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                _tables = Tables(_load())
    return _tables


def _load() -> dict[str, Any]:
    grammar = grammar_text()
    try:
        data: dict[str, Any] = json.loads(shipped_text("jiayu.grammar", TABLES_FILE))
    except OSError:  # none shipped: built below, as for a stale one
        data = {}
    if data.get("grammar") == grammar:
        return data
    log.warning(
        "grammar/%s is older than the grammar: building the tables with Lark "
        "(run `python -m jiayu.compiler.tables` to write them)",
        TABLES_FILE,
    )
    from jiayu.compiler.tables import build_tables

    return build_tables(grammar)
