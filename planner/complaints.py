"""What a complaint's actuator does (seed 003: 环境抱怨 → 假设明显执行器, CONTRACTS §1):
the resolver found the device (resolver/resolve.py); here its live state says how to help.
Off, it is turned on (a dimmer or a quieter that is off cannot help and is refused); on,
it moves one step the way the complaint asks, or, with no such step, is said to be on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from jiayu.compiler.build import complaint_of
from jiayu.grammar.phrases import say
from jiayu.grammar.vocab import COMPLAINT_REMEDIES, COMPLAINTS_ON_ONLY
from jiayu.ir import Clause, Value
from jiayu.planner import clauses as plan_clauses
from jiayu.planner.draft import Draft
from jiayu.resolver.resolve import Found
from jiayu.text import shown


def act(
    draft: Draft,
    clause: Clause,
    devices: Sequence[str],
    focus: Sequence[str],
    rest: tuple[Clause, ...],
) -> tuple[str, ...]:
    """Plan the remedy on each device the complaint resolved to."""
    kind = complaint_of(clause)
    assert kind is not None
    _types, step = COMPLAINT_REMEDIES[kind]
    acted: list[str] = []
    states = draft.states(devices)
    for device_id in devices:
        name = shown(draft.home.device(device_id).name)
        state = states[device_id]
        if not isinstance(state, Mapping):
            draft.say("rejected", say("refuse.unreadable_state", name=name, reason=state.reason))
            continue
        remedy: Clause
        if state.get("on") is False:
            if kind in COMPLAINTS_ON_ONLY:
                draft.say("rejected", say("refuse.complaint_off", name=name, remedy=kind))
                continue
            remedy = Clause("on", clause.target, condition=clause.condition)
        elif step is not None:
            attribute, direction = step
            value = Value("relative", attribute, direction=direction)
            remedy = Clause("adjust", clause.target, value, condition=clause.condition)
        else:
            draft.say("noop", say("done.complaint_on_already", name=name))
            continue
        acted.extend(plan_clauses.act_on(draft, remedy, Found((device_id,)), focus, rest))
    return tuple(acted)
