"""The per-turn bookkeeping: commands are grouped by command and params for the reply, and the
session's shortcut for remembering one device gives what remembering each one does."""

from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.ir import Command
from jiayu.planner.replies import grouped
from jiayu.resolver.session import _touch_all

_PARAMS = st.sampled_from(({}, {}, {"brightness": 50}, {"brightness": 80}, {"temperature": 26}))
_COMMANDS = st.lists(
    st.builds(
        Command,
        st.sampled_from(("light_a", "light_b", "ac", "fan")),
        st.sampled_from(("turn_on", "turn_off", "set_brightness")),
        _PARAMS,
    ),
    min_size=1,
    max_size=12,
)


def test_the_grouping_loop_keeps_commands_with_other_params_apart() -> None:
    sent = [
        Command("a", "set_brightness", {"brightness": 50}),
        Command("b", "set_brightness", {"brightness": 80}),
        Command("c", "set_brightness", {"brightness": 50}),
    ]
    assert grouped(sent) == [
        ("set_brightness", {"brightness": 50}, ["a", "c"]),
        ("set_brightness", {"brightness": 80}, ["b"]),
    ]
    assert grouped(sent[:1]) == [("set_brightness", {"brightness": 50}, ["a"])]


def _touched_one_by_one(items: deque[str], new: tuple[str, ...]) -> None:
    """The plain way: move each new item to the front, last first."""
    for item in reversed(list(dict.fromkeys(new))):
        if item in items:
            items.remove(item)
        items.appendleft(item)  # (a full deque drops its last)


_NAMES = st.sampled_from("abcdefgh")


@settings(max_examples=500)
@given(
    st.integers(1, 6),
    st.lists(_NAMES, max_size=8, unique=True),  # (a session's deques never hold one twice)
    st.lists(_NAMES, max_size=10).map(tuple),
)
def test_touching_all_at_once_is_touching_one_by_one(
    maxlen: int, before: list[str], new: tuple[str, ...]
) -> None:
    expected: deque[str] = deque(before, maxlen=maxlen)
    got: deque[str] = deque(before, maxlen=maxlen)
    _touched_one_by_one(expected, new)
    _touch_all(got, new)
    assert list(got) == list(expected)
