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
        with self._lock:
            self._apply(device_id, command, params)

    def read_many(self, device_ids: Sequence[str]) -> Reads:
        reads: Reads = {}
        # One lock for all: the devices are read as of one instant, as a hub's snapshot is.
        with self._lock:
            for device_id in device_ids:
                try:
                    reads[device_id] = dict(self._state_of(device_id))
                except HubError as err:
                    reads[device_id] = err
        return reads

    def send_many(self, commands: Sequence[Command]) -> Sends:
        sends: Sends = []
        with self._lock:
            for c in commands:
                try:
                    self._apply(c.device, c.command, c.params)
                except HubError as err:
                    sends.append(err)
                else:
                    sends.append(None)
        return sends

    def _apply(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        """Carry out one command (under the lock); HubError as `_state_of` says."""
        state = self._state_of(device_id)
        self._state[device_id] = apply_command(state, command, params)
        self.sent.append((device_id, command, dict(params)))

    def _state_of(self, device_id: str) -> dict[str, Any]:
        """The device's state; HubError when it is unknown or made to fail."""
        state = self._state.get(device_id)
        if state is None:
            raise HubError(device_id, "unknown device")
        fault = self._faults.get(device_id)
        if fault is not None:
            raise HubError(device_id, fault)
        return state
