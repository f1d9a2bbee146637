"""What a complaint's actuator does (seed 003: 环境抱怨 → 假设明显执行器, CONTRACTS §1):
the resolver found the device (resolver/resolve.py); here its live state says how to help.
Off, it is turned on (a dimmer or a quieter that is off cannot help and is refused); on,
it moves one step the way the complaint asks, or, with no such step, is said to be on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jiayu.compiler.build import complaint_of
from jiayu.grammar.phrases import say
from jiayu.grammar.vocab import (
    COMPLAINT_CAUSES,
    COMPLAINT_MODES,
    COMPLAINT_REMEDIES,
    COMPLAINT_SECOND,
    COMPLAINTS_ON_ONLY,
)
from jiayu.home import Device
from jiayu.ir import Clause, Value
from jiayu.planner import clauses as plan_clauses
from jiayu.planner.draft import Draft
from jiayu.resolver.resolve import Ask, Found
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
    acted: list[str] = []
    states = draft.states(devices)
    cause = COMPLAINT_CAUSES.get(kind)
    said = clause.target.device_type if clause.target is not None else None
    if said is not None:
        # 音箱太吵了: of the actuators there, those of the kind said (not the TV beside them).
        home = draft.ctx.home
        typed = tuple(d for d in devices if home.device(d).serves_as(said))
        if not typed:
            places = dict.fromkeys(shown(home.room(home.device(d).room).name) for d in devices)
            draft.say("rejected", say("refuse.complaint_none", places=list(places), remedy=kind))
            return ()
        devices = typed
    if cause is not None and len(devices) > 1:
        # 太吵了 with a TV and a speaker here: the one playing is the noise; none playing,
        # the ones on; still several, ask which. 灯太亮了 names the kind: every light that
        # is lit is the glare (none lit, each says so).
        read = {d: s for d, s in states.items() if isinstance(s, Mapping)}
        causing = [d for d in devices if d in read and read[d].get(cause) is True]
        causing = causing or [d for d in devices if d in read and read[d].get("on") is True]
        if said is not None:
            devices = tuple(causing or devices)
        elif len(causing) != 1:
            options = tuple(causing or devices)
            names = [shown(draft.ctx.home.device(d).name) for d in options]
            question = say("ask.one_of", names=names)
            return plan_clauses.act_on(draft, clause, Ask(options, question), focus, rest)
        else:
            devices = tuple(causing)
    for device_id in devices:
        device = draft.ctx.home.device(device_id)
        name = shown(device.name)
        state = states[device_id]
        if not isinstance(state, Mapping):
            draft.say("rejected", say("refuse.unreadable_state", name=name, reason=state.reason))
            continue
        remedies = _remedies(kind, device, state, clause)
        if not remedies:
            if state.get("on") is False:
                draft.say("rejected", say("refuse.complaint_off", name=name, remedy=kind))
            else:
                draft.say("noop", say("done.complaint_on_already", name=name))
            continue
        for remedy in remedies:
            acted.extend(plan_clauses.act_on(draft, remedy, Found((device_id,)), focus, rest))
    return tuple(acted)


def _remedies(kind: str, device: Device, state: Mapping[str, Any], clause: Clause) -> list[Clause]:
    """What helps, from the device's live state: off, it is turned on (into the mode the
    complaint needs, when it has modes: cold → heat); on in the wrong mode, it is switched;
    on, it moves one step the way the complaint asks. Empty: nothing helps (a dimmer that is
    off, or a device already on with no step to take)."""
    types, step = COMPLAINT_REMEDIES[kind]
    second = COMPLAINT_SECOND.get(kind)
    if second is not None and not any(device.serves_as(t) for t in types):
        types, step = second
    target, condition = clause.target, clause.condition
    mode = COMPLAINT_MODES.get(kind) if "hvac_mode" in device.capabilities else None
    switched = (
        [Clause("set", target, Value("absolute", "mode", word=mode), condition=condition)]
        if mode is not None and state.get("mode") != mode
        else []
    )
    if state.get("on") is False:
        if kind in COMPLAINTS_ON_ONLY:
            return []
        return [Clause("on", target, condition=condition), *switched]
    if switched:
        return switched
    if step is None:
        return []
    attribute, direction = step
    value = Value("relative", attribute, direction=direction)
    return [Clause("adjust", target, value, condition=condition)]
