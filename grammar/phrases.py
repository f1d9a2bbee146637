"""Words out: every word a reply is made of, as data (`vocab.py` holds the words in).

A reply is built by `say(key, **values)`: the template under `key` with its named fields
filled. Code passes keys and values (device names, numbers, attribute and action names),
never Chinese, so the words can change here alone and no code searches a reply for meaning.

Keys are `<kind>.<name>`: `ask.*` questions back, `refuse.*` why something is not done,
`what.*` what a device cannot do, `done.*` / `doing.*` / `later.*` what is done (and its
tenses), `failed.*` what failed, `told.*` what a session is told at its next reply,
`answer.*` / `reading.*` / `value.*` / `when.*` / `names.*` the pieces of a reply, `word.*`
a single word used as a value.

A field's format spec may name a word table (`{action:action}` says the action `on` as
打开) or a way to join a list (`{names:or}` says [a, b, c] as a、b还是c); any other spec is
Python's own (`{at:%H:%M}`).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from functools import cache
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
    # Capabilities of revision 3 (issue 20).
    "oscillate_on": "摇头",
    "oscillate_off": "停止摇头",
    "clean": "启动",
    "run_cycle": "启动",
    "start": "启动",
    "return_to_base": "回去充电",
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
    # Capabilities of revision 3 (issue 20): said after the device (done.after).
    "oscillate_on": "开始摇头",
    "oscillate_off": "停止摇头",
    "start_cleaning": "开始打扫",
    "pause_cleaning": "暂停打扫",
    "return_to_base": "回去充电",
    "start_cycle": "开始运行",
    "pause_cycle": "暂停运行",
    "stop_cycle": "停止运行",
}
"""A device command that takes no value, as the verb of what was done (已打开客厅灯)."""

FAULT_WORDS: Final = {
    "offline": "设备离线",
    "timeout": "响应超时",
    "refused": "设备拒绝执行",
    "unconfirmed": "可能没有执行（设备没有确认）",
    "error": "设备出错",
}
"""A hub's failure reasons, as said to a person; a hub fails with one of these keys."""

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
        # Capabilities of revision 3 (issue 20).
        "color": "颜色",
        "oscillating": "摇头",
        "preset": "模式",
        "target_humidity": "湿度",
        "tilt": "角度",
        "status": "状态",
        "state": "状态",
        "battery": "电量",
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
        "target_humidity": "%",
        "tilt": "%",
    },
    "range_unit": {"target_temperature": "度", "color_temp": "K"},
    # Capabilities of revision 3 (issue 20): a vacuum's or an appliance's status, a hue.
    "status": {
        "cleaning": "正在打扫",
        "paused": "已暂停",
        "returning": "正在回充",
        "docked": "在充电座上",
        "idle": "空闲",
        "error": "出故障了",
        "running": "正在运行",
    },
    "hue": {
        "red": "红色",
        "orange": "橙色",
        "yellow": "黄色",
        "green": "绿色",
        "cyan": "青色",
        "blue": "蓝色",
        "purple": "紫色",
        "pink": "粉色",
    },
    "classifier": {"Light": "盏", "AirConditioner": "台", "Television": "台", "Washer": "台"},
    "count": dict(zip("123456789", "一两三四五六七八九", strict=True)),  # 两个, not 二个
    # A device's state as an answer says it (入户门锁已上锁) ...
    "answer_yes": {
        "on": "开着",
        "open": "开着",
        "locked": "已上锁",
        "playing": "正在播放",
        "muted": "已静音",
        "oscillating": "在摇头",
    },
    "answer_no": {
        "on": "关着",
        "open": "关着",
        "locked": "没有上锁",
        "playing": "没有在播放",
        "muted": "没有静音",
        "oscillating": "没有摇头",
    },
    # ... and as a yes/no question's summary says it (有，客厅灯和卧室灯开着).
    "state_yes": {
        "on": "开着",
        "open": "开着",
        "position": "开着",
        "locked": "锁着",
        "playing": "在播放",
        "muted": "静音了",
        "oscillating": "在摇头",  # issue 20
    },
    "state_no": {
        "on": "关着",
        "open": "关着",
        "position": "关着",
        "locked": "没锁",
        "playing": "没在播放",
        "muted": "没静音",
        "oscillating": "没摇头",  # issue 20
    },
    # What a hub's failure reason means, said to a person (设备离线).
    "fault": FAULT_WORDS,
    # The verb a clause said it does not want done (不开了).
    "negated": {"on": "开", "off": "关", "set": "调", "adjust": "调", "scene": "执行"},
    # How a condition compares (没有超过26度).
    "comparison": {">": "超过", "<": "低于", ">=": "达到", "<=": "不超过"},
    # A light's colour a user likes, said by its name (你喜欢暖光).
    "light": {"warm": "暖光", "cool": "冷光", "natural": "自然光"},
}
"""Word tables, named by the format spec that looks a value up in them."""

UNKNOWN_WORDS: Final[Mapping[str, str]] = {
    "action": "操作",
    "classifier": "个",
    "unit": "",
    "range_unit": "",
    "state_yes": "是",
    "state_no": "不是",
    "negated": "动",
}
"""What a table says for a value it lacks; a table not listed says the value itself."""

JOINS: Final[Mapping[str, tuple[str, str]]] = {
    "list": ("、", "、"),
    "and": ("、", "和"),
    "or": ("、", "还是"),
    "clauses": ("，", "，"),
    "refusals": ("；", "；"),
    "sentences": ("。", "。"),
}
"""Ways to say a list: the separator between items, and the one before the last."""

TEMPLATES: Final[Mapping[str, str]] = {
    # Questions back (resolver).
    "ask.which_device": "要{action:action}哪个设备？",
    "ask.which_referent": "你说的是哪个设备？我不确定要{action:action}哪个。",
    "ask.which_room": "“{place}”是指哪个房间？",
    "ask.which_room_unsaid": "是哪个房间的？",
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
    "what.set": "调{attribute:attribute}",
    "what.read": "读取{attribute:attribute}",
    # Pieces of replies (planner).
    "names.listed": "{names:and}",
    "names.counted": " {count} {kind:classifier}{noun}",
    "value.mode": "{mode:mode}",
    "value.speed": "{speed:speed}",
    "value.number": "{number}{attribute:unit}",
    "value.status": "{status:status}",  # issue 20
    "value.hue": "{hue:hue}",  # issue 20
    "refuse.light_off": "{name}是关着的，没有调暗",  # issue 23: 调暗 an off light
    "refuse.strength_mode": "{name}现在是{mode:mode}模式，不知道开大是要调高还是调低温度",
    "refuse.no_preset": "{name}没有“{preset}”，可选：{presets:list}",  # issue 20
    "done.command": "已{command:command}{devices}",
    "done.after": "{devices}已{command:command}",  # issue 20: 扫地机器人已开始打扫
    "answer.status_no": "没有，{states:clauses}",
    "done.set": "已把{devices}{attribute:attribute}调到{value}",
    "done.all": "{parts:clauses}",
    "answer.unreported": "{name}没有报告{attribute:attribute}",
    "answer.yes": "{name}{attribute:answer_yes}",
    "answer.no": "{name}{attribute:answer_no}",
    "answer.value": "{name}{attribute:attribute}{value}",
    "reading.temperature": "{where}现在{value}",
    "reading.other": "{where}{attribute:attribute}现在{value}",
    "reading.state": "{where}{state}",  # 后门没锁: a condition on a device's state
    "when.half_hour": "半小时后",
    "when.minutes": "{minutes}分钟后",
    "when.today": "今天{at:%H:%M}",
    "when.tomorrow": "明天{at:%H:%M}",
    "when.day_after": "后天{at:%H:%M}",
    "when.date": "{at.month}月{at.day}日{at:%H:%M}",
    # Confirmations of high-risk commands (issue 19: only a statement confirms, in time,
    # by the user who asked).
    "ask.confirm_again": "还没有执行：确定要{when}{command:command}{names:list}吗？请说“确认”。",
    "refuse.confirm_expired": "确认已过期，没有执行",
    "refuse.confirm_other_user": "要由刚才提出的人确认，还没有执行",
    # Single words.
    "word.device": "设备",
    "word.state_yes": "{attribute:state_yes}",
    "word.state_no": "{attribute:state_no}",
    # The rest of the turn (issue 18 item 4): clauses, conditions, queries, delays,
    # preferences, dialogue, the turn's end, the drivers.
    # What a turn's clauses do, and their tenses: done (已打开), doing (正在打开, said before
    # anything is sent), later (打开, after a time: 半小时后打开).
    "doing.command": "正在{command:command}{devices}",
    "doing.set": "正在把{devices}{attribute:attribute}调到{value}",
    "doing.after": "{devices}正在{command:command}",
    "later.after": "{devices}{command:command}",
    "doing.scene": "好的，正在执行{scene}",
    "later.command": "{command:command}{devices}",
    "later.set": "把{devices}{attribute:attribute}调到{value}",
    "done.ok": "好的。",
    "done.ok_then": "好的，{reply}",
    "done.negated": "好的，不{action:negated}{what}了",
    "done.scene": "好的，已执行{scene}",
    "done.scene_paced": "好的，{scene}开始了，后面{steps}步会按时执行",
    "done.scene_partly": "{scene}已部分执行",
    "done.scheduled": "好的，{when}{what}",
    "done.cancelled_schedules": "好的，已取消{count}个定时（{schedules}）",
    "done.remembered": "好的，记住了，{what}",
    "done.cancelled": "好的，已取消。",
    "done.not_doing": "好的，不操作了。",
    "done.stopped": "好的，已经停下了。",
    "failed.device": "{name}没有执行：{reason:fault}",
    "failed.scene": "{scene}没有执行成功",
    "failed.audit": "审计日志写不进去，后面的操作没有执行",
    "failed.audit_some": "审计日志写不进去，有的操作没有执行",
    "failed.crashed": "抱歉，出了点问题，后面的操作没有执行。",
    "refuse.risky_when_fired": "{names:list}现在要确认才能{command:command}，没有执行",
    "told.fired": "定时的操作：{reply}",
    # Questions back and refusals of the planner.
    "ask.what_to_do": "要对它做什么呢？",
    "ask.heard_poorly": "没太听清，你是要{action:action}{names}吗？",
    "ask.then_rest": "{question}（后面的操作等你回答后再执行）",
    "ask.confirm": "确定要{command:command}{names:list}吗？请说“确认”。",
    "ask.confirm_later": "确定要{when}{command:command}{names:list}吗？请说“确认”。",
    "ask.preference": "你喜欢的{attribute:attribute}是多少？说一下我就记住。",
    "refuse.nothing_to_repeat": "还没有可以重复的操作。",
    "refuse.nothing_asked": "现在没有在等你回答的问题。",
    "refuse.unreadable_state": "读不到{name}现在的状态：{reason:fault}",
    "refuse.invalid": "{name}没有执行：{error}",
    "refuse.each": "{reasons:refusals}",
    "refuse.where_to_read": "不知道要读哪里的{attribute:attribute}",
    "refuse.unread_condition": "读不到{where}的{attribute:attribute}，所以什么都没做",
    "refuse.condition_unmet": "{reading}，没有{op:comparison}{threshold}，所以没有执行",
    "refuse.state_unmet": "{reading}，所以没有执行",
    "refuse.no_state": "读不到这个状态",
    "refuse.bad_time": "这个时间定不了：{error}",
    "refuse.cannot_schedule": "{name}没法定时：{error}",
    "refuse.not_scheduled": "定时没有记下来：{error}",
    "refuse.not_cancelled": "定时没有取消：{error}",
    "refuse.no_such_schedule": "现在没有这样的定时。",
    "refuse.nothing_to_remember": "没听清要记住什么。",
    "refuse.cannot_remember": "这个记不了：{error}",
    "refuse.no_preference_setting": "{name}没有可以按习惯调的设置",
    "refuse.dropped": "刚才等你确认的{names:list}没有执行",
    # Not understood (compiler/understand.py).
    "refuse.heard_nothing": "抱歉，我没听清要做什么。",
    "refuse.not_home": "抱歉，这个我帮不上忙，我只会控制家里的设备。",
    "refuse.not_understood": "抱歉，我没听懂，什么都没有执行。",
    "refuse.not_understood_words": "抱歉，我没听懂{words:list}，什么都没有执行。",
    "word.quoted": "“{word}”",
    "word.here": "这里",
    # Answers to questions (planner/queries.py), schedules, preferences.
    "answer.all": "{parts:clauses}",
    "answer.unreadable": "{name}读不到：{reason:fault}",
    "answer.count_some": "有{count}个{noun}{state}：{listing}",
    "answer.count_none": "没有{noun}{state}",
    "answer.which": "{listing}{state}",
    "answer.any_yes": "有，{listing}{state}",
    "answer.any_no": "没有，{noun}都{state}",
    "answer.all_yes": "是的，{listing}{state}",
    "answer.all_yes_many": "是的，{listing}都{state}",
    "answer.all_no": "没有，{listing}{state}",
    "answer.schedule": "{when}{what}",
    "answer.schedules": "{schedules:clauses}",
    "answer.likes": "你喜欢的{attribute:attribute}是{value}",
    "answer.likes_light": "你喜欢{light:light}",
    "names.some": "{names:list}等{count}个",
    # Told at a session's next reply (the drivers).
    "told.late": "定时的操作（{text}）晚了一个多小时，没有执行",
    "told.gone": "定时的操作（{text}）要控制的设备已经不在家里了，没有执行",
    "told.earlier": "刚才{what}",
    "told.scene_done": "{scene}已经执行完了",
    "told.scene_missed": "{scene}有{missed}步没有执行成功",
    "told.all": "{messages:sentences}",
    # Issue 21 (counts, complaints, changing a running scene).
    "refuse.count_too_large": "只有 {found} 个{noun}",
    "refuse.complaint_none": "{places:list}没有能{remedy:remedy}的设备",
    "ask.complaint_room": "要{remedy:remedy}哪个房间？",
    "ask.other_scene": "要换成哪个场景？{names:or}",
    "refuse.no_scenes": "家里还没有设置场景",
    "refuse.complaint_off": "{name}没开着，没有可以{remedy:remedy}的",
    "done.stopped_then": "好的，已经停下了。{reply}",
    "done.complaint_on_already": "{name}已经开着了",
    # Stopping a scene's delayed steps under the sync API (issue 21 leftover).
    "refuse.scene_not_stopped": "场景后面的步骤没能停下：{error}",
}
"""Every reply phrase, by key."""


def _joined(items: Sequence[str], between: str, last: str) -> str:
    """[a, b, c] said as a、b和c (`between`, then `last` before the final item)."""
    if len(items) < 2:
        return "".join(items)
    return between.join(items[:-1]) + last + items[-1]


@cache
def _fields(key: str) -> tuple[str, ...]:
    """The values the template under `key` takes, in order: the root of each field
    ({at.month} takes `at`)."""
    said = (f.split(".")[0] for _, f, _, _ in string.Formatter().parse(TEMPLATES[key]) if f)
    return tuple(dict.fromkeys(said))


@cache
def _phrase(key: str) -> Callable[..., str]:
    """The template under `key` as one Python function taking its fields as keyword
    arguments: said on every turn, a template is cut and looked up once, not on each call
    (string.Formatter did both, ~1 µs a phrase, several phrases a turn). A missing or an
    extra value is then a TypeError from the call itself; `say` names which."""
    scope: dict[str, Any] = {"_str": str, "_format": format, "_joined": _joined}
    parts: list[str] = []
    for i, (literal, field, spec, _conversion) in enumerate(
        string.Formatter().parse(TEMPLATES[key])
    ):
        if literal:
            scope[f"_l{i}"] = literal
            parts.append(f"_l{i}")
        if field is None:
            continue
        value = field  # a name, or a name and its attributes (at.month)
        spec = spec or ""
        if spec in WORDS:
            scope[f"_w{i}"] = WORDS[spec]
            default = UNKNOWN_WORDS.get(spec)
            if default is None:
                parts.append(f"_w{i}.get(_str({value}), _str({value}))")
            else:
                scope[f"_u{i}"] = default
                parts.append(f"_w{i}.get(_str({value}), _u{i})")
        elif spec in JOINS:
            between, last = JOINS[spec]
            scope[f"_b{i}"], scope[f"_e{i}"] = between, last
            parts.append(f"_joined({value}, _b{i}, _e{i})")
        else:
            scope[f"_s{i}"] = spec
            parts.append(f"_format({value}, _s{i})")
    body = " + ".join(parts) if parts else '""'
    fields = _fields(key)
    params = f"*, {', '.join(fields)}" if fields else ""
    # Generated from our own templates only: field names are identifiers, values constants.
    exec(f"def phrase({params}):\n    return {body}\n", scope)
    return scope["phrase"]  # type: ignore[no-any-return]


def phrase(key: str) -> Callable[..., str]:
    """The phrase `key` as a function of its fields, taken as keyword arguments, for the few
    replies said on nearly every turn (done.all, done.ok_then, …): called directly, it skips
    say()'s lookup and its packing of the values a second time. An unknown key is a KeyError
    here, a missing or an extra field a TypeError from the call."""
    return _phrase(key)


def say(key: str, **values: object) -> str:
    """The phrase `key` with its fields filled from `values`. An unknown key or a missing
    field raises KeyError, a value the template does not use TypeError: each is a bug,
    found by the tests."""
    phrase = _phrase(key)  # an unknown key: KeyError
    try:
        return phrase(**values)
    except TypeError:
        fields = set(_fields(key))
        missing = fields - set(values)
        if missing:
            raise KeyError(sorted(missing)[0]) from None
        unused = set(values) - fields
        if unused:
            # A value the template never says is a caller and a template out of step: as
            # loud as a missing one, so neither can drift silently.
            raise TypeError(f"values not in the template: {sorted(unused)}") from None
        raise


def warm() -> None:
    """Make every phrase's function now, rather than in the first turn that says it: a
    refusal or an answer said for the first time in a process would otherwise pay for
    cutting its template (~50 µs, most of such a turn)."""
    for key in TEMPLATES:
        _phrase(key)
