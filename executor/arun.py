"""Run planned turns as asyncio tasks: the same batches `executor/run.py` sends, in the
background, so a hub on a real network never delays the reply.

Commands to one device go out in the order they were submitted (each waits for the
one before it on that device); different devices go in parallel, at most `parallel`
at a time; every command has a timeout. The audit log is written ahead, as in the
sync runner, and a failed write stops the rest of that turn.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from jiayu.executor.audit import AuditLog
from jiayu.executor.hubs import AsyncHub, Hub, HubError
from jiayu.executor.run import Report, audit_line, settle
from jiayu.ir import Command
from jiayu.planner.plan import Batch

log = logging.getLogger("jiayu")

Notify = Callable[[str, Command, str | None], None]
"""Told "started", "finished" or "failed" for each command, with the reason."""


class ThreadedHub:
    """A blocking `Hub` seen as an `AsyncHub`: each call runs in a worker thread."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def read(self, device_id: str) -> Mapping[str, Any]:
        return await asyncio.to_thread(self.hub.read, device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await asyncio.to_thread(self.hub.send, device_id, command, params)


def as_async(hub: Hub | AsyncHub) -> AsyncHub:
    """The hub as an AsyncHub (sync hubs are wrapped in worker threads)."""
    if inspect.iscoroutinefunction(getattr(hub, "send", None)):
        return cast(AsyncHub, hub)
    return ThreadedHub(cast(Hub, hub))


class AsyncRunner:
    """Sends batches in the background; one per engine and event loop."""

    def __init__(
        self,
        hub: AsyncHub,
        audit: AuditLog | None,
        *,
        parallel: int = 8,
        timeout: float = 5.0,
    ) -> None:
        self.hub = hub
        self.audit = audit
        self.timeout = timeout
        self._slots = asyncio.Semaphore(parallel)
        self._tails: dict[str, asyncio.Task[None]] = {}  # the last send queued per device

    async def read(self, device_id: str) -> Mapping[str, Any] | HubError:
        """A fresh read with the timeout, or the hub's error."""
        try:
            return await asyncio.wait_for(self.hub.read(device_id), self.timeout)
        except HubError as err:
            return err
        except TimeoutError:
            return HubError(device_id, "timeout")

    def submit(
        self, batches: Sequence[Batch], *, session: str, text: str, notify: Notify
    ) -> asyncio.Task[Report]:
        """Queue every command now, in order (this fixes the order per device), and return
        the task that finishes when all of them have been tried."""
        report = Report()
        sends: list[asyncio.Task[None]] = []
        for batch in batches:
            for command in batch.commands:
                before = self._tails.get(command.device)
                task = asyncio.create_task(
                    self._send(before, batch, command, report, session, text, notify)
                )
                self._tails[command.device] = task
                task.add_done_callback(functools.partial(self._forget, command.device))
                sends.append(task)
        return asyncio.create_task(_gather(sends, report))

    def _forget(self, device: str, task: asyncio.Task[None]) -> None:
        if self._tails.get(device) is task:
            del self._tails[device]

    async def _send(
        self,
        before: asyncio.Task[None] | None,
        batch: Batch,
        command: Command,
        report: Report,
        session: str,
        text: str,
        notify: Notify,
    ) -> None:
        if before is not None:
            await asyncio.wait([before])  # its outcome does not matter, only that it is over
        async with self._slots:
            if report.audit_failed or not audit_line(self.audit, session, text, command, "sending"):
                report.audit_failed = True
                notify("failed", command, "audit")
                return
            notify("started", command, None)
            try:
                await asyncio.wait_for(
                    self.hub.send(command.device, command.command, command.params), self.timeout
                )
            except HubError as err:
                result = err.reason
            except TimeoutError:
                result = "timeout"
            else:
                result = "ok"
            if not settle(batch, command, result, self.audit, session, text, notify):
                report.audit_failed = True


async def _gather(sends: list[asyncio.Task[None]], report: Report) -> Report:
    if sends:
        await asyncio.gather(*sends)
    return report
