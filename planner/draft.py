"""One planning pass of a turn: what it is given, what it has decided so far, and the pause
with which it asks its driver for what it does not have yet.

The planner does no I/O. When a pass needs live state (or a state file to change) that it
was not given, it raises `Pause` naming all of it at once; the driver fetches that (every
read of a clause together) and the pass runs again from the start with more known.
Planning is pure and cheap (tens of µs), so starting over is simpler and safer than keeping
a suspended stack, and nothing is ever read or written twice: what was fetched stays known.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from jiayu.catalog import apply_command
from jiayu.errors import JiayuError
from jiayu.home import Home
from jiayu.ir import Clause, Command
from jiayu.planner.effects import AddSchedule, Read, ReadError, Reading, Write
from jiayu.planner.plan import Batch
from jiayu.planner.readings import trusted
from jiayu.planner.timing import Schedule
from jiayu.preferences import Preference
from jiayu.resolver.resolve import Resolution, Resolver
from jiayu.resolver.session import PendingClarify, PendingConfirm, Session
from jiayu.result import Outcome

Pending = PendingClarify | PendingConfirm | None


class Pause(Exception):
    """The pass stops here: the driver fetches `need`, then the pass runs again."""

    def __init__(self, need: Read | Write) -> None:
        self.need = need
        super().__init__()


class ScheduleView(Protocol):
    """What the planner may look at in the schedule store (read only)."""

    def pending(
        self,
        *,
        session: str | None = None,
        devices: Sequence[str] | None = None,
        scene_steps: bool = False,
    ) -> list[Schedule]: ...


class PreferenceView(Protocol):
    """What the planner may look at in the preference store (read only)."""

    def preferred(
        self, user: str, attribute: str, device_type: str | None
    ) -> Preference | None: ...


class Inputs(NamedTuple):
    """Everything a turn is planned from, none of it I/O. (A named tuple, not a frozen
    dataclass: made on every turn, and a tuple is made in a quarter of the time.)"""

    home: Home
    resolver: Resolver
    session: Session
    """Read only while planning; the driver applies the plan's session changes."""
    now: datetime
    """The time, passed in (timezone-aware)."""
    schedules: ScheduleView
    preferences: PreferenceView
    area: str | None = None
    user: str | None = None
    confirm_ttl_s: float = 60.0
    """How long a high-risk command waits for its 确认 (60 s unless the engine is told)."""


Answer = tuple[str, str, Any]
"""A query's answer: (device, attribute, value read)."""


class Memo(NamedTuple):
    """What a turn learned from its driver and its resolver, kept across its passes: each
    answer is filed under what was asked, so a pass run again finds it whatever order it
    asks in, and nothing is asked twice."""

    known: dict[str, Reading]
    """Fresh reads so far, by device."""
    written: dict[Hashable, object]
    """Answers to the turn's writes, by what each write does (`write_key`)."""
    resolved: dict[Hashable, tuple[Clause, Resolution]]
    """The resolver's answers, by the question asked (`Draft.resolve`), each beside the
    clause asked of, which that keeps alive."""
    narrowed: dict[Hashable, tuple[tuple[Clause, Clause], Resolution | None]]
    """What answers picked among a question's options (`Draft.narrow`), likewise."""
    worked: dict[Hashable, tuple[object, Any]]
    """What a pass worked out from what it was given alone (what a query reads of each
    device), by the ids of the objects it was worked out from, each beside those objects."""


def new_memo() -> Memo:
    return Memo({}, {}, {}, {}, {})


def write_key(op: Write) -> Hashable:
    """What a write does, whatever pass asks it: a schedule is its commands, time, session
    and text (its id is drawn afresh on each pass), a cancel or a preference is itself."""
    if isinstance(op, AddSchedule):
        return (AddSchedule, replace(op.schedule, id=""))
    return op


@dataclass(slots=True)
class Draft:
    """One turn while it is planned, then while its batches run: everything the Result and
    the session need. Parts keep the reply in the order the clauses were said. Made on
    every pass from the four it is given; the rest is what planning fills in, so not
    parameters (a field that is one is tested against its default on each pass)."""

    text: str
    ctx: Inputs
    memo: Memo
    """Reads, write answers and resolutions fetched so far in this turn (kept across passes)."""
    pending_in: Pending = None
    """The question the session was waiting on when the turn began."""
    pending: Pending = field(default=None, init=False)
    """The question the session waits on after this turn."""
    parts: list[str | Batch] = field(default_factory=list, init=False)
    batches: list[Batch] = field(default_factory=list, init=False)
    """The Batch parts, in order (`add_batch` keeps both)."""
    outcomes: list[Outcome] = field(default_factory=list, init=False)
    # Tuples, grown by concatenation (a few times a turn at most): most passes hold and ask
    # nothing, and an empty tuple is made by no call, where a list is made on every pass.
    held: tuple[Command, ...] = field(default=(), init=False)
    options: tuple[str, ...] = field(default=(), init=False)
    answers: list[Answer] = field(default_factory=list, init=False)
    """What queries read, in order (the Result's `answers`, its JSON built when read)."""
    failures: list[dict[str, Any]] = field(default_factory=list, init=False)
    devices: list[str] = field(default_factory=list, init=False)
    asked: bool = field(default=False, init=False)
    """A clause asks: it and every later clause wait for the answer."""
    # What this turn will have done to each device it reads or commands, so a later clause
    # reads the state the earlier ones leave (调亮一点，再调亮一点 moves two steps).
    overlay: dict[str, dict[str, Any]] = field(default_factory=dict, init=False)
    planned: set[Command] = field(default_factory=set, init=False)
    """Commands queued so far (a command compares equal when its params do too)."""
    unread: set[str] = field(default_factory=set, init=False)
    """Devices whose read failed, already listed in `failures`."""
    scheduled: list[dict[str, Any]] = field(default_factory=list, init=False)
    timings: dict[str, float] = field(default_factory=dict, init=False)
    stop_scene: bool = field(default=False, init=False)
    """算了/停下 with nothing waiting: stops a running long scene."""
    writes: tuple[Hashable, ...] = field(default=(), init=False)
    """The writes asked in this pass (`write_key`), so the same write said twice is two: a
    tuple, as `held` (a turn writes a few times at most; most passes never)."""

    def say(self, outcome: Outcome, reply: str) -> None:
        self.outcomes.append(outcome)
        self.parts.append(reply)

    def add_batch(self, batch: Batch) -> None:
        """Commands to send, reported where they stand among the replies."""
        self.parts.append(batch)
        self.batches.append(batch)

    # (A loop adding each batch's list: a third fewer instructions than a chain of maps.)
    def sent(self) -> list[Command]:
        sent: list[Command] = []
        for batch in self.batches:
            sent += batch.sent
        return sent

    def planned_commands(self) -> tuple[Command, ...]:
        commands: list[Command] = []
        for batch in self.batches:
            commands += batch.commands
        return tuple(commands)

    def states(self, devices: Sequence[str]) -> dict[str, dict[str, Any] | ReadError]:
        """The only way a pass reads: fresh state of these devices, each read once per turn
        and all still unknown asked at once (one pause, one round trip). Later reads see what
        this turn already planned; a failed read is a ReadError in its place, and a state
        read is a dict of the turn's own. A reading that is not a value the device can have
        (NaN, a word where a number is due, out of its range) is left out of its state:
        unreadable, never arithmetic."""
        overlay, known = self.overlay, self.memo.known
        missing = tuple(dict.fromkeys(d for d in devices if d not in overlay and d not in known))
        if missing:
            raise Pause(Read(missing))
        states: dict[str, dict[str, Any] | ReadError] = {}
        device_of = self.ctx.home.device
        for device_id in devices:
            state = overlay.get(device_id)
            if state is None:
                got = known[device_id]
                # (dict first: its check is a type test; Mapping's goes through the abc)
                if isinstance(got, (dict, Mapping)):
                    state = overlay[device_id] = trusted(device_of(device_id), got)
                else:
                    if device_id not in self.unread:  # told once, however often it is asked
                        self.unread.add(device_id)
                        failure = {"device": device_id, "command": "read", "reason": got.reason}
                        self.failures.append(failure)
                    states[device_id] = got
                    continue
            states[device_id] = state
        return states

    def expect(self, command: Command) -> None:
        """A command planned to a device read earlier: later reads in the turn see it."""
        state = self.overlay.get(command.device)
        if state is not None:
            self.overlay[command.device] = apply_command(state, command.command, command.params)

    def resolve(
        self, clause: Clause, focus: Sequence[str] = (), previous: tuple[str, ...] | None = None
    ) -> Resolution:
        """The clause's devices, resolved once per turn: the session does not change while a
        turn is planned, so the same question has the same answer on every pass."""
        # Keyed by the clause object, not its value: hashing a clause walks every field of
        # every part of it in Python. A pass runs again on the same parsed clauses; one that
        # makes a clause anew only resolves it again, to the same answer. The clause is kept
        # in the memo beside its answer, so its id names no other object in this turn.
        asked = (id(clause), tuple(focus), previous)
        resolved = self.memo.resolved
        found = resolved.get(asked)
        if found is None:
            ctx = self.ctx
            found = resolved[asked] = (
                clause,
                ctx.resolver.resolve(
                    clause, ctx.session, focus=focus, previous=previous, area=ctx.area
                ),
            )
        return found[1]

    def narrow(self, clause: Clause, options: tuple[str, ...], answer: Clause) -> Resolution | None:
        """What an answer (书房的, 第二个) picks among a question's options, once per turn."""
        asked = (id(clause), options, id(answer))
        narrowed = self.memo.narrowed
        found = narrowed.get(asked)
        if found is None:
            found = narrowed[asked] = (
                (clause, answer),
                self.ctx.resolver.narrow(clause, options, answer),
            )
        return found[1]

    def answered(self, op: Write) -> bool:
        """Whether this write (its next asking in this pass) was answered in an earlier pass:
        the store may have changed since, so what it shows now is not what it was asked on."""
        key = write_key(op)
        return (key, self.writes.count(key)) in self.memo.written

    def write(self, op: Write) -> object:
        """The answer to a state-file write (a JiayuError when it failed), asked once per
        turn: keyed by what it does, so a pass that asks its writes in another order, or
        leaves one out, never takes another write's answer."""
        key = write_key(op)
        count = self.writes.count(key)
        written = self.memo.written
        if (key, count) not in written:
            raise Pause(op)
        self.writes += (key,)
        return written[key, count]


def failed(answer: object) -> JiayuError | None:
    """The error a write answered with, if it failed."""
    return answer if isinstance(answer, JiayuError) else None
