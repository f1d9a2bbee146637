"""Plan commands: per clause and device, the command and its params, from live state, and
the batches a planned turn hands its driver to send, in order.

Relative values read the device fresh, step and clamp; absolute values are
validated against the command's JSON Schema with the device's limits, and an
out-of-range value is refused with the allowed range, never clamped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jiayu.actions import Meanings, meaning, meanings
from jiayu.catalog import check, format_number, value_range
from jiayu.grammar.phrases import say
from jiayu.grammar.vocab import HUES, PRESET_ENGLISH, PRESET_TAILS
from jiayu.home import Device
from jiayu.ir import Clause, Command, Value
from jiayu.planner.timing import Schedule
from jiayu.text import shown

# One step of a relative change without a number (调亮一点: brightness, volume and position
# 10, a set point 1 degree, colour temperature 500 K). No step is agreed for tilt or a
# humidity set point; like the other percentages they move 10: by 1 (the fallback) no one
# would notice.
STEPS = {
    "brightness": 10,
    "volume": 10,
    "position": 10,
    "tilt": 10,
    "target_humidity": 10,
    "target_temperature": 1,
    "color_temp": 500,
}
SPEEDS = ("low", "medium", "high")
COLOURS = frozenset({"warm", "cool", "natural"})
"""Named light colours: warm and cool are the light's own limits, natural a fixed kelvin."""
NATURAL_KELVIN = 4000.0
_INTEGER = frozenset({"brightness", "volume", "position", "color_temp"})


@dataclass(frozen=True)
class Refusal:
    """Why a device will not get a command; said in the reply."""

    device: str
    reason: str


def plan(
    clause: Clause,
    device: Device,
    read: Mapping[str, Any] | None,
    known: Meanings | None = None,
) -> Command | Refusal:
    """The command for one device. `read` is its fresh state (needed for relative values);
    `known`: the clause's `meanings`, when the caller plans it for many devices."""
    command, attribute = meaning(device, clause, meanings(clause) if known is None else known)
    if command is None:
        return Refusal(device.id, say("refuse.cannot", name=shown(device.name)))
    if attribute is None:
        return Command(device.id, command)
    value = clause.value
    assert value is not None  # an attribute is only found for a value
    if attribute == "mode":
        params: dict[str, Any] = {"mode": value.word}
    elif attribute == "color":
        hue, saturation = HUES[value.word or ""]
        params = {"hue": hue, "saturation": saturation}
    elif attribute == "preset":
        preset = match_preset(value.word or "", device.presets)
        if preset is None:
            reason = say(
                "refuse.no_preset",
                name=shown(device.name),
                preset=shown(value.word or ""),
                presets=[shown(p) for p in device.presets],
            )
            return Refusal(device.id, reason)
        params = {"preset": preset}
    elif attribute == "fan_speed":
        speed = _speed(value, read)
        if speed is None:
            return Refusal(device.id, say("refuse.speed_unreadable", name=shown(device.name)))
        if speed not in (*SPEEDS, "auto"):
            return Refusal(device.id, say("refuse.speed_range", name=shown(device.name)))
        params = {"speed": speed}
    else:
        number = _number(device, command, attribute, value, read)
        if isinstance(number, Refusal):
            return number
        params = {"value": number}
    # Checked as the queue checks it (and remembered, so the queue does not check it again).
    error = check(device, command, params)
    if isinstance(error, str):
        if "value" in params and value_range(device, command) is not None:
            return _out_of_range(device, command, attribute)
        return Refusal(device.id, say("refuse.bad_value", name=shown(device.name), error=error))
    return Command(device.id, command, params)


def _out_of_range(device: Device, command: str, attribute: str) -> Refusal:
    bounds = value_range(device, command)
    assert bounds is not None
    low, high = (format_number(b) for b in bounds)
    reason = say(
        "refuse.out_of_range", name=shown(device.name), attribute=attribute, low=low, high=high
    )
    return Refusal(device.id, reason)


def _number(
    device: Device, command: str, attribute: str, value: Value, read: Mapping[str, Any] | None
) -> float | int | Refusal:
    bounds = value_range(device, command) or (0.0, 100.0)
    number: float
    if attribute == "color_temp" and value.word in COLOURS:
        # 暖光 is the light's warmest, 冷光 its coldest, 自然光 4000 K within its limits.
        number = {"warm": bounds[0], "cool": bounds[1]}.get(
            value.word, min(max(NATURAL_KELVIN, bounds[0]), bounds[1])
        )
    elif value.kind == "extreme":
        way = _way_of_more(device, attribute, value, read)
        if isinstance(way, Refusal):
            return way
        number = bounds[1] if value.direction * way > 0 else bounds[0]
    elif value.kind == "relative":
        current = (read or {}).get(attribute)
        if current is None and attribute == "brightness" and (read or {}).get("on") is False:
            # An off light whose hub reports no brightness (HA's never does) is at 0: 调亮
            # starts from there, 调暗 has nothing to dim and says so. A hub that remembers
            # the brightness of an off light is stepped from that, as any live value.
            if (value.direction or value.warmth) < 0:
                return Refusal(device.id, say("refuse.light_off", name=shown(device.name)))
            current = 0
        if not isinstance(current, (int, float)) or isinstance(current, bool):
            reason = say("refuse.unreadable", name=shown(device.name), attribute=attribute)
            return Refusal(device.id, reason)
        step = value.number if value.number is not None else STEPS.get(attribute, 1)
        way = _way_of_more(device, attribute, value, read)
        if isinstance(way, Refusal):
            return way
        direction = (value.direction or value.warmth) * way
        if attribute == "color_temp" and value.warmth:
            direction = -value.warmth  # warmer light is lower kelvin
        number = min(max(current + direction * step, bounds[0]), bounds[1])
    else:
        assert value.number is not None
        number = value.number
        if not bounds[0] <= number <= bounds[1]:
            # Checked before rounding: 100.4% is out of range, not 100%.
            return _out_of_range(device, command, attribute)
    if attribute in _INTEGER:
        return round(number)
    return int(number) if float(number).is_integer() else number


def _way_of_more(
    device: Device, attribute: str, value: Value, read: Mapping[str, Any] | None
) -> int | Refusal:
    """Which way the number goes for more of what the device does: +1, except for a strength
    word (开大, 最强) on the set point of an air conditioner, which cools more with a lower
    one (制冷, 除湿) and heats more with a higher one (制热). In another mode (送风, 自动) the
    words do not say which way: refused with a reason, never guessed."""
    if not value.strength or attribute != "target_temperature":
        return 1
    if "hvac_mode" not in device.capabilities:
        return 1  # a heater or a water heater: more is hotter
    mode = (read or {}).get("mode")
    if mode in _COOLING:
        return -1
    if mode == "heat":
        return 1
    return Refusal(
        device.id, say("refuse.strength_mode", name=shown(device.name), mode=str(mode or ""))
    )


_COOLING = frozenset({"cool", "dry"})


def _preset_stem(word: str) -> str:
    for tail in PRESET_TAILS:
        if word.endswith(tail) and len(word) > len(tail):
            return word[: -len(tail)]
    return word


def match_preset(said: str, presets: tuple[str, ...]) -> str | None:
    """The device's preset that the word said names, or None: exactly, then by its stem
    (睡眠风 → 睡眠模式), then by the English word a hub reports (睡眠风 → sleep). A word
    that could name two presets names none: the device is not guessed at."""
    for same in (
        lambda p: p.casefold() == said.casefold(),
        lambda p: _preset_stem(p) == _preset_stem(said),
        lambda p: p.casefold() in PRESET_ENGLISH.get(_preset_stem(said), ()),
    ):
        found = [p for p in presets if same(p)]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _speed(value: Value, read: Mapping[str, Any] | None) -> str | None:
    if value.word is not None:
        return value.word
    if value.kind == "extreme":
        return "high" if value.direction > 0 else "low"
    if value.kind == "absolute" and value.number is not None:
        n = value.number
        if not 1 <= n <= 100:
            return "out of range"  # only 1-100 maps to a level
        return "low" if n <= 33 else "medium" if n <= 66 else "high"
    current = (read or {}).get("fan_speed")
    if current is None:
        return None
    index = SPEEDS.index(current) if current in SPEEDS else 1  # auto counts as medium
    steps = round(value.number) if value.number is not None else 1  # 调高两档: two levels
    index = min(max(index + steps * (value.direction or value.warmth), 0), len(SPEEDS) - 1)
    return SPEEDS[index]


def needs_read(clause: Clause) -> bool:
    """Whether planning reads the device first: relative values, and a strength word whose
    way depends on what the device is doing (空调开到最大 reads its mode)."""
    return clause.action == "adjust" or (clause.value is not None and clause.value.strength)


@dataclass
class Batch:
    """Commands that answer one clause (or one scene), reported together in the reply."""

    commands: list[Command]
    clause: Clause | None = None
    """The clause they came from, for the reply's wording (None for a confirmation)."""
    scene: str | None = None
    """The scene's name when the batch is a scene's steps."""
    delays: tuple[float, ...] = ()
    """For a scene: seconds to wait before each step (`delay_s`). The asyncio runtime paces
    them in the background (executor/scenes.py); the sync API keeps the delayed steps as
    schedules (`deferred`)."""
    deferred: tuple[Schedule, ...] = field(default=(), init=False)
    """Under the sync API: the scene's delayed steps, kept as schedules for `run_due` (a
    tuple: most batches have none, and an empty tuple is made by no call)."""
    sent: list[Command] = field(default_factory=list, init=False)
    """Filled by the runner: what the hub accepted, in order."""
    failed: list[tuple[Command, str]] = field(default_factory=list, init=False)
    """Filled by the runner: what the hub refused or could not deliver, with the reason."""
