"""Delayed commands as values: when a Timing said now comes due, and the Schedule a turn
plans (its targets resolved, its commands validated, a risky one confirmed). The store that
keeps them is executor/schedules.py; firing them is the drivers' job."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from jiayu.errors import JiayuError
from jiayu.ir import Command, Timing

MAX_AHEAD = timedelta(days=366)
"""The furthest ahead a schedule may be set: past this it is surely a misheard number."""

LATE_LIMIT = timedelta(hours=1)
"""How late a schedule may still fire. One that became due while the hub was down (or the
machine asleep) fires on start if it is at most this late; later than that, switching the
device now would surprise whoever is home (关灯 set for 22:00 firing at 07:00), so it is
dropped and reported instead."""


class ScheduleError(JiayuError):
    """A time that cannot be scheduled, or a schedule the store cannot take."""

    def __init__(self, reason: Literal["invalid", "past", "too_far", "duplicate"], message: str):
        self.reason = reason
        """invalid: a Timing out of its ranges; past: 今天早上七点 said at nine; too_far:
        more than MAX_AHEAD ahead; duplicate: the id is already in the store."""
        super().__init__(message)


def fire_time(timing: Timing, now: datetime) -> datetime:
    """When a Timing said at `now` (timezone-aware) comes due, in now's time zone.

    - A delay (半小时后) is elapsed time: now + delay_s, counted in UTC, so a delay across a
      daylight-saving change is still exactly that many seconds.
    - A clock time with no day (晚上十点) is the next time the clock shows it: today if still
      ahead, else tomorrow. A time equal to now (or earlier in the same minute: 22:00 said at
      22:00:30) is not ahead, so it means tomorrow.
    - A clock time with a day: day 0 today (ScheduleError "past" when it has gone by), 1
      tomorrow (明天), 2 the day after (后天).
    - With a zone that has daylight saving (a ZoneInfo), the wall time is kept: 七点 is 07:00
      local on either side of a change. A wall time skipped by the change (02:30 on a spring-
      forward night) fires at the instant it maps to, an hour later on the clock (03:30); a
      wall time that happens twice (autumn) fires at the first.
    """
    if now.tzinfo is None:
        raise ValueError("fire_time needs a timezone-aware now")
    if timing.delay_s is not None:
        if timing.hour is not None or timing.day is not None:
            raise ScheduleError("invalid", "a timing has both a delay and a clock time")
        delay = timing.delay_s
        if not math.isfinite(delay) or delay < 0:
            raise ScheduleError("invalid", f"a delay of {delay} seconds")
        if delay > MAX_AHEAD.total_seconds():
            raise ScheduleError("too_far", f"a delay of {delay:g} seconds is too far ahead")
        return (now.astimezone(UTC) + timedelta(seconds=delay)).astimezone(now.tzinfo)
    if timing.hour is None:
        raise ScheduleError("invalid", "a timing has neither a delay nor a clock time")
    if not (0 <= timing.hour <= 23 and 0 <= timing.minute <= 59):
        raise ScheduleError("invalid", f"{timing.hour}:{timing.minute:02d} is not a clock time")
    if timing.day is not None and not 0 <= timing.day <= MAX_AHEAD.days:
        raise ScheduleError("invalid", f"day {timing.day} is not a day ahead")
    at = time(timing.hour, timing.minute)
    today = now.date()
    if timing.day is None:
        when = _wall(today, at, now)
        return when if when > now else _wall(today + timedelta(days=1), at, now)
    when = _wall(today + timedelta(days=timing.day), at, now)
    if when <= now:
        raise ScheduleError("past", f"{when.isoformat(timespec='minutes')} has already passed")
    return when


def _wall(day: date, at: time, now: datetime) -> datetime:
    # Through UTC and back: a wall time that does not exist becomes the instant it maps to.
    return datetime.combine(day, at, tzinfo=now.tzinfo).astimezone(UTC).astimezone(now.tzinfo)


def new_schedule_id() -> str:
    """A fresh id for a schedule: short enough to read in a log, random enough not to repeat."""
    import uuid  # here: a first turn schedules nothing, and uuid imports platform

    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class Schedule:
    """Commands resolved now, to be sent at `at`."""

    id: str
    """Unique in the store (new_schedule_id())."""
    session: str
    """The session that set it (取消定时 cancels a session's own)."""
    user: str | None
    """Who said it, when the hub knows."""
    at: datetime
    """When it fires, timezone-aware."""
    commands: tuple[Command, ...]
    """What it sends, validated again when it fires."""
    text: str
    """The utterance that set it, for the audit log and for 还有多久关空调."""
    condition: Mapping[str, Any] | None = field(hash=False)
    """A condition to check when it fires, as JSON (its shape is the engine's), or None."""
    created: datetime
    """When it was set, timezone-aware."""
    scene: str | None = None
    """The scene's name when this is one of a scene's delayed steps, kept by the sync API
    (effects.defer_scene_steps); 算了 cancels these, never a timer the user set (whose `text`
    may well be the scene's name too). None for every other schedule."""
    confirmed: bool = False
    """The user confirmed it when it was set (it was high-risk then). A command that is
    high-risk on the home loaded when it fires is sent only if so: a relay that became a
    garage door since is never opened on a word given for a relay."""

    @property
    def devices(self) -> frozenset[str]:
        """The devices its commands go to."""
        return frozenset(c.device for c in self.commands)

    def result_json(self) -> dict[str, Any]:
        """The contract's `scheduled` entry: {"id", "at", "commands"}, `at` in ISO 8601 with
        its offset, to the second."""
        return {
            "id": self.id,
            "at": self.at.isoformat(timespec="seconds"),
            "commands": [_command_json(c) for c in self.commands],
        }

    def to_json(self) -> dict[str, Any]:
        """Everything, as kept in the state file."""
        return {
            "id": self.id,
            "session": self.session,
            "user": self.user,
            "at": self.at.isoformat(),
            "commands": [_command_json(c) for c in self.commands],
            "text": self.text,
            "condition": dict(self.condition) if self.condition is not None else None,
            "created": self.created.isoformat(),
            # Only on a scene's step: a file with none is byte for byte what it was before.
            **({"scene": self.scene} if self.scene is not None else {}),
            # Only when confirmed: a risky command's 确认 must survive a restart, or it would
            # be held at fire time for a confirmation it was already given.
            **({"confirmed": True} if self.confirmed else {}),
        }


def _command_json(command: Command) -> dict[str, Any]:
    return {"device": command.device, "command": command.command, "params": dict(command.params)}
