"""complete_sends reads a hub's send_many answer command by command, for any commands and
answers: None is accepted, a HubError its reason, anything else or nothing "unconfirmed"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.executor.hubs import HubError
from jiayu.executor.run import complete_sends
from jiayu.ir import Command

commands = st.lists(
    st.builds(Command, st.sampled_from("abcd"), st.sampled_from(("turn_on", "turn_off"))),
    max_size=8,
)


@settings(max_examples=300)
@given(
    commands,
    st.lists(st.one_of(st.none(), st.just(HubError("a", "offline")), st.just("junk")), max_size=9),
)
def test_complete_sends_reads_each_answer(said: list[Command], answer: list[object]) -> None:
    expected = [
        "missing-or-junk"
        if i >= len(answer) or (answer[i] is not None and not isinstance(answer[i], HubError))
        else "ok"
        if answer[i] is None
        else "offline"
        for i in range(len(said))
    ]
    got = complete_sends(said, answer)
    assert [r if r != "unconfirmed" else "missing-or-junk" for r in got] == expected
