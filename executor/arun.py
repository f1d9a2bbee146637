"""Run planned turns as asyncio tasks: the same batches `executor/run.py` sends, in the
background, so a hub on a real network never delays the reply.

Commands to one device go out in the order they were submitted (each waits for the
one before it on that device); different devices go in parallel, at most `parallel`
hub calls at a time (a `send_many` call carrying a batch's commands to several devices
counts once); every call has a timeout. The audit log is written ahead, as in the
sync runner, and a failed write stops the rest of that turn.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from jiayu.executor.audit import AuditLog
from jiayu.executor.hubs import AsyncHub, Hub, HubError
from jiayu.executor.hubs.base import BatchHub, Reads, Sends
from jiayu.executor.run import (
    Report,
    audit_ahead,
    complete_reads,
    complete_sends,
    fail_reads,
    fail_sends,
    hub_failure,
    send_failure,
    send_plan,
    settle_all,
)
from jiayu.ir import Command
from jiayu.planner.plan import Batch

T = TypeVar("T")

Notify = Callable[[str, Command, str | None], None]
"""Told "started", "finished" or "failed" for each command, with the reason."""

AsyncReadMany = Callable[[Sequence[str]], Awaitable[Reads]]
AsyncSendMany = Callable[[Sequence[Command]], Awaitable[Sends]]


class ThreadedHub:
    """A blocking `Hub` seen as an `AsyncHub`: each call runs in one of the hub's own
    `parallel` threads. Not asyncio's default executor: the engine plans turns there, and a
    planning thread waiting for a read queued behind it in the same pool would wait out the
    timeout (16 turns at once on a 2-core machine did); a slow hub can starve only itself."""

    def __init__(self, hub: Hub, *, parallel: int = 8) -> None:
        self.hub = hub
        self._pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="jiayu-hub")

    async def read(self, device_id: str) -> Mapping[str, Any]:
        return await self._call(self.hub.read, device_id)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        await self._call(self.hub.send, device_id, command, params)

    def close(self) -> None:
        """Stop the threads once their calls end; a call after this fails (RuntimeError)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _call(self, function: Callable[..., T], *args: Any) -> T:
        # As asyncio.to_thread does: the hub's code sees the caller's context variables.
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(
            self._pool, functools.partial(context.run, function, *args)
        )


class ThreadedBatchHub(ThreadedHub):
    """A blocking `BatchHub` seen as an `AsyncBatchHub`."""

    def __init__(self, hub: BatchHub, *, parallel: int = 8) -> None:
        super().__init__(hub, parallel=parallel)
        self.batch_hub = hub

    async def read_many(self, device_ids: Sequence[str]) -> Reads:
        return await self._call(self.batch_hub.read_many, device_ids)

    async def send_many(self, commands: Sequence[Command]) -> Sends:
        return await self._call(self.batch_hub.send_many, commands)


def as_async(hub: Hub | AsyncHub, *, parallel: int = 8) -> AsyncHub:
    """The hub as an AsyncHub: an AsyncHub as it is; a blocking one in `parallel` threads of
    its own, batched when it has both `read_many` and `send_many`."""
    if inspect.iscoroutinefunction(getattr(hub, "send", None)):
        return cast(AsyncHub, hub)
    if callable(getattr(hub, "read_many", None)) and callable(getattr(hub, "send_many", None)):
        return ThreadedBatchHub(cast(BatchHub, hub), parallel=parallel)
    return ThreadedHub(cast(Hub, hub), parallel=parallel)


class AsyncRunner:
    """Sends batches in the background; one per engine and event loop.

    At most `parallel` hub calls are under way at once (reads and sends alike); `timeout`
    bounds each call from when it gets its turn, never the wait for one, so a busy runner
    makes calls late, not failed."""

    def __init__(
        self,
        hub: Hub | AsyncHub,
        audit: AuditLog | None,
        *,
        parallel: int = 8,
        timeout: float = 5.0,
    ) -> None:
        self.hub = as_async(hub, parallel=parallel)
        self.audit = audit
        self.timeout = timeout
        self._slots = asyncio.Semaphore(parallel)
        self._tails: dict[str, asyncio.Task[None]] = {}  # the last send queued per device
        # An AsyncHub written for an older jiayu has neither.
        self._read_many: AsyncReadMany | None = getattr(self.hub, "read_many", None)
        self._send_many: AsyncSendMany | None = getattr(self.hub, "send_many", None)

    async def read(self, device_id: str) -> Mapping[str, Any] | HubError:
        """A fresh read with the timeout, or the hub's error (never raised)."""
        try:
            async with self._slots:
                return await asyncio.wait_for(self.hub.read(device_id), self.timeout)
        except Exception as exc:
            return hub_failure(device_id, exc)

    async def read_many(self, device_ids: Sequence[str]) -> Reads:
        """Fresh reads of these devices (each once), at the same time: one hub call when the
        hub can, else one read each, side by side. Never raises."""
        wanted = list(dict.fromkeys(device_ids))
        read_many = self._read_many
        if read_many is None:
            reads = await asyncio.gather(*(self.read(device_id) for device_id in wanted))
            return dict(zip(wanted, reads, strict=True))
        try:
            async with self._slots:
                got = await asyncio.wait_for(read_many(wanted), self.timeout)
        except Exception as exc:
            return fail_reads(wanted, exc)
        return complete_reads(wanted, got)

    def submit(
        self, batches: Sequence[Batch], *, session: str, text: str, notify: Notify
    ) -> asyncio.Task[Report]:
        """Queue every command now, in order (this fixes the order per device), and return
        the task that finishes when all of them have been tried. With a `send_many` hub the
        turn's commands to different devices go out in one call (`send_plan`)."""
        report = Report()
        sends: list[asyncio.Task[None]] = []
        for group, owners in send_plan(batches, together=self._send_many is not None):
            # A group waits for every command queued before it on any of its devices.
            before = {self._tails[c.device] for c in group if c.device in self._tails}
            task = asyncio.create_task(
                self._send(before, owners, group, report, session, text, notify)
            )
            for command in group:
                self._tails[command.device] = task
                task.add_done_callback(functools.partial(self._forget, command.device))
            sends.append(task)
        return asyncio.create_task(_gather(sends, report))

    async def aclose(self) -> None:
        """Wait until every command submitted has been tried, then stop the threads of a
        blocking hub (ThreadedHub). The runner is not used after this."""
        while self._tails:
            await asyncio.wait(set(self._tails.values()))
        if isinstance(self.hub, ThreadedHub):
            self.hub.close()

    def _forget(self, device: str, task: asyncio.Task[None]) -> None:
        if self._tails.get(device) is task:
            del self._tails[device]

    async def _send(
        self,
        before: set[asyncio.Task[None]],
        owners: list[Batch],
        group: list[Command],
        report: Report,
        session: str,
        text: str,
        notify: Notify,
    ) -> None:
        if before:
            await asyncio.wait(before)  # their outcome does not matter, only that they are over
        async with self._slots:
            ready = audit_ahead(group, report, self.audit, session, text)
            for command in group[len(ready) :]:
                notify("failed", command, "audit")
            if not ready:
                return
            for command in ready:
                notify("started", command, None)
            results = await self._deliver(ready)
            if not settle_all(owners, ready, results, self.audit, session, text, notify):
                report.audit_failed = True

    async def _deliver(self, commands: list[Command]) -> list[str]:
        """Each command's result, "ok" or the reason it failed; called holding a slot."""
        send_many = self._send_many
        if send_many is None:
            return [await self._send_one(command) for command in commands]
        try:
            got = await asyncio.wait_for(send_many(commands), self.timeout)
        except Exception as exc:
            return fail_sends(commands, exc)
        return complete_sends(commands, got)

    async def _send_one(self, command: Command) -> str:
        try:
            await asyncio.wait_for(
                self.hub.send(command.device, command.command, command.params), self.timeout
            )
        except Exception as exc:
            return send_failure(command.device, exc)
        return "ok"


async def _gather(sends: list[asyncio.Task[None]], report: Report) -> Report:
    if sends:
        await asyncio.gather(*sends)
    return report
