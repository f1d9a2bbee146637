"""Words out: every word a reply is made of, as data (`vocab.py` holds the words in).

A reply is built by `say(key, **values)`: the template under `key` with its named fields
filled. Code passes keys and values (device names, numbers, attribute and action names),
never Chinese, so the words can change here alone and no code searches a reply for meaning.

Keys are `<kind>.<name>`: `ask.*` questions back, `refuse.*` why something is not done,
`what.*` what a device cannot do, `done.*` / `answer.*` / `reading.*` / `value.*` /
`when.*` / `names.*` the pieces of a reply, `word.*` a single word used as a value.

A field's format spec may name a word table (`{action:action}` says the action `on` as
打开) or a way to join a list (`{names:or}` says [a, b, c] as a、b还是c); any other spec is
Python's own (`{at:%H:%M}`).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any, Final

ACTION_WORDS: Final = {
    "on": "打开",
    "off": "关闭",
    "set": "调节",
    "adjust": "调节",
    "query": "查询",
    "mute": "静音",
    "unmute": "取消静音",
    "play": "播放",
    "pause": "暂停",
    "next_track": "切到下一首",
    "previous_track": "切到上一首",
    "stop": "停止",
    "scene": "执行",
    "select": "操作",
}
"""A clause's action, as the verb of a question or refusal (要打开哪个设备？)."""

COMMAND_VERBS: Final = {
    "turn_on": "打开",
    "turn_off": "关闭",
    "open": "打开",
    "close": "关闭",
    "stop": "停下",
    "lock": "锁上",
    "unlock": "解锁",
    "open_valve": "打开",
    "close_valve": "关闭",
    "mute": "静音",
    "unmute": "取消静音",
    "play": "播放",
    "pause": "暂停",
    "next_track": "切到下一首",
    "previous_track": "切到上一首",
}
"""A device command that takes no value, as the verb of what was done (已打开客厅灯)."""

WORDS: Final[Mapping[str, Mapping[str, str]]] = {
    "action": ACTION_WORDS,
    "command": COMMAND_VERBS,
    "attribute": {
        "brightness": "亮度",
        "color_temp": "色温",
        "target_temperature": "温度",
        "mode": "模式",
        "fan_speed": "风速",
        "position": "开合度",
        "volume": "音量",
        "temperature": "温度",
        "humidity": "湿度",
        "illuminance": "光照",
        "on": "开关状态",
        "locked": "锁定状态",
        "open": "阀门状态",
    },
    "mode": {"cool": "制冷", "heat": "制热", "dry": "除湿", "fan": "送风", "auto": "自动"},
    # Issue 21: what a complaint asks for (太热了 → 降温).
    "remedy": {
        "hot": "降温",
        "cold": "取暖",
        "dark": "照明",
        "bright": "调暗",
        "loud": "调小声",
        "dry": "加湿",
        "damp": "除湿",
    },
    "speed": {"low": "低速", "medium": "中速", "high": "高速", "auto": "自动"},
    # The unit a value is said with (26度, 50%), and the shorter list a range is said with
    # (可调范围是0到100: a percentage range reads without its %).
    "unit": {
        "target_temperature": "度",
        "temperature": "度",
        "color_temp": "K",
        "humidity": "%",
        "brightness": "%",
        "position": "%",
        "illuminance": "勒克斯",
    },
    "range_unit": {"target_temperature": "度", "color_temp": "K"},
    "classifier": {"Light": "盏", "AirConditioner": "台", "Television": "台", "Washer": "台"},
    "count": dict(zip("123456789", "一两三四五六七八九", strict=True)),  # 两个, not 二个
    # A device's state as an answer says it (入户门锁已上锁) ...
    "answer_yes": {
        "on": "开着",
        "open": "开着",
        "locked": "已上锁",
        "playing": "正在播放",
        "muted": "已静音",
    },
    "answer_no": {
        "on": "关着",
        "open": "关着",
        "locked": "没有上锁",
        "playing": "没有在播放",
        "muted": "没有静音",
    },
    # ... and as a yes/no question's summary says it (有，客厅灯和卧室灯开着).
    "state_yes": {
        "on": "开着",
        "open": "开着",
        "position": "开着",
        "locked": "锁着",
        "playing": "在播放",
        "muted": "静音了",
    },
    "state_no": {
        "on": "关着",
        "open": "关着",
        "position": "关着",
        "locked": "没锁",
        "playing": "没在播放",
        "muted": "没静音",
    },
}
"""Word tables, named by the format spec that looks a value up in them."""

UNKNOWN_WORDS: Final[Mapping[str, str]] = {
    "action": "操作",
    "classifier": "个",
    "unit": "",
    "range_unit": "",
    "state_yes": "是",
    "state_no": "不是",
}
"""What a table says for a value it lacks; a table not listed says the value itself."""

JOINS: Final[Mapping[str, tuple[str, str]]] = {
    "list": ("、", "、"),
    "and": ("、", "和"),
    "or": ("、", "还是"),
    "clauses": ("，", "，"),
}
"""Ways to say a list: the separator between items, and the one before the last."""

TEMPLATES: Final[Mapping[str, str]] = {
    # Questions back (resolver).
    "ask.which_device": "要{action:action}哪个设备？",
    "ask.which_referent": "你说的是哪个设备？我不确定要{action:action}哪个。",
    "ask.which_room": "“{place}”是指哪个房间？",
    "ask.which_count": "找到 {found} 个{noun}，要{action:action}哪{count:count}个？",
    "ask.too_many_rooms": "找到 {found} 个{noun}，要{action:action}哪个房间的？还是全部？",
    "ask.too_many": "找到 {found} 个{noun}，要{action:action}哪一个？还是全部？",
    "ask.rooms_of": "{rooms:or}的{bare}？",
    "ask.one_of": "{names:or}？",
    "ask.only_options": "只有 {count} 个选项，{question}",
    "ask.did_you_mean": "没有叫“{name}”的设备，你是说{question}",
    # Why not (resolver, planner).
    "refuse.not_found": "没有找到{noun}",
    "refuse.not_found_in": "没有找到{places:list}的{noun}",
    "refuse.no_such_name": "没有找到“{name}”",
    "refuse.no_such_exclusion": "没有找到要排除的“{name}”",
    "refuse.unsupported": "{names:list}不支持{what}",
    "refuse.unsupported_more": "{names:list}等不支持{what}",
    "refuse.cannot": "{name}不支持这个操作",
    "refuse.speed_unreadable": "{name}的风速读不到",
    "refuse.speed_range": "{name}风速可调范围是1到100",
    "refuse.bad_value": "{name}不接受这个值：{error}",
    "refuse.out_of_range": (
        "{name}{attribute:attribute}可调范围是{low}到{high}{attribute:range_unit}"
    ),
    "refuse.unreadable": "读不到{name}现在的{attribute:attribute}",
    # What a device cannot do, inside refuse.unsupported.
    "what.do": "{action:action}",
    "what.set": "调节{attribute:attribute}",
    "what.read": "读取{attribute:attribute}",
    # Pieces of replies (planner).
    "names.listed": "{names:and}",
    "names.counted": " {count} {kind:classifier}{noun}",
    "value.mode": "{mode:mode}",
    "value.speed": "{speed:speed}",
    "value.number": "{number}{attribute:unit}",
    "done.command": "已{command:command}{devices}",
    "done.set": "已把{devices}{attribute:attribute}调到{value}",
    "done.all": "{parts:clauses}",
    "answer.unreported": "{name}没有报告{attribute:attribute}",
    "answer.yes": "{name}{attribute:answer_yes}",
    "answer.no": "{name}{attribute:answer_no}",
    "answer.value": "{name}{attribute:attribute}{value}",
    "reading.temperature": "{where}现在{value}",
    "reading.other": "{where}{attribute:attribute}现在{value}",
    "when.half_hour": "半小时后",
    "when.minutes": "{minutes}分钟后",
    "when.today": "今天{at:%H:%M}",
    "when.tomorrow": "明天{at:%H:%M}",
    "when.day_after": "后天{at:%H:%M}",
    "when.date": "{at.month}月{at.day}日{at:%H:%M}",
    # Single words.
    "word.device": "设备",
    "word.attribute": "{attribute:attribute}",
    "word.state_yes": "{attribute:state_yes}",
    "word.state_no": "{attribute:state_no}",
    # Issue 21 (counts, complaints, changing a running scene).
    "refuse.count_too_large": "只有 {found} 个{noun}",
    "refuse.complaint_none": "{places:list}没有能{remedy:remedy}的设备",
    "ask.complaint_room": "要{remedy:remedy}哪个房间？",
    "ask.other_scene": "要换成哪个场景？{names:or}",
    "refuse.no_scenes": "家里还没有设置场景",
    "refuse.complaint_off": "{name}没开着，没有可以{remedy:remedy}的",
    "done.complaint_on_already": "{name}已经开着了",
}
"""Every reply phrase, by key."""


class _PhraseFormatter(string.Formatter):
    """str.format with word tables and joins as format specs, strict about its fields."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec in WORDS:
            name = str(value)
            return WORDS[format_spec].get(name, UNKNOWN_WORDS.get(format_spec, name))
        if format_spec in JOINS:
            items: Sequence[str] = value
            between, last = JOINS[format_spec]
            if len(items) < 2:
                return "".join(items)
            return between.join(items[:-1]) + last + items[-1]
        return super().format_field(value, format_spec)

    def check_unused_args(
        self, used_args: set[int | str], args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> None:
        # A value the template never says is a caller and a template out of step: as loud
        # as a missing one (a KeyError), so neither can drift silently.
        unused = set(kwargs) - used_args
        if unused:
            raise TypeError(f"values not in the template: {sorted(unused)}")


_FORMATTER = _PhraseFormatter()


def say(key: str, **values: object) -> str:
    """The phrase `key` with its fields filled from `values`. An unknown key, a missing
    field or a value the template does not use raises: each is a bug, found by the tests."""
    return _FORMATTER.vformat(TEMPLATES[key], (), values)


def attribute_word(attribute: str) -> str:
    """The word for a state attribute. Kept for jiayu/engine.py, whose replies have not
    moved to the phrase book yet; new code says `{attribute:attribute}` in a template."""
    return say("word.attribute", attribute=attribute)
