"""The intermediate representation: what an utterance means, before it meets devices.

Every type is a frozen dataclass with typed fields, so an IR value can be
shared between threads, compared in tests and cached. The resolver turns it
into device ids; nothing in here knows about ids of devices.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, Literal, TypeVar, cast, dataclass_transform

Action = Literal[
    "on",  # 打开 cluster: turn_on / open / unlock / open_valve, chosen per device
    "off",  # 关闭 cluster: turn_off / close / lock / close_valve
    "set",  # an absolute or extreme value
    "adjust",  # a relative change from the live value
    "query",  # read state and answer
    "scene",  # run a scene
    "mute",
    "unmute",
    "play",
    "pause",
    "next_track",
    "previous_track",
    "stop",
    "repeat",  # 再来一次
    "confirm",  # 确认 / 是的
    "cancel",  # 算了 / 不用了
    "select",  # an answer to a pending question: 书房的 / 第一个
    "remember",  # 记住我喜欢26度: store the value as the user's preference
    "schedule_cancel",  # 取消定时 / 取消关空调的定时
    "schedule_query",  # 还有多久关空调
    "oscillate_on",  # 摇头 / 摆头
    "oscillate_off",  # 别摇了 / 停止摇头
    "clean",  # 开始扫地 / 打扫一下: a vacuum's start_cleaning
    "pause_cleaning",  # 暂停扫地 / 别扫了: a vacuum only, never what plays
    "run_cycle",  # 开始洗衣服 / 开始烘干: an appliance's start_cycle
    "start",  # 开始工作: whichever of the two the device has
    "return_to_base",  # 回去充电 / 回充
]
MatchKind = Literal["exact", "alias", "pinyin", "fuzzy", "unknown"]
Quantifier = Literal["one", "all", "any"]
Op = Literal[">", "<", ">=", "<=", "=="]
Complaint = Literal["hot", "cold", "dark", "bright", "loud", "dry", "damp"]
"""What a complaint about the room is (太热了, 有点暗, 太吵)."""
Question = Literal["which", "count", "any", "all", "yes_no"]
PlaceKind = Literal["room", "floor", "group", "home", "this_room", "other_rooms"]

_Frozen = TypeVar("_Frozen")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def filled_directly(cls: type[_Frozen]) -> type[_Frozen]:
    """Make `cls` a frozen dataclass whose __init__ sets the new instance's __dict__ at once.

    The __init__ dataclasses writes for a frozen class calls object.__setattr__ once per
    field to get past the frozen __setattr__, and that is most of what making a Token, a
    Target or a Clause costs; compiling one utterance makes a dozen of them. This one takes
    the same arguments with the same defaults (a default factory is called when its argument
    is not given) and makes the same object with one such call, giving it a dict of its own.
    (Filling the instance's __dict__ in place instead was cheaper to make, but left a dict
    the interpreter does not specialise attribute reads for: every later read of a field, by
    the builder, the resolver and the planner on every turn said again, cost 3.5×.)
    The dict is set through the class's own __dict__ descriptor rather than
    object.__setattr__, which sliced its arguments into a new tuple and looked "__dict__"
    up on the type each time. The dataclass is made with init=False: an __init__ it wrote
    would only be replaced (each costs an exec at import: 6.3 → 5.0 ms to import this
    module)."""
    cls = dataclass(frozen=True, init=False)(cls)
    declared = fields(cast(Any, cls))
    names = [f.name for f in declared]
    set_dict = next(k.__dict__["__dict__"] for k in cls.__mro__ if "__dict__" in k.__dict__)
    scope: dict[str, Any] = {"_set_dict": set_dict.__set__, "_MISSING": MISSING}
    params: list[str] = []
    values: list[str] = []
    for f in declared:
        assert f.init, f"{cls.__name__}.{f.name}"
        value = f.name
        if f.default_factory is not MISSING:
            scope[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            # A new empty dict or list is made by the literal, without calling its type.
            made_new = _LITERALS.get(f.default_factory, f"_factory_{f.name}()")
            value = f"{made_new} if {f.name} is _MISSING else {f.name}"
        elif f.default is not MISSING:
            scope[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        else:
            params.append(f.name)
        values.append(f"{f.name!r}: {value}")
    assert not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__")
    made: dict[str, Any] = {}
    body = f"_set_dict(self, {{{', '.join(values)}}})"
    source = f"def __init__(self, {', '.join(params)}):\n    {body}"
    exec(source, scope, made)
    made["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", made["__init__"])
    assert names == list(made["__init__"].__code__.co_varnames[1 : len(names) + 1])
    return cls


_LITERALS: dict[object, str] = {dict: "{}", list: "[]"}


@filled_directly
class Mention:
    """A name said in the utterance, and how the lexer recognised it."""

    text: str
    """The canonical surface: the lexicon entry it matched, or what was said when unknown."""
    said: str
    """The characters actually said (differs from text after a speech-recognition slip)."""
    match: MatchKind
    """How it matched: exact, alias, pinyin (toneless), fuzzy or unknown."""


@filled_directly
class Place:
    """A place said in the utterance."""

    kind: PlaceKind
    """room/floor/group are ids in the home; home is 全屋; this_room is 这个房间/这里;
    other_rooms is 其他房间 (every room but the one in focus)."""
    id: str | None
    """The room, floor or group id; None for home, this_room and other_rooms."""
    text: str
    """The words said, for replies and the compact form."""


@filled_directly
class Target:
    """What a clause acts on: places, a name or a type word, quantified."""

    places: tuple[Place, ...] = ()
    """Places whose devices are meant (a union)."""
    name: Mention | None = None
    """A device, scene or personal name, or a bare name such as 台灯."""
    device_type: str | None = None
    """The type a type word stands for (灯 → Light)."""
    type_word: str | None = None
    """The type word as normalised (灯, 空调), for the compact form and replies."""
    quantifier: Quantifier = "one"
    """all for 所有/全部/都, any for 随便一个, otherwise one."""
    count: int | None = None
    """An explicit count (三个, 两盏)."""
    exclude: tuple[Target, ...] = ()
    """Sets taken away exactly (除卧室以外, 除了台灯, 书房除外)."""
    reference: Literal["it", "they"] | None = None
    """它/那个 binds to one recent device; 它们/这些 to the devices of the last turn."""

    @property
    def is_place_only(self) -> bool:
        """Only places were said (客厅温度多少): a place is asked, not a device."""
        return bool(self.places) and not (self.name or self.type_word or self.reference)

    @property
    def is_set(self) -> bool:
        """A quantifier, a count or an exclusion always makes a set."""
        return self.quantifier != "one" or self.count is not None or bool(self.exclude)


@filled_directly
class Value:
    """A value to set or a change to make."""

    kind: Literal["absolute", "relative", "extreme", "preferred"]
    """absolute: 调到26度; relative: 调高一点 / 调低两度; extreme: 最亮 / 最低;
    preferred: 调到我喜欢的温度 (the speaking user's stored preference for `attribute`)."""
    attribute: str | None = None
    """State attribute (brightness, color_temp, color, target_temperature, target_humidity,
    mode, fan_speed, preset, position, tilt, volume); None when only the device can tell
    (调到50)."""
    number: float | None = None
    """The number said, already in the attribute's unit; for relative, the amount."""
    word: str | None = None
    """An enum value: a mode (cool, heat, ...), a fan speed (low, medium, high, auto), a
    named light colour on color_temp (warm, cool, natural: 暖光, 冷光, 自然光), a hue on
    color (red, blue …: 红色, 蓝光) or a preset as said (睡眠风: matched to the device's own)."""
    unit: Literal["°C", "%", "K"] | None = None
    """The unit said, if any: it implies the attribute."""
    direction: int = 0
    """+1 up, -1 down for relative and extreme values; 0 for absolute."""
    warmth: int = 0
    """+1 for 调暖, -1 for 调冷/调凉: the attribute depends on the device."""
    strength: bool = False
    """The direction is of strength, said with no attribute (开大, 调小, 最强, 开满): more or
    less of what the device does. Most devices do more with a bigger number; an air
    conditioner that cools does more with a lower set point."""


@filled_directly
class Condition:
    """如果<place><attribute><op><number>就… (or 要是<device>还没锁: its state `==` 1.0 for
    in the state, 0.0 for not): checked once against live state."""

    attribute: str
    """The state attribute compared (temperature, humidity, illuminance, target_temperature)."""
    op: Op
    """How the live value compares with the threshold."""
    number: float
    """The threshold, in the attribute's unit."""
    subject: Target | None = None
    """Where to read it: a place (its sensors) or a device (its own attribute); None means
    the nearest place of the utterance or the session."""
    unit: Literal["°C", "%", "K"] | None = None
    """The unit said, if any."""


@filled_directly
class Timing:
    """When a delayed command fires (半小时后, 晚上十点, 明天早上七点)."""

    delay_s: float | None = None
    """Seconds from now (半小时后 → 1800); None when a clock time is said."""
    hour: int | None = None
    """The clock hour, 0–23, already shifted by 下午/晚上; None with a delay."""
    minute: int = 0
    """The clock minute."""
    day: int | None = None
    """0 today, 1 tomorrow (明天), 2 后天; None: the next time the clock shows hour:minute."""


@filled_directly
class Clause:
    """One action on one target."""

    action: Action
    """What to do."""
    target: Target | None = None
    """None when the clause names no target (调到26度): it is carried over."""
    value: Value | None = None
    """For set and adjust."""
    attribute: str | None = None
    """For query: the attribute asked about (None: the device's main state)."""
    ordinal: int | None = None
    """For select: 第一个 is 1."""
    scene: str | None = None
    """For scene: the scene id."""
    condition: Condition | None = None
    """如果…就…: checked once, at execution, before this clause runs."""
    negated: bool = False
    """别开灯 / 不要关空调 / 灯不用开了: nothing is sent, the reply acknowledges it."""
    when: Timing | None = None
    """A delayed command: resolved now, sent when the time comes (outcome scheduled)."""
    question: Question | None = None
    """For query over a set or a yes/no: which (哪些灯开着), count (几盏灯开着), any (有没有灯
    开着), all (门窗都关好了吗), yes_no (客厅灯是不是开着的)."""
    expected: Any = None
    """For which/count/any/all/yes_no: the state value asked about (True for 开着, False for
    关好了); `attribute` says which attribute it is."""
    complaint: Complaint | None = None
    """For adjust: a complaint about the room (太热了 is hot), which the obvious actuator of
    the place remedies (what it is and what it does is the resolver's and the planner's)."""


@filled_directly
class Token:
    """One lexed token: what it is and how it matched."""

    kind: str
    """The grammar terminal (ON, NAME, ROOM, NUM, ...)."""
    text: str
    """The canonical surface."""
    said: str
    """The characters of the normalised utterance it covers."""
    start: int
    """Offset in the normalised utterance."""
    match: MatchKind
    """exact, alias, pinyin, fuzzy or unknown."""
    value: Any = None
    """The payload: an id, a number, an attribute, a direction."""


@filled_directly
class Parse:
    """A successful compile."""

    text: str
    """The normalised utterance."""
    clauses: tuple[Clause, ...]
    """In the order said, each with the condition that guards it, if any."""
    confidence: float
    """In [0, 1]; below CONFIDENCE_THRESHOLD the engine prefers the fallback."""
    tokens: tuple[Token, ...] = field(default=(), compare=False)
    """The tokens the parser saw, for explanation."""


@filled_directly
class NoParse:
    """A compile that failed: where and why, never an exception."""

    text: str
    """The normalised utterance."""
    position: int
    """Offset in the normalised utterance where understanding stopped."""
    reason: str
    """A named reason: empty, too_long, no_words, unexpected_word, incomplete, unsupported."""
    detail: str
    """A human explanation for grammar authors."""
    tokens: tuple[Token, ...] = field(default=(), compare=False)
    """The tokens lexed before the failure."""


Compiled = Parse | NoParse


def to_json(parsed: Compiled) -> dict[str, Any]:
    """The Result's `ir`: the whole IR as plain JSON, tokens left out.

    A plain walk over the fields: `dataclasses.asdict` deep-copied every token only for
    them to be thrown away, a quarter of a whole turn."""
    data = _plain(parsed)
    data["kind"] = "parse" if isinstance(parsed, Parse) else "no_parse"
    return data  # type: ignore[no-any-return]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [v if type(v) in _LEAVES else _plain(v) for v in value]
    kind = type(value)
    try:
        names = _FIELDS[kind]
    except KeyError:
        names = _FIELDS[kind] = _field_names(kind)
    if names is None:
        return value
    plain: dict[str, Any] = {}
    for name in names:
        v = getattr(value, name)
        plain[name] = v if type(v) in _LEAVES else _plain(v)
    return plain


def _field_names(kind: type) -> tuple[str, ...] | None:
    if not is_dataclass(kind):
        return None
    return tuple(f.name for f in fields(kind) if f.name != "tokens")


# Most of what the walk meets are leaves (None, a word, a number): they are kept as they are
# without a call, and the fields of each IR type are looked up once (None for a leaf type).
_LEAVES = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...] | None] = {}


@filled_directly
class Command:
    """One command for one device."""

    device: str
    command: str
    params: dict[str, object] = field(default_factory=dict, hash=False)

    @property
    def params_text(self) -> str:
        """The params as text that compares equal when they are equal ("" for none, as most
        commands of a whole-home turn have): params are a dict, so not hashable themselves."""
        return repr(sorted(self.params.items())) if self.params else ""
