"""Build the IR from a parse tree: one method per grammar rule, no reflection tricks.

Targets are parsed as a flat run of words (word order varies too much for
rules to pay off), and read here: places, a name or type word, quantifiers,
exclusions, and AND-separated parts that become one clause each.

Every word must end up in the meaning (CONTRACTS.md §2): an exclusion said as its own
phrase attaches to every clause of the phrase it qualifies, a negation said after a set
becomes an exclusion of it, and what cannot be attached raises Unsupported, so the
compile is a NoParse and nothing is sent — never a harmless-looking extra clause.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FunctionType
from typing import Any, NamedTuple, TypeVar

from jiayu.compiler.lalr import Leaf, Node
from jiayu.compiler.numbers import KELVIN_FLOOR
from jiayu.grammar.vocab import (
    COMPLAINT_REMEDIES,
    COMPLAINT_SUBJECTS,
    HUES,
    IMPLIED_BY_ACTION,
    IMPLIED_BY_STEM,
    IMPLIED_OBJECTS,
    STRENGTHS,
    TABLES,
)
from jiayu.ir import (
    Action,
    Clause,
    Complaint,
    Condition,
    MatchKind,
    Mention,
    Op,
    Place,
    PlaceKind,
    Quantifier,
    Question,
    Target,
    Timing,
    Token,
    Value,
)

PLACE_KINDS: dict[str, PlaceKind] = {
    "ROOM": "room",
    "FLOOR": "floor",
    "GROUP": "group",
    "HOME": "home",
    "THIS_ROOM": "this_room",
    "OTHER": "other_rooms",
}
"""The place a lexicon token kind stands for (shared with the LLM's compact → IR)."""
_MATCH_RANK: dict[MatchKind, int] = {"exact": 0, "alias": 1, "pinyin": 2, "fuzzy": 3, "unknown": 4}
# What 取消 <a state> undoes: the action that leaves it.
_UNDO: dict[str, Action] = {"mute": "unmute", "oscillate_on": "oscillate_off"}
_UNIT_ATTRIBUTE = {"°C": "target_temperature", "K": "color_temp"}
_TYPE_WORDS: dict[str, str] = TABLES["TYPE"]
_LEVEL_WORDS = {
    "高": "high",
    "大": "high",
    "强": "high",
    "中": "medium",
    "低": "low",
    "小": "low",
    "弱": "low",
}
# A gear said by its number (风扇开三档, 风速调到一档): the fan speeds, slowest first.
_GEARS = ("low", "medium", "high")


_Item = TypeVar("_Item")


def _replace(item: _Item, **changes: Any) -> _Item:
    """dataclasses.replace for the IR's frozen dataclasses, at a third of the cost: their
    __dict__ holds exactly their fields (jiayu/ir.py), so the copy's arguments are taken
    from it at once instead of field by field. A misspelt change still raises TypeError."""
    return type(item)(**{**item.__dict__, **changes})


class Unsupported(Exception):
    """The words parse but mean nothing jiayu can do (a level with no direction, an
    exclusion with nothing to take it from, a target left alone between commands)."""

    def __init__(self, detail: str, reason: str = "unsupported", position: int = 0) -> None:
        super().__init__(detail)
        self.reason = reason
        """A NoParse reason: unsupported, unattached (a qualifier with nothing to qualify) or
        unexpected_word (a fragment no clause takes)."""
        self.position = position
        """Offset in the normalised utterance of the words that could not be used."""


class Tail(NamedTuple):
    """What a clause does, before it meets its target. A named tuple, like the numbers
    below, not a frozen dataclass: every clause makes one, and a frozen
    dataclass costs several times as much to make."""

    action: Action
    value: Value | None = None
    attribute: str | None = None
    verb: bool = True  # False for a bare value (窗帘一半): with 打开 it means only the value
    question: Question | None = None
    expected: Any = None
    played: Token | None = None  # 暂停音乐: what is played, a type word for a place-only target


@dataclass(frozen=True)
class _Qualifier:
    """An exclusion said as its own phrase: 除了书房， (before what it limits) or
    ，客厅和卧室除外 / ，起夜灯留着 (after it)."""

    exclude: tuple[Target, ...]
    after: bool
    position: int


class _Targets(list[Target]):
    """The targets of one run of target words, and where the run starts."""

    __slots__ = ("after", "exclusion_only", "start")

    def __init__(
        self,
        targets: Sequence[Target],
        start: int,
        exclusion_only: bool = False,
        after: bool = False,
    ) -> None:
        list.__init__(self, targets)  # not super(): no proxy object made for the call
        self.start = start
        self.exclusion_only = exclusion_only
        """Nothing but an exclusion was said (除了书房 / 书房除外): it qualifies a clause."""
        self.after = after
        """The exclusion was said after what it takes away (除外, 留着), not before (除了)."""


Group = list[Clause]
"""The clauses of one phrase as said (打开所有灯和空调 is one phrase, two clauses)."""


class _Number(NamedTuple):
    value: float
    unit: Any


# A complaint about a named device is a step back from what it does too much of.
_OF_A_DEVICE: dict[str, Value] = {
    "bright": Value("relative", "brightness", direction=-1),
    "dark": Value("relative", "brightness", direction=1),
    "loud": Value("relative", "volume", direction=-1),
    "hot": Value("relative", warmth=-1),
    "cold": Value("relative", warmth=1),
}


def _one_named(target: Target) -> bool:
    """A target that is one device said by its name, and nothing else."""
    name = target.name
    return (
        name is not None
        and name.match != "unknown"
        and not target.places
        and not target.exclude
        and target.quantifier == "one"
        and target.count is None
        and target.reference is None
    )


def says_strength(word: str, attribute: str | None) -> bool:
    """Whether a change word says more or less of what the device does (开大, 调小, 最强, 开满)
    rather than which way a number goes (调高, 降低): a strength morpheme said last, and no
    attribute said or implied (温度调大 is a bigger number)."""
    return attribute is None and word.endswith(STRENGTHS)


def complaint_of(clause: Clause) -> Complaint | None:
    """The kind of complaint a clause is (hot, dark, …), or None for any other clause."""
    return clause.complaint if clause.action == "adjust" else None


# In a command, 温度 and 湿度 are the set point; in a query or a condition, the sensors.
_SET_POINTS = {"temperature": "target_temperature", "humidity": "target_humidity"}


def _set_attribute(attribute: str | None) -> str | None:
    return _SET_POINTS.get(attribute or "", attribute)


Build = Callable[..., tuple[Clause, ...]]
"""Builds one tree's clauses, each carrying the condition that guards it: called with a
Builder, then the tree's words (see builder_of)."""

_BUILDS: dict[str, Build] = {}
"""The build function of each tree shape (its rules and how many children each has), by its
source: people's sentences make a few dozen shapes, random word sequences a few hundred."""
BUILDS_KEPT = 2048
"""Build functions kept (~3 KB each); a new shape costs 50–130 µs to write, once."""


def builder_of(tree: Node) -> Callable[[Builder], tuple[Clause, ...]]:
    """A function that builds `tree` bottom-up, calling the Builder's method of each rule on
    its children, left to right, as a recursive walk of the tree would. It is called with the
    Builder alone: the tree's words (its leaves) are its defaults.

    The calls are written out once per tree shape (`_BUILDS`) and the function is kept with
    the tree (compiler/parse.py), so a compile makes one call: a recursive walk makes three
    more per rule (itself, its list of children, the method lookup), each a Python call."""
    leaves: list[Leaf] = []
    lines: list[str] = []

    def call(node: Node) -> str:
        assert node.data.isidentifier(), node.data  # a rule name, written into code
        args: list[str] = []
        for child in node.children:
            if type(child) is Node:
                args.append(call(child))
            else:
                assert isinstance(child, Leaf)
                args.append(f"w{len(leaves)}")
                leaves.append(child)
        if node.data == "clauses" and len(args) == 1 and type(node.children[0]) is Node:
            # One phrase said alone, as most are: Builder.clauses only puts it in a list.
            lines.append(f"    r{len(lines)} = [{args[0]}]")
        else:
            lines.append(f"    r{len(lines)} = b.{node.data}({', '.join(args)})")
        return f"r{len(lines) - 1}"

    result = call(tree)
    params = "".join(f", w{i}" for i in range(len(leaves)))
    source = f"def build(b{params}):\n" + "\n".join(lines) + f"\n    return {result}\n"
    build = _BUILDS.get(source)
    if build is None:
        made: dict[str, Any] = {}
        exec(source, {}, made)
        if len(_BUILDS) >= BUILDS_KEPT:
            _BUILDS.clear()  # bounded, as the trees are (compiler/parse.py)
        build = _BUILDS[source] = made["build"]
    # The shape's code, with this tree's words as its defaults (a function object, no exec).
    return FunctionType(build.__code__, build.__globals__, build.__name__, tuple(leaves))


class Builder:
    """Turns a parse tree over `tokens` into its clauses: one method per rule (or alias), called
    bottom-up by the tree's build function (builder_of).

    Plain calls rather than lark's Transformer, whose per-call method wrapping costs more
    than the whole parse of a short command."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self._tokens = tokens
        self._scenes: dict[str, str] = {}  # scene name said → scene id
        self._select_at: dict[int, int] = {}  # id of a select clause → offset of its words
        # id of a target a 都 after its list distributed → the target as a set, for a
        # question over the list (门窗都关好了吗).
        self._asked_whole: dict[int, Target] = {}

    # ids of targets said as a place and 的 alone (卧室的也开): a noun said before is meant.
    # A set is made only when one is said (most compiles mark none).
    _elided: frozenset[int] | set[int] = frozenset()

    def _scene_of(self, target: Target) -> str | None:
        if not self._scenes:
            return None  # no scene was said, as in most utterances: nothing to look at
        if target.name is None or target.places or target.type_word or target.is_set:
            return None
        return self._scenes.get(target.name.text)

    def _tok(self, t: Leaf) -> Token:
        return self._tokens[t.index]

    def _payload(self, t: Leaf) -> Any:
        return self._tokens[t.index].value

    def _at(self, t: Leaf) -> int:
        return self._tokens[t.index].start

    # --- utterance ---------------------------------------------------------

    def start(self, *children: Any) -> tuple[Clause, ...]:
        said: list[Group | _Qualifier] = children[-1]
        if len(said) == 1 and type(group := said[0]) is list and len(group) == 1:
            clauses = group  # most utterances: one clause, nothing to attach or carry over
        else:
            clauses = self._joined(said)
        if len(clauses) == 1 and clauses[0].action == "stop" and clauses[0].target is None:
            return (Clause("cancel"),)  # 停下 alone stops what jiayu is doing: a cancel
        return tuple(clauses)

    def _joined(self, said: list[Group | _Qualifier]) -> list[Clause]:
        """The clauses of several phrases, or of several clauses, as one list: qualifiers
        attached, targets said alone carried to the clause after them, complaints dropped
        when a command follows them."""
        groups = _attach_qualifiers(said)
        clauses = _named_ahead([c for group in groups for c in group])
        for index, clause in enumerate(clauses):
            if clause.action == "select" and index > 0:
                # 打开所有灯，客厅: a target alone after a command qualifies nothing.
                raise Unsupported(
                    "a target alone, with nothing that says what to do with it",
                    "unexpected_word",
                    self._select_at.get(id(clause), 0),
                )
        # 太热了，把空调调到24度: the complaint is the reason for what follows, not a command
        # of its own (complaints alone stay).
        commands = [c for c in clauses if c.action != "adjust" or complaint_of(c) is None]
        return commands or clauses

    def clauses(self, *children: Any) -> list[Group | _Qualifier]:
        groups: list[Group | _Qualifier] = []
        separated = True
        for child in children:
            if isinstance(child, Leaf):
                separated = True
                continue
            if (
                not separated
                and isinstance(previous := groups[-1], list)
                and all(c.target is None and c.complaint is None for c in previous)
            ):
                # 打开关闭客厅灯: a verb with no target, run into the next clause unseparated,
                # is a slip, not a command on the last device (a complaint names none: 太热了
                # 开空调 is two clauses).
                raise Unsupported("a verb with nothing to act on", "unexpected_word")
            groups.append(child)
            separated = False
        return self._nouns_carried(groups) if self._elided else groups

    def _nouns_carried(self, groups: list[Group | _Qualifier]) -> list[Group | _Qualifier]:
        """卧室的 said after a clause that named a kind (客厅的灯开了，卧室的也开): that kind
        there, never every device of the room. After a device whose name ends in no kind
        word (大白关了，卧室的也关) it is not understood; said first it is the place's own."""
        noun: tuple[str, str] | None = None
        named = False  # a clause before named something
        carried: list[Group | _Qualifier] = []
        for group in groups:
            if isinstance(group, list):
                group = [self._noun_carried(clause, noun, named) for clause in group]
                for clause in group:
                    target = clause.target
                    if target is not None and (target.name or target.type_word):
                        named = True
                        noun = _noun_of(target)
            carried.append(group)
        return carried

    def _noun_carried(self, clause: Clause, noun: tuple[str, str] | None, named: bool) -> Clause:
        target = clause.target
        if target is None or id(target) not in self._elided or not named:
            return clause
        if noun is None:
            raise Unsupported(f"{target.places[0].text}的: of which kind of device?")
        return _replace(clause, target=_replace(target, device_type=noun[0], type_word=noun[1]))

    def conditional(self, *children: Any) -> list[Group | _Qualifier]:
        # Clauses before 如果 run unconditionally; the ones after it are guarded.
        before = children[0] if isinstance(children[0], list) else []
        condition = next(c for c in children if isinstance(c, Condition))
        guarded: list[Group | _Qualifier] = []
        for group in children[-1]:
            if isinstance(group, _Qualifier):
                guarded.append(group)
            else:
                guarded.append([_guarded(c, condition) for c in group])
        return [*before, *guarded]

    # --- clause modifiers ----------------------------------------------------

    def negated(self, _neg: Leaf, group: Group | _Qualifier) -> Group:
        return [_replace(c, negated=True) for c in _actions(group, "别/不要")]

    def negated_tail(self, *children: Any) -> Group | _Qualifier:
        targets, tail = children[-3], children[-1]
        clauses = self.target_tail(targets, tail)
        if isinstance(clauses, _Qualifier):
            return clauses  # 床头灯留着别关: the negated verb repeats the exclusion
        return [_replace(c, negated=True) for c in _actions(clauses, "别")]

    def timed(self, time: Leaf, *rest: Any) -> Group:
        timing = self._payload(time)
        return [_replace(c, when=timing) for c in _actions(rest[-1], "a time")]

    def timed_after(self, clause: Any, time: Leaf) -> Group:
        return self.timed(time, clause)

    def timed_tail(self, *children: Any) -> Group:
        targets, time, tail = children[-3], children[-2], children[-1]
        timing: Timing = self._payload(time)
        return [
            _replace(c, when=timing) for c in _actions(self.target_tail(targets, tail), "a time")
        ]

    def at_place(self, _at: Leaf, targets: _Targets, *rest: Any) -> Group:
        # 在客厅切到下一首: the place applies to a clause that names none of its own.
        if len(targets) != 1 or not targets[0].is_place_only or targets[0].exclude:
            raise Unsupported("在 takes a place", "unattached", targets.start)
        places = targets[0].places
        out: Group = []
        for clause in _actions(rest[-1], "在<room>"):
            target = clause.target
            if clause.action == "clean":  # 在这里打扫: where to clean, not where the vacuum is
                target = target or _cleaner("clean", Target(places=places))
            elif target is None:
                target = Target(places=places)
            elif not target.places:
                target = _replace(target, places=places)
            out.append(_replace(clause, target=target))
        return out

    def at_place_after(self, group: Group | _Qualifier, at: Leaf, targets: _Targets) -> Group:
        # 关窗帘在这里 / 开灯在客厅: the place said after the clause, as 在客厅开灯 says it first.
        return self.at_place(at, targets, group)

    def hurried(self, pace: Leaf, group: Group | _Qualifier) -> Group:
        # 快啲開燈 / 快点关灯: "hurry", said before the command it urges. 慢啲 and 调快啲 urge
        # nothing (慢啲食 is another domain's), so they leave the utterance not understood.
        if self._payload(pace)[1] < 0 or not self._tok(pace).text.startswith("快"):
            raise Unsupported("快 before a command is the only hurry", "unattached", self._at(pace))
        return _actions(group, "快啲")

    def habit(self, _habit: Leaf, *rest: Any) -> Group:
        # 按我的习惯开灯: on, then the user's preferred settings for it (the engine asks for
        # them when none is stored, and remembers the answer).
        out: Group = []
        for clause in _actions(rest[-1], "按我的习惯"):
            out.append(clause)
            if clause.action == "on":
                out.append(Clause("set", None, Value("preferred"), condition=clause.condition))
        return out

    # --- clauses -----------------------------------------------------------

    def joined_target_tail(self, *children: Any) -> Group | _Qualifier:
        # 灯关掉电视打开: a clause run on without a pause may start with its target only when
        # that names a device, a kind of device or a place, every word of it known; else a
        # stray word (那个什么来着, 东西) would make a clause of its own.
        targets = next(c for c in children if type(c) is _Targets)  # the rule starts with it
        for target in targets:
            named = target.name is not None and target.name.match != "unknown"
            if not (named or target.device_type or (target.places and target.name is None)):
                raise Unsupported(
                    "a clause run on without a pause starts with an unknown word",
                    "unexpected_word",
                    targets.start,
                )
        return self.target_tail(*children)

    def target_tail(self, *children: Any) -> Group | _Qualifier:
        # One look at the children: the first run of targets, and the tails (a Tail, or a
        # list of them) said after or around it.
        targets: Any = None
        tails: list[Tail] = []
        said = 0  # how many tails were said (温度和湿度多少 is one, of two)
        for c in children:
            kind = type(c)
            if kind is Tail:
                tails.append(c)
            elif kind is _Targets and targets is None:
                targets = c
                continue
            elif isinstance(c, list):
                tails.extend(c)
            else:
                continue
            said += 1
        if targets.exclusion_only:
            # 卫生间和浴室的不用开: only what is taken away, then a verb: it qualifies the
            # phrase it follows (or precedes), never "everything but these".
            return _Qualifier(targets[0].exclude, targets.after, targets.start)
        if said > 1 and any(t.action == "query" for t in tails):
            # 会客模式打开: a query run into an action is a misreading, not two requests.
            raise Unsupported(
                "a question and an action run together", "unexpected_word", targets.start
            )
        if self._asked_whole and any(t.action == "query" for t in tails):
            targets = [self._asked_whole.get(id(t), t) for t in targets]
        out: Group = []
        for target in targets:
            if _only_quantity(target) and all(t.action in ("on", "off") for t in tails):
                if target.count is None and len(tails) == 1:
                    # 都关掉 / 全部打开: everything (the power of it, resolver/resolve.py),
                    # or, said to a waiting question, all it offered (planner/dialogue.py).
                    out.append(Clause(tails[0].action, target))
                else:
                    out.append(Clause("select", target))  # 两个都关: an answer naming two
                continue
            scene = self._scene_of(target)
            for tail in tails:
                if scene and tail.action == "on":
                    out.append(Clause("scene", target, scene=scene))  # 把会客模式打开
                else:
                    out.append(_clause(tail, target))
        return out

    def target_media(self, *children: Any) -> Group:
        # 客厅音箱暂停音乐: what is played names the device when the target is a place.
        # 小白打扫客厅: the place after a cleaning verb is where to clean (_cleaner).
        targets, media, after = children[-3], children[-2], children[-1]
        action = self._payload(media)
        if len(after) == 1 and action == "clean" and after[0].is_place_only:
            return [Clause(action, t) for t in targets]
        played = after[0] if len(after) == 1 else None
        if played is None or played.type_word is None or played.places or played.name:
            raise Unsupported("what follows the verb is not what it plays", "unexpected_word")
        word = Token("TYPE", played.type_word, "", after.start, "exact", played.device_type)
        tail = Tail(action, played=word)
        return [_clause(tail, t) for t in targets]

    def bare_tail(self, *children: Any) -> Group:
        return [_clause(tail, None) for tail in _tails(children[-1])]

    def head_switch(self, *children: Any) -> Group:
        targets = children[-1]
        scenes = [self._scene_of(t) for t in targets]
        if not all(scenes):
            raise Unsupported("切换到 takes a scene", "unsupported", targets.start)
        return [Clause("scene", t, scene=s) for t, s in zip(targets, scenes, strict=True)]

    def target_only(self, targets: _Targets, _de: Any = None) -> Group | _Qualifier:
        if targets.exclusion_only:
            return _Qualifier(targets[0].exclude, targets.after, targets.start)
        clauses: Group = []
        for target in targets:
            scene = self._scene_of(target)
            if len(target.places) > 1 and target.quantifier == "one":
                # 客厅和卧室的: an answer naming several places means what is in each of them.
                target = _replace(target, quantifier="all")
            clause = Clause("scene", target, scene=scene) if scene else Clause("select", target)
            self._select_at[id(clause)] = targets.start
            clauses.append(clause)
        return clauses

    def complaint(self, *children: Any) -> Group:
        # 太热了 / 书房有点闷 / 声音太大 / 灯光太刺眼: a relative change the obvious actuator
        # makes (which, and how, is the resolver's and planner/complaints.py's); the target
        # says only where, or names the kind of device the complaint is about.
        targets = children[0] if isinstance(children[0], _Targets) else None
        kind = next(self._payload(c) for c in children if _is_leaf(c, "COMPLAINT"))
        subject = next(
            (self._payload(c) for c in children if isinstance(c, Leaf) and c.kind == "ATTR"),
            None,
        )
        if subject is not None and kind in ("high", "low") and not _complains(subject, kind):
            # 空调的风太大了 / 电视声音太小了: too much or too little of what makes no complaint
            # of that kind is a step back, of the device said or, said alone, where the speaker
            # is.
            step = Value("relative", subject, direction=-1 if kind == "high" else 1)
            return [Clause("adjust", t, step) for t in targets or (None,)]
        if subject is not None:
            kind = _subject_complaint(subject, kind)
        elif kind in ("high", "low"):
            raise Unsupported("too much or too little of what?", "unexpected_word")
        if targets is not None and kind in _OF_A_DEVICE and all(_one_named(t) for t in targets):
            # 客厅灯太亮了 / 卧室空调太冷了 / 电视太吵了 said of a device by its name: that device
            # does less of what it does too much of, one step (the planner refuses an off light).
            return [Clause("adjust", t, _OF_A_DEVICE[kind]) for t in targets]
        remedies = COMPLAINT_REMEDIES[kind][0]
        if targets is not None and not all(
            not t.exclude
            and not t.name
            and t.device_type in (None, *remedies)
            and (t.is_place_only or t.quantifier == "one")
            for t in targets
        ):
            raise Unsupported("a complaint names a place, not a device", "unexpected_word")
        # 屋里闷得很: the house a complaint is about is the room the speaker is in.
        places = tuple(p for t in targets or () for p in t.places if p.kind != "home")
        # 灯太亮了: the type word says the complaint is about every one of those there that
        # causes it (planner/complaints.py), not one of them to ask for.
        said = next((t for t in targets or () if t.device_type is not None), None)
        if said is not None:
            target: Target | None = Target(
                places=places, device_type=said.device_type, type_word=said.type_word
            )
        else:
            target = Target(places=places) if places else None
        return [Clause("adjust", target, Value("relative"), complaint=kind)]

    def progress_query(self, targets: _Targets, _asked: Leaf) -> Group:
        # 烘干机还要多久 / 扫地机器人扫完没有: what the appliance is doing, from its status.
        return [Clause("query", t, attribute="status") for t in targets]

    def change_scene(self, _t: Leaf) -> Group:
        return [Clause("scene")]  # 换个风格: a scene, which one still to be said

    def repeat(self, _t: Leaf) -> Group:
        return [Clause("repeat")]

    def confirm(self, _t: Leaf) -> Group:
        return [Clause("confirm")]

    def cancel(self, _t: Leaf) -> Group:
        return [Clause("cancel")]

    def ordinal(self, t: Leaf, _de: Any = None) -> Group:
        return [Clause("select", ordinal=int(self._payload(t)))]

    def schedule_cancel(self, *children: Any) -> Group:
        # 取消定时 / 取消关空调的定时: the target, when said, picks which schedules.
        targets = next((c for c in children if isinstance(c, _Targets)), None)
        if targets is None:
            return [Clause("schedule_cancel")]
        return [Clause("schedule_cancel", t) for t in targets]

    def schedule_query(self, *children: Any) -> Group:
        targets = next((c for c in children if isinstance(c, _Targets)), None)
        if targets is None:
            return [Clause("schedule_query")]
        return [Clause("schedule_query", t) for t in targets]

    def remember(self, *children: Any) -> Group:
        # 记住我喜欢26度 / 我看电视的音量是20: the value, and the target when one is said.
        targets = next((c for c in children if isinstance(c, _Targets)), None)
        value: Value = children[-1]
        attr = next(
            (self._payload(c) for c in children if isinstance(c, Leaf) and c.kind == "ATTR"),
            None,
        )
        tail = Tail("remember", _with_attribute(value, attr))
        if targets is None:
            return [_clause(tail, None)]
        return [_clause(tail, t) for t in targets]

    def set_question(self, *children: Any) -> Group:
        # 哪些灯开着 / 有没有灯开着 / 客厅有几盏灯开着: a query over a set.
        runs = [c for c in children if isinstance(c, _Targets)]
        asked = next(c for c in children if isinstance(c, Leaf) and c.kind == "QSET")
        state = children[-1]
        attribute, expected = self._state(state)
        targets: list[Target] = list(runs[-1])
        if len(runs) == 2:
            places = tuple(p for t in runs[0] for p in t.places)
            if not all(t.is_place_only for t in runs[0]):
                raise Unsupported("a set question names its place first", "unsupported")
            targets = [_replace(t, places=(*places, *t.places)) for t in targets]
        question: Question = self._payload(asked)
        return [
            Clause(
                "query",
                _replace(t, quantifier="all") if t.quantifier == "one" else t,
                attribute=attribute,
                question=question,
                expected=expected,
            )
            for t in targets
        ]

    def _state(self, t: Leaf) -> tuple[str, Any]:
        if t.kind == "ON":
            return "on", True
        if t.kind == "OFF":
            return "on", False
        attribute, expected = self._payload(t)
        return attribute, expected

    def head_on(self, _on: Leaf, targets: _Targets, tail: Tail | None = None) -> Group:
        if tail is not None and tail.action == "set" and not tail.verb and _bare(tail.value):
            # 打开插座1 / 打开客厅灯和台灯2: a bare number glued to a name is as likely the
            # device's own number as a value (it set the light's brightness to 1%); with a
            # unit, a verb or an attribute it is a value (打开窗帘50%, 打开空调调到26).
            raise Unsupported("打开 with a bare number after the device: its number, or a value?")
        clauses: Group = []
        for target in targets:
            scene = self._scene_of(target)
            if scene:
                clauses.append(Clause("scene", target, scene=scene))
            elif tail is not None and tail.action == "set" and not tail.verb:
                clauses.append(_clause(tail, target))  # 打开窗帘一半: only the value
            else:
                clauses.append(Clause("on", target))
                if tail is not None:
                    clauses.append(_clause(tail, None))
        return clauses

    def head_off(self, _off: Leaf, targets: _Targets) -> Group:
        return [Clause("off", t) for t in targets]

    def head_rel(self, rel: Leaf, targets: _Targets, *rest: Any) -> Group:
        attr = self._attr_of(rest)
        tail = self._relative(rel, attr, self._amount_of(rest))
        return [_clause(tail, t) for t in targets]

    def head_set(self, _setv: Leaf, targets: _Targets, *rest: Any) -> Group:
        # 设置阅读台灯22: a set verb takes a value, so a bare number after the device is it (a
        # device's own number is part of its name, which the lexicon reads whole: 插座2).
        attr = self._attr_of(rest)
        tail = Tail("set", _with_attribute(rest[-1], attr))
        return [_clause(tail, t) for t in targets]

    def head_extent(self, _verb: Leaf, targets: _Targets, *rest: Any) -> Group:
        # 打开窗帘到50% / 关闭窗帘的位置为93%: how far it opens, one value set (as the bare
        # value after 打开 is: 打开窗帘一半), whichever way the verb points.
        tail = Tail("set", _with_attribute(rest[-1], self._attr_of(rest)))
        return [_clause(tail, t) for t in targets]

    def bare_set(self, *children: Any) -> Group:
        # 设定音量为五十 / 调高音量到18%: a value with no device said (the speaker's room, or
        # the device just spoken of, decides which: the resolver).
        tail = Tail("set", _with_attribute(children[-1], self._attr_of(children)))
        return [_clause(tail, None)]

    def cancel_media(self, *children: Any) -> Group:
        # 取消客厅音箱的静音 / 取消风扇摇头: undoing a state said around the device.
        targets, media = next(c for c in children if isinstance(c, list)), children[-1]
        undone = _UNDO.get(self._payload(media))
        if undone is None:
            raise Unsupported(f"{self._tok(media).text} cannot be cancelled")
        return [Clause(undone, t) for t in targets]

    def head_media(self, media: Leaf, targets: _Targets) -> Group:
        action = self._payload(media)
        return [Clause(action, _cleaner(action, t)) for t in targets]

    def head_step(self, verb: Leaf, targets: _Targets, what: Leaf) -> Group:
        # 切到主卧的下一首 / 播放书房音箱的上一首 / 暂停书房音箱的播放: one player command.
        tail = self.t_step(verb, what)
        return [Clause(tail.action, t) for t in targets]

    def t_step(self, verb: Leaf, what: Leaf) -> Tail:
        """A verb and a player's action said as one command: a verb of going, then a step
        along the tracks (转到下一首, 返上一首); a set verb, then the state (调成静音); 播放, the
        playback, with what is done to it (播放下一首, 客厅的播放继续, 暂停书房音箱的播放)."""
        action = self._payload(what)
        first = self._payload(verb) if verb.kind == "MEDIA" else None
        if action in _STEPS and first in (None, "play"):
            return Tail(action)
        if verb.kind == "SET" and action in _SET_STATES:
            return Tail(action)
        if first == "play" and action in _PLAYER:
            return Tail(action)
        if action == "play" and first in _PLAYER:
            return Tail(first)
        raise Unsupported("a verb and a player's action that make no command", "unexpected_word")

    def head_feature(self, verb: Leaf, targets: _Targets, feature: Leaf) -> Group:
        # 打开客厅风扇的摇头: the feature is switched, never the device's own power.
        action = self._switched(feature, verb)
        return [Clause(action, t) for t in targets]

    def _switched(self, feature: Leaf, verb: Leaf | None) -> Action:
        """The action that switches `feature` as `verb` says: on when said alone or with 打开,
        its undoing with 关闭 or a stop word (停止扫风); any other verb is not understood."""
        action: Action = self._payload(feature)
        if verb is None or verb.kind == "ON":
            return action
        if verb.kind == "OFF" or self._payload(verb) == "stop":
            return _UNDO[action]
        raise Unsupported(f"{self._tok(verb).text} does not switch {self._tok(feature).text}")

    def head_query(self, _q: Leaf, *rest: Any) -> Group:
        targets = next((r for r in rest if isinstance(r, list)), [None])
        attr = None
        for r in rest:
            if isinstance(r, Leaf):
                attr = self._payload(r) or attr
        return [Clause("query", t, attribute=attr) for t in targets]

    def _attr_of(self, items: Sequence[Any]) -> str | None:
        """The attribute said among a rule's children; a step (大一档) is a fan's speed."""
        for item in items:
            if isinstance(item, Leaf) and item.kind == "ATTR":
                return self._payload(item)  # type: ignore[no-any-return]
        if any(isinstance(i, Leaf) and i.kind == "NOTCH" for i in items):
            return "fan_speed"
        return None

    def _amount_of(self, items: Sequence[Any]) -> _Number | None:
        """How much a relative change moves: a number said, or the steps of 两档/一级."""
        for item in items:
            if isinstance(item, _Number):
                return item
            if isinstance(item, Leaf) and item.kind == "NOTCH":
                return _Number(float(self._payload(item)), None)
        return None

    # --- tails -------------------------------------------------------------

    def t_on(self, on: Leaf, value: Value | None = None) -> Tail:
        if _bare(value):  # 客厅灯打开1: as after 打开<device> (head_on)
            raise Unsupported("打开 with a bare number: a device's number, or a value?")
        return Tail("on", played=self._implied(on)) if value is None else Tail("set", value)

    def t_off(self, off: Leaf, value: Value | None = None) -> Tail:
        if value is not None:
            return Tail("set", value)  # 窗帘关一半
        return Tail("off", played=self._implied(off))

    def _implied(self, verb: Leaf) -> Token | None:
        """The device type a verb names by itself (开锁, 锁上, 关火, 扫地), as the type word
        a clause with no target of its own acts on."""
        token = self._tok(verb)
        implied = IMPLIED_OBJECTS.get(token.text)
        if implied is None and verb.kind == "MEDIA":
            implied = IMPLIED_BY_ACTION.get(token.value)
        if implied is None:
            implied = IMPLIED_BY_STEM.get(token.text[:1]) if verb.kind == "OFF" else None
        if implied is None:
            return None
        device_type, word = implied
        return Token("TYPE", word, "", token.start, "exact", device_type)

    def t_more(self, _on: Leaf, _yidian: Leaf) -> Tail:
        return Tail("adjust", Value("relative", direction=1))  # 窗帘再开一点

    def t_less(self, _off: Leaf, _yidian: Leaf) -> Tail:
        return Tail("adjust", Value("relative", direction=-1))  # 窗帘关一点

    def t_set(self, *children: Any) -> Tail:
        attr = None
        verb = False
        for c in children:
            if isinstance(c, Leaf):
                if c.kind == "ATTR":
                    attr = self._payload(c)
                else:
                    verb = True
        return Tail("set", _with_attribute(children[-1], attr), verb=verb or attr is not None)

    def t_rel(self, *children: Any) -> Tail:
        rel = next(c for c in children if isinstance(c, Leaf) and c.kind == "REL")
        return self._relative(rel, self._attr_of(children), self._amount_of(children))

    def t_adj(self, *children: Any) -> Tail:
        adj = next(c for c in children if isinstance(c, Leaf) and c.kind == "ADJ")
        return self._relative(adj, self._attr_of(children), self._amount_of(children))

    def t_pace(self, *children: Leaf) -> Tail:
        # 风扇快啲 / 调慢一点: the fan's speed one level (the PACE word says 一点 too).
        return self._relative(children[-1], self._attr_of(children), None)

    def t_query(self, *children: Leaf) -> Tail | list[Tail]:
        attrs = [self._payload(c) for c in children if c.kind == "ATTR"]
        words = [c for c in children if c.kind == "QWORD"]
        if not attrs and words and self._searching(words[0]):
            # 那个什么 is a speaker searching for a word: it asks nothing of a device.
            word = self._tok(words[0])
            raise Unsupported(f"{word.text} after {self._tokens[words[0].index - 1].text}")
        asked = self._payload(words[0]) if words else None
        if len(attrs) > 1:  # 温度和湿度多少
            return [Tail("query", attribute=a) for a in attrs]
        return Tail("query", attribute=attrs[0] if attrs else asked)

    def _searching(self, asked: Leaf) -> bool:
        """Whether a bare 什么 follows a word that points (那个什么, 它什么): a word searched
        for, not a question (书房灯的什么 asks the light's state)."""
        return (
            self._tok(asked).text == "什么"
            and asked.index > 0
            and self._tokens[asked.index - 1].kind == "IT"
        )

    def t_state(self, q: Leaf) -> Tail:
        attribute, expected = self._payload(q)
        return Tail("query", attribute=attribute, question="yes_no", expected=expected)

    def head_asked(self, verb: Leaf, targets: _Targets, asked: Leaf) -> Group | _Qualifier:
        return self.target_tail(targets, self.t_asked(verb, asked))

    def t_asked(self, verb: Leaf, _asked: Leaf) -> Tail:
        # 上锁了没 / 开了没 / 是打开的吗: did the verb's state come about?
        if verb.kind == "OFF" and "锁" in self._tok(verb).text:
            return Tail("query", attribute="locked", question="yes_no", expected=True)
        return Tail("query", attribute="on", question="yes_no", expected=verb.kind == "ON")

    def t_media(self, m: Leaf) -> Tail:
        return Tail(self._payload(m), played=self._implied(m))

    def t_feature(self, *children: Leaf) -> Tail:
        feature = next(c for c in children if c.kind == "FEATURE")
        verb = next((c for c in children if c.kind != "FEATURE"), None)
        return Tail(self._switched(feature, verb))

    def _relative(self, word: Leaf, attr: str | None, amount: _Number | None) -> Tail:
        hint, direction, warmth = self._payload(word)
        if direction == 0 and warmth == 0:
            raise Unsupported("a relative change needs a direction")
        attribute = (
            _set_attribute(attr) or hint or (_UNIT_ATTRIBUTE.get(amount.unit) if amount else None)
        )
        value = Value(
            "relative",
            attribute,
            amount.value if amount else None,
            None,
            amount.unit if amount else None,
            direction,
            warmth,
            says_strength(self._tok(word).text, attribute),
        )
        return Tail("adjust", value)

    # --- values ------------------------------------------------------------

    def v_number(self, n: _Number) -> Value:
        unit = n.unit
        if unit is None and n.value >= KELVIN_FLOOR:
            unit = "K"  # 把灯设为3900
        return Value("absolute", _UNIT_ATTRIBUTE.get(unit), n.value, None, unit)

    def v_half(self, t: Leaf, adj: Leaf | None = None) -> Value:
        # 一半亮: the adjective says what is at half.
        attribute = self._payload(adj)[0] if adj is not None else None
        return Value("absolute", attribute, float(self._payload(t)), None, "%")

    def v_extreme(self, t: Leaf) -> Value:
        attribute, direction = self._payload(t)
        strength = says_strength(self._tok(t).text, attribute)
        return Value("extreme", attribute, None, None, None, direction, strength=strength)

    def v_mode(self, t: Leaf, _attr: Any = None) -> Value:
        return Value("absolute", "mode", None, self._payload(t))

    def v_speed(self, t: Leaf, _attr: Any = None) -> Value:
        return Value("absolute", "fan_speed", None, self._payload(t))

    def v_gear(self, t: Leaf) -> Value:
        gear = self._payload(t)
        if not 1 <= gear <= len(_GEARS):
            raise Unsupported(f"{self._tok(t).text}: a fan has {len(_GEARS)} gears")
        return Value("absolute", "fan_speed", None, _GEARS[gear - 1])

    def v_level(self, t: Leaf) -> Value:
        level = _LEVEL_WORDS.get(self._tok(t).text)
        if level is None:
            raise Unsupported(f"{self._tok(t).text} is not a level")
        return Value("absolute", "fan_speed", None, level)

    def v_color(self, t: Leaf) -> Value:
        # 红色 is a hue (a color light's); 暖白色 a white (color_temp).
        word = self._payload(t)
        return Value("absolute", "color" if word in HUES else "color_temp", None, word)

    def v_preset(self, t: Leaf, _attr: Any = None) -> Value:
        # The word as said (睡眠风): the planner matches it to the device's own presets.
        return Value("absolute", "preset", None, self._tok(t).text)

    def v_preferred(self, _t: Leaf, attr: Leaf | None = None) -> Value:
        # 调到我喜欢的温度: the speaking user's stored value for the attribute.
        attribute = _set_attribute(self._payload(attr)) if attr is not None else None
        return Value("preferred", attribute)

    def amount(self, *children: Any) -> _Number:
        return children[-1]  # type: ignore[no-any-return]

    def n_plain(self, num: Leaf, unit: Any = None) -> _Number:
        return _Number(float(self._payload(num)), unit)

    def n_half(self, num: Leaf, half: Leaf) -> _Number:
        return _Number(float(self._payload(num)) + float(self._payload(half)), "°C")

    def n_percent(self, _pre: Leaf, num: Leaf) -> _Number:
        return _Number(float(self._payload(num)), "%")

    def n_fraction(self, whole: Leaf, _of: Leaf, part: Leaf) -> _Number:
        of, share = float(self._payload(whole)), float(self._payload(part))
        if not 0 < share <= of:
            raise Unsupported(f"{self._tok(part).text} of {self._tok(whole).text} is no share")
        return _Number(float(round(100 * share / of)), "%")

    def unit(self, t: Leaf) -> Any:
        return self._payload(t)

    # --- targets and conditions -------------------------------------------

    def exclusion(self, _except: Leaf, *items: Any) -> list[Target]:
        items = tuple(i for i in items if not (isinstance(i, Leaf) and i.kind == "EXCEPT_END"))
        return self._split(items)

    def condition(self, *children: Any) -> Condition:
        subject: Target | None = None
        attr = None
        op: Op = ">"
        number: _Number | None = None
        for c in children:
            if isinstance(c, list):
                if c and isinstance(c, _Targets) and c.exclusion_only:
                    raise Unsupported("a condition reads a place or a device", "unsupported")
                subject = c[0]
            elif isinstance(c, _Number):
                number = c
            elif c.kind == "ATTR":
                attr = self._payload(c)
            elif c.kind == "CMP":
                op = self._payload(c)
            # IF inside the condition (客厅温度要是超过26度) carries nothing more
        assert number is not None  # the grammar requires one
        if attr is None:
            attr = {"°C": "temperature", "%": "humidity"}.get(number.unit, "temperature")
        if attr == "brightness" and (subject is None or subject.is_place_only):
            attr = "illuminance"  # a place's 亮度 is what its light sensor measures
        if (
            attr == "temperature"
            and subject is not None
            and subject.device_type == "AirConditioner"
        ):
            attr = "target_temperature"  # 空调温度 is the set point
        return Condition(attr, op, number.value, subject, number.unit)

    def state_condition(self, targets: _Targets, *said: Leaf) -> Condition:
        # 要是后门还没锁 / 如果书房灯还亮着 / 电视要是开着: the device's own state, read at
        # execution.
        state = said[-1]
        if len(targets) != 1 or targets[0].is_place_only or targets.exclusion_only:
            raise Unsupported("a state condition reads one device", "unsupported")
        attribute, expected = self._state(state)
        return Condition(attribute, "==", 1.0 if expected else 0.0, targets[0])

    def target(self, *said: Any) -> _Targets:
        """Read a run of target words: exclusions anywhere in it apply to every noun of
        it (打开除书房外的灯和空调, 所有灯和空调书房除外)."""
        # Most runs are words of one part, none taking anything away, the first naming
        # something (客厅的灯, 主卧灯带): they are read at once, without the passes of the
        # general reading that finds nothing to do (tests/test_build_fast.py).
        for item in said:
            if type(item) is not Leaf or item.kind in _NOT_PLAIN:
                return self._target(said)
        if not said or said[0].kind == "DE":
            return self._target(said)
        targets = _Targets(self._one_part(said), self._tokens[said[0].index].start)
        if said[-1].kind == "DE" and len(targets) == 1:
            target = targets[0]
            if target.is_place_only and target.quantifier == "one":
                self._elided = {*self._elided, id(target)}
        return targets

    def _target(self, said: Sequence[Any]) -> _Targets:
        """target(), read the general way."""
        items = list(said)
        # One look at the words first: where they start, and whether any takes something
        # away (most runs do not: then there is nothing to look for) or says more than 的.
        start = -1
        plain = True
        named = False
        for item in items:
            if type(item) is not Leaf:
                plain = False
                continue
            if start < 0:
                start = self._tokens[item.index].start
            if item.kind in _EXCEPT_KINDS:
                plain = False
            elif item.kind != "DE":
                named = True
        start = max(start, 0)
        excludes: list[Target] = []
        after = False
        k = 0 if not plain else len(items)
        while k < len(items):
            item = items[k]
            if isinstance(item, list):  # 除了…以外, already read by exclusion()
                excludes.extend(item)
                del items[k]
                continue
            if isinstance(item, Leaf) and item.kind in ("EXCEPT_POST", "EXCEPT_END"):
                begin = self._excluded_span(items, k)
                if begin == k:
                    raise Unsupported(
                        f"nothing before “{self._tok(item).said}” to take away",
                        "unattached",
                        self._at(item),
                    )
                excludes.extend(self._split(items[begin:k]))
                after = after or item.kind == "EXCEPT_POST" or begin == 0
                del items[begin : k + 1]
                k = begin
                continue
            k += 1
        if not plain:
            named = any(i.kind != "DE" for i in items)
        if not named:
            if not excludes:
                raise Unsupported("a target with no words", "unsupported", start)
            return _Targets(
                [Target(quantifier="all", exclude=tuple(excludes))],
                start,
                exclusion_only=True,
                after=after,
            )
        targets = self._split(items)
        if excludes:
            targets = [_excluding(t, tuple(excludes)) for t in targets]
            # 除了卧室的灯都关掉 / 除了台灯的灯: the excluded noun, said of a place or a device,
            # says what the rest is; a kind taken out whole (除了空调都关了) leaves every other.
            noun = next((e for e in excludes if e.type_word and (e.places or e.name)), None)
            if noun is not None:
                targets = [
                    _replace(t, device_type=noun.device_type, type_word=noun.type_word)
                    if not _has_what(t)
                    else t
                    for t in targets
                ]
        return _Targets(targets, start)

    def _excluded_span(self, items: Sequence[Any], k: int) -> int:
        """Where the words taken away by the 除外/留着 at `k` begin: the places just said
        (所有的灯卧室除外), else the names and type words just said (烧水壶和电饭煲除外)."""
        kinds = [self._tok(i).kind if isinstance(i, Leaf) else "" for i in items[:k]]
        said = [kind for kind in kinds if kind != "DE"]
        if not said:
            return k
        allowed = _SPAN_PLACES if said[-1] in _SPAN_PLACES else _SPAN_NAMES
        begin = k
        while begin > 0 and kinds[begin - 1] in allowed | {"DE", "AND"}:
            if kinds[begin - 1] == "TYPE" and begin < k and kinds[begin] in _SPAN_NAMES:
                break  # 所有灯客厅灯除外: the 灯 before the name is the set, not excluded
            begin -= 1
        while begin < k and kinds[begin] in ("DE", "AND"):
            begin += 1
        return begin

    def _split(self, items: Sequence[Any]) -> list[Target]:
        """One target per AND-separated part of a run of target words."""
        for item in items:
            if type(item) is Leaf and item.kind == "AND":
                parts: list[list[Any]] = [[]]
                for word in items:
                    if isinstance(word, Leaf) and word.kind == "AND":
                        parts.append([])
                    else:
                        parts[-1].append(word)
                read = _joined_parts([self._one_target(part) for part in parts])
                if not self._distributes(parts):
                    return read
                # 把A和B都关了: 都 after a list acts on each listed target as said, each
                # resolved as it would be alone; it makes no part "every B in the home". A
                # question over the list (门窗都关好了吗) still asks about every one of them.
                parts = [[w for w in part if not _is_leaf(w, "DOU")] for part in parts]
                distributed = _joined_parts([self._one_target(part) for part in parts])
                self._asked_whole.update(zip(map(id, distributed), read, strict=True))
                return distributed
        return self._one_part(items)

    def _distributes(self, parts: list[list[Any]]) -> bool:
        """Whether the only quantifier of a list is a 都 said after it (把A和B都关了), and more
        than one part names what it means (客厅和卧室的灯都关了 is one noun in two places)."""
        quantifiers = _quantifiers([w for part in parts for w in part])
        return (
            self._only_dou(quantifiers)
            and all(w in parts[-1] for w in quantifiers)
            and sum(_names_what(self._tokens, part) for part in parts) > 1
        )

    def _only_dou(self, quantifiers: Sequence[Leaf]) -> bool:
        """Whether some quantifier was said and each is a 都 (not 所有, 全部, 全)."""
        return bool(quantifiers) and all(self._tok(w).text in _DISTRIBUTING for w in quantifiers)

    def _one_part(self, items: Sequence[Any]) -> list[Target]:
        """_split() of a run with no AND in it."""
        target = self._one_target(items)
        if target.quantifier == "all" and self._dou_alone(items, target):
            # 灯都关了吧: only 所有/全部/全/每个 and counts make a set of a type word by
            # themselves; 都 alone is every one where the speaker is (asked for with no room
            # known), never every light of the home. A question still asks about every one
            # (灯都关了吗), as over a list.
            here = _replace(target, places=(Place("this_room", None, ""),))
            self._asked_whole[id(here)] = target
            return [here]
        if _has_what(target) or (target.count is None and target.device_type is None):
            # Most runs are one part, which names what it means, or is only places (客厅的)
            # and so already what _joined_parts would make of it (test_build_fast.py).
            return [target]
        return _joined_parts([target])

    def _dou_alone(self, items: Sequence[Any], target: Target) -> bool:
        """Whether a target's only quantifier is 都 said after a bare type word: no place, no
        name, no count, no reference, no 所有/全部/全 (灯都关了, not 所有灯都关了), and nothing
        taken out of it."""
        if target.places or target.name or target.count or target.reference or not target.type_word:
            return False
        if any(t.kind in _TAKEN_OUT for t in self._tokens):
            return False  # 除了主卧，空调都关了 / 灯都关了，床头灯留着: a whole set, less X
        return self._only_dou(_quantifiers(items))

    def _one_target(self, part: Sequence[Any]) -> Target:
        places: list[Place] = []
        names: list[Token] = []
        type_token: Token | None = None
        quantifier: Quantifier = "one"
        count: int | None = None
        reference = None
        tokens = self._tokens
        for item in part:
            tok = tokens[item.index]
            kind = tok.kind
            # The kinds most said first: 的 is in most runs and reads nothing.
            if kind in PLACE_KINDS:
                place_id = tok.value if kind in _SPAN_PLACES else None
                places.append(Place(PLACE_KINDS[kind], place_id, tok.text))
            elif kind == "TYPE":
                if tok.text in _POWER_WORDS and (type_token is not None or names):
                    continue  # 落地扇的开关: the power switch of what was said before it
                if type_token is not None and tok.value == type_token.value:
                    continue  # 大门锁的锁: the kind said again after a word of that kind
                type_token = tok
            elif kind == "DE":
                continue
            elif kind in ("NAME", "SCENE"):
                names.append(tok)
                if kind == "SCENE":
                    self._scenes[tok.text] = tok.value
            elif kind in ("ALL", "DOU"):
                quantifier = "all"
            elif kind == "ANY":
                quantifier = "any"
            elif kind == "COUNT":
                count = int(tok.value)
            elif kind == "IT":
                reference = tok.value
        if len(places) > 1:
            # 家里客厅的灯 is the living room's light: the home holds every place said with it.
            places = [p for p in places if p.kind != "home"] or places
        return Target(
            tuple(places),
            _mention(names),
            type_token.value if type_token else None,
            type_token.text if type_token else None,
            quantifier,
            count,
            (),
            reference,
        )


_EXCEPT_KINDS = frozenset({"EXCEPT_POST", "EXCEPT_END"})
_NOT_PLAIN = _EXCEPT_KINDS | {"AND"}  # a run with none of these is read at once (target)
_SPAN_PLACES = frozenset({"ROOM", "FLOOR", "GROUP"})
_SPAN_NAMES = frozenset({"ROOM", "FLOOR", "GROUP", "NAME", "TYPE", "SCENE"})


# What a device is switched by, said after it (落地扇的开关): the device itself.
_POWER_WORDS = frozenset({"开关", "总开关", "电源"})


def _quantifiers(items: Sequence[Any]) -> list[Leaf]:
    """The quantifier words (所有, 全部, 都 …) among a run of target words."""
    return [w for w in items if _is_leaf(w, "DOU") or _is_leaf(w, "ALL")]


# Words that take devices out of a set (除了, 以外, 留着, 不用关, 其他): said with 都, it is a
# whole set they take them out of.
_TAKEN_OUT = frozenset({"EXCEPT", "EXCEPT_POST", "EXCEPT_END", "NEG", "OTHER"})
# 都 after a list distributes; 全/统统/所有 make a set of each part.
_DISTRIBUTING = frozenset({"都", "都给"})


def _is_leaf(item: Any, kind: str) -> bool:
    return isinstance(item, Leaf) and item.kind == kind


def _names_what(tokens: Sequence[Token], part: Sequence[Any]) -> bool:
    """Whether a part of a list names a device or a type (not only places)."""
    return any(
        isinstance(w, Leaf) and tokens[w.index].kind in ("NAME", "TYPE", "SCENE", "IT")
        for w in part
    )


def _mention(names: list[Token]) -> Mention | None:
    if not names:
        return None
    if len(names) == 1:  # most targets name one thing
        return Mention(names[0].text, names[0].said, names[0].match)
    worst = max((n.match for n in names), key=_MATCH_RANK.__getitem__)
    return Mention("".join(n.text for n in names), "".join(n.said for n in names), worst)


def _joined_parts(read: list[Target]) -> list[Target]:
    """The targets of the AND-separated parts of a run, as each was read: a part that is only
    places shares the next part's noun, and a quantifier said once applies to every part."""
    targets: list[Target] = []
    pending_places: list[Place] = []
    shared: dict[str, Any] = {}
    for target in read:
        if not _has_what(target):
            # 客厅和卧室的灯: a part that is only places shares the next part's noun.
            pending_places.extend(target.places)
            shared = _merge_shared(shared, target)
            continue
        if pending_places or shared:
            target = _replace(target, places=(*pending_places, *target.places), **shared)
        pending_places, shared = [], {}
        targets.append(target)
    if pending_places or not targets:
        targets.append(_apply_shared(Target(places=tuple(pending_places)), shared))
    # 所有 said once before 客厅和卧室的灯 (or 都 after 灯和空调) applies to every part.
    quantifier: Quantifier = next((t.quantifier for t in targets if t.quantifier != "one"), "one")
    if quantifier == "one":
        return targets
    return [
        _replace(t, quantifier=quantifier) if t.quantifier == "one" and t.count is None else t
        for t in targets
    ]


def _tails(tail: Tail | list[Tail]) -> list[Tail]:
    return tail if isinstance(tail, list) else [tail]


def _actions(group: Group | _Qualifier, what: str) -> Group:
    """The clauses a modifier (别, a time, 在<room>) applies to: actions, not an exclusion
    or an answer."""
    if isinstance(group, _Qualifier) or any(
        c.action in ("select", "confirm", "cancel", "repeat") for c in group
    ):
        position = group.position if isinstance(group, _Qualifier) else 0
        raise Unsupported(f"{what} needs an action to apply to", "unattached", position)
    return group


def _attach_qualifiers(groups: Sequence[Group | _Qualifier]) -> list[Group]:
    """Attach every exclusion said as its own phrase to the phrase it limits: 除了书房，…
    to the next one, …，书房除外 / …，起夜灯留着 to the one before (each to every clause
    of it: 打开所有灯和空调，书房除外). A negated phrase right after a set with the same verb
    is an exclusion too (关掉所有空调，儿童房和主卧不用关). Nothing to attach to → Unsupported."""
    out: list[Group] = []
    waiting: tuple[Target, ...] = ()
    waiting_at = 0
    for group in groups:
        if isinstance(group, _Qualifier):
            if group.after and out:
                out[-1] = _exclude_group(out[-1], group.exclude, group.position)
            else:
                waiting, waiting_at = (*waiting, *group.exclude), group.position
            continue
        if out and _limits_previous(out[-1], group):
            excluded = tuple(c.target for c in group if c.target is not None)
            out[-1] = _exclude_group(out[-1], excluded, 0)
            continue
        if waiting:
            group = _exclude_group(group, waiting, waiting_at)
            waiting = ()
        out.append(group)
    if waiting:
        if not out:
            raise Unsupported("an exclusion with nothing to exclude from", "unattached", waiting_at)
        out[-1] = _exclude_group(out[-1], waiting, waiting_at)
    return out


def _exclude_group(group: Group, excluded: tuple[Target, ...], position: int) -> Group:
    if not any(c.target is not None and c.action != "select" for c in group):
        raise Unsupported("an exclusion with nothing to exclude from", "unattached", position)
    return [
        _replace(c, target=_excluding(c.target, excluded))
        if c.target is not None and c.action != "select"
        else c
        for c in group
    ]


def _limits_previous(previous: Group, group: Group) -> bool:
    """关掉所有空调，儿童房和主卧不用关: a negated phrase naming targets, with the verb of
    a set just acted on, takes those targets out of the set."""
    if not group or not all(
        c.negated and c.target is not None and c.when is None and c.condition is None for c in group
    ):
        return False
    sets = {c.action for c in previous if c.target is not None and _is_set(c.target)}
    return bool(sets) and all(c.action in sets for c in group)


def _is_set(target: Target) -> bool:
    return target.is_set or (bool(target.places) and not target.name and bool(target.type_word))


_NEEDS_TARGET = frozenset(
    {
        "on",
        "off",
        "set",
        "adjust",
        "query",
        "mute",
        "unmute",
        "play",
        "pause",
        "next_track",
        "previous_track",
        "stop",
    }
)


def _named_ahead(clauses: list[Clause]) -> list[Clause]:
    """A target said on its own before a clause that has none is that clause's target
    (卧室空调，开一下); a bare 那个/这个 before a full clause is hesitation, not a target.
    A target alone before a clause that has its own stays: it fits nowhere."""
    out: list[Clause] = []
    for index, clause in enumerate(clauses):
        following = clauses[index + 1] if index + 1 < len(clauses) else None
        if clause.action == "select" and clause.target is not None and following is not None:
            target = clause.target
            if target.reference and not (target.places or target.name or target.type_word):
                continue
            if following.target is None and following.action in _NEEDS_TARGET:
                clauses[index + 1] = _replace(following, target=target)
                continue
        out.append(clause)
    return out


def _excluding(target: Target, excluded: tuple[Target, ...]) -> Target:
    quantifier: Quantifier = "all" if target.quantifier == "one" else target.quantifier
    # 除了客厅，其他房间的灯: the exclusion already says what "other" means.
    places = tuple(p for p in target.places if p.kind != "other_rooms")
    return _replace(
        target, places=places, exclude=(*target.exclude, *excluded), quantifier=quantifier
    )


def _has_what(target: Target) -> bool:
    return bool(target.name or target.type_word or target.reference or target.count)


def _only_quantity(target: Target) -> bool:
    """两个都关 / 都要: a count or 都 and nothing else, the answer to 要关哪个."""
    return (target.quantifier == "all" or target.count is not None) and not (
        target.places or target.name or target.type_word or target.reference or target.exclude
    )


def _merge_shared(shared: dict[str, Any], target: Target) -> dict[str, Any]:
    if target.quantifier != "one":
        shared = {**shared, "quantifier": target.quantifier}
    if target.exclude:
        shared = {**shared, "exclude": target.exclude}
    return shared


def _apply_shared(target: Target, shared: dict[str, Any]) -> Target:
    return _replace(target, **shared) if shared else target


def _with_attribute(value: Value | None, attr: str | None) -> Value | None:
    """The value said with an attribute word (亮度调到30): what it sets."""
    if attr is None or value is None:
        return value
    attribute = _set_attribute(attr)
    if attribute == "fan_speed" and value.attribute == "mode" and value.word == "auto":
        return _replace(value, attribute="fan_speed")  # 风速自动
    if value.attribute in (None, "target_temperature", "color_temp") or value.kind in (
        "extreme",
        "preferred",
    ):
        # An attribute said makes a strength word a number's way (温度调到最大 is the highest).
        return _replace(value, attribute=attribute, strength=False)
    return value


def _bare(value: Value | None) -> bool:
    """A number said with no unit and no attribute (打开台灯1)."""
    return (
        value is not None
        and value.kind == "absolute"
        and value.number is not None
        and value.unit is None
        and value.attribute is None
    )


def _guarded(clause: Clause, condition: Condition) -> Clause:
    """A clause under a condition; one with no target of its own, or only 它 (如果厨房灯开着就
    把它关了), acts on the device whose state the condition reads (要是后门还没锁就锁上)."""
    subject = condition.subject
    target = clause.target
    if (
        condition.op == "=="
        and subject is not None
        and not subject.is_place_only
        and (target is None or _implied_only(target) or _referring_only(target))
    ):
        return _replace(clause, condition=condition, target=subject)
    return _replace(clause, condition=condition)


def _noun_of(target: Target) -> tuple[str, str] | None:
    """The kind a target names, and its word: its type word, or the type word its name ends
    in (客厅灯: 灯, 主卧床头灯: 床头灯)."""
    if target.type_word is not None and target.device_type is not None:
        return target.device_type, target.type_word
    if target.name is None:
        return None
    text = target.name.text
    for start in range(len(text)):
        kind = _TYPE_WORDS.get(text[start:])
        if kind is not None:
            return kind, text[start:]
    return None


def _referring_only(target: Target) -> bool:
    """它, 这个: a target that only refers back."""
    return target.reference is not None and not (
        target.places or target.name or target.type_word or target.exclude
    )


_IMPLIED_WORDS = frozenset(
    word
    for table in (IMPLIED_OBJECTS, IMPLIED_BY_STEM, IMPLIED_BY_ACTION)
    for _type, word in table.values()
)


def _implied_only(target: Target) -> bool:
    """A target that is only the type a verb implies (锁上: the lock), no more said."""
    return (
        target.type_word in _IMPLIED_WORDS
        and not target.places
        and target.name is None
        and target.quantifier == "one"
        and target.reference is None
    )


def _complains(subject: str, kind: str) -> bool:
    """Whether too much (kind "high") or too little ("low") of an attribute is a complaint
    (声音太大: loud; 声音太小 is none, only less than wanted)."""
    high, low = COMPLAINT_SUBJECTS.get(subject, (None, None))
    return (high if kind == "high" else low) is not None


def _subject_complaint(subject: str, kind: str) -> str:
    """The complaint a quality makes of the attribute said before it (声音太大: loud, 温度太低:
    cold); a quality that is no complaint about that attribute is not understood."""
    high, low = COMPLAINT_SUBJECTS.get(subject, (None, None))
    meant = high if kind == "high" else low if kind == "low" else kind
    if meant is None or meant not in (high, low):
        raise Unsupported("a complaint about something it cannot be said of", "unexpected_word")
    return meant


_STEPS = frozenset({"next_track", "previous_track"})
_SET_STATES = frozenset({"mute", "unmute"})  # what a set verb sets a player to (调成静音)
_PLAYER = frozenset({"play", "pause", "stop", "mute", "unmute", *_STEPS})


def _cleaner(action: Action, target: Target) -> Target:
    """A place said as what a cleaning verb cleans (打扫客厅, 清洁这里) is where to clean, not
    where the cleaner stands: the target is the vacuum the verb implies, wherever it is (one in
    the home is that one; several are asked among). A vacuum that cleans no single room
    cleans the home it maps, the place included."""
    if action != "clean" or not target.is_place_only or target.exclude:
        return target
    device_type, word = IMPLIED_BY_ACTION[action]
    return Target(device_type=device_type, type_word=word)


def _clause(tail: Tail, target: Target | None) -> Clause:
    played = tail.played
    if played is not None:
        if target is None:
            target = Target(device_type=played.value, type_word=played.text)
        elif tail.action == "clean":
            target = _cleaner(tail.action, target)  # 书房打扫一下: where to clean
        elif not (target.name or target.type_word or target.reference):
            target = _replace(target, device_type=played.value, type_word=played.text)
    question = tail.question
    if question == "yes_no" and target is not None and target.is_set:
        question = "all"  # 门窗都关好了吗 / 所有门都锁了吗: every one of the set
    return Clause(
        tail.action,
        target,
        tail.value,
        tail.attribute,
        question=question,
        expected=tail.expected,
    )
