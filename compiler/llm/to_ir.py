"""The compact form (seed 001) → IR clauses, for the same resolver the grammar feeds.

Nothing here looks a device up: a name the model wrote becomes a `Mention` and the resolver
finds it, asks, or refuses (“没有找到…”), exactly as for a name said to the grammar. Only what
cannot be IR at all (UNKNOWN, an action or value outside the vocabulary, a room the home does
not have) is refused here, as a reason string, so the whole answer is dropped: the turn acts
only on an utterance understood as a whole.

The vocabulary is the one `jiayu.compiler.compact` writes, so compact → IR → compact is stable:
  a  打开 on · 关闭 off · 静音 mute · 取消静音 unmute ·
     设置<属性>=<值> set (absolute / extreme) or adjust (relative) · 查询<属性> query ·
     设置播放=播放|暂停|下一首|上一首 media · 设置位置=停止 stop · 设置开关=开|关 on/off ·
     设置摇头=开|关 oscillation · 设置扫地=开始|暂停|回充 a vacuum · 设置洗衣|烘干=开始 a
     washer's or dryer's cycle · 设置运行=开始|暂停|停止 start (whichever of the two the
     device has), pause, stop (chosen per device, as 开始运行, 暂停, 停止 said)
  值 26 · 50% · 26度 · 4000k (absolute); +10 / -2 (relative by that much); 调高 调低 调亮 …
     (relative, one step); 调暖 调冷 (warmth); 最大 最小 最亮 … (extreme); 制冷 … (mode);
     低 中 高 自动 (fan speed); 暖光 冷光 自然光 (light colour); 红色 蓝色 … (a hue, 设置颜色);
     睡眠风 … (a preset, 设置模式: a preset word of the vocabulary or of a device of the home);
     偏好 (the user's preference); 属性 数值 when only the device can tell which attribute
     (调到50); 湿度 set is the set point (target_humidity), 角度 a blind's tilt
  s  "*" no place; rooms, floors, groups, 全屋, 这里, 其他房间 by any name the grammar knows,
     separated by ","; "!" before one excludes it
  n  "*" none; a type word → device_type and type_word; anything else a name Mention
  t  with n "*": the type (Light → 灯); otherwise a hint only
  q  one / all / any; except = all with the "!" exclusions (a device exclusion cannot be
     written in the compact form, so except without one is refused)
  c  count (≥ 1)
  (s "*", n "*", t "Unknown") → the reference 它 (q all → 它们), bound by the resolver.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jiayu.catalog import STATE_ATTRIBUTES
from jiayu.compiler.build import PLACE_KINDS, says_strength
from jiayu.compiler.compact import ACTION_FORMS
from jiayu.compiler.lexicon import Lexicon
from jiayu.compiler.llm.cache import PerHome
from jiayu.compiler.parse import MAX_CLAUSES
from jiayu.grammar.vocab import HUES, TABLES
from jiayu.home import Home
from jiayu.ir import Action, Clause, Mention, Place, Quantifier, Target, Value
from jiayu.text import normalize, plain_name

TYPE_WORDS: dict[str, str] = {
    "Light": "灯",
    "SmartPlug": "插座",
    "Switch": "开关",
    "AirConditioner": "空调",
    "Blind": "窗帘",
    "Fan": "风扇",
    "Television": "电视",
    "NetworkAudio": "音箱",
    "Lock": "门锁",
    "Valve": "阀",
    "Heater": "取暖器",
    "Humidifier": "加湿器",
    "Purifier": "净化器",
    "Washer": "洗衣机",
    "Charger": "充电器",
    "Sensor": "传感器",
    "Hub": "网关",
    "Vacuum": "扫地机器人",
    "Dehumidifier": "除湿机",
    "WaterHeater": "热水器",
    "Dryer": "烘干机",
    "GarageDoor": "车库门",
}
"""The word a type is said with (CONTRACTS.md §1), for a target given by `t` alone."""

_FIXED: dict[str, Action] = {"打开": "on", "关闭": "off", "静音": "mute", "取消静音": "unmute"}
_SETTABLE = frozenset(
    (
        "brightness",
        "color_temp",
        "color",
        "target_temperature",
        "target_humidity",
        "mode",
        "fan_speed",
        "volume",
        "position",
        "tilt",
    )
)
# 温度 and 湿度 asked are what the sensors read; set, they are a device's set point.
_SET_POINTS = {"temperature": "target_temperature", "humidity": "target_humidity"}
# 数值 is what the compact form writes when only the device can tell (调到50).
_SET_ATTRIBUTES: dict[str, str | None] = {
    **{
        word: _SET_POINTS.get(attr, attr)
        for word, attr in TABLES["ATTR"].items()
        if attr in _SETTABLE or attr in _SET_POINTS
    },
    "预设": "preset",
    "数值": None,
}
# Attribute names pass too: the compact form writes one it has no word for as it is.
_QUERY_ATTRIBUTES: dict[str, str | None] = {
    **{attr: attr for attr in STATE_ATTRIBUTES},
    **TABLES["ATTR"],
    "开关": "on",
    "门锁": "locked",
    "锁": "locked",
    "播放": "playing",
    "静音": "muted",
    "预设": "preset",
    "摇头": "oscillating",
    "工作状态": "status",
}
_ONOFF: dict[str, Action] = {"开": "on", "打开": "on", "on": "on", "关": "off", "关闭": "off"}
_ONOFF["off"] = "off"
# 设置<what>=<verb>: the forms the compact form writes (ACTION_FORMS), and the synonyms a
# model may well use for them. Every pair names one action; anything else is refused.
_OSCILLATE: dict[Action, Action] = {"on": "oscillate_on", "off": "oscillate_off"}
_VERBS: dict[tuple[str, str], Action] = {key: action for action, key in ACTION_FORMS.items()}
_VERBS["窗帘", "停止"] = "stop"
for _said, _onoff in _ONOFF.items():
    _VERBS["开关", _said] = _onoff
    for _what in ("摇头", "摆头"):
        _VERBS[_what, _said] = _OSCILLATE[_onoff]
for _what in ("扫地", "清扫", "打扫"):
    _VERBS[_what, "开始"] = "clean"
    _VERBS[_what, "暂停"] = _VERBS[_what, "停止"] = "pause_cleaning"  # 停止扫地 pauses it
for _said in ("回去充电", "充电", "回基座"):
    _VERBS["扫地", _said] = "return_to_base"
_VERBS["工作", "开始"] = "start"
for _what in ("运行", "洗衣", "烘干"):
    if _what != "运行":
        _VERBS[_what, "开始"] = "run_cycle"
    _VERBS[_what, "暂停"] = "pause"  # pause and stop are chosen per device, as said
    _VERBS[_what, "停止"] = "stop"
_LEVELS = {"低": "low", "中": "medium", "高": "high", "自动": "auto", "小": "low", "大": "high"}
_SPEEDS = {
    **{s: s for s in ("low", "medium", "high", "auto")},
    **_LEVELS,
    **TABLES["SPEED"],
}
_MODES = {**{m: m for m in ("cool", "heat", "dry", "fan", "auto")}, **TABLES["MODE"]}
_COLORS = {**{c: c for c in ("warm", "cool", "natural", *HUES)}, **TABLES["COLOR"]}
_PREFERRED = frozenset(("偏好", "喜欢的", "我喜欢的"))
_NUMBER = re.compile(r"([+-]?)(\d{1,6}(?:\.\d{1,3})?)(%|度|k)?")
_UNITS: dict[str, Any] = {"%": "%", "度": "°C", "k": "K", "": None}


@dataclass(frozen=True)
class _HomeWords:
    places: dict[str, Place]
    """Every word the grammar knows for a place of this home (names, aliases, everyday
    variants such as 睡房, 全屋, 这里, 其他房间), by its plain form."""
    presets: frozenset[str]
    """Every word the grammar reads as a preset here: the fixed ones (睡眠风) and the home's
    own (宝宝风), unless a name of the home says the same."""


def _home_words(home: Home) -> _HomeWords:
    places = {}
    presets = set()
    for word, entry in Lexicon(home).entries.items():
        if entry.kind == "PRESET":
            presets.add(word)
        kind = PLACE_KINDS.get(entry.kind)
        if kind is not None:
            place_id = entry.value if kind in ("room", "floor", "group") else None
            places[word] = Place(kind, place_id, word)
    return _HomeWords(places, frozenset(presets))


_home_index = PerHome(_home_words)


def to_clauses(items: Sequence[Mapping[str, Any]], home: Home) -> tuple[Clause, ...] | str:
    """The clauses of a validated compact array, in order, or why it cannot be used. An
    answer of more clauses than the grammar takes in one utterance is refused whole: no
    utterance says that much, and a turn must never send what the grammar could not."""
    if len(items) > MAX_CLAUSES:
        return f"{len(items)} commands, more than {MAX_CLAUSES} in one utterance"
    words = _home_index(home)
    clauses = []
    for i, item in enumerate(items):
        clause = _clause(item, words)
        if isinstance(clause, str):
            return f"item {i}: {clause}"
        clauses.append(clause)
    if not clauses:
        return "no commands"
    return tuple(clauses)


def _clause(item: Mapping[str, Any], words: _HomeWords) -> Clause | str:
    action = item.get("a")
    if action == "UNKNOWN":
        return "the model did not understand it"
    if not isinstance(action, str):
        return "no action"
    target = _target(item, words.places)
    if isinstance(target, str):
        return target
    if action in _FIXED:
        return Clause(_FIXED[action], target)
    if action.startswith("查询") and len(action) > 2:
        word = normalize(action[2:])
        if word not in _QUERY_ATTRIBUTES:
            return f"cannot ask about {action[2:]!r}"
        return Clause("query", target, attribute=_QUERY_ATTRIBUTES[word])
    if action.startswith("设置") and "=" in action:
        word, _, said = action[2:].partition("=")
        return _setting(normalize(word), normalize(said), target, words.presets)
    return f"unknown action {action!r}"


def _setting(word: str, said: str, target: Target, presets: frozenset[str]) -> Clause | str:
    verb = _VERBS.get((word, said))
    if verb is not None:
        return Clause(verb, target)
    if word not in _SET_ATTRIBUTES:
        return f"cannot set {word!r}"
    value = _value(_SET_ATTRIBUTES[word], said, presets)
    if value is None:
        return f"cannot read {said!r} as a value of {word}"
    return Clause("adjust" if value.kind == "relative" else "set", target, value)


def _value(attribute: str | None, said: str, presets: frozenset[str]) -> Value | None:
    if attribute in ("color", "preset"):
        return _word_value(attribute, said, presets)  # a hue or a preset is a word, never 50
    if said in _PREFERRED:
        return Value("preferred", attribute)  # the speaking user's stored value
    number = _NUMBER.fullmatch(said)
    if number is not None:
        sign, digits, unit = number.groups()
        amount = float(digits)
        if sign:
            direction = 1 if sign == "+" else -1
            return Value("relative", attribute, amount, None, _UNITS[unit or ""], direction)
        return Value("absolute", attribute, amount, None, _UNITS[unit or ""])
    if said in TABLES["REL"]:
        _hint, direction, warmth = TABLES["REL"][said]
        strength = says_strength(said, attribute)
        return Value("relative", attribute, None, None, None, direction, warmth, strength)
    if said in TABLES["EXTREME"]:
        _hint, direction = TABLES["EXTREME"][said]
        strength = says_strength(said, attribute)
        return Value("extreme", attribute, None, None, None, direction, strength=strength)
    return _word_value(attribute, said, presets)


def _word_value(attribute: str | None, said: str, presets: frozenset[str]) -> Value | None:
    """A value said as a word, read as the grammar reads it: a hue (红色) is a colour even
    under 色温, and 颜色 keeps a white (颜色调成暖白色; the planner sets the white); under
    模式 an air conditioner's mode word is a mode and a preset word a preset (the planner
    matches it to the device's own presets, or refuses, as for 调成睡眠风 said)."""
    if attribute == "fan_speed" and said in _SPEEDS:
        return Value("absolute", attribute, None, _SPEEDS[said])
    if attribute in ("color", "color_temp") and said in _COLORS:
        word = _COLORS[said]
        colour = word in HUES or attribute == "color"
        return Value("absolute", "color" if colour else "color_temp", None, word)
    if attribute in ("mode", "preset"):
        if said in _MODES:
            return Value("absolute", "mode", None, _MODES[said])
        if plain_name(said) in presets:
            return Value("absolute", "preset", None, plain_name(said))
    return None


def _target(item: Mapping[str, Any], places: Mapping[str, Place]) -> Target | str:
    s, n, t, q = item.get("s"), item.get("n"), item.get("t"), item.get("q")
    if not (isinstance(s, str) and isinstance(n, str) and isinstance(t, str)):
        return "s, n and t must be strings"
    count = item.get("c")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 1):
        return f"count {count!r} is not a positive number"
    said, excluded = _split_places(s, places)
    if isinstance(said, str):
        return said
    if q == "except" and not excluded:
        return "q=except without an excluded room: what is excluded is unknown"
    if q not in ("one", "all", "any", "except"):
        return f"unknown quantifier {q!r}"
    quantifier: Quantifier = "all" if q == "except" else q
    name_said = n.strip()
    if name_said == "*" and t == "Unknown" and not said and not excluded:
        return Target(reference="they" if quantifier == "all" else "it")
    mention = None
    device_type: str | None = None
    type_word: str | None = None
    key = plain_name(name_said)
    if name_said == "*":
        if t != "Unknown":
            if t not in TYPE_WORDS:
                return f"unknown type {t!r}"
            device_type, type_word = t, TYPE_WORDS[t]
    elif key in TABLES["TYPE"]:
        type_word = key
        device_type = TABLES["TYPE"][key] or (t if t in TYPE_WORDS else None)
    elif key:
        mention = Mention(key, name_said, "exact")
    else:
        return f"the name {n!r} is empty"
    return Target(
        places=tuple(said),
        name=mention,
        device_type=device_type,
        type_word=type_word,
        quantifier=quantifier,
        count=count,
        exclude=tuple(Target(places=(p,)) for p in excluded),
    )


def _split_places(s: str, places: Mapping[str, Place]) -> tuple[list[Place] | str, list[Place]]:
    said: list[Place] = []
    excluded: list[Place] = []
    for part in s.split(","):
        word = part.strip()
        negated = word.startswith("!")
        key = normalize(word.lstrip("!"))
        if key in ("*", ""):
            if negated:
                return f"an exclusion names no place in {s!r}", excluded
            continue
        # Fixed words keep their 的 (别的房间), a home's names are keyed without it.
        place = places.get(key) or places.get(key.replace("的", ""))
        if place is None:
            return f"no place called {word.lstrip('!')!r} in this home", excluded
        (excluded if negated else said).append(place)
    return said, excluded
