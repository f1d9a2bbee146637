"""Run a planned turn: send its commands through a hub, audited, and say what came of it.

The engine plans (resolve, compute each command from fresh reads, hold the risky
ones); this module is the only place that sends. `SyncRunner` drives a blocking
`Hub`; `executor/arun.py` drives an `AsyncHub` with the same plan and the same
report, so the sync API, the asyncio runtime and schedules share one planner.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from jiayu.executor.audit import AuditError, AuditLog
from jiayu.executor.hubs import Hub, HubError
from jiayu.ir import Command
from jiayu.planner.plan import Batch

log = logging.getLogger("jiayu")

EventKind = Literal["started", "finished", "failed"]


@dataclass
class Report:
    """What running a plan did; `audit_failed` stops every later send."""

    audit_failed: bool = False

    @staticmethod
    def failure(command: Command, reason: str) -> dict[str, Any]:
        """A Result `failures` entry."""
        return {"device": command.device, "command": command.command, "reason": reason}


Listener = Callable[[EventKind, Command, str | None], None]
"""Told of each command as it starts, finishes or fails (with the reason)."""


class SyncRunner:
    """Sends batches in order through a blocking hub, writing the audit log ahead."""

    def __init__(self, hub: Hub, audit: AuditLog | None) -> None:
        self.hub = hub
        self.audit = audit

    def read(self, device_id: str) -> Mapping[str, Any] | HubError:
        """A fresh read, or the hub's error (never raised: the planner decides what it means)."""
        try:
            return self.hub.read(device_id)
        except HubError as err:
            return err

    def run(
        self,
        batches: Sequence[Batch],
        *,
        session: str,
        text: str,
        listener: Listener | None = None,
    ) -> Report:
        """Send every batch's commands in order; a failed audit write stops the rest."""
        report = Report()
        for batch in batches:
            for command in batch.commands:
                if report.audit_failed or not audit_line(
                    self.audit, session, text, command, "sending"
                ):
                    report.audit_failed = True  # this command and every later one: not sent
                    continue
                if listener is not None:
                    listener("started", command, None)
                try:
                    self.hub.send(command.device, command.command, command.params)
                except HubError as err:
                    result = err.reason
                else:
                    result = "ok"
                if not settle(batch, command, result, self.audit, session, text, listener):
                    report.audit_failed = True
        return report


def settle(
    batch: Batch,
    command: Command,
    result: str,
    audit: AuditLog | None,
    session: str,
    text: str,
    listener: Listener | None,
) -> bool:
    """Record what came of one send ("ok" or the hub's reason) in its batch, the log, the
    listener and the audit log; False when the audit line could not be written."""
    if result == "ok":
        batch.sent.append(command)
    else:
        batch.failed.append((command, result))
    if log.isEnabledFor(logging.INFO):  # per command sent: its fields only when logged
        log.info(
            "jiayu.sent",
            extra={
                "session": session,
                "device": command.device,
                "command": command.command,
                "result": result,
            },
        )
    if listener is not None:
        listener("finished" if result == "ok" else "failed", command, result)
    return audit_line(audit, session, text, command, result)


def audit_line(
    audit: AuditLog | None, session: str, text: str, command: Command, result: str
) -> bool:
    """Write one audit line: "sending" before the send (then False means nothing may be sent),
    or what came of it (then False stops later sends: the log is no longer complete)."""
    if audit is None:
        return True
    try:
        audit.record(
            session=session,
            text=text,
            device=command.device,
            command=command.command,
            params=command.params,
            result=result,
        )
    except AuditError as err:
        log.error("jiayu.audit_failed", extra={"path": audit.path, "error": str(err)})
        return False
    return True
