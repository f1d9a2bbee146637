"""Compile results kept by normalised text, per home: people say the same sentences every day.

A compile depends only on the text and the lexicon, and a lexicon only on its home (the
pinyin index it builds lazily gives the same answers before and after). The IR is frozen,
so one compile can serve every later turn of every session on that home. Nothing that
depends on a session (a pending question, the focus, the time) is kept here: the gate and
the planner run again on every turn.

Each kept compile also carries the Result's `ir` and `compact` forms, built once when first
asked for and handed out as copies (a Result's lists are the caller's to change).

A new home is a new lexicon (an engine builds one per home), and the cache lives on the
lexicon, so a home change drops it with the old lexicon.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from jiayu.compiler.lexicon import Lexicon
from jiayu.compiler.parse import compile_normalized, compile_text
from jiayu.compiler.understand import plainly_understood
from jiayu.ir import Compiled, to_json
from jiayu.text import MAX_LENGTH, normalize

CACHE_SIZE = 1024
"""Compiles kept per home, least recently said dropped first: a household's everyday
sentences are a few dozen to a few hundred, and a kept compile takes ~6 KB (6 MB when full)."""


class Compile:
    """One compile, and the Result forms derived from it alone (built once, copied out)."""

    __slots__ = ("_compact", "_ir", "compiled", "understood")

    def __init__(self, compiled: Compiled) -> None:
        self.compiled = compiled
        self.understood = plainly_understood(compiled)
        """The gate's verdict if it is the same for every session (else None: gate it)."""
        self._ir: dict[str, Any] | None = None
        self._compact: list[dict[str, Any]] | None = None

    def ir(self) -> dict[str, Any]:
        """The Result's `ir` (a copy of the one built for this compile)."""
        if self._ir is None:
            self._ir = to_json(self.compiled)
        return _copy(self._ir)  # type: ignore[no-any-return]

    def compact(self, build: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """The Result's `compact` of this compile's parse; `build` derives it from the parse
        and the home, both fixed for a kept compile."""
        if self._compact is None:
            self._compact = build()
        return _copy(self._compact)  # type: ignore[no-any-return]


class CompileCache:
    """The kept compiles of one lexicon (one home), bounded, least recently used out."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._kept: dict[str, Compile] = {}
        # Sessions turn in parallel threads: the dict is only changed under the lock (the
        # compile itself runs outside it; two threads compiling one new text is harmless).
        self._lock = threading.Lock()

    def get(self, text: str, lexicon: Lexicon) -> Compile:
        """The compile of `text` by `lexicon`, which must be this cache's own."""
        if len(text) > MAX_LENGTH:
            return Compile(compile_text(text, lexicon))  # refused by length, not worth a slot
        key = normalize(text)
        with self._lock:
            kept = self._kept.pop(key, None)  # popped and put back: dict order is recency
            if kept is not None:
                self._kept[key] = kept
                return kept
        kept = Compile(compile_normalized(text, key, lexicon))
        with self._lock:
            while len(self._kept) >= self._size:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = kept
        return kept

    def __len__(self) -> int:
        return len(self._kept)


_caches: weakref.WeakKeyDictionary[Lexicon, CompileCache] = weakref.WeakKeyDictionary()
_creating = threading.Lock()


def cache_of(lexicon: Lexicon) -> CompileCache:
    """The compile cache of this lexicon's home (made on first use; dropped with the
    lexicon, so with the home)."""
    cache = _caches.get(lexicon)
    if cache is None:
        with _creating:
            cache = _caches.get(lexicon)
            if cache is None:
                cache = _caches[lexicon] = CompileCache()
    return cache


def compiled(text: str, lexicon: Lexicon) -> Compile:
    """The compile of `text` on this lexicon's home, from the cache when it was said before.
    Equal to `compile_text(text, lexicon)`: the cache never changes what a text means."""
    return cache_of(lexicon).get(text, lexicon)


def _copy(value: Any) -> Any:
    """A copy of plain JSON (dicts, lists and leaves), faster than copy.deepcopy."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value
