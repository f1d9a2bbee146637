"""One error hierarchy for everything jiayu raises.

Problems in input files are collected rather than raised one at a time, so a
user fixing a home file sees every mistake at once, each on its own line in
the form ``FILE: /json/pointer: what is wrong``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one place in one input file."""

    source: str
    """The file (or label) the problem is in, as the user named it."""
    pointer: str
    """JSON pointer (RFC 6901) to the offending value; "" is the whole document."""
    message: str
    """What is wrong, in one line."""

    def __str__(self) -> str:
        return f"{self.source}: {self.pointer or '/'}: {self.message}"


def json_pointer(path: Iterable[str | int]) -> str:
    """Render a path of keys and indexes as a JSON pointer."""
    parts = (str(p).replace("~", "~0").replace("/", "~1") for p in path)
    return "".join("/" + p for p in parts)


class JiayuError(Exception):
    """Base of every error jiayu raises on purpose."""


class InputError(JiayuError):
    """An input file is invalid; carries every problem found, one per line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class HomeError(InputError):
    """A home file is invalid."""


class CorpusError(InputError):
    """A corpus file is invalid."""
