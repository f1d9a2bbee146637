"""The runners on batching hubs and on hubs written for an older jiayu: reads of many devices
at once, a batch's distinct devices in one send_many call, per-device order, timeouts that
count the hub call and not the queue, and no exception from a hub ever escaping."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from plain_hub import PlainHub

from jiayu.executor.arun import AsyncRunner, ThreadedHub, as_async
from jiayu.executor.audit import AuditError, AuditLog
from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.executor.hubs.base import Reads, Sends
from jiayu.executor.run import Report, SyncRunner, send_plan
from jiayu.home import Home
from jiayu.ir import Command
from jiayu.planner.plan import Batch

LIGHTS = ["light_living", "light_bedroom", "light_kitchen"]


def on(device: str) -> Command:
    return Command(device, "turn_on", {})


class Trail:
    """What happened, in order, across the hub and the audit log."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        with self._lock:
            self.lines.append(line)


class Audit(AuditLog):
    """An audit log kept in the trail; its "sending" line for `fail_on` cannot be written."""

    def __init__(self, tmp: Path, trail: Trail, fail_on: str | None = None) -> None:
        super().__init__(tmp / "audit.log")
        self.trail = trail
        self.fail_on = fail_on

    def record(self, *, device: str, result: str, **_: Any) -> None:  # type: ignore[override]
        if device == self.fail_on and result == "sending":
            raise AuditError("disk full")
        self.trail.add(f"audit {device} {result}")


class BatchingHub(SimulatedHub):
    """A blocking BatchHub over the simulated one, counting its calls."""

    def __init__(self, home: Home, trail: Trail | None = None) -> None:
        super().__init__(home)
        self.trail = trail or Trail()
        self.calls: list[str] = []

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        self.calls.append(f"read_many {','.join(device_ids)}")
        reads: Reads = {}
        for device_id in device_ids:
            try:
                reads[device_id] = self.read(device_id)
            except HubError as err:
                reads[device_id] = err
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        self.calls.append(f"send_many {','.join(c.device for c in commands)}")
        self.trail.add(f"send_many {','.join(c.device for c in commands)}")
        results: Sends = []
        for c in commands:
            try:
                self.send(c.device, c.command, c.params)
            except HubError as err:
                results.append(err)
            else:
                results.append(None)
        return results


class Raising(PlainHub):
    """A hub with a bug: every call for `broken` raises something that is not a HubError."""

    broken = "light_bedroom"

    def read(self, device_id: str) -> Mapping[str, Any]:
        if device_id == self.broken:
            raise RuntimeError("bug in a hub")
        return super().read(device_id)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        if device_id == self.broken:
            raise RuntimeError("bug in a hub")
        super().send(device_id, command, params)


class RaisingBatch(BatchingHub):
    def read_many(self, device_ids: Sequence[str]) -> Reads:
        raise RuntimeError("bug in read_many")

    def send_many(self, commands: Sequence[Command]) -> Sends:
        raise RuntimeError("bug in send_many")


class Told:
    """A listener/notify that records each event."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str | None]] = []

    def __call__(self, kind: str, command: Command, reason: str | None) -> None:
        self.events.append((kind, command.device, reason))


# --- SyncRunner ---------------------------------------------------------------


def test_sync_read_many_is_one_hub_call_and_a_missing_device_is_its_failure(
    demo_home: Home,
) -> None:
    hub = BatchingHub(demo_home)
    reads = SyncRunner(hub, None).read_many(["light_living", "nope", "light_living"])
    assert hub.calls == ["read_many light_living,nope"]
    assert reads["light_living"] == hub.read("light_living")
    assert isinstance(reads["nope"], HubError) and reads["nope"].reason == "unknown device"


def test_sync_read_many_falls_back_to_read_and_a_hub_exception_is_a_failure(
    demo_home: Home, caplog: pytest.LogCaptureFixture
) -> None:
    runner = SyncRunner(Raising(demo_home), None)
    reads = runner.read_many(LIGHTS)
    broken = reads["light_bedroom"]
    assert isinstance(broken, HubError) and (broken.device, broken.reason) == (
        "light_bedroom",
        "error",
    )
    assert not isinstance(reads["light_living"], HubError)
    assert "bug in a hub" in caplog.text  # logged with the exception
    assert isinstance(runner.read("light_bedroom"), HubError)


def test_sync_read_many_that_raises_fails_every_device(demo_home: Home) -> None:
    reads = SyncRunner(RaisingBatch(demo_home), None).read_many(LIGHTS)
    assert {d: r.reason for d, r in reads.items() if isinstance(r, HubError)} == {
        d: "error" for d in LIGHTS
    }


def test_sync_run_sends_a_batch_of_n_devices_in_one_send_many_after_every_audit_line(
    demo_home: Home, tmp_path: Path
) -> None:
    trail = Trail()
    hub = BatchingHub(demo_home, trail)
    told = Told()
    batch = Batch([on(d) for d in LIGHTS])
    report = SyncRunner(hub, Audit(tmp_path, trail)).run(
        [batch], session="s", text="开灯", listener=told
    )
    assert hub.calls == ["send_many light_living,light_bedroom,light_kitchen"]
    assert trail.lines == [
        *(f"audit {d} sending" for d in LIGHTS),
        "send_many light_living,light_bedroom,light_kitchen",
        *(f"audit {d} ok" for d in LIGHTS),
    ]
    assert batch.sent == batch.commands and batch.failed == []
    assert told.events == [*(("started", d, None) for d in LIGHTS)] + [
        ("finished", d, "ok") for d in LIGHTS
    ]
    assert report == Report()


def test_sync_run_keeps_a_devices_order_by_cutting_the_batch(demo_home: Home) -> None:
    hub = BatchingHub(demo_home)
    commands = [
        on("light_living"),
        on("light_bedroom"),
        Command("light_living", "set_brightness", {"value": 10}),
        on("light_kitchen"),
    ]
    SyncRunner(hub, None).run([Batch(commands)], session="s", text="t")
    assert hub.calls == [
        "send_many light_living,light_bedroom",
        "send_many light_living,light_kitchen",
    ]
    assert [(d, c) for d, c, _ in hub.sent] == [(c.device, c.command) for c in commands]


def test_send_plan_without_send_many_is_one_command_each() -> None:
    batch = Batch([on("a"), on("b")])
    assert send_plan([batch], together=False) == [([on("a")], [batch]), ([on("b")], [batch])]
    assert send_plan([batch], together=True) == [(batch.commands, [batch, batch])]


def test_send_plan_cuts_across_batches_where_a_device_repeats() -> None:
    first, second = Batch([on("a"), on("b")]), Batch([on("c"), on("a"), on("d")])
    assert send_plan([first, second], together=True) == [
        ([on("a"), on("b"), on("c")], [first, first, second]),
        ([on("a"), on("d")], [second, second]),
    ]


def test_sync_run_a_failed_audit_line_stops_that_command_and_every_later_one(
    demo_home: Home, tmp_path: Path
) -> None:
    trail = Trail()
    hub = BatchingHub(demo_home, trail)
    first, second = Batch([on(d) for d in LIGHTS]), Batch([on("ac_living")])
    report = SyncRunner(hub, Audit(tmp_path, trail, fail_on="light_bedroom")).run(
        [first, second], session="s", text="t"
    )
    assert report.audit_failed
    assert hub.calls == ["send_many light_living"]
    assert [d for d, _, _ in hub.sent] == ["light_living"]
    assert second.sent == [] and second.failed == []


@pytest.mark.parametrize("hub_class", [Raising, RaisingBatch])
def test_sync_run_a_hub_exception_fails_its_commands_and_never_escapes(
    demo_home: Home, hub_class: type[PlainHub] | type[SimulatedHub]
) -> None:
    told = Told()
    batch = Batch([on(d) for d in LIGHTS])
    SyncRunner(hub_class(demo_home), None).run([batch], session="s", text="t", listener=told)
    failed = [c.device for c, reason in batch.failed if reason == "error"]
    assert set(failed) <= set(LIGHTS) and "light_bedroom" in failed
    assert ("failed", "light_bedroom", "error") in told.events


def test_a_send_many_answer_that_leaves_a_command_out_is_unconfirmed(demo_home: Home) -> None:
    class Short(BatchingHub):
        def send_many(self, commands: Sequence[Command]) -> Sends:
            return super().send_many(commands)[:1]

    batch = Batch([on("light_living"), on("light_bedroom")])
    SyncRunner(Short(demo_home), None).run([batch], session="s", text="t")
    assert batch.sent == [on("light_living")]
    assert batch.failed == [(on("light_bedroom"), "unconfirmed")]


# --- AsyncRunner --------------------------------------------------------------


class Slow:
    """A blocking hub whose every call takes `delay` seconds in the calling thread."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.threads: set[str] = set()

    def read(self, device_id: str) -> Mapping[str, Any]:
        self.threads.add(threading.current_thread().name)
        time.sleep(self.delay)
        return {"on": True}

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        time.sleep(self.delay)


def test_16_turns_reading_through_a_blocking_hub_do_not_time_out() -> None:
    # Each turn plans in asyncio's default executor and waits there for its read, as the
    # engine does. With the hub's calls in that same pool (2 cores: few threads), the planning
    # threads held every thread and the reads waited out their timeout.
    async def main() -> tuple[list[Mapping[str, Any] | HubError], set[str]]:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=6))
        hub = Slow(0.05)
        runner = AsyncRunner(hub, None, parallel=4, timeout=0.5)

        def plan(n: int) -> Mapping[str, Any] | HubError:
            return asyncio.run_coroutine_threadsafe(runner.read(f"d{n}"), loop).result()

        reads = await asyncio.gather(*(asyncio.to_thread(plan, n) for n in range(16)))
        await runner.aclose()
        return list(reads), hub.threads

    reads, threads = asyncio.run(main())
    assert [r for r in reads if isinstance(r, HubError)] == []
    assert threads and all(t.startswith("jiayu-hub") for t in threads)
    assert len(threads) <= 4


def test_the_timeout_counts_the_hub_call_not_the_wait_for_a_slot() -> None:
    # 16 reads of 50 ms, 4 at a time: the last start after 150 ms, past a 120 ms timeout that
    # would count the queue; each call itself takes 50 ms.
    async def main() -> Reads:
        runner = AsyncRunner(Slow(0.05), None, parallel=4, timeout=0.12)
        reads = await runner.read_many([f"d{n}" for n in range(16)])
        await runner.aclose()
        return reads

    assert [d for d, r in asyncio.run(main()).items() if isinstance(r, HubError)] == []


def test_a_hub_call_longer_than_the_timeout_is_a_timeout() -> None:
    async def main() -> Mapping[str, Any] | HubError:
        runner = AsyncRunner(Slow(0.3), None, parallel=2, timeout=0.05)
        got = await runner.read("d")
        await runner.aclose()
        return got

    got = asyncio.run(main())
    assert isinstance(got, HubError) and got.reason == "timeout"


class AsyncBatching:
    """An AsyncBatchHub that records its calls; a command ("device:command") can be slow."""

    def __init__(self, slow: Mapping[str, float] | None = None, batch: bool = True) -> None:
        self.slow = dict(slow or {})
        self.calls: list[str] = []
        self.sent: list[str] = []
        if not batch:  # a hub for an older jiayu: read and send only
            self.read_many = None  # type: ignore[assignment]
            self.send_many = None  # type: ignore[assignment]

    async def read(self, device_id: str) -> Mapping[str, Any]:
        self.calls.append(f"read {device_id}")
        await asyncio.sleep(0.05)
        if device_id == "broken":
            raise RuntimeError("bug in a hub")
        return {"on": False}

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        self.calls.append(f"send {device_id}")
        await asyncio.sleep(self.slow.get(f"{device_id}:{command}", 0))
        if device_id == "broken":
            raise RuntimeError("bug in a hub")
        self.sent.append(f"{device_id}:{command}")

    async def read_many(self, device_ids: Sequence[str]) -> Reads:
        self.calls.append(f"read_many {','.join(device_ids)}")
        return {d: {"on": False} for d in device_ids}

    async def send_many(self, commands: Sequence[Command]) -> Sends:
        self.calls.append(f"send_many {','.join(c.device for c in commands)}")
        await asyncio.sleep(max(self.slow.get(f"{c.device}:{c.command}", 0) for c in commands))
        self.sent.extend(f"{c.device}:{c.command}" for c in commands)
        return [None] * len(commands)


def test_async_read_many_is_one_call_or_concurrent_reads() -> None:
    async def main() -> tuple[list[str], list[str], float, Reads]:
        batching, plain = AsyncBatching(), AsyncBatching(batch=False)
        await AsyncRunner(batching, None).read_many(["a", "b", "a"])
        started = time.monotonic()
        reads = await AsyncRunner(plain, None, parallel=8).read_many(
            [f"d{n}" for n in range(8)] + ["broken"]
        )
        return batching.calls, plain.calls, time.monotonic() - started, reads

    batched, plain, took, reads = asyncio.run(main())
    assert batched == ["read_many a,b"]
    assert len(plain) == 9
    assert took < 0.3  # side by side, not 9 × 50 ms
    broken = reads["broken"]
    assert isinstance(broken, HubError) and broken.reason == "error"


def test_async_submit_sends_a_batch_to_n_devices_in_one_send_many() -> None:
    async def main() -> tuple[list[str], Batch, Told]:
        hub, told = AsyncBatching(), Told()
        batch = Batch([on(d) for d in LIGHTS])
        runner = AsyncRunner(hub, None)
        await runner.submit([batch], session="s", text="t", notify=told)
        return hub.calls, batch, told

    calls, batch, told = asyncio.run(main())
    assert calls == ["send_many light_living,light_bedroom,light_kitchen"]
    assert sorted(c.device for c in batch.sent) == sorted(LIGHTS)
    assert sorted(e for e in told.events if e[0] == "finished") == sorted(
        ("finished", d, "ok") for d in LIGHTS
    )


@pytest.mark.parametrize("batch", [True, False])
def test_async_per_device_order_is_kept_across_two_submits(batch: bool) -> None:
    async def main() -> list[str]:
        # The first submit's command to "a" is slow; the second's must still come after it.
        hub = AsyncBatching(slow={"a:turn_on": 0.1}, batch=batch)
        runner = AsyncRunner(hub, None)
        first = runner.submit([Batch([on("a")])], session="s", text="t", notify=Told())
        second = runner.submit(
            [Batch([Command("a", "turn_off", {}), on("b")])], session="s", text="t", notify=Told()
        )
        await asyncio.gather(first, second)
        await runner.aclose()
        return hub.sent

    sent = asyncio.run(main())
    assert [s for s in sent if s.startswith("a:")] == ["a:turn_on", "a:turn_off"]
    assert "b:turn_on" in sent


def test_async_a_hub_exception_is_a_failure_told_and_never_escapes() -> None:
    async def main() -> tuple[Batch, Told, Mapping[str, Any] | HubError]:
        hub, told = AsyncBatching(batch=False), Told()
        batch = Batch([on("ok"), on("broken")])
        runner = AsyncRunner(hub, None)
        await runner.submit([batch], session="s", text="t", notify=told)
        return batch, told, await runner.read("broken")

    batch, told, read = asyncio.run(main())
    assert batch.sent == [on("ok")]
    assert batch.failed == [(on("broken"), "error")]
    assert ("failed", "broken", "error") in told.events
    assert isinstance(read, HubError) and read.reason == "error"


def test_async_send_many_that_raises_fails_each_command_with_a_notify(demo_home: Home) -> None:
    async def main() -> tuple[Batch, Told]:
        told = Told()
        batch = Batch([on(d) for d in LIGHTS])
        runner = AsyncRunner(RaisingBatch(demo_home), None)
        await runner.submit([batch], session="s", text="t", notify=told)
        await runner.aclose()
        return batch, told

    batch, told = asyncio.run(main())
    assert sorted(c.device for c, _ in batch.failed) == sorted(LIGHTS)
    assert sorted(e for e in told.events if e[0] == "failed") == sorted(
        ("failed", d, "error") for d in LIGHTS
    )


def test_as_async_gives_a_blocking_batch_hub_its_batch_calls_in_its_own_threads(
    demo_home: Home,
) -> None:
    async def main() -> tuple[list[str], Mapping[str, Any] | HubError]:
        hub = BatchingHub(demo_home)
        runner = AsyncRunner(hub, None, parallel=2)
        assert isinstance(runner.hub, ThreadedHub)
        await runner.read_many(LIGHTS)
        await runner.submit([Batch([on(d) for d in LIGHTS])], session="s", text="t", notify=Told())
        await runner.aclose()
        # Closed: its threads are gone, and a call now is a failure, not an exception.
        return hub.calls, await runner.read("light_living")

    calls, after = asyncio.run(main())
    assert calls == [
        "read_many light_living,light_bedroom,light_kitchen",
        "send_many light_living,light_bedroom,light_kitchen",
    ]
    assert isinstance(after, HubError)


def test_as_async_keeps_an_async_hub_and_wraps_a_plain_blocking_one(demo_home: Home) -> None:
    hub = AsyncBatching()
    assert as_async(hub) is hub
    wrapped = as_async(PlainHub(demo_home), parallel=2)  # type: ignore[arg-type]
    assert isinstance(wrapped, ThreadedHub) and not hasattr(wrapped, "send_many")
    wrapped.close()


def test_a_send_our_wait_gave_up_on_is_unconfirmed_not_timeout(demo_home: Home) -> None:
    # The hub may still carry it out after we stopped waiting (CONTRACTS §5): never "timeout",
    # which a reply would read as "did not happen".
    class Late:
        def __init__(self) -> None:
            self.inner = SimulatedHub(demo_home)

        async def read(self, device_id: str) -> Mapping[str, Any]:
            return self.inner.read(device_id)

        async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
            await asyncio.sleep(0.3)
            self.inner.send(device_id, command, params)

    async def main() -> Batch:
        runner = AsyncRunner(Late(), None, timeout=0.05)
        batch = Batch([on("light_living")])
        await runner.submit([batch], session="s", text="t", notify=Told())
        await runner.aclose()
        return batch

    batch = asyncio.run(main())
    assert [(c.device, reason) for c, reason in batch.failed] == [("light_living", "unconfirmed")]
