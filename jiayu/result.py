"""The Result of one turn (CONTRACTS.md §2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, overload

T = TypeVar("T")

Outcome = Literal[
    "executed", "answered", "clarify", "confirm", "scheduled", "rejected", "noop", "unknown"
]

# Multi-clause turns report the most blocking outcome.
PRECEDENCE: tuple[Outcome, ...] = (
    "confirm",
    "clarify",
    "rejected",
    "unknown",
    "answered",
    "scheduled",
    "executed",
    "noop",
)


def most_blocking(outcomes: list[Outcome]) -> Outcome:
    """The outcome a multi-clause turn reports."""
    return min(outcomes, key=PRECEDENCE.index) if outcomes else "unknown"


class Built(Generic[T]):
    """A Result field given either as its value or as a function that builds it, built when
    first read (then kept). The `compact` and `ir` forms are for callers who look at them
    (replay, explain, debugging); a turn whose caller never does skips building them.

    Two threads reading a field first at once may both build it; each gets an equal value."""

    def __init__(self, empty: Callable[[], T]) -> None:
        self._empty = empty
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = "_built_" + name

    @overload
    def __get__(self, obj: None, owner: type) -> Built[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: object | None, owner: type) -> Built[T] | T:
        if obj is None:
            return self  # the dataclass's default: __set__ turns it into an empty value
        value: T | Callable[[], T] = obj.__dict__[self._name]
        if callable(value):
            value = obj.__dict__[self._name] = value()
        return value

    def __set__(self, obj: object, value: T | Callable[[], T] | Built[T]) -> None:
        # Only the dataclass's __init__ gets here: the Result is frozen.
        obj.__dict__[self._name] = self._empty() if value is self else value


@dataclass(frozen=True)
class Result:
    """What the engine hands back for one turn."""

    text: str
    """The utterance as given."""
    outcome: Outcome
    """executed, answered, clarify, confirm, scheduled, rejected, noop or unknown."""
    commands: list[dict[str, Any]] = field(default_factory=list)
    """Exactly what was sent in this turn, in order: {device, command, params}."""
    answers: list[dict[str, Any]] = field(default_factory=list)
    """For queries: {device, attribute, value} from a fresh read."""
    options: list[str] = field(default_factory=list)
    """For clarify: the candidate device ids."""
    reply: str = ""
    """A short reply in Chinese."""
    source: Literal["grammar", "llm", "none"] = "none"
    """What understood the utterance."""
    compact: Built[list[dict[str, Any]]] = Built(list)
    """The seed-001 compact form (may be given as a function that builds it)."""
    ir: Built[dict[str, Any]] = Built(dict)
    """The whole IR, for debugging (may be given as a function that builds it)."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """Sends and reads the hub failed: {device, command, reason}."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """For confirm: the commands waiting for the user's 确认, {device, command, params}."""
    scheduled: list[dict[str, Any]] = field(default_factory=list)
    """For scheduled: {id, at, commands}, `at` an ISO 8601 time with its offset."""
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    """Seconds spent per stage (compile, llm, resolve, plan, send): for replay and benchmarks,
    not part of the JSON contract."""

    def __getstate__(self) -> dict[str, Any]:
        # Copied or pickled with its forms built: a builder may hold what cannot be pickled.
        return {**self.__dict__, "_built_compact": self.compact, "_built_ir": self.ir}

    def to_json(self) -> dict[str, Any]:
        """The Result as plain JSON (CONTRACTS.md §2)."""
        return {
            "text": self.text,
            "outcome": self.outcome,
            "commands": self.commands,
            "answers": self.answers,
            "options": self.options,
            "reply": self.reply,
            "source": self.source,
            "compact": self.compact,
            "ir": self.ir,
            "failures": self.failures,
            "pending": self.pending,
            "scheduled": self.scheduled,
        }
