"""What every hub is: the protocols the executor talks to, and the one error they raise.

A hub reads a device's live state and carries out one command. `Hub` is the
blocking form (the sync engine, paho's threads); `AsyncHub` the asyncio form.
Either kind of hub fails with `HubError(device, reason)`, where `reason` is one
of FAULT_WORDS' keys when it is a known fault; nothing else may escape a hub.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from jiayu.errors import JiayuError
from jiayu.grammar.phrases import FAULT_WORDS as FAULT_WORDS  # re-exported: hubs name faults
from jiayu.ir import Command

Fault = Literal["offline", "timeout", "refused", "unconfirmed", "error"]


class HubError(JiayuError):
    """A read or a send failed at the hub."""

    def __init__(self, device: str, reason: str) -> None:
        self.device = device
        self.reason = reason
        super().__init__(f"{device}: {reason}")


Reads = dict[str, "Mapping[str, Any] | HubError"]
"""Fresh reads of several devices: each device's state, or the hub's error for it."""

Sends = list["HubError | None"]
"""What came of several commands, one entry per command in order: None when it was done."""


class Hub(Protocol):
    """What the executor needs from a hub. `read_many`/`send_many` do several devices in as
    few round trips as the hub allows (one state snapshot; one service call for identical
    commands); the runners fall back to `read`/`send` one device at a time for a hub that has
    neither (a `Hub` written for an older jiayu)."""

    def read(self, device_id: str) -> Mapping[str, Any]:
        """The device's live state; raises HubError when it cannot be read."""
        ...

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        """Carry out one command; raises HubError when it fails."""
        ...


class BatchHub(Hub, Protocol):
    """A blocking hub that reads and sends several devices at once."""

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        """Fresh reads of these devices; never raises for one device's failure."""
        ...

    def send_many(self, commands: Sequence[Command]) -> Sends:
        """Carry out commands to different devices; never raises for one command's failure."""
        ...


class AsyncHub(Protocol):
    """The asyncio form of `Hub`: the same contract, awaited."""

    async def read(self, device_id: str) -> Mapping[str, Any]:
        """The device's live state; raises HubError when it cannot be read."""
        ...

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        """Carry out one command; raises HubError when it fails."""
        ...


class AsyncBatchHub(AsyncHub, Protocol):
    """The asyncio form of `BatchHub`."""

    async def read_many(self, device_ids: Sequence[str]) -> Reads:
        """Fresh reads of these devices; never raises for one device's failure."""
        ...

    async def send_many(self, commands: Sequence[Command]) -> Sends:
        """Carry out commands to different devices; never raises for one command's failure."""
        ...
