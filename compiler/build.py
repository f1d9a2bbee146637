"""Build the IR from a parse tree: one method per grammar rule, no reflection tricks.

Targets are parsed as a flat run of words (word order varies too much for
rules to pay off), and read here: places, a name or type word, quantifiers,
exclusions, and AND-separated parts that become one clause each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lark import Token as LarkToken
from lark import Tree

from jiayu.ir import (
    Action,
    Clause,
    Condition,
    MatchKind,
    Mention,
    Op,
    Place,
    PlaceKind,
    Quantifier,
    Target,
    Token,
    Value,
)

_PLACE_KINDS: dict[str, PlaceKind] = {
    "ROOM": "room",
    "FLOOR": "floor",
    "GROUP": "group",
    "HOME": "home",
    "THIS_ROOM": "this_room",
    "OTHER": "other_rooms",
}
_MATCH_RANK: dict[MatchKind, int] = {"exact": 0, "alias": 1, "pinyin": 2, "fuzzy": 3, "unknown": 4}
_UNIT_ATTRIBUTE = {"°C": "target_temperature", "K": "color_temp"}
_LEVEL_WORDS = {
    "高": "high",
    "大": "high",
    "强": "high",
    "中": "medium",
    "低": "low",
    "小": "low",
    "弱": "low",
}


class Unsupported(Exception):
    """The words parse but mean nothing jiayu can do (a level with no direction, ...)."""


@dataclass(frozen=True)
class Tail:
    """What a clause does, before it meets its target."""

    action: Action
    value: Value | None = None
    attribute: str | None = None
    verb: bool = True  # False for a bare value (窗帘一半): with 打开 it means only the value


@dataclass(frozen=True)
class Body:
    """The clauses of an utterance, each carrying the condition that guards it."""

    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class _Number:
    value: float
    unit: Any


def _set_attribute(attribute: str | None) -> str | None:
    # In a command, 温度 is the set point; in a query or a condition, the sensors.
    return "target_temperature" if attribute == "temperature" else attribute


class Builder:
    """Turns a parse tree over `tokens` into a Body: one method per rule (or alias).

    A plain bottom-up walk rather than lark's Transformer, whose per-call method
    wrapping costs more than the whole parse of a short command."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self._tokens = tokens
        self._scenes: dict[str, str] = {}  # scene name said → scene id

    def _scene_of(self, target: Target) -> str | None:
        if target.name is None or target.places or target.type_word or target.is_set:
            return None
        return self._scenes.get(target.name.text)

    def build(self, tree: Tree[LarkToken]) -> Body:
        """The Body of a whole parse tree."""
        body = self._walk(tree)
        assert isinstance(body, Body)
        return body

    def _walk(self, tree: Tree[LarkToken]) -> Any:
        children = [self._walk(c) if isinstance(c, Tree) else c for c in tree.children]
        return getattr(self, str(tree.data))(*children)

    def _tok(self, t: LarkToken) -> Token:
        return self._tokens[t.start_pos or 0]

    def _payload(self, t: LarkToken) -> Any:
        return self._tok(t).value

    # --- utterance ---------------------------------------------------------

    def start(self, *children: Any) -> Body:
        return Body(tuple(_named_ahead(_scope_exclusions(children[-1]))))

    def clauses(self, *children: Any) -> list[Clause]:
        return [c for child in children if isinstance(child, list) for c in child]

    def conditional(self, *children: Any) -> list[Clause]:
        # Clauses before 如果 run unconditionally; the ones after it are guarded.
        before = children[0] if isinstance(children[0], list) else []
        condition = next(c for c in children if isinstance(c, Condition))
        guarded = [replace(c, condition=condition) for c in children[-1]]
        return [*before, *guarded]

    # --- clauses -----------------------------------------------------------

    def target_tail(self, *children: Any) -> list[Clause]:
        targets, tails = children[-2], _tails(children[-1])
        return [_clause(tail, t) for t in targets for tail in tails]

    def bare_tail(self, *children: Any) -> list[Clause]:
        return [_clause(tail, None) for tail in _tails(children[-1])]

    def head_switch(self, _set: LarkToken, targets: list[Target]) -> list[Clause]:
        scenes = [self._scene_of(t) for t in targets]
        if not all(scenes):
            raise Unsupported("切换到 takes a scene")
        return [Clause("scene", t, scene=s) for t, s in zip(targets, scenes, strict=True)]

    def target_only(self, targets: list[Target], _de: Any = None) -> list[Clause]:
        clauses = []
        for target in targets:
            scene = self._scene_of(target)
            clauses.append(
                Clause("scene", target, scene=scene) if scene else Clause("select", target)
            )
        return clauses

    def repeat(self, _t: LarkToken) -> list[Clause]:
        return [Clause("repeat")]

    def confirm(self, _t: LarkToken) -> list[Clause]:
        return [Clause("confirm")]

    def cancel(self, _t: LarkToken) -> list[Clause]:
        return [Clause("cancel")]

    def ordinal(self, t: LarkToken, _de: Any = None) -> list[Clause]:
        return [Clause("select", ordinal=int(self._payload(t)))]

    def head_on(
        self, _on: LarkToken, targets: list[Target], tail: Tail | None = None
    ) -> list[Clause]:
        clauses: list[Clause] = []
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

    def head_off(self, _off: LarkToken, targets: list[Target]) -> list[Clause]:
        return [Clause("off", t) for t in targets]

    def head_rel(self, rel: LarkToken, targets: list[Target], *rest: Any) -> list[Clause]:
        attr = next(
            (self._payload(r) for r in rest if isinstance(r, LarkToken) and r.type == "ATTR"), None
        )
        amount = next((r for r in rest if isinstance(r, _Number)), None)
        tail = self._relative(self._payload(rel), attr, amount)
        return [_clause(tail, t) for t in targets]

    def head_set(self, _setv: LarkToken, targets: list[Target], *rest: Any) -> list[Clause]:
        attr = next(
            (self._payload(r) for r in rest if isinstance(r, LarkToken) and r.type == "ATTR"), None
        )
        tail = _with_attribute(Tail("set", rest[-1]), attr)
        return [_clause(tail, t) for t in targets]

    def head_media(self, media: LarkToken, targets: list[Target]) -> list[Clause]:
        return [Clause(self._payload(media), t) for t in targets]

    def head_query(self, _q: LarkToken, *rest: Any) -> list[Clause]:
        targets = next((r for r in rest if isinstance(r, list)), [None])
        attr = None
        for r in rest:
            if isinstance(r, LarkToken):
                attr = self._payload(r) or attr
        return [Clause("query", t, attribute=attr) for t in targets]

    # --- tails -------------------------------------------------------------

    def t_on(self, _on: LarkToken, value: Value | None = None) -> Tail:
        return Tail("on") if value is None else Tail("set", value)

    def t_off(self, _off: LarkToken, value: Value | None = None) -> Tail:
        return Tail("off") if value is None else Tail("set", value)  # 窗帘关一半

    def t_set(self, *children: Any) -> Tail:
        attr = None
        verb = False
        for c in children:
            if isinstance(c, LarkToken):
                if c.type == "ATTR":
                    attr = self._payload(c)
                else:
                    verb = True
        return _with_attribute(Tail("set", children[-1], verb=verb or attr is not None), attr)

    def t_rel(self, *children: Any) -> Tail:
        attr = None
        rel: Any = None
        amount = None
        for c in children:
            if isinstance(c, _Number):
                amount = c
            elif c.type == "ATTR":
                attr = self._payload(c)
            elif c.type == "REL":
                rel = self._payload(c)
        return self._relative(rel, attr, amount)

    def t_adj(self, *children: Any) -> Tail:
        attr = None
        adj: Any = None
        amount = None
        for c in children:
            if isinstance(c, _Number):
                amount = c
            elif c.type == "ATTR":
                attr = self._payload(c)
            elif c.type == "ADJ":
                adj = self._payload(c)
        return self._relative(adj, attr, amount)

    def t_query(self, *children: LarkToken) -> Tail | list[Tail]:
        attrs = [self._payload(c) for c in children if c.type == "ATTR"]
        asked = next((self._payload(c) for c in children if c.type == "QWORD"), None)
        if len(attrs) > 1:  # 温度和湿度多少
            return [Tail("query", attribute=a) for a in attrs]
        return Tail("query", attribute=attrs[0] if attrs else asked)

    def t_state(self, q: LarkToken) -> Tail:
        return Tail("query", attribute=self._payload(q))

    def t_media(self, m: LarkToken) -> Tail:
        return Tail(self._payload(m))

    def _relative(self, how: Any, attr: str | None, amount: _Number | None) -> Tail:
        hint, direction, warmth = how
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
        )
        return Tail("adjust", value)

    # --- values ------------------------------------------------------------

    def v_number(self, n: _Number) -> Value:
        return Value("absolute", _UNIT_ATTRIBUTE.get(n.unit), n.value, None, n.unit)

    def v_half(self, t: LarkToken) -> Value:
        return Value("absolute", None, float(self._payload(t)), None, "%")

    def v_extreme(self, t: LarkToken) -> Value:
        attribute, direction = self._payload(t)
        return Value("extreme", attribute, None, None, None, direction)

    def v_mode(self, t: LarkToken, _attr: Any = None) -> Value:
        return Value("absolute", "mode", None, self._payload(t))

    def v_speed(self, t: LarkToken, _attr: Any = None) -> Value:
        return Value("absolute", "fan_speed", None, self._payload(t))

    def v_level(self, t: LarkToken) -> Value:
        level = _LEVEL_WORDS.get(self._tok(t).text)
        if level is None:
            raise Unsupported(f"{self._tok(t).text} is not a level")
        return Value("absolute", "fan_speed", None, level)

    def amount(self, *children: Any) -> _Number:
        return children[-1]  # type: ignore[no-any-return]

    def n_plain(self, num: LarkToken, unit: Any = None) -> _Number:
        return _Number(float(self._payload(num)), unit)

    def n_half(self, num: LarkToken, half: LarkToken) -> _Number:
        return _Number(float(self._payload(num)) + float(self._payload(half)), "°C")

    def n_percent(self, _pre: LarkToken, num: LarkToken) -> _Number:
        return _Number(float(self._payload(num)), "%")

    def unit(self, t: LarkToken) -> Any:
        return self._payload(t)

    # --- targets and conditions -------------------------------------------

    def target(self, *items: Any) -> list[Target]:
        return self._targets(items)

    def exclusion(self, _except: LarkToken, *items: Any) -> list[Target]:
        items = tuple(i for i in items if not (isinstance(i, LarkToken) and i.type == "EXCEPT_END"))
        return self._targets(items)

    def condition(self, *children: Any) -> Condition:
        subject: Target | None = None
        attr = None
        op: Op = ">"
        number: _Number | None = None
        for c in children:
            if isinstance(c, list):
                subject = c[0]
            elif isinstance(c, _Number):
                number = c
            elif c.type == "ATTR":
                attr = self._payload(c)
            elif c.type == "CMP":
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

    def _targets(self, items: Sequence[Any]) -> list[Target]:
        """Read a flat run of target words into one target per AND-separated part."""
        parts: list[list[Any]] = [[]]
        for item in items:
            if isinstance(item, LarkToken) and item.type == "AND":
                parts.append([])
            else:
                parts[-1].append(item)
        targets: list[Target] = []
        pending_places: list[Place] = []
        shared: dict[str, Any] = {}
        for part in parts:
            target = self._one_target(part)
            if not _has_what(target):
                # 客厅和卧室的灯: a part that is only places shares the next part's noun.
                pending_places.extend(target.places)
                shared = _merge_shared(shared, target)
                continue
            if pending_places or shared:
                target = replace(target, places=(*pending_places, *target.places), **shared)
            pending_places, shared = [], {}
            targets.append(target)
        if pending_places or not targets:
            targets.append(_apply_shared(Target(places=tuple(pending_places)), shared))
        # 所有 said once before 客厅和卧室的灯 applies to every part.
        quantifier: Quantifier = next(
            (t.quantifier for t in targets if t.quantifier != "one"), "one"
        )
        if quantifier == "one":
            return targets
        return [
            replace(t, quantifier=quantifier) if t.quantifier == "one" and t.count is None else t
            for t in targets
        ]

    def _one_target(self, part: Sequence[Any]) -> Target:
        places: list[Place] = []
        names: list[Token] = []
        type_token: Token | None = None
        quantifier: Quantifier = "one"
        count: int | None = None
        excludes: list[Target] = []
        reference = None
        for item in part:
            if isinstance(item, list):
                excludes.extend(item)
                continue
            tok = self._tok(item)
            kind = tok.kind
            if kind in _PLACE_KINDS:
                place_id = tok.value if kind in ("ROOM", "FLOOR", "GROUP") else None
                places.append(Place(_PLACE_KINDS[kind], place_id, tok.text))
            elif kind in ("NAME", "SCENE"):
                names.append(tok)
                if kind == "SCENE":
                    self._scenes[tok.text] = tok.value
            elif kind == "TYPE":
                type_token = tok
            elif kind in ("ALL", "DOU"):
                quantifier = "all"
            elif kind == "ANY":
                quantifier = "any"
            elif kind == "COUNT":
                count = int(tok.value)
            elif kind == "IT":
                reference = tok.value
            elif kind in ("EXCEPT_POST", "EXCEPT_END"):
                # 卧室除外: the places just said are taken away, else the name.
                if places:
                    excludes.append(Target(places=tuple(places)))
                    places = []
                elif names or type_token:
                    excludes.append(_named(names, type_token, places=()))
                    names, type_token = [], None
        device_type = type_token.value if type_token else None
        type_word = type_token.text if type_token else None
        if excludes:
            if quantifier == "one":
                quantifier = "all"
            places = [p for p in places if p.kind != "other_rooms"]
            if not (names or type_word):
                # 除了卧室的灯都关掉: the excluded noun says what the rest is.
                noun = next((e for e in excludes if e.type_word), None)
                if noun is not None:
                    device_type, type_word = noun.device_type, noun.type_word
        return Target(
            tuple(places),
            _mention(names),
            device_type,
            type_word,
            quantifier,
            count,
            tuple(excludes),
            reference,
        )


def _mention(names: list[Token]) -> Mention | None:
    if not names:
        return None
    worst = max((n.match for n in names), key=_MATCH_RANK.__getitem__)
    return Mention("".join(n.text for n in names), "".join(n.said for n in names), worst)


def _named(names: list[Token], type_token: Token | None, places: tuple[Place, ...]) -> Target:
    return Target(
        places=places,
        name=_mention(names),
        device_type=type_token.value if type_token else None,
        type_word=type_token.text if type_token else None,
    )


def _tails(tail: Tail | list[Tail]) -> list[Tail]:
    return tail if isinstance(tail, list) else [tail]


def _scope_exclusions(clauses: list[Clause]) -> list[Clause]:
    """An exclusion said as its own phrase (除了卧室，… / …，卫生间除外) scopes the clause
    after it, or, when nothing follows, the clause before it."""
    out: list[Clause] = []
    pending: tuple[Target, ...] = ()
    for clause in clauses:
        target = clause.target
        if clause.action == "select" and target is not None and _only_exclusion(target):
            pending += target.exclude
            continue
        if pending and target is not None:
            clause = replace(clause, target=_excluding(target, pending))
            pending = ()
        out.append(clause)
    if pending:
        previous = next((i for i in range(len(out) - 1, -1, -1) if out[i].target), None)
        if previous is None:
            raise Unsupported("an exclusion with nothing to exclude from")
        clause = out[previous]
        assert clause.target is not None
        out[previous] = replace(clause, target=_excluding(clause.target, pending))
    return out


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
    (卧室空调，开一下); a bare 那个/这个 before a full clause is hesitation, not a target."""
    out: list[Clause] = []
    carried: Target | None = None
    for clause in clauses:
        if carried is not None and clause.target is None and clause.action in _NEEDS_TARGET:
            clause = replace(clause, target=carried)
        carried = None
        if clause.action == "select" and clause.target is not None and clause is not clauses[-1]:
            target = clause.target
            if target.reference and not (target.places or target.name or target.type_word):
                continue
            carried = target
            continue
        out.append(clause)
    return out


def _excluding(target: Target, excluded: tuple[Target, ...]) -> Target:
    quantifier: Quantifier = "all" if target.quantifier == "one" else target.quantifier
    # 除了客厅，其他房间的灯: the exclusion already says what "other" means.
    places = tuple(p for p in target.places if p.kind != "other_rooms")
    return replace(
        target, places=places, exclude=(*target.exclude, *excluded), quantifier=quantifier
    )


def _only_exclusion(target: Target) -> bool:
    # Its type word, if any, was taken from what it excludes (除了一楼的灯).
    return bool(target.exclude) and not (
        target.places or target.name or target.reference or target.count
    )


def _has_what(target: Target) -> bool:
    return bool(target.name or target.type_word or target.reference or target.count)


def _merge_shared(shared: dict[str, Any], target: Target) -> dict[str, Any]:
    if target.quantifier != "one":
        shared = {**shared, "quantifier": target.quantifier}
    if target.exclude:
        shared = {**shared, "exclude": target.exclude}
    return shared


def _apply_shared(target: Target, shared: dict[str, Any]) -> Target:
    return replace(target, **shared) if shared else target


def _with_attribute(tail: Tail, attr: str | None) -> Tail:
    if attr is None or tail.value is None:
        return tail
    value = tail.value
    attribute = _set_attribute(attr)
    if attribute == "fan_speed" and value.attribute == "mode" and value.word == "auto":
        return replace(tail, value=replace(value, attribute="fan_speed"))  # 风速自动
    if value.attribute in (None, "target_temperature", "color_temp") or value.kind == "extreme":
        value = replace(value, attribute=attribute)
    return replace(tail, value=value)


def _clause(tail: Tail, target: Target | None) -> Clause:
    return Clause(tail.action, target, tail.value, tail.attribute)
