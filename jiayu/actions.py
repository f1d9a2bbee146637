"""Which command an action means on a given device: capabilities decide, not types.

打开 is a cluster (cover → open, valve → open_valve, lock → unlock, otherwise
turn_on); a value's attribute is what the device can set; a bare number or a
relative change with no attribute goes to the device's main adjustable one.
The resolver uses this to drop devices that cannot do an action; the planner
uses it to build the command.
"""

from __future__ import annotations

from jiayu.catalog import has_attribute
from jiayu.grammar.vocab import HUES
from jiayu.home import Device
from jiayu.ir import Clause, Value

# A robot vacuum has no power to switch: 打开 sets it cleaning, 关掉 sends it home.
ON_CLUSTER = (
    ("cover", "open"),
    ("valve", "open_valve"),
    ("lock", "unlock"),
    ("onoff", "turn_on"),
    ("vacuum", "start_cleaning"),
)
OFF_CLUSTER = (
    ("cover", "close"),
    ("valve", "close_valve"),
    ("lock", "lock"),
    ("onoff", "turn_off"),
    ("vacuum", "return_to_base"),
)
# Actions that take no value: the command each means, by the first capability the device has
# (暂停 pauses what plays, what cleans or what washes; 停止 stops a curtain or a wash, and
# pauses a player).
VERB_COMMANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "mute": (("volume", "mute"),),
    "unmute": (("volume", "unmute"),),
    "play": (("media", "play"),),
    "pause": (("media", "pause"), ("vacuum", "pause_cleaning"), ("cycle", "pause_cycle")),
    "next_track": (("media", "next_track"),),
    "previous_track": (("media", "previous_track"),),
    # A player has no stop of its own: 音箱停止 pauses it, as 停止播放 does.
    "stop": (
        ("cover", "stop"),
        ("cycle", "stop_cycle"),
        ("vacuum", "pause_cleaning"),
        ("media", "pause"),
    ),
    "oscillate_on": (("oscillation", "oscillate_on"),),
    "oscillate_off": (("oscillation", "oscillate_off"),),
    "clean": (("vacuum", "start_cleaning"),),
    "pause_cleaning": (("vacuum", "pause_cleaning"),),
    "run_cycle": (("cycle", "start_cycle"),),
    "start": (("vacuum", "start_cleaning"), ("cycle", "start_cycle")),
    "return_to_base": (("vacuum", "return_to_base"),),
}
SETTERS = {
    "brightness": ("brightness", "set_brightness"),
    "color_temp": ("color_temp", "set_color_temp"),
    "target_temperature": ("target_temperature", "set_temperature"),
    "mode": ("hvac_mode", "set_mode"),
    "fan_speed": ("fan_speed", "set_fan_speed"),
    "position": ("cover", "set_position"),
    "volume": ("volume", "set_volume"),
    "color": ("color", "set_color"),
    "preset": ("preset", "set_preset"),
    "target_humidity": ("target_humidity", "set_humidity"),
    "tilt": ("tilt", "set_tilt"),
}
# What 调到50 / 调高一点 mean when no attribute is said, in order of preference.
_MAIN_ATTRIBUTES = (
    "brightness",
    "target_temperature",
    "target_humidity",
    "position",
    "volume",
    "fan_speed",
    "tilt",
)
_MAIN_STATE = (
    ("lock", "locked"),
    ("valve", "open"),
    ("cover", "position"),
    ("vacuum", "status"),
    ("cycle", "status"),
    ("onoff", "on"),
    ("temperature_sensor", "temperature"),
    ("humidity_sensor", "humidity"),
    ("illuminance_sensor", "illuminance"),
)


def value_attribute(device: Device, value: Value) -> str | None:
    """The attribute a value sets or changes on this device, or None if it has none."""
    caps = device.capabilities
    if value.warmth:
        # 调暖: a warmer light is lower kelvin; a warmer room is a higher set point.
        if "target_temperature" in caps:
            return "target_temperature"
        return "color_temp" if "color_temp" in caps else None
    attribute = value.attribute
    if attribute is None and value.unit == "°C":
        attribute = "target_temperature"
    if attribute == "color" and value.word is not None and value.word not in HUES:
        attribute = "color_temp"  # 颜色调成暖白色: a white is a colour temperature
    if attribute is not None:
        return attribute if SETTERS.get(attribute, ("", ""))[0] in caps else None
    if value.word is not None:
        return None
    return next((a for a in _MAIN_ATTRIBUTES if SETTERS[a][0] in caps), None)


def reading_attribute(
    device: Device, attribute: str | None, *, sensors_only: bool = False
) -> str | None:
    """The state attribute a query or condition reads on this device, or None.

    A place's 温度 is what its sensors measure (`sensors_only`); a named device's 温度
    is its set point when it has no sensor (空调温度多少)."""
    caps = device.capabilities
    if attribute == "on" and "onoff" not in caps:
        attribute = None  # 燃气阀关了吗 / 窗帘开着吗: its main open/closed state
    if attribute == "brightness" and sensors_only:
        attribute = "illuminance"  # a place's 亮度 is what its light sensor measures
    if attribute == "state" or attribute is None:
        return next((a for cap, a in _MAIN_STATE if cap in caps), None)
    if not sensors_only:
        # A named device's 温度/湿度 is its set point when it measures none (加湿器湿度设的多少).
        if attribute == "temperature" and "temperature_sensor" not in caps:
            attribute = "target_temperature"
        if attribute == "humidity" and "humidity_sensor" not in caps:
            attribute = "target_humidity"
    return attribute if has_attribute(caps, attribute) else None


def command_for(device: Device, clause: Clause) -> str | None:
    """The command this clause means on this device; None if it cannot do it."""
    caps = device.capabilities
    action = clause.action
    if action in ("on", "off"):
        cluster = ON_CLUSTER if action == "on" else OFF_CLUSTER
        return next((cmd for cap, cmd in cluster if cap in caps), None)
    if action in ("set", "adjust") and clause.value is not None:
        attribute = value_attribute(device, clause.value)
        return SETTERS[attribute][1] if attribute else None
    return next((cmd for cap, cmd in VERB_COMMANDS.get(action, ()) if cap in caps), None)


def can_do(device: Device, clause: Clause) -> bool:
    """Whether the device can carry out the clause (queries: whether it has the reading)."""
    return _meaning(device, clause) != NOTHING


Meaning = tuple[str | None, str | None]
"""What a clause means on a device: the command it is sent (None for a query, which reads)
and the attribute the clause's value sets or the query reads (None when there is none)."""
NOTHING: Meaning = (None, None)
"""The meaning of a clause on a device that cannot do it."""
Meanings = dict[frozenset[str], Meaning]
"""A clause's meanings by a device's capabilities, as far as they have been worked out."""
Ability = tuple[object, ...]
"""What `_meaning` reads of a clause (see `ability_key`)."""

MAX_ABILITIES = 1024
"""At most this many clause meanings are remembered (see `meanings`); past it they start
again, so words never seen before cannot grow the memory without bound."""
_MEANINGS: dict[Ability, Meanings] = {}
_LAST: tuple[Clause | None, Meanings] = (None, {})
"""The clause last asked about and its meanings: the resolver asks, then the planner asks
of the same clause object, which need not be keyed again."""


def meanings(clause: Clause) -> Meanings:
    """The clause's meanings worked out so far (`meaning` adds to them): one dict per
    `ability_key`, shared by every clause that means the same, so a turn said again, or
    客厅灯调到30 after 客厅灯调到20, asks nothing of the catalog; and shared by the resolver
    (which devices can do it) and the planner (what each is sent). Entries are added, never
    changed: sessions on other threads may read the same dict."""
    global _LAST
    last = _LAST
    if last[0] is clause:
        return last[1]
    key = ability_key(clause)
    found = _MEANINGS.get(key)
    if found is None:
        if len(_MEANINGS) >= MAX_ABILITIES:
            _MEANINGS.clear()  # bounded; whoever holds a dict of it keeps a correct one
        found = _MEANINGS[key] = {}
    _LAST = (clause, found)
    return found


def meaning(device: Device, clause: Clause, known: Meanings) -> Meaning:
    """What the clause means on this device, remembered in `known` (its `meanings`) by the
    device's capabilities, all `_meaning` reads of a device: 所有的灯 is thousands of devices
    but a handful of sets."""
    found = known.get(device.capabilities)
    if found is None:
        found = known[device.capabilities] = _meaning(device, clause)
    return found


def _meaning(device: Device, clause: Clause) -> Meaning:
    if clause.action == "query":
        return None, query_attribute(device, clause)
    command = command_for(device, clause)
    if command is None or clause.action not in ("set", "adjust") or clause.value is None:
        return command, None
    attribute = value_attribute(device, clause.value)
    assert attribute is not None  # command_for found a setter
    return command, attribute


def ability_key(clause: Clause) -> Ability:
    """Everything of the clause that `_meaning` depends on (the rest is the device's
    capabilities): two clauses with equal keys mean the same on every device, so a meaning
    per (key, capabilities) can be remembered across turns. It must follow `_meaning` and its
    helpers: a query's attribute and whether a place is asked; a value's attribute, its unit
    as far as °C, its warmth, and its word as far as none / a hue / another."""
    action = clause.action
    if action == "query":
        return (action, clause.attribute, clause.target is not None and clause.target.is_place_only)
    value = clause.value
    if action in ("set", "adjust") and value is not None:
        word = value.word
        return (
            action,
            value.attribute,
            value.unit == "°C",
            bool(value.warmth),
            None if word is None else word in HUES,
        )
    return (action,)


def query_attribute(device: Device, clause: Clause) -> str | None:
    """What a query clause reads on this device: a place asks its sensors."""
    place_only = clause.target is not None and clause.target.is_place_only
    return reading_attribute(device, clause.attribute, sensors_only=place_only)
