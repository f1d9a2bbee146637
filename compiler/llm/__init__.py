"""The LLM fallback: clients, the seed-001 parser, and compact → IR.

The engine asks it only about what the grammar did not understand as a whole, at most once
per turn. `Fallback.parse` builds the small prompt (the utterance, the session's recent devices
and rooms, the devices the lexical recall found, quoted as data), makes exactly one model call,
validates the answer strictly and turns it into IR clauses for the same resolver, capability
check, schemas and risk gate as the grammar's. It never raises: anything wrong is a `reason`
and no clauses, and the engine answers `unknown`.

Nothing here imports the dashscope SDK; `DashScopeClient` does, when it is called.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jiayu.compiler.llm.client import (
    DashScopeClient,
    LLMClient,
    LLMError,
    OpenAICompatClient,
    client_from_env,
)
from jiayu.compiler.llm.context import context_block, recall
from jiayu.compiler.llm.parser import (
    ALLOWED_CATEGORIES,
    HOME_CATEGORIES,
    UNKNOWN_COMMANDS,
    compact_json_dumps,
    parse_commands,
)
from jiayu.compiler.llm.to_ir import to_clauses
from jiayu.home import Home
from jiayu.ir import Clause

__all__ = [
    "ALLOWED_CATEGORIES",
    "HOME_CATEGORIES",
    "UNKNOWN_COMMANDS",
    "DashScopeClient",
    "Fallback",
    "FallbackParse",
    "LLMClient",
    "LLMError",
    "OpenAICompatClient",
    "client_from_env",
    "compact_json_dumps",
    "parse_commands",
]


@dataclass(frozen=True)
class FallbackParse:
    """What the fallback made of one utterance."""

    clauses: tuple[Clause, ...] | None
    """The IR, or None when it cannot be used (see `reason`)."""
    compact: list[dict[str, Any]]
    """The validated compact answer (the UNKNOWN array when the model failed)."""
    reason: str
    """Why `clauses` is None ("" when it is not)."""
    overhead_s: float
    """Seconds spent here besides the call: recall, prompt, validation, IR."""
    call_s: float
    """Seconds the model call took (including a failure or timeout)."""


class _TimedClient:
    """Measures the one call `parse_commands` makes, so the overhead excludes it."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.seconds = 0.0

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        start = time.perf_counter()
        try:
            return self.client.complete(
                messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens
            )
        finally:
            self.seconds += time.perf_counter() - start


class Fallback:
    """The LLM fallback for one home; immutable after construction, shared by sessions."""

    def __init__(
        self,
        client: LLMClient,
        home: Home,
        *,
        allowed_categories: Sequence[str] = HOME_CATEGORIES,
    ) -> None:
        self.client = client
        self.home = home
        self.allowed_categories = tuple(allowed_categories)
        # Build the recall's and the places' indexes now, not on the first turn that needs them.
        recall(home, "")
        to_clauses((), home)

    def parse(
        self,
        text: str,
        *,
        recent_devices: Sequence[str] = (),
        recent_rooms: Sequence[str] = (),
    ) -> FallbackParse:
        """One model call for `text`; `recent_devices` and `recent_rooms` are the session's
        ids, most recent first. Never raises."""
        start = time.perf_counter()
        timed = _TimedClient(self.client)
        try:
            candidates = recall(self.home, text, recent=recent_devices)
            block = context_block(self.home, candidates, recent_devices, recent_rooms)
            compact = parse_commands(
                timed, text, allowed_categories=self.allowed_categories, context=block
            )
            clauses = to_clauses(compact, self.home)
        except Exception as e:  # a bug of ours must cost the turn an answer, never the caller
            clauses = f"fallback failed: {type(e).__name__}: {e}"
            compact = [dict(item) for item in UNKNOWN_COMMANDS]
        overhead = time.perf_counter() - start - timed.seconds
        if isinstance(clauses, str):
            return FallbackParse(None, compact, clauses, overhead, timed.seconds)
        return FallbackParse(clauses, compact, "", overhead, timed.seconds)
