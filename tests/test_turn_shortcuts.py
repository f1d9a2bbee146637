"""The per-turn bookkeeping takes shortcuts for the common case (one command; one command with
no params to every device): each must give what the general way gives, for any input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.ir import Command
from jiayu.planner.replies import grouped, groups

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


@settings(max_examples=500)
@given(_COMMANDS)
def test_grouped_is_the_grouping_loop(sent: list[Command]) -> None:
    assert grouped(sent) == groups(sent)


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
