"""What a planned turn hands its driver: batches of commands to send, in order."""

from __future__ import annotations

from dataclasses import dataclass, field

from jiayu.ir import Clause, Command
from jiayu.planner.timing import Schedule


@dataclass(init=False)
class Batch:
    """Commands that answer one clause (or one scene), reported together in the reply."""

    commands: list[Command]
    clause: Clause | None = None
    """The clause they came from, for the reply's wording (None for a confirmation)."""
    scene: str | None = None
    """The scene's name when the batch is a scene's steps."""
    delays: tuple[float, ...] = ()
    """For a scene: seconds to wait before each step (`delay_s`). The asyncio runtime paces
    them in the background (executor/scenes.py); the sync API keeps the delayed steps as
    schedules (`deferred`)."""
    deferred: list[Schedule] = field(default_factory=list)
    """Under the sync API: the scene's delayed steps, kept as schedules for `run_due`."""
    sent: list[Command] = field(default_factory=list)
    """Filled by the runner: what the hub accepted, in order."""
    failed: list[tuple[Command, str]] = field(default_factory=list)
    """Filled by the runner: what the hub refused or could not deliver, with the reason."""

    def __init__(
        self,
        commands: list[Command],
        clause: Clause | None = None,
        scene: str | None = None,
        delays: tuple[float, ...] = (),
    ) -> None:
        # Written out, as Draft's: made for every clause that sends, and the generated
        # __init__ tests each default factory before calling it.
        # One field a statement: a tuple of four or more is built and unpacked again.
        self.commands = commands
        self.clause = clause
        self.scene = scene
        self.delays = delays
        self.deferred = []
        self.sent = []
        self.failed = []
