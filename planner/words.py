"""Reply words the turn's own modules use (to be folded into grammar/phrases.py, the phrase
book, with the rest)."""

from __future__ import annotations

FAULT_WORDS: dict[str, str] = {
    "offline": "设备离线",
    "timeout": "响应超时",
    "refused": "设备拒绝执行",
    # Sent, but the device never said it took it: it may have happened or not (CONTRACTS §5).
    "unconfirmed": "可能没有执行（设备没有确认）",
    "error": "设备出错",
}
"""What a hub's failure reason means, said to a person."""


def fault_words(reason: str) -> str:
    """A hub's failure reason as words (an unknown reason is said as it is)."""
    return FAULT_WORDS.get(reason, reason)
