"""A batch handled in one pass must do what handling its commands one at a time does: the
simulated hub's `send_many` what its `send` does command by command (state, record, refusals),
and `settle_all` what `settle` does for each command."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jiayu.cli import demo_home_path
from jiayu.executor.hubs import HubError, SimulatedHub
from jiayu.executor.run import settle, settle_all
from jiayu.home import Home, load_home
from jiayu.ir import Command
from jiayu.planner.plan import Batch

HOME: Home = load_home(demo_home_path())
DEVICES = ("light_living", "light_bedroom", "curtain_living", "nowhere")
"""Two lights, a curtain, and a device the home does not have."""

said = st.lists(
    st.builds(
        lambda device, command: Command(device, *command),
        st.sampled_from(DEVICES),
        st.sampled_from(
            (("turn_on", {}), ("turn_off", {}), ("open", {}), ("set_brightness", {"value": 30}))
        ),
    ),
    max_size=8,
)
"""Commands valid for a device that has their capability (the hub is sent nothing else)."""
faults = st.dictionaries(st.sampled_from(DEVICES), st.sampled_from(("offline", "timeout")))


def _hub(faulty: dict[str, str]) -> SimulatedHub:
    hub = SimulatedHub(HOME)
    for device, fault in faulty.items():
        hub.fail(device, fault)  # type: ignore[arg-type]
    return hub


@settings(max_examples=300)
@given(said, faults)
def test_send_many_is_send_command_by_command(
    commands: list[Command], faulty: dict[str, str]
) -> None:
    batched, single = _hub(faulty), _hub(faulty)
    answers = batched.send_many(commands)
    expected: list[HubError | None] = []
    for c in commands:
        try:
            single.send(c.device, c.command, c.params)
        except HubError as err:
            expected.append(err)
        else:
            expected.append(None)
    assert [(a.device, a.reason) if a else None for a in answers] == [
        (e.device, e.reason) if e else None for e in expected
    ]
    assert batched.sent == single.sent
    assert batched._state == single._state


def test_an_unknown_or_failing_device_is_refused_on_read_and_send() -> None:
    hub = _hub({"light_living": "offline"})
    for device, reason in (("light_living", "offline"), ("nowhere", "unknown device")):
        with pytest.raises(HubError) as refused:
            hub.read(device)
        assert (refused.value.device, refused.value.reason) == (device, reason)
        with pytest.raises(HubError) as refused:
            hub.send(device, "turn_on", {})
        assert (refused.value.device, refused.value.reason) == (device, reason)
    assert hub.sent == []


@settings(max_examples=300)
@given(said, st.data(), st.booleans())
def test_settle_all_is_settle_for_each(
    commands: list[Command], data: st.DataObject, told: bool
) -> None:
    results = data.draw(
        st.lists(st.sampled_from(("ok", "offline")), min_size=len(commands), max_size=len(commands))
    )
    heard: list[tuple[str, Command, str | None]] = []
    listener = (
        (lambda kind, command, result: heard.append((kind, command, result))) if told else None
    )
    together, alone = Batch(list(commands)), Batch(list(commands))
    owners = [together] * len(commands)
    assert settle_all(owners, commands, results, None, "s", "t", listener)
    expected = list(heard)
    heard.clear()
    for command, result in zip(commands, results, strict=True):
        assert settle(alone, command, result, None, "s", "t", listener)
    assert heard == expected
    assert (together.sent, together.failed) == (alone.sent, alone.failed)
