"""`SimulatedHub`: the embedded default hub.

In memory, seeded from the home's `state`, applying each command as the
catalog says, and able to fail on demand so faults can be tested.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from jiayu.catalog import apply_command
from jiayu.executor.hubs.base import Fault, HubError, Reads, Sends
from jiayu.home import Home
from jiayu.ir import Command

SENT_KEPT = 10_000
"""How many of the latest commands `SimulatedHub.sent` keeps at least."""


class SimulatedHub:
    """An in-memory hub for tests, demos and replay; thread-safe."""

    def __init__(self, home: Home, state: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, dict[str, Any]] = {
            d.id: copy.deepcopy(dict(d.state)) for d in home.devices
        }
        for device_id, overrides in (state or {}).items():
            self._state.setdefault(device_id, {}).update(overrides)
        self._faults: dict[str, Fault] = {}
        self.sent: list[tuple[str, str, dict[str, Any]]] = []
        """The commands carried out, oldest first: at least the last SENT_KEPT of them (a list,
        trimmed from the front to the latest SENT_KEPT once it holds twice that, so a long-running
        simulator's memory stays bounded)."""

    def fail(self, device_id: str, fault: Fault | None) -> None:
        """Make every read and send of this device fail with `fault` (None heals it)."""
        with self._lock:
            if fault is None:
                self._faults.pop(device_id, None)
            else:
                self._faults[device_id] = fault

    def read(self, device_id: str) -> Mapping[str, Any]:
        with self._lock:
            # A new dict is a whole copy: a state's values are booleans, numbers and words (the
            # catalog's), and a send replaces the dict rather than changing it. (deepcopy cost
            # as much as the rest of a read; 所有的灯调亮一点 reads thousands.)
            return dict(self._state_of(device_id))

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        # One command is a batch of one: the same path applies it, and its refusal is raised.
        refused = self._apply_all([Command(device_id, command, dict(params))])[0]
        if refused is not None:
            raise refused

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        reads: Reads = {}
        # One lock for all: the devices are read as of one instant, as a hub's snapshot is.
        # Looked up in place, as `_apply_all` does: 哪些灯开着 reads thousands.
        states, faults = self._state, self._faults
        with self._lock:
            for device_id in device_ids:
                state = states.get(device_id)
                if state is None or device_id in faults:
                    reads[device_id] = self._refusal(device_id)
                else:
                    reads[device_id] = dict(state)
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        return self._apply_all(commands)

    def _apply_all(self, commands: Sequence[Command]) -> Sends:
        """Carry out the commands in order; each one's refusal, or None (a subclass's `send`
        and `send_many` may call each other: this calls neither)."""
        sends: Sends = []
        # Looked up once, and the whole batch applied under one lock in one pass: a
        # whole-floor turn sends its lights in one call.
        states, faults, sent = self._state, self._faults, self.sent
        with self._lock:
            for c in commands:
                device = c.device
                state = states.get(device)
                if state is None or device in faults:
                    sends.append(self._refusal(device))
                    continue
                states[device] = apply_command(state, c.command, c.params)
                sent.append((device, c.command, dict(c.params)))
                sends.append(None)
            if len(sent) >= 2 * SENT_KEPT:
                # Down to the latest SENT_KEPT: a batch may hold more than that (打开所有的灯 in
                # a big home), and trimming by a fixed count let the list grow by the rest.
                del sent[:-SENT_KEPT]
        return sends

    def _state_of(self, device_id: str) -> dict[str, Any]:
        """The device's state; HubError when it is unknown or made to fail."""
        state = self._state.get(device_id)
        if state is None or device_id in self._faults:
            raise self._refusal(device_id)
        return state

    def _refusal(self, device_id: str) -> HubError:
        """Why the device can be neither read nor sent to: unknown, or made to fail."""
        if device_id not in self._state:
            return HubError(device_id, "unknown device")
        return HubError(device_id, self._faults[device_id])
