"""A hub written for an older jiayu: `read` and `send` only, no batch methods, so the runners'
one-device-at-a-time fallback is what is tested. Subclass it to break one call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home


class PlainHub:
    """The simulated hub's state behind only `read` and `send`."""

    def __init__(self, home: Home) -> None:
        self.inner = SimulatedHub(home)

    def read(self, device_id: str) -> Mapping[str, Any]:
        return self.inner.read(device_id)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        self.inner.send(device_id, command, params)
