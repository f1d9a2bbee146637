"""One index per home, built on first use and kept for the few homes a process serves."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from jiayu.home import Home

T = TypeVar("T")

_KEPT = 4
"""Homes remembered per index: a process serves one home, tests a handful."""


class PerHome(Generic[T]):
    """`build(home)` computed once per home object.

    Keyed by identity, not equality: hashing a Home hashes every device, which costs more than
    the lookups the index saves. The home itself is kept with its index, so an id is never
    reused for another home while its entry lives."""

    def __init__(self, build: Callable[[Home], T]) -> None:
        self._build = build
        self._entries: list[tuple[Home, T]] = []
        self._lock = threading.Lock()

    def __call__(self, home: Home) -> T:
        for known, value in self._entries:
            if known is home:
                return value
        value = self._build(home)
        with self._lock:
            self._entries = [(home, value), *self._entries[: _KEPT - 1]]
        return value
