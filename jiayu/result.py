"""The Result of one turn: what was understood, sent, answered, asked, refused and said."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, overload

T = TypeVar("T")
_set = object.__setattr__

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


RANK: dict[str, int] = {outcome: i for i, outcome in enumerate(PRECEDENCE)}
"""Each outcome's place in PRECEDENCE (lower blocks more)."""


def most_blocking(outcomes: list[Outcome]) -> Outcome:
    """The outcome a multi-clause turn reports."""
    if len(outcomes) == 1:  # most turns: one clause
        return outcomes[0]
    return min(outcomes, key=RANK.__getitem__) if outcomes else "unknown"


_BUILT = ("commands", "answers", "compact", "ir")
"""The Result fields that may be given as a function that builds them."""


class Built(Generic[T]):
    """A Result field given either as its value or as a function that builds it, built when
    first read (then kept). The `compact` and `ir` forms are for callers who look at them
    (replay, explain, debugging), and the JSON of the commands and answers of a whole-home
    turn is tens of thousands of dicts: a turn whose caller never reads one skips it.

    Two threads reading a field first at once may both build it; each gets an equal value."""

    def __init__(self) -> None:
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = "_built_" + name

    @overload
    def __get__(self, obj: None, owner: type) -> Built[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: object | None, owner: type) -> Built[T] | T:
        if obj is None:
            return self  # the dataclass's record of the field (Result.__init__ fills it)
        value: T | Callable[[], T] = obj.__dict__[self._name]
        if callable(value):
            value = obj.__dict__[self._name] = value()
        return value

    def __set__(self, obj: object, value: T | Callable[[], T]) -> None:
        # A data descriptor, so no instance attribute can hide it; the Result is frozen.
        raise AttributeError(f"{self._name[len('_built_') :]} is read only")


@dataclass(frozen=True)
class Result:
    """What the engine hands back for one turn."""

    text: str
    """The utterance as given."""
    outcome: Outcome
    """executed, answered, clarify, confirm, scheduled, rejected, noop or unknown."""
    commands: Built[list[dict[str, Any]]] = Built()
    """Exactly what was sent in this turn, in order: {device, command, params} (may be given
    as a function that builds it: 打开所有的灯 in a big home sends tens of thousands)."""
    answers: Built[list[dict[str, Any]]] = Built()
    """For queries: {device, attribute, value} from a fresh read (may be given as a function
    that builds it: 哪些灯开着 in a big home reads tens of thousands)."""
    options: list[str] = field(default_factory=list)
    """For clarify: the candidate device ids."""
    reply: str = ""
    """A short reply in Chinese."""
    source: Literal["grammar", "llm", "none"] = "none"
    """What understood the utterance."""
    compact: Built[list[dict[str, Any]]] = Built()
    """The compact form, one entry per clause as the words said it (may be given as a
    function that builds it)."""
    ir: Built[dict[str, Any]] = Built()
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

    def __init__(
        self,
        text: str,
        outcome: Outcome,
        commands: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]] | None = None,
        answers: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]] | None = None,
        options: list[str] | None = None,
        reply: str = "",
        source: Literal["grammar", "llm", "none"] = "none",
        compact: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]] | None = None,
        ir: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
        failures: list[dict[str, Any]] | None = None,
        pending: list[dict[str, Any]] | None = None,
        scheduled: list[dict[str, Any]] | None = None,
        timings: dict[str, float] | None = None,
    ) -> None:
        # Written out rather than generated: a frozen dataclass's __init__ sets each field
        # through object.__setattr__, a call per field on every turn; this sets the dict at
        # once (a dict of its own: one filled in place would slow every read of a field, as
        # the IR's did, jiayu/ir.py filled_directly).
        _set(
            self,
            "__dict__",
            {
                "text": text,
                "outcome": outcome,
                "_built_commands": [] if commands is None else commands,
                "_built_answers": [] if answers is None else answers,
                "options": [] if options is None else options,
                "reply": reply,
                "source": source,
                "_built_compact": [] if compact is None else compact,
                "_built_ir": {} if ir is None else ir,
                "failures": [] if failures is None else failures,
                "pending": [] if pending is None else pending,
                "scheduled": [] if scheduled is None else scheduled,
                "timings": {} if timings is None else timings,
            },
        )

    def __getstate__(self) -> dict[str, Any]:
        # Copied or pickled with its forms built: a builder may hold what cannot be pickled.
        built = {f"_built_{name}": getattr(self, name) for name in _BUILT}
        return {**self.__dict__, **built}

    def to_json(self) -> dict[str, Any]:
        """The Result as plain JSON: the public contract's keys, `compact` and `ir` built."""
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
