"""What a planned turn asks its driver for, and the answers it takes back (h11's events):
fresh reads (`Read`), a state-file change (`Write`), the LLM's answer (`Consult`), and the
batches to send (`Send`). The planner yields these; it does no I/O itself."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jiayu.ir import filled_directly
from jiayu.planner.timing import Schedule
from jiayu.preferences import Preference
from jiayu.result import Result

if TYPE_CHECKING:
    from jiayu.planner.draft import Draft


class ReadError(Protocol):
    """A hub's failure to read a device (executor's HubError has this shape)."""

    device: str
    reason: str


State = Mapping[str, Any]
Reading = State | ReadError


@dataclass(frozen=True)
class Read:
    """Fresh reads of these devices, all wanted now."""

    devices: tuple[str, ...]


@dataclass(frozen=True)
class AddSchedule:
    """Keep this schedule (the driver's store answers with it, or a JiayuError)."""

    schedule: Schedule


@dataclass(frozen=True)
class CancelSchedules:
    """Cancel a session's schedules, for these devices if given (answer: the ones gone)."""

    session: str
    devices: tuple[str, ...] | None
    scene_steps: bool = False
    """Only the delayed steps of a scene the sync API keeps as schedules (算了 stops them;
    the user's own timers stay)."""


@dataclass(frozen=True)
class SetPreference:
    """Store a user's preference (answer: the value as stored, or a JiayuError)."""

    user: str
    key: str
    value: Preference


Write = AddSchedule | CancelSchedules | SetPreference


@dataclass(frozen=True)
class Consult:
    """Ask the LLM fallback once (answer: its FallbackParse)."""

    text: str
    recent_devices: tuple[str, ...]
    recent_rooms: tuple[str, ...]


@filled_directly
class Send:
    """Send the plan's batches (answer: whether the audit log failed). Before this effect the
    session already holds what the turn changed in it; `draft` is the plan, and its batches'
    `sent`/`failed` are filled in by the driver's runner."""

    draft: Draft


Effect = Read | Write | Consult | Send
Steps = Generator[Effect, Any, Result]
