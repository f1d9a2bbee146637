"""Run a planned turn: send its commands through a hub, audited, and say what came of it.

The engine plans (resolve, compute each command from fresh reads, hold the risky
ones); this module is the only place that sends. `SyncRunner` drives a blocking
`Hub`; `executor/arun.py` drives an `AsyncHub` with the same plan and the same
report, so the sync API, the asyncio runtime and schedules share one planner.

A hub with `read_many`/`send_many` (a `BatchHub`) is asked for all of a clause's reads in
one call, and sent each batch's commands to distinct devices in one call; a hub with only
`read`/`send` is called once per device. Whatever a hub raises, or however it breaks its
contract, is a failure of the devices in that call, never an exception here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from jiayu.executor.audit import AuditError, AuditLog
from jiayu.executor.hubs import Hub, HubError
from jiayu.executor.hubs.base import Reads, Sends
from jiayu.ir import Command
from jiayu.planner.plan import Batch

log = logging.getLogger(__name__)

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


ReadMany = Callable[[Sequence[str]], Reads]
SendMany = Callable[[Sequence[Command]], Sends]


class SyncRunner:
    """Sends batches in order through a blocking hub, writing the audit log ahead."""

    def __init__(self, hub: Hub, audit: AuditLog | None) -> None:
        self.hub = hub
        self.audit = audit
        # A hub written for an older jiayu has neither; looked up once, not per turn.
        self._read_many: ReadMany | None = getattr(hub, "read_many", None)
        self._send_many: SendMany | None = getattr(hub, "send_many", None)

    def read(self, device_id: str) -> Mapping[str, Any] | HubError:
        """A fresh read, or the hub's error (never raised: the planner decides what it means)."""
        try:
            return self.hub.read(device_id)
        except Exception as exc:
            return hub_failure(device_id, exc)

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        """Fresh reads of these devices (each once), in one hub call when the hub can; a
        device that cannot be read maps to its HubError. Never raises."""
        wanted = list(dict.fromkeys(device_ids))
        if self._read_many is None:
            return {device_id: self.read(device_id) for device_id in wanted}
        try:
            got = self._read_many(wanted)
        except Exception as exc:
            return fail_reads(wanted, exc)
        return complete_reads(wanted, got)

    def run(
        self,
        batches: Sequence[Batch],
        *,
        session: str,
        text: str,
        listener: Listener | None = None,
    ) -> Report:
        """Send every batch's commands in order; a failed audit write stops the rest.

        With a `send_many` hub, the turn's commands go out in `send_plan`'s groups: one call
        per group, so a turn whose devices are all different is one round trip."""
        report = Report()
        for group, owners in send_plan(batches, together=self._send_many is not None):
            ready = audit_ahead(group, report, self.audit, session, text)
            if not ready:
                continue
            if listener is not None:
                for command in ready:
                    listener("started", command, None)
            results = self._send(ready)
            if not settle_all(owners, ready, results, self.audit, session, text, listener):
                report.audit_failed = True
        return report

    def _send(self, commands: list[Command]) -> list[str]:
        """Each command's result, "ok" or the reason it failed."""
        if self._send_many is None:
            return [self._send_one(command) for command in commands]
        try:
            got = self._send_many(commands)
        except Exception as exc:
            return fail_sends(commands, exc)
        return complete_sends(commands, got)

    def _send_one(self, command: Command) -> str:
        try:
            self.hub.send(command.device, command.command, command.params)
        except Exception as exc:
            return hub_failure(command.device, exc).reason
        return "ok"


Group = tuple[list[Command], list[Batch]]
"""Commands that go out in one hub call, and beside them the batch each settles in."""


def send_plan(batches: Sequence[Batch], *, together: bool) -> list[Group]:
    """The turn's commands, every batch's in order, cut into the groups that each go out in
    one hub call: with `together` (a hub with `send_many`), consecutive runs with no device
    twice, so a device's commands keep their order; else one command per group. The planner
    has planned every clause before anything is sent, so no clause waits on an earlier one's
    send, and clauses to different devices share one hub call."""
    plan: list[Group] = []
    commands: list[Command] = []
    owners: list[Batch] = []
    devices: set[str] = set()
    for batch in batches:
        for command in batch.commands:
            device = command.device
            if not (together and commands and device not in devices):  # a new group
                commands, owners, devices = [], [], set()
                plan.append((commands, owners))
            devices.add(device)
            commands.append(command)
            owners.append(batch)
    return plan


def audit_ahead(
    group: Sequence[Command], report: Report, audit: AuditLog | None, session: str, text: str
) -> list[Command]:
    """Write the "sending" line of each command of a group about to go out, in order; the
    ones that may be sent. At the first line that cannot be written that command and every
    later one (of this turn) are not sent: `report.audit_failed` says so."""
    if audit is None:  # nothing to write, so nothing can fail to be written
        return [] if report.audit_failed else list(group)
    ready: list[Command] = []
    for command in group:
        if report.audit_failed or not audit_line(audit, session, text, command, "sending"):
            report.audit_failed = True
            break
        ready.append(command)
    return ready


def hub_failure(device: str, exc: BaseException) -> HubError:
    """What a hub's exception means for one device: a HubError as it is; a timeout as
    "timeout"; anything else (a hub's bug, a dropped socket) as "error", logged with its
    traceback since nobody else will see it."""
    if isinstance(exc, HubError):
        return exc
    if isinstance(exc, TimeoutError):
        return HubError(device, "timeout")
    log.error("the hub raised for %s: %r", device, exc, exc_info=exc, extra={"device": device})
    return HubError(device, "error")


def fail_reads(device_ids: Sequence[str], exc: BaseException) -> Reads:
    """A whole `read_many` call failed: every device in it failed the same way."""
    reason = hub_failure(",".join(device_ids), exc).reason
    return {device_id: HubError(device_id, reason) for device_id in device_ids}


def complete_reads(device_ids: Sequence[str], got: object) -> Reads:
    """A hub's `read_many` answer, held to its contract: a device it left out (or gave
    something that is neither a state nor a HubError) is a failure, not a KeyError later."""
    answer = got if isinstance(got, Mapping) else {}
    reads: Reads = {}
    for device_id in device_ids:
        value = answer.get(device_id)
        if isinstance(value, (dict, Mapping, HubError)):  # (dict: a type test, before the abc)
            reads[device_id] = value
        else:
            log.error("the hub gave no read of %s", device_id, extra={"device": device_id})
            reads[device_id] = HubError(device_id, "error")
    return reads


def send_failure(device: str, exc: BaseException) -> str:
    """Why a send failed. Our own wait running out is not the hub saying no: the command may
    have left and may yet happen, so it is "unconfirmed", never "timeout"."""
    if isinstance(exc, TimeoutError):
        return "unconfirmed"
    return hub_failure(device, exc).reason


def fail_sends(commands: Sequence[Command], exc: BaseException) -> list[str]:
    """A whole `send_many` call failed: every command in it failed the same way."""
    return [send_failure(",".join(c.device for c in commands), exc)] * len(commands)


def complete_sends(commands: Sequence[Command], got: object) -> list[str]:
    """A hub's `send_many` answer as results, held to its contract: a command it gave no
    answer for may have left, so it is "unconfirmed", never a success."""
    answer = got if isinstance(got, (list, tuple)) else ()  # read in place: no copy
    results: list[str] = []
    for index, command in enumerate(commands):
        value = answer[index] if index < len(answer) else "missing"
        if value is None:
            results.append("ok")
        elif isinstance(value, HubError):
            results.append(value.reason)
        else:
            log.error(
                "the hub gave no result for %s to %s",
                command.command,
                command.device,
                extra={"device": command.device},
            )
            results.append("unconfirmed")
    return results


def settle_all(
    owners: Sequence[Batch],
    commands: Sequence[Command],
    results: Sequence[str],
    audit: AuditLog | None,
    session: str,
    text: str,
    listener: Listener | None,
) -> bool:
    """`settle` each command sent (a first run of a group: `owners` holds the batch of each
    command of the group) with its result, in order; False when an audit line could not be
    written (every command is still settled)."""
    if (
        audit is None
        and listener is None
        and len(results) == results.count("ok")
        and not log.isEnabledFor(logging.DEBUG)
    ):
        # All accepted and no one told of each (所有的灯 with no audit, listener or log):
        # settling each would only add it to its batch's sent.
        # (zip without strict: `owners` runs on past the commands sent, and a keyword makes
        # zip a slower call, ~2k instructions)
        for batch, command in zip(owners, commands):  # noqa: B905
            batch.sent.append(command)
        return True
    settled = True
    for batch, command, result in zip(owners, commands, results):  # noqa: B905 (as above)
        if not settle(batch, command, result, audit, session, text, listener):
            settled = False
    return settled


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
    if log.isEnabledFor(logging.DEBUG):  # per command sent: its fields only when logged
        log.debug(
            "sent %s to %s: %s",
            command.command,
            command.device,
            result,
            extra={
                "session": session,
                "device": command.device,
                "command": command.command,
                "result": result,
            },
        )
    if listener is not None:
        listener("finished" if result == "ok" else "failed", command, result)
    return audit is None or audit_line(audit, session, text, command, result)


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
        log.error(
            "the audit log %s could not be written: %s",
            audit.path,
            err,
            extra={"path": audit.path, "error": str(err)},
        )
        return False
    return True
