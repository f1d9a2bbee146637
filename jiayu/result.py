"""The Result of one turn (CONTRACTS.md §2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

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
    compact: list[dict[str, Any]] = field(default_factory=list)
    """The seed-001 compact form."""
    ir: dict[str, Any] = field(default_factory=dict)
    """The whole IR, for debugging."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """Sends and reads the hub failed: {device, command, reason}."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """For confirm: the commands waiting for the user's 确认, {device, command, params}."""
    scheduled: list[dict[str, Any]] = field(default_factory=list)
    """For scheduled: {id, at, commands}, `at` an ISO 8601 time with its offset."""
    timings: dict[str, float] = field(default_factory=dict, compare=False)
    """Seconds spent per stage (compile, llm, resolve, plan, send): for replay and benchmarks,
    not part of the JSON contract."""

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
