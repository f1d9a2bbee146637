"""The whole-utterance gate: a compile the grammar understood as a whole, with enough
confidence, is used as it is; anything else goes to the LLM fallback (one call, when there is
one), and what neither understood sends nothing and says which words were not understood."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jiayu.compiler.confidence import CONFIDENCE_THRESHOLD
from jiayu.grammar.phrases import say
from jiayu.ir import Clause, Compiled, NoParse, Parse, Target, filled_directly
from jiayu.text import shown

if TYPE_CHECKING:
    # Only its type: a grammar-only engine never loads the fallback (nor dashscope).
    from jiayu.compiler.llm import FallbackParse

log = logging.getLogger(__name__)


@filled_directly  # one per compile kept (compiler/cache.py): 1.4 → 0.4 µs to make (timeit)
class Understood:
    """What to plan: the clauses, who understood them, and the compact form to report."""

    clauses: tuple[Clause, ...]
    source: str
    """grammar or llm."""
    parsed: Parse | None = None
    """The grammar's parse (its compact form is derived from it), or None for the LLM's."""
    compact: list[dict[str, Any]] | None = None
    """The LLM's validated compact answer."""


@dataclass(frozen=True)
class NotUnderstood:
    """Nothing is sent; the reply names what was not understood."""

    reply: str


@dataclass(frozen=True)
class AskLLM:
    """The grammar did not understand the whole: ask the fallback (the driver makes the call)."""

    stray: tuple[Clause, ...]
    """Fragments that fit no clause, for the reply should the fallback fail too."""


def gate(
    compiled: Compiled, *, answering: bool, fallback: bool, session: str = ""
) -> Understood | AskLLM | NotUnderstood:
    """Decide what a compile means for the turn. `answering`: a question waits, so a bare
    selection first (书房的) is its answer, not a stray fragment."""
    plain = plainly_understood(compiled)
    if plain is not None:
        return plain
    stray: tuple[Clause, ...] = ()
    if isinstance(compiled, Parse):
        stray = tuple(
            c
            for i, c in enumerate(compiled.clauses)
            if c.action == "select" and not (answering and i == 0)
        )
        whole = not stray
        if whole and compiled.confidence >= CONFIDENCE_THRESHOLD:
            return Understood(compiled.clauses, "grammar", compiled)
        if whole and not fallback:
            # No fallback: a clause whose target was only found fuzzily is asked back (the
            # planner does), so a low-confidence parse still never acts on a guess.
            log.debug(
                "understood %r with low confidence %.2f and no fallback: unclear targets are "
                "asked back",
                compiled.text,
                compiled.confidence,
                extra={
                    "session": session,
                    "text": compiled.text,
                    "confidence": compiled.confidence,
                },
            )
            return Understood(compiled.clauses, "grammar", compiled)
    if fallback:
        return AskLLM(stray)
    log.info(
        "not understood, nothing sent: %r (%s)",
        compiled.text,
        getattr(compiled, "reason", "stray"),
        extra={
            "session": session,
            "text": compiled.text,
            "reason": getattr(compiled, "reason", "stray"),
        },
    )
    return NotUnderstood(not_understood(compiled, stray))


def plainly_understood(compiled: Compiled) -> Understood | None:
    """The gate's verdict when it cannot depend on the session: the grammar understood the
    whole confidently, and no clause is a bare selection (书房的) that a waiting question
    would take as its answer. A kept compile works this out once (compiler/cache.py)."""
    if not isinstance(compiled, Parse) or compiled.confidence < CONFIDENCE_THRESHOLD:
        return None
    for clause in compiled.clauses:  # a loop, not all(…): no generator made per compile
        if clause.action == "select":
            return None
    return Understood(compiled.clauses, "grammar", compiled)


def from_llm(
    answer: FallbackParse, compiled: Compiled, stray: Sequence[Clause], session: str = ""
) -> Understood | NotUnderstood:
    """What the fallback's one answer means for the turn."""
    log.info(
        "asked the model about %r: %s in %.2f s%s",
        compiled.text,
        "understood" if answer.clauses is not None else "not understood",
        answer.call_s,
        f" ({answer.reason})" if answer.reason else "",
        extra={
            "session": session,
            "text": compiled.text,
            "confidence": compiled.confidence if isinstance(compiled, Parse) else 0.0,
            "latency_s": answer.call_s,
            "understood": answer.clauses is not None,
            "reason": answer.reason,
        },
    )
    if answer.clauses is None:
        return NotUnderstood(not_understood(compiled, stray))
    return Understood(answer.clauses, "llm", compact=answer.compact)


def not_understood(compiled: Compiled, stray: Sequence[Clause]) -> str:
    """Which words were not understood: the reply names them (never more than a few)."""
    words: list[str] = []
    if isinstance(compiled, NoParse):
        words = [t.said for t in compiled.tokens if t.match == "unknown"]
        if not words and compiled.reason in ("unexpected_word", "unattached"):
            words = [compiled.text[compiled.position : compiled.position + 6]]
        if compiled.reason in ("empty", "no_words"):
            return say("refuse.heard_nothing")
        if compiled.reason == "not_home":
            return say("refuse.not_home")
    for clause in stray:
        if clause.target is not None:
            words.append(said_words(clause.target) or say("word.here"))
    words = [w for w in dict.fromkeys(words) if w]
    if len(stray) == 1 and len(compiled.clauses if isinstance(compiled, Parse) else ()) == 1:
        return say("ask.what_to_do")
    if not words:
        return say("refuse.not_understood")
    quoted = [say("word.quoted", word=shown(w)) for w in words[:3]]
    return say("refuse.not_understood_words", words=quoted)


def said_words(target: Target) -> str:
    """The words that named a target: its places, then its name or type word."""
    words = [p.text for p in target.places]
    if target.name is not None:
        words.append(target.name.said)
    elif target.type_word:
        words.append(target.type_word)
    return "".join(words)
