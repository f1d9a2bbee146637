"""Strength words with no attribute said (开大, 调小, 校细, 加大, 关小, 最强, 开满) mean more or
less of what a device does, composed on generated homes with the meaning known by construction: an
air conditioner that cools (制冷, 除湿) does more with a lower set point, one that heats with a
higher one, and in any other mode the words say neither way, so nothing is sent. An attribute
said (温度调大) makes the same words a number's way, whatever the mode. The fail-closed
companion replaces one slot with an unrelated word: nothing is sent."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _LINKS, SETTINGS, _devices, _engine, _noisy, _target, _wrap

from jiayu.compiler.build import says_strength
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import TABLES

# Every change word and extreme the tables hold that says strength (the morphology composes
# most of them: 调大, 拧小, 开强 …), with its direction.
_CHANGES = sorted(
    (w, how[1]) for w, how in TABLES["REL"].items() if how[1] and says_strength(w, how[0])
)
_EXTREMES = sorted((w, how[1]) for w, how in TABLES["EXTREME"].items() if says_strength(w, how[0]))
_LITTLE = sorted(TABLES["YIDIAN"])
_MODES = ("cool", "dry", "heat", "auto", "fan")
_WAY = {"cool": -1, "dry": -1, "heat": 1}


def test_the_strength_words_are_many() -> None:
    # Composed, not listed: every change verb with every strength adjective.
    assert len(_CHANGES) > 40 and len(_EXTREMES) >= 6


def _ac(index: int) -> list[Any]:
    return _devices(
        _engine(index).home,
        lambda d: (
            d.type == "AirConditioner" and {"hvac_mode", "target_temperature"} <= d.capabilities
        ),
    )


_WITH_AC = [i for i in range(len(_HOMES)) if _ac(i)]


@st.composite
def _strength(
    draw: st.DrawFn, *, attribute: bool = False, unrelated: bool = False
) -> tuple[int, str, dict[str, Any], str, tuple[str, str, dict[str, Any]] | None]:
    """(home, text, the device's state, its id, the command meant or None)."""
    index = draw(st.sampled_from(_WITH_AC))
    device, room, bare = draw(st.sampled_from(_ac(index)))
    limit = device.limits.get("target_temperature")
    low, high = (int(limit.min), int(limit.max)) if limit is not None else (16, 30)
    now = draw(st.integers(low, high))
    mode = draw(st.sampled_from(_MODES))
    state = {"on": True, "target_temperature": now, "mode": mode, "fan_speed": "auto"}
    extreme = draw(st.booleans())
    word, direction = draw(st.sampled_from(_EXTREMES if extreme else _CHANGES))
    little = "" if extreme else draw(st.sampled_from(("", *_LITTLE)))
    said, slot, noise = _noisy(draw, unrelated, {"verb": word, "bare": bare}, ("tail",))
    target = _target(room, draw(st.sampled_from(_LINKS)), device, said["bare"])
    attr = "温度" if attribute else ""
    if extreme and not word.startswith(("开", "调", "拉")):
        verb = draw(st.sampled_from(("开到", "调到", "调成")))
        words = verb + said["verb"] if slot != "verb" else said["verb"]
    else:
        words = said["verb"] + little
    order = draw(st.sampled_from(("ba", "target first")))
    command = ("把" if order == "ba" else "") + target + attr + words
    text = _wrap(draw, command) + (noise if slot == "tail" else "")
    way = 1 if attribute else _WAY.get(mode)
    meant: tuple[str, str, dict[str, Any]] | None = None
    if way is not None:
        more = direction * way > 0
        value = (high if more else low) if extreme else min(max(now + direction * way, low), high)
        meant = (device.id, "set_temperature", {"value": value})
    return index, text, state, device.id, meant


def _said(index: int, state: dict[str, Any], device: str, text: str) -> tuple[str, list[Any]]:
    engine = _engine(index)
    fresh = engine.fresh(hub=SimulatedHub(engine.home, {device: state}))
    result = fresh.turn(text, "strength")
    return result.outcome, [(c["device"], c["command"], c["params"]) for c in result.commands]


@settings(SETTINGS, max_examples=700)
@given(_strength())
def test_a_strength_word_follows_what_the_air_conditioner_is_doing(case: Any) -> None:
    index, text, state, device, meant = case
    outcome, sent = _said(index, state, device, text)
    if meant is None:  # 自动, 送风: which way is not said
        assert (outcome, sent) == ("rejected", []), (text, state["mode"])
    else:
        assert (outcome, sent) == ("executed", [meant]), (text, state["mode"])


@settings(SETTINGS, max_examples=300)
@given(_strength(attribute=True))
def test_with_the_attribute_said_a_strength_word_is_the_numbers_way(case: Any) -> None:
    index, text, state, device, meant = case
    outcome, sent = _said(index, state, device, text)
    assert (outcome, sent) == ("executed", [meant]), (text, state["mode"])


@settings(SETTINGS, max_examples=300)
@given(_strength(unrelated=True))
def test_a_strength_command_with_an_unrelated_word_sends_nothing(case: Any) -> None:
    index, text, state, device, _meant = case
    _outcome, sent = _said(index, state, device, text)
    assert sent == [], text
