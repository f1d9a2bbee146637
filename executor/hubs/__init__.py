"""Hubs: the protocols (base), the in-memory simulated hub, and adapters to real hubs."""

from jiayu.executor.hubs.base import FAULT_WORDS, AsyncHub, Fault, Hub, HubError
from jiayu.executor.hubs.simulated import SimulatedHub

__all__ = ["FAULT_WORDS", "AsyncHub", "Fault", "Hub", "HubError", "SimulatedHub"]
