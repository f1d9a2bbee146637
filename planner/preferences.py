"""What users like (记住我喜欢26度, 调到我喜欢的温度): stored per user through the driver,
used when a clause asks for it, asked for when there is none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from jiayu.actions import value_attribute
from jiayu.grammar.phrases import say
from jiayu.home import Device
from jiayu.ir import Clause, Value
from jiayu.planner.draft import Draft, failed
from jiayu.planner.effects import SetPreference
from jiayu.planner.replies import Acknowledged, value_phrase
from jiayu.preferences import Preference, preference_key
from jiayu.resolver.session import PendingClarify
from jiayu.text import shown


def answer(draft: Draft, pending: PendingClarify, said: Clause) -> bool:
    """你喜欢的温度是多少？— 26度: store the value said; False when it is no such answer."""
    value = said.value
    if said.target is not None or value is None or value.kind != "absolute":
        return False
    stored: float | str | None = value.word if value.word is not None else value.number
    if stored is None or pending.preference is None:
        return False
    return failed(draft.write(SetPreference(user_of(draft), pending.preference, stored))) is None


def remember(draft: Draft, clause: Clause) -> None:
    """记住我喜欢26度 / 我看电视的音量是20: stored per user, said back."""
    value = clause.value
    attribute = _attribute(value)
    stored: float | str | None = None
    if value is not None:
        stored = value.word if value.word is not None else value.number
    if attribute is None or stored is None:
        draft.say("rejected", say("refuse.nothing_to_remember"))
        return
    device_type = clause.target.device_type if clause.target is not None else None
    kept = draft.write(
        SetPreference(user_of(draft), preference_key(attribute, device_type), stored)
    )
    error = failed(kept)
    if error is not None:
        draft.say("rejected", say("refuse.cannot_remember", error=error))
        return
    assert isinstance(kept, float | int | str)
    draft.say("executed", Acknowledged(say("done.remembered", what=_phrase(attribute, kept))))


def preferred(
    draft: Draft,
    clause: Clause,
    devices: Sequence[str],
    focus: Sequence[str],
    rest: tuple[Clause, ...],
) -> Value | None:
    """调到我喜欢的温度: the user's stored value; when there is none, ask for it (the answer
    is stored, then the clause runs)."""
    assert clause.value is not None
    device = draft.ctx.home.device(devices[0])
    attribute = clause.value.attribute or _main(device)
    if attribute is None:
        draft.say("rejected", say("refuse.no_preference_setting", name=shown(device.name)))
        return None
    stored = draft.ctx.preferences.preferred(user_of(draft), attribute, device.type)
    if stored is None:
        draft.options += tuple(devices)
        draft.say("clarify", say("ask.preference", attribute=attribute))
        draft.asked = True
        draft.pending = PendingClarify(
            replace(clause, value=replace(clause.value, attribute=attribute)),
            tuple(devices),
            False,
            rest,
            tuple(focus),
            draft.text,
            preference_key(attribute, None),
        )
        return None
    if isinstance(stored, str):
        return Value("absolute", attribute, None, stored)
    return Value("absolute", attribute, float(stored))


def user_of(draft: Draft) -> str:
    # Without a user from the hub, the household shares one set of preferences.
    return draft.ctx.user or "default"


def _attribute(value: Value | None) -> str | None:
    if value is None:
        return None
    if value.attribute is not None:
        return value.attribute
    return "target_temperature" if value.unit == "°C" else None


def _phrase(attribute: str, value: Preference) -> str:
    if attribute == "color_temp" and isinstance(value, str):
        return say("answer.likes_light", light=value)
    return say("answer.likes", attribute=attribute, value=value_phrase(attribute, value))


def _main(device: Device) -> str | None:
    """What 按我的习惯 sets on a device when no attribute is said: its main setting."""
    return value_attribute(device, Value("absolute"))
