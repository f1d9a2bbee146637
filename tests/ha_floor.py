"""Home Assistant's Chinese phrasing as a floor: Assist's zh-CN, zh-TW and zh-HK sentence
templates (the `home-assistant-intents` package, CC BY 4.0) sampled with hassil's sampler on
corpus/homes/ha_floor.json, each sentence judged by what jiayu's engine does with it.

Sampling. hassil's `sample_expression` expands each template (one line of an intent's
`sentences`) into its skeletons, the list references left as `{list}` (expand_lists=False);
a seeded generator picks up to PER_TEMPLATE distinct sentences per template, filling each
skeleton with values that agree with one another the way a real home's would: a `{name}` of a
device of the block's domain, the `{area}` and `{floor}` it is in, a cover class present
there, numbers within the device's limits. List values that are words (states, colours,
cover classes) are expanded by the same sampler; numbers are digits or spoken numerals
(hassil's RBNF cardinal). zh-TW and zh-HK fill names in their own script (OpenCC s2twp and
s2hk), so the home's simplified names are reached through jiayu's script normalisation.

Meaning. Each sample's intent and slots give what Home Assistant would do; where jiayu's
contract says otherwise (a name before a type word, 确认 before unlocking, a set command
skipping members that cannot), the contract's reading is the one expected, and where the
contract allows two readings both are accepted. Intents jiayu has no meaning for (timers,
weather, lists, date and time, broadcast, people, …) are counted as unsupported and must not
act. See docs/ha-floor.md.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from jiayu.home import Device, Home, Scene, load_home

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "corpus" / "homes" / "ha_floor.json"
LANGUAGES = ("zh-CN", "zh-TW", "zh-HK")
SEED = 29
PER_TEMPLATE = 20
"""Distinct sentences per template (fewer when the template cannot say that many)."""
SKELETON_CAP = 1_000_000
"""Skeletons enumerated per template before the seeded pick (today's largest has 90,000)."""
DRAWS = 20
"""Fillings drawn per sentence wanted before a template is taken to say no more."""
FLOOR = {"zh-CN": 0.99, "zh-TW": 0.98, "zh-HK": 0.98}
"""The share of sampled sentences of supported intents each language must get right: the
floor docs/ha-floor.md sets (today 99.4%, 98.9% and 99.0%)."""

# Home Assistant's domain of each jiayu device type in the home.
DOMAINS = {
    "Light": "light",
    "SmartPlug": "switch",
    "Switch": "switch",
    "Fan": "fan",
    "AirConditioner": "climate",
    "Heater": "climate",
    "Blind": "cover",
    "GarageDoor": "cover",
    "Television": "media_player",
    "NetworkAudio": "media_player",
    "Lock": "lock",
    "Valve": "valve",
    "Vacuum": "vacuum",
    "Sensor": "sensor",
}
# HA's device_class of the covers (jiayu's home has no such field: it is the harness's).
COVER_CLASSES = {
    "curtain_living": "curtain",
    "curtain_master": "curtain",
    "blind_study": "blind",
    "window_bedroom": "window",
    "awning_balcony": "awning",
    "garage_door": "garage",
}
# Names for the domains the home has no device of: their templates are unsupported.
OTHER_NAMES = {
    "person": ("爸爸", "小明"),
    "binary_sensor": ("门磁", "走廊人体传感器"),
    "weather": ("上海", "本地天气"),
    "todo": ("购物清单", "待办事项"),
    "lawn_mower": ("割草机器人",),
    "script": ("浇花程序", "早安流程"),
    "input_boolean": ("访客模式开关",),
}
WILDCARDS = {
    "message": ("晚饭做好了", "该起床了"),
    "search_query": ("周杰伦的歌", "新闻"),
    "zone": ("家", "公司"),
    "timer_name": ("煮面", "烤箱"),
    "timer_command": ("关掉电视", "打开书房台灯", "关闭主卧空调"),
    "shopping_list_item": ("牛奶", "鸡蛋"),
    "todo_list_item": ("买牛奶", "交电费"),
    "item": ("牛奶", "鸡蛋"),
}
# Intents jiayu has no meaning for: counted, listed, and never to act.
UNSUPPORTED_INTENTS = frozenset(
    {
        "HassBroadcast",
        "HassCancelAllTimers",
        "HassCancelTimer",
        "HassDecreaseTimer",
        "HassIncreaseTimer",
        "HassPauseTimer",
        "HassUnpauseTimer",
        "HassStartTimer",
        "HassTimerStatus",
        "HassGetCurrentDate",
        "HassGetCurrentTime",
        "HassGetWeather",
        "HassListAddItem",
        "HassListCompleteItem",
        "HassListRemoveItem",
        "HassShoppingListAddItem",
        "HassShoppingListCompleteItem",
        "HassRespond",
        "HassLawnMowerDock",
        "HassLawnMowerStartMowing",
        "HassMediaSearchAndPlay",
    }
)
LIGHT_WORDS = (
    "吸顶灯",
    "床头灯",
    "灯光",
    "筒灯",
    "射灯",
    "台灯",
    "桌灯",
    "壁灯",
    "嵌灯",
    "崁灯",
    "照明",
    "灯",
)
_LIGHT_WORD = re.compile("|".join(LIGHT_WORDS))
FAN_WORDS = ("风扇", "电扇", "电风扇", "吊扇", "塔扇", "排气扇")
# What each cover is called by people who own it (HA's class lists give every word of a class
# to every room; zh-TW gives all its curtain words to three classes).
COVER_WORDS = {
    "curtain_living": ("窗帘", "遮光帘", "布帘"),
    "curtain_master": ("窗帘", "遮光帘", "布帘"),
    "blind_study": ("百叶窗", "百叶帘", "窗帘"),
    "window_bedroom": ("窗户", "落地窗", "电动窗"),
    "awning_balcony": ("遮阳棚", "遮阳篷", "雨棚", "雨蓬", "遮雨棚"),
    # Not 车库 alone: in a home with a room named 车库 that word is the room.
    "garage_door": ("车库门", "车房门"),
}
COVER_KINDS = (
    "百叶窗户",
    "百叶窗",
    "百叶帘",
    "卷帘",
    "罗马帘",
    "纱帘",
    "门帘",
    "遮光帘",
    "遮阳帘",
    "窗帘",
    "布帘",
    "落地窗",
    "铝窗",
    "窗户",
    "电动窗",
    "遮阳棚",
    "遮阳篷",
    "遮雨棚",
    "雨棚",
    "雨蓬",
    "车库门",
    "车房门",
    "卷闸门",
    "院子门",
    "铁门",
)
# 空调 is not said of a heater, nor 插座 of a pump's switch, nor 开关 of a plug: HA's switch
# words (开关, 电源, 插座, 通断器) name every switch-domain entity.
OTHER_KINDS = ("空调", "冷气", "暖风机", "插座", "开关", "电源", "通断器")
TYPE_KINDS = {"Switch": ("开关", "电源", "通断器"), "SmartPlug": ("插座", "电源")}
SWITCH_AFTER_NAME = frozenset({"开关", "电源", "插座", "通断器"})
_KIND_WORD = re.compile(
    "|".join(
        sorted({*LIGHT_WORDS, *FAN_WORDS, *COVER_KINDS, *OTHER_KINDS}, key=len, reverse=True)
    )
)
GENERIC_KINDS = frozenset({"灯", "灯光", "照明", "风扇", "电扇", "电风扇"})
SWITCH_WORDS = ("开关", "电源", "插座", "通断器")
# Colour temperatures by the words said, as jiayu's contract reads them (HA reads 冷白 and
# 白光 as 4000 K and 6500 K; the contract makes every "cool" word the light's coolest).
KELVIN_WORDS = (
    (("自然光", "中性光"), 4000),
    (("烛光", "暖白", "暖光", "黄光"), "min"),
    (("冷白", "冷光", "日光", "正白光", "白光"), "max"),
)
HUES = {
    "red": 0,
    "orange": 30,
    "yellow": 60,
    "green": 120,
    "turquoise": 175,
    "blue": 240,
    "purple": 280,
    "pink": 330,
    "brown": 30,
}
HUE_TOLERANCE = 20
STEP = {"volume": 10}
HIGH_RISK_TYPES = frozenset({"Lock", "Valve", "GarageDoor"})


# --- the home, as the sampler sees it ------------------------------------------------


def names_of(device: Device) -> tuple[str, ...]:
    return (device.name, *device.aliases)


def names_of_scene(scene: Scene) -> tuple[str, ...]:
    return (scene.name, *scene.aliases)


def ha_domain(device: Device) -> str:
    """The Home Assistant domain a device of this type would be in ("" for none)."""
    return DOMAINS.get(device.type, "")


@dataclass(frozen=True)
class World:
    """The home as the sampler reads it: names by id, the floor of each room."""

    home: Home
    rooms: Mapping[str, tuple[str, ...]]  # id -> name and aliases
    room_floor: Mapping[str, str]
    floors: Mapping[str, tuple[str, ...]]
    scenes: Mapping[str, Scene]

    @property
    def devices(self) -> tuple[Device, ...]:
        return self.home.devices

    def device(self, device_id: str) -> Device:
        return self.home.device(device_id)


@cache
def world(path: Path = HOME) -> World:
    home = load_home(path)
    return World(
        home,
        {r.id: (r.name, *r.aliases) for r in home.rooms},
        {r.id: r.floor for r in home.rooms if r.floor is not None},
        {f.id: (f.name, *f.aliases) for f in home.floors},
        {s.id: s for s in home.scenes},
    )


@cache
def _converter(config: str) -> Any:
    import opencc

    return opencc.OpenCC(config)


def in_script(language: str, text: str) -> str:
    """The text as a zh-TW or zh-HK user types it (OpenCC, with phrases for Taiwan)."""
    config = {"zh-TW": "s2twp", "zh-HK": "s2hk"}.get(language)
    return text if config is None else str(_converter(config).convert(text))


def simplified(text: str) -> str:
    return str(_converter("t2s").convert(text))


# --- sampling ------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    language: str
    intent: str
    block: int  # index of the data block within the intent
    index: int  # index of the sentence within the block
    text: str
    data: Any  # hassil IntentData

    @property
    def key(self) -> str:
        return f"{self.language} {self.intent}[{self.block}.{self.index}] {self.text}"


@dataclass(frozen=True)
class Sample:
    template: Template
    text: str
    slots: Mapping[str, Any]  # slot name -> value out (HA's meaning)
    words: Mapping[str, str]  # slot name -> the words said for it
    device: str | None  # the device {name} names
    scene: str | None
    room: str | None  # the {area} said
    floor: str | None
    speaker: str | None  # the speaker's room (HA's satellite area), when the block needs one
    cover_class: str | None

    @property
    def intent(self) -> str:
        return self.template.intent


@cache
def intents(language: str) -> Any:
    from hassil import Intents
    from home_assistant_intents import get_intents

    data = get_intents(language)
    if data is None:
        raise RuntimeError(f"home-assistant-intents ships no {language} data")
    return Intents.from_dict(data)


def templates(language: str) -> Iterator[Template]:
    for name, intent in sorted(intents(language).intents.items()):
        for b, block in enumerate(intent.data):
            for i, text in enumerate(block.sentence_texts):
                yield Template(language, name, b, i, text, block)


def _rules(template: Template) -> dict[str, Any]:
    return {**intents(template.language).expansion_rules, **template.data.expansion_rules}


def _slot_names(expression: Any, rules: Mapping[str, Any]) -> dict[str, str]:
    """list name -> slot name, for every list the template (and its rules) refers to."""
    from hassil.expression import Group, ListReference, RuleReference

    found: dict[str, str] = {}
    stack = [expression]
    seen: set[str] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, ListReference):
            found.setdefault(item.list_name, item.slot_name)
        elif isinstance(item, Group):
            stack.extend(item.items)
        elif isinstance(item, RuleReference) and item.rule_name not in seen:
            seen.add(item.rule_name)
            stack.append(rules[item.rule_name].expression)
    return found


def skeletons(template: Template) -> list[str]:
    """hassil's expansions of the template, lists left as {list}."""
    from hassil.parse_expression import parse_sentence
    from hassil.sample import sample_expression

    sentence = parse_sentence(template.text, keep_text=True)
    out = sample_expression(
        sentence.expression,
        expansion_rules=_rules(template),
        language=template.language,
        expand_lists=False,
    )
    return list(dict.fromkeys(s.strip() for s in itertools.islice(out, SKELETON_CAP)))


def _expand(expression: Any, language: str, rng: random.Random) -> str:
    from hassil.sample import sample_expression

    return rng.choice(list(sample_expression(expression, language=language))).strip()


def _domains(template: Template) -> tuple[str, ...]:
    data = template.data
    fixed = data.slots.get("domain")
    if isinstance(fixed, str):
        return (fixed,)
    wanted = data.requires_context.get("domain")
    if isinstance(wanted, str):
        return (wanted,)
    if wanted:
        return tuple(wanted)
    return DEFAULT_DOMAIN.get(template.intent, ())


DEFAULT_DOMAIN: dict[str, tuple[str, ...]] = {
    "HassClimateSetTemperature": ("climate",),
    "HassClimateGetTemperature": ("sensor",),
    "HassFanSetSpeed": ("fan",),
    "HassLightSet": ("light",),
    "HassMediaPause": ("media_player",),
    "HassMediaUnpause": ("media_player",),
    "HassMediaNext": ("media_player",),
    "HassMediaPrevious": ("media_player",),
    "HassMediaPlayerMute": ("media_player",),
    "HassMediaPlayerUnmute": ("media_player",),
    "HassSetVolume": ("media_player",),
    "HassSetVolumeRelative": ("media_player",),
    "HassSetPosition": ("cover",),
    "HassVacuumStart": ("vacuum",),
    "HassVacuumReturnToBase": ("vacuum",),
    "HassVacuumCleanArea": ("vacuum",),
}


def _needs(template: Template, lists: Mapping[str, str]) -> frozenset[str]:
    """Capabilities a device must have for the sample to make sense on it."""
    intent, slots = template.intent, set(lists.values())
    if intent == "HassLightSet":
        if "brightness" in slots:
            return frozenset({"brightness"})
        if "color" in slots:
            return frozenset({"color"})
        return frozenset({"color_temp"})
    if intent == "HassClimateGetTemperature":
        return frozenset() if "name" in slots else frozenset({"temperature_sensor"})
    fixed = {
        "HassClimateSetTemperature": "target_temperature",
        "HassFanSetSpeed": "fan_speed",
        "HassSetVolume": "volume",
        "HassSetVolumeRelative": "volume",
        "HassMediaPlayerMute": "volume",
        "HassMediaPlayerUnmute": "volume",
        "HassMediaPause": "media",
        "HassMediaUnpause": "media",
        "HassMediaNext": "media",
        "HassMediaPrevious": "media",
        "HassSetPosition": "cover",
    }
    if intent in fixed:
        return frozenset({fixed[intent]})
    if "state" in slots:
        state_list = next(k for k, v in lists.items() if v == "state")
        return frozenset(
            {{"lock_states": "lock", "cover_states": "cover"}.get(state_list, "onoff")}
        )
    return frozenset()


# What a template's own words ask a device to be (covers of a class, lights…) is in the
# block's domain; the name's device is drawn from the devices of the block's domains.


def _candidates(template: Template, lists: Mapping[str, str]) -> list[Device]:
    domains = set(_domains(template))
    needs = _needs(template, lists)
    return [d for d in world().devices if ha_domain(d) in domains and needs <= d.capabilities]


# Fillings whose slot value and HA's optional suffix repeat each other (一楼楼, 回家模式模式,
# 门锁锁), or that call a device that is not a light a light (客厅电视的灯光): HA's templates
# assume values without those suffixes; such a filling is drawn again.
_REPEATS = (
    ("楼", "楼"),
    ("楼", "层"),
    ("层", "楼"),
    ("层", "层"),
    ("模式", "模式"),
    ("模式", "场景"),
    ("场景", "模式"),
    ("场景", "场景"),
    ("锁", "锁"),
    ("灯", "灯"),
    ("门", "门"),
    ("机", "机"),
)


def _coherent(value: str, after: str, device: Device | None) -> bool:
    value, after = simplified(value), simplified(after)
    if any(value.endswith(a) and after.startswith(b) for a, b in _REPEATS):
        return False
    if ("楼" in value or "层" in value) and after[:1] in ("楼", "层"):
        return False  # 楼上楼, 二层楼: the floor's name already says it
    if value.endswith("的") and after.startswith("的"):
        return False
    if device is not None:
        # After a name only a plain 灯/灯光 (a light's own), never a kind (阅读台灯的台灯).
        rest = after.removeprefix("的")
        # A device's own power switch may be said after its name (客厅空调的电源).
        own = GENERIC_KINDS if ha_domain(device) == "light" else frozenset()
        allowed = own | SWITCH_AFTER_NAME
        said = _KIND_WORD.match(rest)
        if said is not None and said.group() not in allowed:
            return False
    return True


# Expansions of HA's templates that no speaker says: a doubled 的 (a list value's own 的 before
# the template's), 百分之 and % on one number, English verbs (zh-CN's <numeric_value_set>
# holds set|change|increase|decrease|make), a count asked of a temperature (温度有几个), an
# aspect after 的 or after a finished state (关闭的着, 已上锁着: zh-TW's state values and the
# template's 著 are both optional), 是多少 before what is counted (是多少吊扇是关了: HA's
# <how_many_is> is also its "what is").
_UNSAYABLE = re.compile(
    r"的的|的嘅|嘅的|嘅嘅|的[着著]|[的嘅着著了咗]咗|(上锁|锁上|[着著])[着著]|百分之[^%趴]*[%趴]|[A-JL-Za-jl-z]{2,}"
    r"|温度有几个|是多少(?![度吗呢?？]|$)"
)
_DOUBLED = re.compile(r"(\w{2,})\1")  # 车库车库: an area and a class word that are one


def _sayable(text: str, draw: _Draw) -> bool:
    """False for an expansion no speaker says, or a kind (台灯, 吊扇, 百叶窗…) the place said
    has none of: HA lists those words as synonyms of 灯, 风扇 and 窗帘 for every room."""
    if _UNSAYABLE.search(text) or _DOUBLED.search(text):
        return False
    w = world()
    room = draw.room or draw.speaker
    place: Sequence[Device] = w.devices
    if draw.device is not None:
        place = [draw.device]
    elif room is not None:
        place = [d for d in place if d.room == room]
    elif draw.floor is not None:
        place = [d for d in place if w.room_floor[d.room] == draw.floor]
    for word in set(_KIND_WORD.findall(text)) - GENERIC_KINDS:
        if not any(word in _kinds(d) for d in place):
            return False
    return True


def _called(word: str, cover_class: str) -> bool:
    """Whether some cover of that class is called by the word (COVER_WORDS)."""
    return any(
        word in words and COVER_CLASSES[device] == cover_class
        for device, words in COVER_WORDS.items()
    )


def _kinds(device: Device) -> set[str]:
    """The kind words a device is called by: in its names, and its cover words."""
    room = world().rooms[device.room][0]
    bare = [n.removeprefix(room) for n in names_of(device)]
    # A suffix of the bare name, not a substring: 阳台灯 is the balcony's 灯, not a 台灯.
    found = {k for k in _KIND_WORD.pattern.split("|") if any(b.endswith(k) for b in bare)}
    return found | set(COVER_WORDS.get(device.id, ())) | set(TYPE_KINDS.get(device.type, ()))


_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


@dataclass
class _Draw:
    device: Device | None = None
    scene: str | None = None
    room: str | None = None
    floor: str | None = None
    speaker: str | None = None
    cover_class: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)


def _draw_scenario(
    template: Template, present: set[str], lists: Mapping[str, str], rng: random.Random
) -> _Draw | None:
    """Consistent values for the slots a skeleton says: a device, its room and floor…"""
    draw = _Draw(slots=dict(template.data.slots))
    w = world()
    domains = _domains(template)
    cands = _candidates(template, lists)
    if template.data.requires_context.get("area", {}).get("slot") and "area" not in present:
        draw.speaker = "?"
    if "scene" in domains and "name" in present:
        draw.scene = rng.choice(sorted(w.scenes))
        return draw
    if "name" in present:
        if not cands:
            return draw  # a name of a domain the home lacks: filled from OTHER_NAMES
        draw.device = rng.choice(cands)
        draw.room = draw.device.room if "area" in present else None
        draw.floor = w.room_floor[draw.device.room] if "floor" in present else None
        if draw.speaker:
            draw.speaker = draw.device.room
        return draw
    if template.intent == "HassVacuumCleanArea":
        # The vacuum is sent to any room: the area is where to clean, not where it stands.
        draw.room = rng.choice(sorted(w.rooms)) if "area" in present else None
        draw.speaker = rng.choice(sorted(w.rooms)) if draw.speaker else None
        return draw
    if not cands:
        if domains and set(domains) <= set(DOMAINS.values()):
            return None
        draw.speaker = rng.choice(sorted(w.rooms)) if draw.speaker else None
        return draw
    if "cover_classes" in present:
        cands = [d for d in cands if d.id in COVER_CLASSES]
    place_rooms = sorted({d.room for d in cands})
    if "area" in present:
        draw.room = rng.choice(place_rooms)
        cands = [d for d in cands if d.room == draw.room]
    elif "floor" in present:
        draw.floor = rng.choice(sorted({w.room_floor[r] for r in place_rooms}))
        cands = [d for d in cands if w.room_floor[d.room] == draw.floor]
    elif draw.speaker:
        draw.speaker = rng.choice(place_rooms)
        cands = [d for d in cands if d.room == draw.speaker]
    if "cover_classes" in present:
        draw.cover_class = rng.choice(sorted({COVER_CLASSES[d.id] for d in cands}))
    return draw


def _number(slot: str, list_name: str, draw: _Draw, rng: random.Random) -> float:
    """A value a user would say for this slot on this device (within its limits)."""
    if slot == "temperature" and list_name == "color_temperature":
        return rng.randrange(2700, 6501, 100)
    if slot == "temperature":
        return rng.randrange(16, 30) + rng.choice((0, 0, 0.5))
    if slot in ("volume_step",):
        return rng.randrange(5, 55, 5)
    if slot in ("brightness", "percentage", "volume_level", "volume", "position"):
        return rng.randrange(1, 101)
    if list_name == "timer_hours":
        return rng.randrange(1, 13)
    return rng.randrange(1, 60)


def _say_number(value: float, words: bool, language: str, rng: random.Random) -> str:
    from hassil.numbers import get_rbnf_engine

    if words and rng.random() < 0.4:
        spoken = get_rbnf_engine(language).format_number(value).text_by_ruleset
        if "spellout-cardinal" in spoken:
            return str(spoken["spellout-cardinal"])
    return f"{value:g}"


def _name_words(language: str, names: Sequence[str], rng: random.Random) -> str:
    return in_script(language, rng.choice(list(names)))


def fill(template: Template, skeleton: str, rng: random.Random) -> Sample | None:
    """One sentence from the skeleton, or None when no coherent filling was drawn."""
    from hassil.intents import RangeSlotList, TextSlotList, WildcardSlotList

    language = template.language
    rules = _rules(template)
    from hassil.parse_expression import parse_sentence

    lists = _slot_names(parse_sentence(template.text).expression, rules)
    present = set(_PLACEHOLDER.findall(skeleton))
    draw = _draw_scenario(template, present, lists, rng)
    if draw is None:
        return None
    w = world()
    slot_lists = {**intents(language).slot_lists, **template.data.slot_lists}
    parts = _PLACEHOLDER.split(skeleton)
    out: list[str] = []
    for n, piece in enumerate(parts):
        if n % 2 == 0:
            out.append(piece)
            continue
        list_name, slot = piece, lists.get(piece, piece)
        after = parts[n + 1] if n + 1 < len(parts) else ""
        if list_name == "name":
            if draw.scene is not None:
                said = _name_words(language, names_of_scene(w.scenes[draw.scene]), rng)
            elif draw.device is not None:
                said = _name_words(language, names_of(draw.device), rng)
            else:
                other = [d for d in _domains(template) if d in OTHER_NAMES] or ["script"]
                said = in_script(language, rng.choice(OTHER_NAMES[rng.choice(other)]))
            draw.slots["name"] = said
        elif list_name == "area":
            room = draw.room or draw.speaker or rng.choice(sorted(w.rooms))
            draw.room = room
            said = _name_words(language, w.rooms[room], rng)
            draw.slots["area"] = room
        elif list_name == "floor":
            floor = draw.floor or rng.choice(sorted(w.floors))
            draw.floor = floor
            said = _name_words(language, w.floors[floor], rng)
            draw.slots["floor"] = floor
        elif list_name in WILDCARDS or isinstance(slot_lists.get(list_name), WildcardSlotList):
            meant = rng.choice(WILDCARDS.get(list_name, ("那个",)))
            said = in_script(language, meant)
            draw.slots[slot] = meant
        else:
            slot_list = slot_lists[list_name]
            if isinstance(slot_list, RangeSlotList):
                value = _number(slot, list_name, draw, rng)
                said = _say_number(value, slot_list.words, language, rng)
                multiplier = slot_list.multiplier or 1
                draw.slots[slot] = value * multiplier
            else:
                assert isinstance(slot_list, TextSlotList)
                values = slot_list.values
                if list_name == "cover_classes" and draw.cover_class is not None:
                    values = [v for v in values if v.value_out == draw.cover_class]
                elif list_name == "cover_classes" and draw.device is not None:
                    values = [v for v in values if v.value_out == COVER_CLASSES.get(draw.device.id)]
                if not values:
                    return None
                value = rng.choice(values)
                said = _expand(value.text_in, language, rng)
                draw.slots[slot] = value.value_out
                draw.slots[f"{slot}@list"] = list_name
                draw.slots[f"{slot}@words"] = said
                if list_name == "cover_classes":
                    draw.cover_class = str(value.value_out)
                    if not _called(simplified(said), draw.cover_class):
                        return None
        if not _coherent(said, after, draw.device if list_name == "name" else None):
            return None
        draw.words[slot] = said
        out.append(said)
    text = "".join(out).strip()
    if not _sayable(simplified(text), draw):
        return None
    return Sample(
        template,
        text,
        dict(draw.slots),
        dict(draw.words),
        draw.device.id if draw.device is not None else None,
        draw.scene,
        draw.room,
        draw.floor,
        draw.speaker,
        draw.cover_class,
    )


def sample_template(template: Template, per_template: int = PER_TEMPLATE) -> list[Sample]:
    """Up to `per_template` distinct sentences of one template, seeded by its place."""
    rng = random.Random(f"{SEED}:{template.key}")
    shapes = skeletons(template)
    rng.shuffle(shapes)
    seen: dict[str, Sample] = {}
    for attempt in range(per_template * DRAWS):
        sample = fill(template, shapes[attempt % len(shapes)], rng)
        if sample is not None and sample.text not in seen:
            seen[sample.text] = sample
            if len(seen) >= per_template:
                break
    return list(seen.values())


def samples(language: str, per_template: int = PER_TEMPLATE) -> list[Sample]:
    return [s for t in templates(language) for s in sample_template(t, per_template)]


# --- what a sample means in jiayu --------------------------------------------------


@dataclass(frozen=True)
class Command:
    device: str
    command: str
    params: Mapping[str, Any] = field(default_factory=dict)
    """Each checked param: an exact value, or (low, high) inclusive."""

    def matches(self, sent: Mapping[str, Any]) -> bool:
        if sent["device"] != self.device or sent["command"] != self.command:
            return False
        got = sent.get("params", {})
        for key, want in self.params.items():
            if key not in got:
                return False
            if isinstance(want, tuple):
                if not want[0] <= got[key] <= want[1]:
                    return False
            elif got[key] != want:
                return False
        return True


@dataclass(frozen=True)
class Reading:
    """One acceptable result: an outcome, and the commands sent (or pending, for confirm)
    or the devices answered about."""

    outcome: str
    commands: tuple[Command, ...] = ()
    answers: frozenset[str] = frozenset()
    delay: float | None = None
    """Seconds from the turn to a scheduled command."""

    @property
    def devices(self) -> set[str]:
        return {c.device for c in self.commands} | set(self.answers)


@dataclass(frozen=True)
class Meaning:
    readings: tuple[Reading, ...]

    @property
    def devices(self) -> set[str]:
        return set().union(*(r.devices for r in self.readings))


@dataclass(frozen=True)
class Unsupported:
    reason: str


def meaning(sample: Sample) -> Meaning | Unsupported:
    """What jiayu should do with the sample, by the intent and its slots."""
    intent = sample.intent
    if intent == "HassStartTimer" and "conversation_command" in sample.slots:
        return _delayed(sample)
    if intent in UNSUPPORTED_INTENTS:
        return Unsupported(intent)
    domains = _domains(sample.template)
    text = simplified(sample.template.text)
    if intent == "HassGetState" and set(domains) & {"person", "binary_sensor"}:
        return Unsupported(f"{intent} ({'/'.join(sorted(set(domains) & set(OTHER_NAMES)))})")
    if intent == "HassGetState" and re.search("电量|多少电|电池|電量|電池", text):
        return Unsupported(f"{intent} (battery)")
    if intent == "HassTurnOn" and "script" in domains:
        return Unsupported(f"{intent} (script)")
    if intent == "HassSetPosition" and _domain_of(sample.device) == "valve":
        return Unsupported(f"{intent} (valve position)")
    if sample.slots.get("color") == "black":
        return Unsupported(f"{intent} (colour black)")
    if sample.scene is not None:
        steps = world().scenes[sample.scene].steps
        commands = tuple(Command(s.device, s.command, dict(s.params)) for s in steps)
        return Meaning((Reading("executed", commands),))
    if intent == "HassNevermind":
        return Meaning((Reading("noop"),))
    if "name" in sample.slots and sample.device is None and sample.scene is None:
        return Unsupported(f"{intent} ({'/'.join(domains)})")
    sets = targets(sample)
    readings = tuple(r for t in sets for r in _act(sample, t))
    if intent in VALUE_ONLY and not re.search(VALUE_ONLY[intent], simplified(sample.text)):
        # 把大厅调成46%: no word says what is set, and a question back is the contract's
        # answer to an ambiguous clause (HA's template means the lights or the thermostat).
        readings += (Reading("clarify"),)
    return Meaning(readings)


# What the commands a timer runs (HassStartTimer's {timer_command}) mean in the home.
TIMER_COMMANDS = {
    "关掉电视": Command("tv_living", "turn_off"),
    "打开书房台灯": Command("lamp_study", "turn_on"),
    "关闭主卧空调": Command("ac_master", "turn_off"),
}


def _delayed(sample: Sample) -> Meaning:
    """A command after a delay: jiayu's `scheduled`, `delay` seconds from now."""
    command = TIMER_COMMANDS[sample.slots["conversation_command"]]
    units = {"hours": 3600, "minutes": 60, "seconds": 1}
    delay = sum(float(sample.slots.get(k, 0)) * n for k, n in units.items())
    return Meaning((Reading("scheduled", (command,), delay=delay),))


# A state asked of without a word that asks or describes (吗, 是, 正在, 已, 着…) is a command.
COMMANDED = {
    "on": "HassTurnOn",
    "open": "HassTurnOn",
    "locked": "HassTurnOn",
    "off": "HassTurnOff",
    "closed": "HassTurnOff",
    "unlocked": "HassTurnOff",
}
_ASKS = re.compile(
    r"[吗嗎呢呀?？]|不|否|(?<!所)有|哪|几|幾|多少|什么|怎|如何|是|系|处于|正|已|着|著|在|了|中|紧"
)


# What makes a question one over a set (有没有灯开着, 哪些灯开着, 几盏灯开着, 都…).
_OVER_A_SET = re.compile(r"有没有|有任何|任何|有无|有冇|哪|边|几|幾|多少|所有|全部|都|家里|全屋")


# Words that say what is set or stopped; without one, the sentence may be asked back.
VALUE_ONLY = {
    "HassLightSet": "灯|亮度|照明|颜色|色温|光",
    "HassClimateSetTemperature": "温度|空调|冷气|度",
    # 主卧的停止: 停止 is a cover's stop as well as a player's pause.
    "HassMediaPause": "播放|音乐|节目|媒体|歌|暂停|音箱|音响|电视",
}


def _domain_of(device_id: str | None) -> str:
    return "" if device_id is None else ha_domain(world().device(device_id))


def _place_devices(sample: Sample, domain_devices: Sequence[Device]) -> list[Device]:
    w = world()
    room = sample.room or (None if sample.floor else sample.speaker)
    found = list(domain_devices)
    if room is not None:
        found = [d for d in found if d.room == room]
    if sample.floor is not None:
        found = [d for d in found if w.room_floor[d.room] == sample.floor]
    return found


def targets(sample: Sample) -> list[list[Device]]:
    """The devices the sample is about, under each reading jiayu's contract allows."""
    w = world()
    if sample.device is not None:
        return [[w.device(sample.device)]]
    if sample.intent == "HassVacuumCleanArea":
        return [[d for d in w.devices if ha_domain(d) == "vacuum"]]
    domains = set(_domains(sample.template))
    if sample.intent == "HassClimateGetTemperature":
        domains = {"sensor"}
    said = simplified(sample.text)
    if (
        domains == {"switch"}
        and _LIGHT_WORD.search(said)
        and not any(x in said for x in SWITCH_WORDS)
    ):
        domains = {"light"}  # zh-TW's <switch> words include 燈光
    devices = [d for d in w.devices if ha_domain(d) in domains]
    everywhere = any(x in said for x in ("家里", "家中", "全屋", "整个家"))
    if sample.cover_class is not None:
        devices = [d for d in devices if ha_domain(d) != "cover" or d.id in COVER_CLASSES]
        classes = _classes_said(sample)
        by_class = [d for d in devices if COVER_CLASSES.get(d.id) in classes]
        # 窗帘 is jiayu's type word for every blind: the class or the type.
        by_type = [d for d in devices if d.type == "Blind"]
        readings = [_place_devices(sample, by_class)]
        if classes & {"curtain", "blind", "shade", "shutter"}:
            readings.append(_place_devices(sample, by_type))
        return readings
    placed = _place_devices(sample, devices)
    readings = [placed]
    quantified = any(x in said for x in ("所有", "全部"))
    spoken = sample.room is not None or sample.floor is not None
    if quantified and not spoken:
        # 所有灯 said in a room: the home's (the words) or the room's (HA's satellite area).
        readings = [devices, placed] if not everywhere else [devices]
    if domains & {"light", "fan"}:
        # A name before a type word: “书房的台灯” is the device whose bare name is 台灯; said
        # with no place, the contract's name may be in another room than the speaker's.
        here, anywhere, bare = _named(sample, said, devices)
        if spoken and here:
            # A question over 书房的灯 may be asked of the study's lights as a set.
            keep = quantified or sample.intent == "HassGetState"
            readings = [here, *readings] if keep else [here]
        elif not spoken:
            readings += [r for r in (here, anywhere) if r]
        if bare and not (spoken and here):
            readings.append(bare)
    return readings


def _classes_said(sample: Sample) -> set[str]:
    """Every cover class whose words include the words said (zh-TW gives 窗簾 to three)."""
    from hassil.sample import sample_expression

    said = sample.words.get("device_class")
    if said is None:
        return {sample.cover_class} if sample.cover_class else set()
    language = sample.template.language
    slot_list = intents(language).slot_lists["cover_classes"]
    return {
        str(v.value_out)
        for v in slot_list.values
        if said in {t.strip() for t in sample_expression(v.text_in, language=language)}
    }


def _named(
    sample: Sample, said: str, devices: Sequence[Device]
) -> tuple[list[Device], list[Device], list[Device]]:
    """The devices a light or fan word names by their own names, under jiayu's contract:
    exactly (客厅的灯 is the device named 客厅灯), by a kind (台灯, 吊扇: the devices of that
    kind, here and anywhere), and by a bare name (书房灯 is the study's 灯: one reading of
    工作间的灯 beside the set of the study's lights)."""
    w = world()
    room = sample.room or sample.speaker
    spoken_room = simplified(sample.words.get("area", ""))
    words = list(dict.fromkeys(_KIND_WORD.findall(said)))
    generic = [k for k in words if k in GENERIC_KINDS]
    kinds = [k for k in words if k not in GENERIC_KINDS]
    exact = [d for d in devices if any(spoken_room + k in names_of(d) for k in generic)]
    if spoken_room and exact:
        return exact, [], []
    by_kind = [d for d in devices if set(kinds) & _kinds(d)]
    bare = [
        d
        for d in devices
        if any(n.removeprefix(w.rooms[d.room][0]) == k for k in generic for n in names_of(d))
    ]
    if room is None and sample.floor is None:
        return by_kind, by_kind, []
    here = _place_devices(sample, by_kind)
    if room is None:
        return here, by_kind, []  # a floor: 一楼的灯 is a set, no bare name
    # Said with no place of its own, the contract's bare name wins wherever it is (风扇 in
    # the bathroom is the device named 客厅风扇); said with a place, it is one reading there.
    if sample.room is None:
        # Several with that bare name are narrowed by the speaker's room.
        in_room = [d for d in bare if d.room == room]
        return here, by_kind, in_room or bare
    return here, by_kind, _place_devices(sample, bare)


def _act(sample: Sample, devices: list[Device], intent: str = "") -> Iterator[Reading]:
    """The readings of the intent (the sample's, unless given) on one set of devices."""
    intent, slots = intent or sample.intent, sample.slots
    if intent == "HassGetState" or intent == "HassClimateGetTemperature":
        if devices:
            yield Reading("answered", answers=frozenset(d.id for d in devices))
        said = simplified(sample.text)
        unplaced = sample.room is None and sample.floor is None and sample.speaker is None
        if unplaced and len(devices) > 1 and not _OVER_A_SET.search(said):
            # 灯光是开着的吗 with fourteen lights: a type word with no place, no quantifier and
            # several matches is asked back by the contract (HA answers for all of them).
            yield Reading("clarify")
        state = slots.get("state")
        if state in COMMANDED and not _ASKS.search(said):
            # 全部灯光关上, 所有的台灯开: with every optional part left out HA's question is
            # the command in words, and jiayu may take it as one.
            yield from _act(sample, devices, COMMANDED[state])
        return
    commands: list[Command] = []
    for device in devices:
        command = _command(intent, slots, device)
        if command is not None:
            commands.append(command)
    if not commands:
        yield Reading("rejected")
        return
    risky = [c for c in commands if _high_risk(c)]
    yield Reading("confirm" if risky else "executed", tuple(commands))
    if slots.get("color") == "white":
        # 白色 is a colour temperature by jiayu's contract: a colour-only light may be skipped.
        kept = tuple(c for c in commands if c.command != "set_color")
        yield Reading("executed", kept) if kept else Reading("rejected")
    if intent == "HassTurnOn" and "开大" in simplified(sample.text):
        # Cantonese 開大 is also "open wider": one step up from where the cover stands.
        yield Reading(
            "confirm" if risky else "executed",
            tuple(Command(c.device, "set_position") for c in commands),
        )


def _high_risk(command: Command) -> bool:
    device = world().device(command.device)
    if command.command in ("unlock", "open_valve"):
        return True
    if device.type in HIGH_RISK_TYPES and command.command in ("open", "turn_on"):
        return True
    value = command.params.get("value")
    return device.type in HIGH_RISK_TYPES and command.command == "set_position" and value != 0


def _command(intent: str, slots: Mapping[str, Any], device: Device) -> Command | None:
    """The jiayu command for the intent on one device, or None when it cannot."""
    caps = device.capabilities
    if intent in ("HassTurnOn", "HassTurnOff"):
        on = intent == "HassTurnOn"
        if "cover" in caps:
            return Command(device.id, "open" if on else "close")
        if "valve" in caps:
            return Command(device.id, "open_valve" if on else "close_valve")
        if "lock" in caps:  # HA: a lock turned on is locked
            return Command(device.id, "lock" if on else "unlock")
        if "onoff" in caps:
            return Command(device.id, "turn_on" if on else "turn_off")
        return None
    if intent == "HassLightSet":
        return _light_set(slots, device)
    if intent == "HassClimateSetTemperature" and "target_temperature" in caps:
        return Command(device.id, "set_temperature", {"value": float(slots["temperature"])})
    if intent == "HassFanSetSpeed" and "fan_speed" in caps:
        pct = slots["percentage"]
        level = "low" if pct <= 33 else "medium" if pct <= 66 else "high"
        return Command(device.id, "set_fan_speed", {"speed": level})
    if intent == "HassSetPosition" and "cover" in caps:
        return Command(device.id, "set_position", {"value": int(slots["position"])})
    simple = {
        "HassMediaPause": ("media", "pause"),
        "HassMediaUnpause": ("media", "play"),
        "HassMediaNext": ("media", "next_track"),
        "HassMediaPrevious": ("media", "previous_track"),
        "HassMediaPlayerMute": ("volume", "mute"),
        "HassMediaPlayerUnmute": ("volume", "unmute"),
        "HassVacuumStart": ("vacuum", "start_cleaning"),
        "HassVacuumCleanArea": ("vacuum", "start_cleaning"),
        "HassVacuumReturnToBase": ("vacuum", "return_to_base"),
    }
    if intent in simple:
        cap, name = simple[intent]
        return Command(device.id, name) if cap in caps else None
    if intent == "HassSetVolume" and "volume" in caps:
        return Command(device.id, "set_volume", {"value": int(slots["volume_level"])})
    if intent == "HassSetVolumeRelative" and "volume" in caps:
        step = slots.get("volume_step", "up")
        delta = STEP["volume"] if step == "up" else -STEP["volume"] if step == "down" else step
        value = max(0, min(100, int(device.state.get("volume", 0) + float(delta))))
        return Command(device.id, "set_volume", {"value": value})
    return None


def _light_set(slots: Mapping[str, Any], device: Device) -> Command | None:
    caps, limit = device.capabilities, device.limits.get("color_temp")
    limits = {"min": 2700, "max": 6500} if limit is None else {"min": limit.min, "max": limit.max}
    if "brightness" in slots:
        if "brightness" not in caps:
            return None
        value = int(slots["brightness"])
        wanted: Any = (0, 1) if value <= 1 else value
        return Command(device.id, "set_brightness", {"value": wanted})
    if "color" in slots:
        colour = slots["color"]
        if colour == "white":
            if "color_temp" in caps:
                return Command(device.id, "set_color_temp", {"value": limits["max"]})
            return (
                Command(device.id, "set_color", {"saturation": (0, 10)})
                if "color" in caps
                else None
            )
        if "color" not in caps:
            return None
        hue = HUES[colour]
        low, high = hue - HUE_TOLERANCE, hue + HUE_TOLERANCE
        return Command(device.id, "set_color", {"hue": (low, high)})
    if "temperature" in slots and "color_temp" in caps:
        kelvin = slots["temperature"]
        if slots.get("temperature@list") == "color_temperature_names":
            said = simplified(str(slots.get("temperature@words", "")))
            for words, value in KELVIN_WORDS:
                if any(w in said for w in words):
                    kelvin = value if isinstance(value, int) else limits[value]
                    break
        return Command(device.id, "set_color_temp", {"value": int(kelvin)})
    return None


# --- judging -------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    sample: Sample
    kind: str  # right, wrong-device, unknown, other-wrong; unsupported: quiet, acted
    outcome: str
    sent: tuple[dict[str, Any], ...]
    reply: str
    expected: Meaning | Unsupported


def judge(sample: Sample, engine: Any) -> Verdict:
    """Run the sample in a fresh session on a fresh simulated hub; compare."""
    expected = meaning(sample)
    started = datetime.now().astimezone()
    result = engine.fresh().turn(sample.text, "ha", area=sample.speaker)
    sent = tuple(result.commands) + tuple(result.pending)
    outcome = result.outcome
    if isinstance(expected, Unsupported):
        acted = bool(result.commands) or outcome in ("executed", "scheduled")
        kind = "acted" if acted else "quiet"
        return Verdict(sample, kind, outcome, sent, result.reply, expected)
    if any(_fits(r, result, started) for r in expected.readings):
        kind = "right"
    elif {c["device"] for c in sent} - expected.devices:
        kind = "wrong-device"
    elif outcome == "unknown":
        kind = "unknown"
    else:
        kind = "other-wrong"
    return Verdict(sample, kind, outcome, sent, result.reply, expected)


def _fits(reading: Reading, result: Any, started: datetime) -> bool:
    if result.outcome != reading.outcome:
        return False
    if reading.delay is not None:
        if len(result.scheduled) != 1:
            return False
        (entry,) = result.scheduled
        late = datetime.fromisoformat(entry["at"]) - started
        return abs(late.total_seconds() - reading.delay) < 90 and all(
            any(c.matches(sent) for c in reading.commands) for sent in entry["commands"]
        )
    if reading.outcome == "answered":
        answered = {a["device"] for a in result.answers}
        return bool(answered) and answered <= reading.answers
    sent = list(result.pending if reading.outcome == "confirm" else result.commands)
    if reading.outcome == "confirm":
        sent += list(result.commands)
    if len(sent) != len(reading.commands):
        return False
    left = list(reading.commands)
    for command in sent:
        match = next((c for c in left if c.matches(command)), None)
        if match is None:
            return False
        left.remove(match)
    return True


def engine(path: Path = HOME) -> Any:
    from jiayu.engine import Engine
    from jiayu.home import load_home

    return Engine(load_home(path))


def run(language: str, base: Any, per_template: int = PER_TEMPLATE) -> list[Verdict]:
    return [judge(s, base) for s in samples(language, per_template)]
