"""The audit log: every command sent, one JSON line each, appended to a file."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from typing import Any


class AuditLog:
    """Appends one line per command: time, session, text, device, command, params, result."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()

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
        """Append one command and what came of it ("ok" or the failure)."""
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
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
