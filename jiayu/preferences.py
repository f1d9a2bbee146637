"""What each user likes (seed 003): 记住我喜欢26度, 我喜欢暖光, 我看电视的音量是20.

The hub points at a JSON file; every change rewrites it atomically, so a crash leaves
either the old preferences or the new ones, never half of each. The file looks like

    {"version": 1,
     "users": {"小明": {"target_temperature": 26, "color_temp": "warm",
                        "volume@Television": 20}}}

A key names the state attribute the preference is for (the attribute a `Value` of kind
"preferred" carries), optionally narrowed to one device type with ``@Type``
(``volume@Television``: the volume this user watches television at). The vocabulary:

    target_temperature  °C, 5–40 (a device's own limits still apply when it is used)
    color_temp          kelvin, 1000–10000, or a light colour: warm, cool, natural
    brightness          0–100 (integer)
    volume              0–100 (integer)
    position            0–100 (integer; a cover's opening)
    fan_speed           low, medium, high, auto
    mode                cool, heat, dry, fan, auto

A user or key never stored reads as None: the engine then asks (`clarify`) and stores
the answer. This module also holds the small state-file helpers (one owner, read with
validation, write atomically) that the schedule store shares.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from jiayu.errors import InputError, JiayuError, Problem, json_pointer
from jiayu.jsonfile import read_json, shipped_text

VERSION = 1


class StateFileError(InputError):
    """A state file (preferences, schedules) cannot be read, is invalid, or cannot be written;
    one `FILE: /pointer: problem` line per problem."""


class PreferenceError(JiayuError):
    """A preference that cannot be stored: an unknown key or a value it cannot take."""


@dataclass(frozen=True)
class _Kind:
    """What values one preference takes."""

    bounds: tuple[float, float] | None = None
    """The lowest and highest number allowed; None when only words are."""
    integer: bool = False
    words: tuple[str, ...] = ()

    def problem(self, value: object) -> str | None:
        """Why `value` cannot be this preference; None when it can."""
        if isinstance(value, str):
            return None if value in self.words else f"{_show(value)} is not {self.wanted}"
        # bool is an int to Python; true is not a temperature.
        if isinstance(value, bool) or not isinstance(value, int | float) or not self.bounds:
            return f"{_show(value)} is not {self.wanted}"
        low, high = self.bounds
        if not math.isfinite(value):
            return f"{_show(value)} is not a finite number"
        if not low <= value <= high:
            return f"{_show(value)} is not within {low:g}–{high:g}"
        if self.integer and not float(value).is_integer():
            return f"{_show(value)} is not a whole number"
        return None

    @property
    def wanted(self) -> str:
        """What the values are, for messages: "a number or one of: warm, cool, natural"."""
        kinds = ["a number"] if self.bounds else []
        kinds += ["one of: " + ", ".join(self.words)] if self.words else []
        return " or ".join(kinds)


VOCABULARY: Mapping[str, _Kind] = {
    "target_temperature": _Kind((5, 40)),
    "color_temp": _Kind((1000, 10000), integer=True, words=("warm", "cool", "natural")),
    "brightness": _Kind((0, 100), integer=True),
    "volume": _Kind((0, 100), integer=True),
    "position": _Kind((0, 100), integer=True),
    "fan_speed": _Kind(words=("low", "medium", "high", "auto")),
    "mode": _Kind(words=("cool", "heat", "dry", "fan", "auto")),
}
"""The preference keys (state attributes) and the values each takes."""

MAX_USER_CHARS = 100


def preference_key(attribute: str, device_type: str | None = None) -> str:
    """The key a preference is stored under: ``volume`` or ``volume@Television``."""
    return f"{attribute}@{device_type}" if device_type else attribute


def key_problem(key: str) -> str | None:
    """Why `key` is not a preference key; None when it is."""
    attribute, _, device_type = key.partition("@")
    if attribute not in VOCABULARY:
        return f"{_show(key)} is not a preference: known are {', '.join(VOCABULARY)}"
    if "@" in key and device_type not in device_types():
        return f"{_show(device_type)} is not a device type"
    return None


def value_problem(key: str, value: object) -> str | None:
    """Why `value` cannot be stored under `key` (a valid key); None when it can."""
    return VOCABULARY[key.partition("@")[0]].problem(value)


@cache
def device_types() -> frozenset[str]:
    """The device types of the home file's schema: one list for homes and preferences."""
    text = shipped_text("jiayu", "schemas/home.schema.json")
    return frozenset(json.loads(text)["$defs"]["type"]["enum"])


Preference = float | int | str


class PreferenceStore:
    """Per-user preferences, in memory and (when `path` is given) in a JSON file.

    Thread-safe: the sync engine and the asyncio runtime may share one store. The file is
    read once, at construction (StateFileError lists every problem in it); a missing file
    is created empty then, so an unwritable path fails at start, not at the first 记住.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._users: dict[str, dict[str, Preference]] = {}
        self._ownership: Ownership | None = None
        if path is not None:
            self._ownership = own_state_file(path, self)
            data = read_state_file(path)
            if data is None:
                write_state_file(path, self._document())
            else:
                self._users = _parse(data, str(path))

    def get(self, user: str, key: str) -> Preference | None:
        """The stored value, or None when this user has not said it."""
        with self._lock:
            return self._users.get(user, {}).get(key)

    def preferred(self, user: str, attribute: str, device_type: str | None) -> Preference | None:
        """The value for `attribute` on a device of `device_type`: the type's own preference
        (volume@Television) first, then the plain one (volume); None when neither is stored."""
        with self._lock:
            stored = self._users.get(user, {})
            typed = stored.get(preference_key(attribute, device_type)) if device_type else None
            return typed if typed is not None else stored.get(attribute)

    def set(self, user: str, key: str, value: Preference) -> Preference:
        """Store a value (PreferenceError when the key or value is not allowed) and return it
        as stored: whole numbers of integer preferences become ints (26.0 → 26)."""
        problem = _user_problem(user) or key_problem(key) or value_problem(key, value)
        if problem:
            raise PreferenceError(problem)
        kind = VOCABULARY[key.partition("@")[0]]
        if kind.integer and isinstance(value, float):
            value = int(value)
        with self._lock:
            previous = self._users.get(user, {}).get(key)
            self._users.setdefault(user, {})[key] = value
            if self.path is not None and self._ownership is not None:
                try:
                    check_owned(self.path, self._ownership)
                    write_state_file(self.path, self._document())
                except StateFileError:
                    # Memory never claims what the file does not hold.
                    if previous is None:
                        del self._users[user][key]
                    else:
                        self._users[user][key] = previous
                    raise
        return value

    def close(self) -> None:
        """Give the file up, so the next engine on it (a restart in this process) may own it;
        a later `set` raises StateFileError. Idempotent."""
        if self._ownership is not None:
            self._ownership()

    def _document(self) -> dict[str, Any]:
        return {"version": VERSION, "users": self._users}


def _parse(data: object, source: str) -> dict[str, dict[str, Preference]]:
    problems: list[Problem] = []

    def report(path: tuple[str, ...], message: str) -> None:
        problems.append(Problem(source, json_pointer(path), message))

    users: dict[str, dict[str, Preference]] = {}
    if not isinstance(data, dict):
        report((), f"{_show(data)} is not an object")
    else:
        _check_frame(data, report)
        stored = data.get("users")
        for user, prefs in stored.items() if isinstance(stored, dict) else ():
            if problem := _user_problem(user):
                report(("users", user), problem)
            elif not isinstance(prefs, dict):
                report(("users", user), f"{_show(prefs)} is not an object")
            else:
                for key, value in prefs.items():
                    if problem := key_problem(key) or value_problem(key, value):
                        report(("users", user, key), problem)
                users[user] = prefs
    if problems:
        raise StateFileError(problems)
    return users


def _check_frame(data: dict[str, Any], report: Callable[[tuple[str, ...], str], None]) -> None:
    """{"version": 1, "users": {...}} and no other keys."""
    if "version" not in data:
        report((), 'missing required key "version"')
    elif data["version"] != VERSION or isinstance(data["version"], bool):
        report(("version",), f"{_show(data['version'])} is not a version this jiayu reads (1)")
    if "users" not in data:
        report((), 'missing required key "users"')
    elif not isinstance(data["users"], dict):
        report(("users",), f"{_show(data['users'])} is not an object")
    for key in data:
        if key not in ("version", "users"):
            report((), f"unknown key {_show(key)}")


class Ownership(Protocol):
    """A state file owned: calling it gives the file up (once); `alive` until then."""

    @property
    def alive(self) -> bool: ...

    def __call__(self) -> object: ...


def check_owned(path: Path, ownership: Ownership) -> None:
    """StateFileError when the file was given up: a closed store writes it no more."""
    if not ownership.alive:
        problem = Problem(str(path), "", "its store is closed: nothing more is written to it")
        raise StateFileError([problem])


_owned: dict[str, int] = {}
"""The state files this process owns, by real path: the locked fd of each."""
_owned_lock = threading.Lock()
_released: list[str] = []
"""Owners gone whose lock is still to be given back (see `_release`)."""


def own_state_file(path: Path, owner: object) -> Ownership:
    """Make `owner` the one owner of a state file until it is closed or collected: two
    engines writing one file each from its own memory lose each other's changes, and a
    schedule both hold fires twice — two processes or two engines of one. The owner holds an
    exclusive `flock` on `<file>.lock` beside it (the file itself is replaced on every write,
    so it cannot carry the lock); the kernel drops it when the process ends, however it ends.
    Another owner holding it, in this process or another: StateFileError, one line naming the
    file. Returns the ownership, which the owner's `close()` gives up; an owner collected
    gives it up too."""
    key = os.path.realpath(path)  # one lock however the file is named (a link, a ./ path)
    with _owned_lock:
        _give_back()
        if key in _owned:
            message = (
                "is in use by another jiayu engine of this process; a state file has one "
                "engine at a time (close the other first)"
            )
            raise StateFileError([Problem(str(path), "", message)])
        _owned[key] = _lock(path, Path(key + ".lock"))
    _settle()
    return weakref.finalize(owner, _release, key)


def _lock(path: Path, lock_path: Path) -> int:
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        problem = Problem(str(path), "", f"cannot write {lock_path.name}: {exc.strerror or exc}")
        raise StateFileError([problem]) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.read(fd, 32).decode("ascii", "replace").strip()
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        message = f"is in use by another jiayu engine{who}; a state file has one engine at a time"
        raise StateFileError([Problem(str(path), "", message)]) from exc
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())  # for the other engine's error message
    return fd


def _release(key: str) -> None:
    # A finalizer: the garbage collector may run it at any allocation, also in the thread
    # that holds _owned_lock inside own_state_file (waiting for the lock there deadlocked the
    # test suite). So it only queues the key, and gives it back at once if the lock is free;
    # else whoever holds the lock gives it back before letting go (`_settle`).
    _released.append(key)
    _settle()


def _settle() -> None:
    """Give back every queued share of a lock, unless another holder of _owned_lock will."""
    while _released and _owned_lock.acquire(blocking=False):
        try:
            _give_back()
        finally:
            _owned_lock.release()


def _give_back() -> None:
    """Under _owned_lock: close the queued owners' fds (closing one releases its flock)."""
    while _released:
        os.close(_owned.pop(_released.pop()))


def read_state_file(path: Path) -> object | None:
    """The parsed JSON of a state file, or None when there is none yet. StateFileError when it
    cannot be read or is not JSON within the bounds every input file keeps (jiayu.jsonfile)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        pass  # read_json says what is wrong with it
    return read_json(path, str(path), StateFileError)


def write_state_file(path: Path, data: object) -> None:
    """Replace the file with `data` as JSON, atomically: a temporary file in the same folder,
    flushed to disk, then renamed over the old one (and the rename itself made durable)."""
    text = json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
    folder = path.parent
    try:
        import tempfile  # here: a turn that stores no preference never needs it

        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        _sync_folder(folder)
    except OSError as exc:
        problem = Problem(str(path), "", f"cannot write: {exc.strerror or exc}")
        raise StateFileError([problem]) from exc


def _sync_folder(folder: Path) -> None:
    # The rename lives in the folder's entry; without this a power cut may forget it.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not every system lets a folder be opened; the data itself is on disk
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _user_problem(user: object) -> str | None:
    if not isinstance(user, str) or not user.strip():
        return "a user id is empty"
    if len(user) > MAX_USER_CHARS:
        return f"a user id is longer than {MAX_USER_CHARS} characters"
    return None


def _show(value: object) -> str:
    # Values come from files people edit: show them as JSON, and never at length.
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"
