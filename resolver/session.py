"""Conversation state of one session (seed 000 §6): kept by code, never by an LLM.

Recent devices (5) and rooms (3), the last commands (for 再来一次), and at most
one pending question: a clarify waiting for the distinguishing words, or
high-risk commands waiting for 确认.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from datetime import datetime

from jiayu.ir import Clause, Command, Condition, Timing

RECENT_DEVICES = 5
RECENT_ROOMS = 3


@dataclass(frozen=True)
class PendingClarify:
    """A clause that waits until the user says which of `options` was meant, and the
    clauses said after it, which wait with it and then run in order."""

    clause: Clause
    options: tuple[str, ...]
    """The device ids offered, in the order shown; empty when the question offered none."""
    yes_no: bool = False
    """你是说客厅灯吗？: a plain 对/是的 accepts every option."""
    rest: tuple[Clause, ...] = ()
    """The clauses after the asking one, not yet run."""
    focus: tuple[str, ...] = ()
    """Rooms said before the asking clause in its utterance (they still place the rest)."""
    text: str = ""
    """The utterance that asked, for the audit log."""
    preference: str | None = None
    """Set when the question asks for the user's preference (this key) instead of a device."""


@dataclass(frozen=True)
class PendingConfirm:
    """High-risk commands that wait for 确认, and the condition to re-check before sending."""

    commands: tuple[Command, ...]
    condition: Condition | None = None
    focus: tuple[str, ...] = ()
    text: str = ""
    """The utterance that asked, for the audit log."""
    when: Timing | None = None
    """For a delayed command held for confirmation: its time, so 确认 schedules it."""
    asked_at: datetime | None = None
    """When it was asked: a 确认 later than the session's `confirm_ttl_s` sends nothing
    (None, never stamped, counts as expired)."""
    user: str | None = None
    """Who asked, when the turn named a user: only that user confirms."""


class Session:
    """Mutable state of one conversation; the engine holds `lock` while a turn runs."""

    def __init__(self, session_id: str) -> None:
        self.id = session_id
        self.lock = threading.Lock()
        self.recent_devices: deque[str] = deque(maxlen=RECENT_DEVICES)
        self.recent_rooms: deque[str] = deque(maxlen=RECENT_ROOMS)
        self.last_commands: tuple[Command, ...] = ()
        self.last_devices: tuple[str, ...] = ()
        self.pending: PendingClarify | PendingConfirm | None = None
        # Seed 004's message queue: what happened in the background (a late failure, a scene
        # that finished), told at the start of the next turn's reply.
        self.messages: deque[str] = deque(maxlen=20)

    def remember(
        self, devices: tuple[str, ...], rooms: tuple[str, ...], commands: tuple[Command, ...]
    ) -> None:
        """Update after a turn: most recent first, duplicates moved to the front."""
        _touch_all(self.recent_devices, devices)
        _touch_all(self.recent_rooms, rooms)
        self.last_devices = devices  # 它们 means the most recent turn's devices, if any
        if commands:
            self.last_commands = commands


def _touch_all(items: deque[str], new: tuple[str, ...]) -> None:
    """Move `new` to the front of `items`, keeping their order: the first `maxlen` different
    ones, then what was there before and is not among them. Done once for the whole turn,
    not item by item: 打开所有的灯 names thousands."""
    count = len(new)
    if count == 1:  # most turns: one device, one room
        item = new[0]
        if item in items:
            if items[0] == item:
                return  # already the most recent (the same device again): nothing moves
            items.remove(item)
        items.appendleft(item)
        return
    if not count:
        return
    front = list(dict.fromkeys(new))[: items.maxlen]
    merged = front + [item for item in items if item not in front]
    items.clear()
    items.extend(merged[: items.maxlen])
