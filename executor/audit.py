"""The audit log: every command, one JSON line before it is sent and one with its result.

It is write-ahead: a command whose intent line cannot be written is not sent, so
the log never misses a command that reached a device. An engine whose audit path
is not writable refuses to start (`AuditLog.check`).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from jiayu.errors import JiayuError


class AuditError(JiayuError):
    """The audit log cannot be written."""


class AuditLog:
    """Appends one line per event: time, session, text, device, command, params, result
    ("sending" before the send, then "ok" or the failure)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()

    def check(self) -> None:
        """Raise AuditError unless the log can be appended to (opened, not truncated)."""
        try:
            with open(self.path, "a", encoding="utf-8"):
                pass
        except OSError as err:
            raise AuditError(f"{self.path}: the audit log cannot be written: {err}") from err

    def record(
        self,
        *,
        session: str,
        text: str,
        device: str,
        command: str,
        params: Mapping[str, Any],
        result: str,
    ) -> None:
        """Append one line, flushed to the OS before returning; AuditError if it cannot be."""
        line = json.dumps(
            {
                "time": time.time(),
                "session": session,
                "text": text,
                "device": device,
                "command": command,
                "params": dict(params),
                "result": result,
            },
            ensure_ascii=False,
        )
        # backslashreplace: a lone surrogate in what was said is logged as an escape, which
        # JSON reads back, instead of blocking the send.
        data = (line + "\n").encode("utf-8", errors="backslashreplace")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
        try:
            with self._lock:
                fd = os.open(self.path, flags, 0o644)
                try:
                    _append_whole(fd, data)
                finally:
                    os.close(fd)
        except OSError as err:
            raise AuditError(f"{self.path}: the audit log cannot be written: {err}") from err


def _append_whole(fd: int, data: bytes) -> None:
    """Append `data` as one whole line or not at all: a full disk that takes part of it has
    the part cut off again, so a reader never meets half a line (nor a next line glued to it)."""
    start = os.fstat(fd).st_size
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
    except OSError:
        if written:
            with contextlib.suppress(OSError):  # the cut is as good as the disk allows
                os.ftruncate(fd, start)
        raise
