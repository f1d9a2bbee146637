"""A turn as a sequence of effects, with no I/O (h11's shape): the planner yields what it
needs — fresh reads, a state-file write, the LLM's answer, the batches to send — and the
driver (jiayu/engine.py, sync; jiayu/runtime.py, asyncio) does it and sends back the answer.
`turn`, `run_due`, `handle` and a fired schedule all run these generators, so there is one
loop, not one per API.

    steps = turn(text, inputs, lexicon, fallback=False)
    effect = next(steps)                # Read / Write / Consult / Send
    effect = steps.send(answer)         # ... until StopIteration carries the Result
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from jiayu.compiler import Lexicon
from jiayu.compiler.cache import compiled as compile_kept
from jiayu.compiler.understand import AskLLM, Understood, from_llm, gate
from jiayu.planner import dialogue
from jiayu.planner.draft import Draft, Inputs, Pause, new_memo, write_key
from jiayu.planner.effects import Consult, Read, Send, Steps, Write
from jiayu.planner.finish import result, update_session
from jiayu.planner.timing import Schedule
from jiayu.resolver.session import PendingClarify, PendingConfirm

T = TypeVar("T")


def turn(text: str, ctx: Inputs, lexicon: Lexicon, *, fallback: bool) -> Steps:
    """One turn of one session, from the text to its Result."""
    started = time.perf_counter()
    kept = compile_kept(text, lexicon)
    compiled = kept.compiled
    compile_s = time.perf_counter() - started
    session = ctx.session
    pending = session.pending
    verdict = kept.understood or gate(
        compiled,
        answering=isinstance(pending, PendingClarify),
        fallback=fallback,
        session=session.id,
    )
    llm_s: float | None = None
    if isinstance(verdict, AskLLM):
        answer = yield Consult(text, tuple(session.recent_devices), tuple(session.recent_rooms))
        llm_s = answer.call_s + answer.overhead_s
        verdict = from_llm(answer, compiled, verdict.stray, session.id)
    understood: Understood | None = None
    if isinstance(verdict, Understood):
        understood = verdict
        draft = yield from _planned(text, ctx, dialogue.utterance, verdict.clauses, pending)
    else:
        draft = yield from _planned(text, ctx, dialogue.unclear, verdict.reply, pending)
    draft.timings["compile"] = compile_s
    if llm_s is not None:
        draft.timings["llm"] = llm_s
    update_session(draft, session)
    audit_failed = yield Send(draft)
    return result(draft, understood, audit_failed=bool(audit_failed), kept=kept)


_FIRED = Understood((), "grammar")
"""What a fired schedule reports as understood: its commands, from the grammar when set."""


def fire(schedule: Schedule, ctx: Inputs) -> Steps:
    """A schedule whose time has come: not a turn of the user's, so the session's focus and
    any question it waits on are left as they are."""
    draft = yield from _planned(schedule.text, ctx, dialogue.fired, schedule)
    audit_failed = yield Send(draft)
    return result(draft, _FIRED, audit_failed=bool(audit_failed))


def _planned(
    text: str,
    ctx: Inputs,
    body: Callable[[Draft, T], None],
    said: T,
    pending_in: PendingClarify | PendingConfirm | None = None,
) -> Generator[Read | Write, Any, Draft]:
    """Plan in passes, each `body(draft, said)`: a pass that pauses for reads or a write is
    run again from the start once they are answered (see planner/draft.py)."""
    memo = new_memo()
    while True:
        started = time.perf_counter()
        draft = Draft(text, ctx, memo, pending_in)
        try:
            body(draft, said)
        except Pause as pause:
            need = pause.need
            if isinstance(need, Read):
                memo.known.update((yield need))
            else:
                key = write_key(need)  # filed as the pass that asked it counts it
                memo.written[key, draft.writes.count(key)] = yield need
            continue
        timings = draft.timings
        timings["plan"] = time.perf_counter() - started - timings.get("resolve", 0.0)
        return draft
