"""One deadline for a whole remote call, however many requests, pages and reads it makes.

A socket's own timeout bounds each wait, not the call: a server that trickles one byte every
0.3 s never lets a 1 s socket timeout pass, and a listing whose `next` link leads back to
itself never ends. So a call carries one `Deadline`: each request takes its socket timeout
from the time left, and every socket the call opens is shut when the deadline passes, which
makes a read blocked on a trickle return at once.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class Deadline:
    """The end of one call, `seconds` from now; used as a context (the timer ends with it)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        """The whole call's allowance, for messages."""
        self._at = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._over = False

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()

    @property
    def expired(self) -> bool:
        """Whether the deadline has passed (a failed read is then its doing)."""
        return self._over or time.monotonic() >= self._at

    def remaining(self) -> float:
        """Seconds left, 0 when none are."""
        return 0.0 if self._over else max(0.0, self._at - time.monotonic())

    def left(self) -> float:
        """Seconds left; TimeoutError when none are."""
        left = self.remaining()
        if left <= 0:
            raise TimeoutError(f"the call's {self.seconds:g} s are over")
        return left

    def watch(self, sock: socket.socket) -> None:
        """Shut `sock` when the deadline passes (at once if it has)."""
        with self._lock:
            self._sockets.append(sock)
            if self._over:
                _shut(sock)
            elif self._timer is None:
                self._timer = threading.Timer(max(0.0, self._at - time.monotonic()), self._end)
                self._timer.daemon = True
                self._timer.start()

    def _end(self) -> None:
        with self._lock:
            self._over = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # closed already: nothing is waiting on it
        sock.shutdown(socket.SHUT_RDWR)
