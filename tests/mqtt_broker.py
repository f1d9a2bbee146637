"""A real mosquitto on 127.0.0.1 at a free port, for the MQTT tests.

Skips when mosquitto is not installed, unless JIAYU_REQUIRE_MOSQUITTO is set (CI sets it), in
which case its absence fails the tests instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Broker:
    """A running mosquitto."""

    host: str
    port: int
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        """Stop it now (a broker lost mid-session)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def mosquitto_binary() -> str:
    """The mosquitto to run; skips (or fails, when required) without one."""
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None
    )
    if found is None:
        reason = "mosquitto is not installed (apt-get install mosquitto)"
        if os.environ.get("JIAYU_REQUIRE_MOSQUITTO"):
            pytest.fail(f"{reason}, and JIAYU_REQUIRE_MOSQUITTO is set")
        pytest.skip(reason)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def running_broker(workdir: Path, *, anonymous: bool = True) -> Iterator[Broker]:
    """Start mosquitto with a minimal config in `workdir`, wait until it accepts, stop it after;
    `anonymous=False` makes a broker that refuses every client (no password file)."""
    binary = mosquitto_binary()
    port = _free_port()
    config = workdir / "mosquitto.conf"
    # set_tcp_nodelay: without it each small packet waits out a delayed ACK (about 40 ms).
    lines = [f"listener {port} 127.0.0.1", f"allow_anonymous {str(anonymous).lower()}"]
    lines.append("persistence false")
    lines.append("set_tcp_nodelay true")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = (workdir / "mosquitto.log").open("wb")
    process = subprocess.Popen([binary, "-c", str(config)], stdout=log, stderr=log)
    broker = Broker("127.0.0.1", port, process)
    try:
        deadline = time.monotonic() + 5
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {(workdir / 'mosquitto.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        yield broker
    finally:
        broker.stop()
        log.close()
