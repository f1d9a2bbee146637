"""Delayed commands (半小时后关空调, 晚上十点关灯): when they fire, where they wait, who fires them.

The engine resolves a delayed turn's targets at once (asking now when they are ambiguous,
confirming high-risk ones now) and hands the commands here as a `Schedule`. The store keeps
them, in a JSON file when the hub gives one, so they survive a restart; the `Scheduler`
(executor/scheduler.py) is an asyncio task that sleeps until the next one is due and hands it
back to the engine's `fire`, which validates the commands again and checks any condition
against a fresh read.

Delivery is at most once: a schedule leaves the store just before it fires, so a crash
during its fire does not send it a second time on restart. `take_due` is the one rule both
APIs take due schedules by: one whose device left the home is dropped (`gone`), one more than
LATE_LIMIT late is not fired (`late`), and neither stops the others from firing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, cast

from jiayu.catalog import schema_message
from jiayu.errors import Problem, json_pointer
from jiayu.ir import Command
from jiayu.jsonfile import Schema
from jiayu.planner.timing import (
    LATE_LIMIT,
    MAX_AHEAD,
    Schedule,
    ScheduleError,
    fire_time,
    new_schedule_id,
)
from jiayu.preferences import (
    Ownership,
    StateFileError,
    check_owned,
    own_state_file,
    read_state_file,
    write_state_file,
)

__all__ = [
    "LATE_LIMIT",
    "MAX_AHEAD",
    "Dropped",
    "Due",
    "Schedule",
    "ScheduleError",
    "ScheduleStore",
    "fire_time",
    "new_schedule_id",
]

log = logging.getLogger(__name__)

VERSION = 1

Dropped = Literal["late", "gone"]
"""Why a due schedule was not fired: more than the late limit late, or a device of it is no
longer in the home."""


@dataclass(frozen=True)
class Due:
    """What `take_due` took out of the store, each soonest first."""

    fire: tuple[Schedule, ...] = ()
    """To fire now (validated again, condition checked, by the engine)."""
    late: tuple[Schedule, ...] = ()
    """Not fired: due more than the late limit ago; the session that set it is to be told."""
    gone: tuple[Schedule, ...] = ()
    """Not fired: a device of it left the home; the session that set it is to be told."""

    def dropped(self) -> list[tuple[Schedule, Dropped]]:
        """The late and the gone ones, each with why."""
        return [(s, "late") for s in self.late] + [(s, "gone") for s in self.gone]


class ScheduleStore:
    """The schedules of one home, in memory and (when `path` is given) in a JSON file.

    Every change rewrites the file atomically before the call returns; when it cannot be
    written the change is undone and StateFileError raised, so memory never holds what a
    restart would lose. A missing file is created at construction (an unwritable path fails
    at start); an existing one is validated (StateFileError, one line per problem).
    Thread-safe: the sync engine and the asyncio runtime share one store.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._schedules: dict[str, Schedule] = {}
        self._watchers: list[Callable[[], None]] = []
        self._ownership: Ownership | None = None
        if path is not None:
            self._ownership = own_state_file(path, self)  # one engine at a time
            data = read_state_file(path)
            if data is None:
                self._save()
            else:
                self._schedules = {s.id: s for s in _parse(data, str(path))}

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` (from the changing thread) after every change; returns the unwatch."""
        with self._lock:
            self._watchers.append(callback)

        def unwatch() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._watchers.remove(callback)

        return unwatch

    def add(self, schedule: Schedule) -> None:
        """Keep a new schedule; ScheduleError when its id is taken or it is not JSON."""
        if schedule.at.tzinfo is None or schedule.created.tzinfo is None:
            raise ScheduleError("invalid", "a schedule's times must be timezone-aware")
        try:
            json.dumps(schedule.to_json(), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ScheduleError("invalid", f"a schedule that is not plain JSON: {exc}") from exc
        with self._lock:
            if schedule.id in self._schedules:
                raise ScheduleError("duplicate", f"a schedule {schedule.id} exists already")
            self._schedules[schedule.id] = schedule
            self._commit(lambda: self._schedules.pop(schedule.id))
        self._notify()

    def get(self, schedule_id: str) -> Schedule | None:
        """The schedule with this id, if it is still waiting."""
        with self._lock:
            return self._schedules.get(schedule_id)

    def cancel(self, schedule_id: str) -> Schedule | None:
        """Take one schedule out; None when there is no such schedule (any more)."""
        return next(iter(self._take(lambda s: s.id == schedule_id)), None)

    def take_due(
        self,
        now: datetime,
        has_device: Callable[[str], bool],
        *,
        limit: int | None = None,
        late_limit: timedelta = LATE_LIMIT,
    ) -> Due:
        """Take out every schedule due at `now`, sorted into `Due`: gone when `has_device` is
        False for one of its devices (checked first: it could not fire at any time), late when
        due more than `late_limit` ago, else to fire. `limit` caps how many to fire are taken
        (the rest stay for the next call): the asyncio scheduler takes one at a time, so one
        cancelled while the one before it fires does not fire. Each leaves the store once,
        and a file that cannot be written does not keep it: the failure is logged, and the
        file catches up at its next write (a restart before then may see it again, subject
        to the late limit). Raises only what `has_device` raises, and then takes nothing."""
        fire: list[Schedule] = []
        late: list[Schedule] = []
        gone: list[Schedule] = []
        with self._lock:
            for schedule in _in_order(s for s in self._schedules.values() if s.at <= now):
                if not all(has_device(device) for device in schedule.devices):
                    gone.append(schedule)
                elif now - schedule.at > late_limit:
                    late.append(schedule)
                elif limit is None or len(fire) < limit:
                    fire.append(schedule)
            taken = [*fire, *late, *gone]
            if not taken:
                return Due()
            self._remove(taken)
        self._notify()
        return Due(tuple(fire), tuple(late), tuple(gone))

    def cancel_where(
        self,
        *,
        session: str | None = None,
        user: str | None = None,
        devices: Iterable[str] | None = None,
        scene_steps: bool = False,
    ) -> list[Schedule]:
        """Take out every schedule that matches (取消定时: a session's; 取消关空调的定时: those
        sending to these devices; with `scene_steps`, only the delayed steps of a scene, which
        算了 stops), in time order. No filter at all takes out every one."""
        return self._take(_matcher(session, user, devices, scene_steps))

    def pending(
        self,
        *,
        session: str | None = None,
        user: str | None = None,
        devices: Iterable[str] | None = None,
        scene_steps: bool = False,
    ) -> list[Schedule]:
        """The waiting schedules that match, soonest first (还有多久关空调); with
        `scene_steps`, only a scene's delayed steps."""
        match = _matcher(session, user, devices, scene_steps)
        with self._lock:
            return _in_order(s for s in self._schedules.values() if match(s))

    def due(self, now: datetime) -> list[Schedule]:
        """The schedules whose time has come, soonest first; they stay in the store."""
        with self._lock:
            return _in_order(s for s in self._schedules.values() if s.at <= now)

    def pop_due(self, now: datetime) -> list[Schedule]:
        """Take out and return the schedules whose time has come, soonest first."""
        return self._take(lambda s: s.at <= now)

    def next_at(self) -> datetime | None:
        """When the soonest schedule fires; None when none waits."""
        with self._lock:
            return min((s.at for s in self._schedules.values()), default=None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._schedules)

    def _take(self, match: Callable[[Schedule], bool]) -> list[Schedule]:
        with self._lock:
            taken = _in_order(s for s in self._schedules.values() if match(s))
            if not taken:
                return []
            for schedule in taken:
                del self._schedules[schedule.id]
            self._commit(lambda: self._schedules.update((s.id, s) for s in taken))
        self._notify()
        return taken

    def _remove(self, schedules: list[Schedule]) -> None:
        # Called with the lock held, for schedules about to fire or be reported: at most once
        # matters more than the file, which catches up at its next write.
        for schedule in schedules:
            del self._schedules[schedule.id]
        try:
            self._save()
        except StateFileError as exc:
            ids = ", ".join(s.id for s in schedules)
            log.error("schedules %s are taken, but the file still lists them: %s", ids, exc)

    def _commit(self, undo: Callable[[], object]) -> None:
        # Called with the lock held, after a change in memory.
        try:
            self._save()
        except StateFileError:
            undo()
            raise

    def close(self) -> None:
        """Give the file up, so the next engine on it (a restart in this process) may own it;
        a later change raises StateFileError and is undone. Idempotent."""
        if self._ownership is not None:
            self._ownership()

    def _save(self) -> None:
        if self.path is not None and self._ownership is not None:
            check_owned(self.path, self._ownership)
            schedules = [s.to_json() for s in _in_order(self._schedules.values())]
            write_state_file(self.path, {"version": VERSION, "schedules": schedules})

    def _notify(self) -> None:
        with self._lock:
            watchers = list(self._watchers)
        for callback in watchers:
            try:
                callback()
            except Exception:
                log.exception(
                    "schedule watcher %r failed after a change of %s", callback, self.path
                )


def _matcher(
    session: str | None,
    user: str | None,
    devices: Iterable[str] | None,
    scene_steps: bool = False,
) -> Callable[[Schedule], bool]:
    wanted = frozenset(devices) if devices is not None else None

    def match(schedule: Schedule) -> bool:
        return (
            (session is None or schedule.session == session)
            and (user is None or schedule.user == user)
            and (wanted is None or not wanted.isdisjoint(schedule.devices))
            and (not scene_steps or schedule.scene is not None)
        )

    return match


def _in_order(schedules: Iterable[Schedule]) -> list[Schedule]:
    return sorted(schedules, key=lambda s: (s.at, s.created, s.id))


_COMMAND = {
    "type": "object",
    "required": ["device", "command", "params"],
    "additionalProperties": False,
    "properties": {
        "device": {"type": "string", "minLength": 1},
        "command": {"type": "string", "minLength": 1},
        "params": {"type": "object"},
    },
}
_SCHEDULE = {
    "type": "object",
    "required": ["id", "session", "user", "at", "commands", "text", "condition", "created"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "session": {"type": "string"},
        "user": {"type": ["string", "null"]},
        "at": {"type": "string"},
        "commands": {"type": "array", "minItems": 1, "items": _COMMAND},
        "text": {"type": "string"},
        "condition": {"type": ["object", "null"]},
        "created": {"type": "string"},
        # Optional: files written before scenes had delayed steps do not have it.
        "scene": {"type": "string"},
        # Optional: written only when true (files from before it are unconfirmed).
        "confirmed": {"type": "boolean"},
    },
}
_DOCUMENT = {
    "type": "object",
    "required": ["version", "schedules"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": VERSION},
        "schedules": {"type": "array", "items": _SCHEDULE},
    },
}


_SCHEMA = Schema(_DOCUMENT)


def _parse(data: object, source: str) -> list[Schedule]:
    """The schedules of a state file; StateFileError lists every problem in it."""
    problems = [
        Problem(source, json_pointer(e.absolute_path), schema_message(e))
        for e in _SCHEMA.errors(data)
    ]
    if problems:
        # jsonschema reports each missing required key apart, with the same message.
        raise StateFileError(list(dict.fromkeys(problems)))
    document = cast(dict[str, Any], data)  # the schema says it is one
    schedules: list[Schedule] = []
    seen: set[str] = set()
    for index, item in enumerate(document["schedules"]):
        where = ("schedules", index)
        at = _aware(item["at"], source, (*where, "at"), problems)
        created = _aware(item["created"], source, (*where, "created"), problems)
        if item["id"] in seen:
            problems.append(Problem(source, json_pointer((*where, "id")), "repeats an id"))
        seen.add(item["id"])
        if at is None or created is None:
            continue
        commands = tuple(Command(c["device"], c["command"], c["params"]) for c in item["commands"])
        schedules.append(
            Schedule(
                item["id"],
                item["session"],
                item["user"],
                at,
                commands,
                item["text"],
                item["condition"],
                created,
                item.get("scene"),
                item.get("confirmed", False),
            )
        )
    if problems:
        raise StateFileError(problems)
    return schedules


def _aware(
    text: str, source: str, path: tuple[str | int, ...], problems: list[Problem]
) -> datetime | None:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        message = f"{json.dumps(text, ensure_ascii=False)[:40]} is not a time with its offset"
        problems.append(Problem(source, json_pointer(path), message))
        return None
    return when
