"""Map a clause's target onto device ids, or decide to ask or to refuse.

Set algebra is exact: places, groups, floors and exclusions are sets of ids;
similarity only ever finds names. A single mention that fits several devices
is narrowed by the session (a device acted on recently) and by the nearest
place said earlier in the utterance; what is still ambiguous is asked, with
the shortest distinguishing words, room first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from jiayu.actions import NOTHING, can_do, command_for, meaning, meanings, reading_attribute
from jiayu.compiler.build import complaint_of
from jiayu.grammar.phrases import say
from jiayu.grammar.vocab import (
    COMPLAINT_CAUSES,
    COMPLAINT_MODES,
    COMPLAINT_REMEDIES,
    COMPLAINT_SECOND,
    COMPLAINTS_ON_ONLY,
)
from jiayu.home import Home
from jiayu.ir import Clause, MatchKind, Place, Target, Value, filled_directly
from jiayu.resolver.names import FUZZY_MARGIN, NameIndex, NameMatch
from jiayu.resolver.session import Session
from jiayu.text import shown

MAX_READ_OUT = 4
"""A question names at most this many candidates; with more it asks for the room or a count."""


# Actions a clause with no target takes the speaker's room for (a value, a change, a
# question, a player's controls: 下一首 said in the study is the study's player); never
# 打开/关闭, which would switch the whole room.
_PLACED = frozenset(
    {"set", "adjust", "query", "mute", "unmute", "play", "pause", "next_track", "previous_track"}
)


# Of those, the actions that act on every device of the room that can, as 这里 would.
_SET = frozenset({"set", "adjust"})


def cannot(home: Home, devices: Sequence[str], clause: Clause) -> str:
    """These devices do not support what the clause asks: 台灯不支持调亮度 (three named at
    most)."""
    names = [shown(home.device(d).name) for d in devices[:3]]
    if clause.value is not None and clause.value.attribute:
        what = say("what.set", attribute=clause.value.attribute)
    elif clause.action == "query" and clause.attribute:
        what = say("what.read", attribute=clause.attribute)
    else:
        what = say("what.do", action=clause.action)
    more = len(devices) > 3
    return say("refuse.unsupported_more" if more else "refuse.unsupported", names=names, what=what)


@filled_directly
class Found:
    """The devices the clause acts on."""

    devices: tuple[str, ...]
    match: MatchKind = "exact"
    skipped: tuple[str, ...] = ()
    """Members of a set said (所有灯, 客厅) that cannot do it: left out, and named in the reply."""


@filled_directly
class Ask:
    """Ambiguous or missing: ask, offering these device ids."""

    options: tuple[str, ...]
    question: str


@filled_directly
class Refuse:
    """Cannot be done: nothing found, or nothing found can do it."""

    reason: str
    unable: tuple[str, ...] = ()
    """The devices found that cannot do it (none when nothing was found)."""


Resolution = Found | Ask | Refuse
_ANSWERED = (Refuse, Ask)
"""What ends a resolution early, as a tuple: a union is rebuilt at every isinstance."""


@lru_cache(maxsize=1024)
def _every(target: Target) -> Target:
    """The target with quantifier all. Remembered: `dataclasses.replace` costs as much as
    the rest of resolving the clause, and a home's questions repeat."""
    return replace(target, quantifier="all")


class Resolver:
    """Resolves clauses against one home; stateless apart from the immutable indexes."""

    def __init__(self, home: Home, names: NameIndex) -> None:
        self.home = home
        self.names = names
        self._all = tuple(d.id for d in home.devices)
        # The ids in each room and on each floor, gathered once: a place said costs a set
        # update, not a walk over its Device objects.
        in_room: dict[str, list[str]] = {}
        for d in home.devices:
            in_room.setdefault(d.room, []).append(d.id)
        self._in_room = {room: tuple(ids) for room, ids in in_room.items()}
        on_floor: dict[str, list[tuple[str, ...]]] = {}
        for r in home.rooms:
            if r.floor is not None:
                on_floor.setdefault(r.floor, []).append(self._in_room.get(r.id, ()))
        self._on_floor = {floor: tuple(rooms) for floor, rooms in on_floor.items()}
        self._everything = frozenset(self._all)
        self._order = {d.id: i for i, d in enumerate(home.devices)}
        # Devices serving as each type (its own, acts_as or family), in home order: a type
        # word then costs its own devices, not a scan of the whole home.
        by_type: dict[str, list[str]] = {}
        for d in home.devices:
            for kind in d.serves:
                by_type.setdefault(kind, []).append(d.id)
        self._by_type = {k: tuple(v) for k, v in by_type.items()}
        # Each device's capabilities: `_able` asks what a clause can do once per set (a
        # loaded home holds one object per distinct set, found by identity: jiayu/home.py).
        self._capabilities = {d.id: d.capabilities for d in home.devices}

    def _able(self, candidates: Sequence[str], clause: Clause) -> tuple[str, ...]:
        """The candidates that can do the clause, in their order. What a device can do is
        decided by its capabilities alone (jiayu/actions.py), so it is worked out once per
        distinct set of them (`meaning`): 所有的灯 is thousands of devices but a handful."""
        known = meanings(clause)
        capabilities = self._capabilities
        able: list[str] = []
        for device_id in candidates:
            found = known.get(capabilities[device_id])
            if found is None:
                found = meaning(self.home.device(device_id), clause, known)
            if found != NOTHING:
                able.append(device_id)
        return tuple(able)

    def _of_type(self, kind: str | None) -> tuple[str, ...]:
        """Devices serving as `kind` (every device for None), in home order."""
        return self._all if kind is None else self._by_type.get(kind, ())

    # --- public -----------------------------------------------------------

    def resolve(
        self,
        clause: Clause,
        session: Session,
        *,
        focus: Sequence[str] = (),
        previous: tuple[str, ...] | None = None,
        area: str | None = None,
    ) -> Resolution:
        """Devices for `clause`; `focus` are rooms said earlier in the utterance (nearest last),
        `previous` the devices of the previous clause (for a clause with no target), `area` the
        speaker's room (这里, and what a place-less ambiguous clause takes)."""
        complaint = complaint_of(clause)
        if complaint is not None:
            return self._complaint(clause, complaint, area)
        target = clause.target
        if target is None:
            carried = self._carried(clause, session, previous)
            if area is None or not isinstance(carried, Ask) or clause.action not in _PLACED:
                return carried
            # 调到26度 / 多少度 said in the bedroom, nothing acted on before: what the bedroom
            # has that can do it, when that is one device (a question reads the room).
            room = Target(places=(Place("room", area, self.home.room(area).name),))
            local = self._target(clause, room, session, focus, area)
            if isinstance(local, Found) and clause.action == "query":
                # 多少度 of a room is what its sensors read, as 卧室多少度 is.
                sensed = tuple(
                    d
                    for d in local.devices
                    if reading_attribute(self.home.device(d), clause.attribute, sensors_only=True)
                )
                return Found(sensed or local.devices, local.match)
            if isinstance(local, Refuse) and clause.action == "query":
                return local  # 多少度 in a room with no thermometer: it says so
            if isinstance(local, Found) and (len(local.devices) == 1 or clause.action in _SET):
                return local  # 亮度调到50 there: the room's lights, as 这里的亮度调到50 says
            return carried
        if target.reference is not None:
            return self._reference(clause, target, session, previous)
        if area is not None and any(p.kind == "this_room" for p in target.places):
            # 这里 said where the hub knows the speaker is: that room, so 这里的灯 can spell a
            # device's name (书房灯) like 书房的灯 does.
            here = Place("room", area, self.home.room(area).name)
            places = tuple(here if p.kind == "this_room" else p for p in target.places)
            target = replace(target, places=places)
        if clause.question in ("which", "count", "any", "all") and not target.is_set:
            target = _every(target)  # 有没有灯开着 asks about every light
        resolution = self._target(clause, target, session, focus, area)
        if (
            area is not None
            and not isinstance(resolution, Refuse)
            and not target.places
            and not focus
            and (target.type_word or target.name)
            and not target.is_set
            and (isinstance(resolution, Ask) or self._elsewhere(resolution.devices, area, session))
        ):
            # 开灯 said in the bedroom: the bedroom's lights, as if 卧室的灯 had been said
            # (打开台灯 there: the bedroom's 台灯). 风扇摇头 said there, where the fan cannot:
            # that fan is meant, and refused saying why, not another room's that can.
            here = Place("room", area, self.home.room(area).name)
            local = self._target(clause, replace(target, places=(here,)), session, focus, area)
            if isinstance(local, Found) or (isinstance(local, Refuse) and local.unable):
                return local
        return resolution

    def _elsewhere(self, devices: tuple[str, ...], area: str, session: Session) -> bool:
        """None of the devices is in the speaker's room or was acted on lately in the session
        (打开客厅风扇, then 风扇摇头 in the bedroom, is still the living room's)."""
        return not any(
            self.home.device(d).room == area or d in session.recent_devices for d in devices
        )

    def composed(self, place: Place, noun: str) -> NameMatch | None:
        """A place plus a noun that spell one device: 客厅的灯 is the device named 客厅灯, and
        洗手间的灯 (the room said by its alias) the device whose bare name is 灯 there."""
        exact = self.names.exact(place.text + noun)
        if exact is not None:
            return exact
        if place.kind == "room" and place.id:
            bare = self.names.bare_in_room(noun, place.id)
            if bare:
                return NameMatch(bare, "alias", 1.0)
        return None

    def narrow(self, clause: Clause, options: tuple[str, ...], answer: Clause) -> Resolution | None:
        """Apply an answer (书房的 / 第一个 / 客厅灯) to a pending question; None if it is no
        answer to it."""
        if answer.ordinal is not None:
            index = answer.ordinal - 1 if answer.ordinal > 0 else len(options) + answer.ordinal
            if 0 <= index < len(options):
                return Found((options[index],))
            question = self._question(options)
            return Ask(options, say("ask.only_options", count=len(options), question=question))
        target = answer.target
        if target is None:
            return None
        chosen = set(options)
        if target.places:
            scope = self._places(target.places, None, ())
            if isinstance(scope, _ANSWERED) or scope is None:
                return None
            chosen &= scope
        if target.name is not None:
            match = self.names.lookup(target.name.text)
            chosen &= set(match.devices if match else ())
        if target.device_type is not None:
            chosen = {d for d in chosen if self.home.device(d).serves_as(target.device_type)}
        picked = self._sorted(chosen)
        if not picked:
            return None
        if target.count is not None and target.count != len(picked):
            # 两个都关 when eleven were offered: the count does not fit, so ask again.
            return Ask(picked, self._question(picked, clause))
        if len(picked) == 1 or target.is_set:
            return Found(picked)
        return Ask(picked, self._question(picked))

    # --- the cases ----------------------------------------------------------

    def _carried(
        self, clause: Clause, session: Session, previous: tuple[str, ...] | None
    ) -> Resolution:
        if previous is not None:
            # An earlier clause of this utterance named the target: it is shared, and if
            # it found nothing this clause does not guess from older turns.
            if not previous:
                return Ask((), say("ask.which_device", action=clause.action))
            able = self._able(previous, clause)
            if able:
                return Found(able)
            return Refuse(self._cannot(previous, clause))
        for device_id in session.recent_devices:
            if can_do(self.home.device(device_id), clause):
                return Found((device_id,))
        return Ask((), say("ask.which_device", action=clause.action))

    def _reference(
        self, clause: Clause, target: Target, session: Session, previous: tuple[str, ...] | None
    ) -> Resolution:
        # The previous clause of this utterance is the most recent mention of all
        # (打开卧室空调，把它调到26度); only without one does the session count.
        pool: Sequence[str]
        if previous is not None:
            pool = previous
        elif target.reference == "they":
            pool = session.last_devices
        else:
            pool = session.recent_devices
        able = [
            d
            for d in self._able(tuple(dict.fromkeys(pool)), clause)
            if target.device_type is None or self.home.device(d).serves_as(target.device_type)
        ]
        if not able:
            return Ask((), say("ask.which_referent", action=clause.action))
        return Found(tuple(able) if target.reference == "they" else (able[0],))

    def _target(
        self,
        clause: Clause,
        target: Target,
        session: Session,
        focus: Sequence[str],
        area: str | None = None,
    ) -> Resolution:
        places = target.places
        scope = self._places(places, session, focus, area) if places else None
        if isinstance(scope, _ANSWERED):
            return scope
        said_set = target.is_set
        name = target.name
        noun = name.text if name else (target.type_word or "")
        # 客厅的灯 is the device named 客厅灯: a single place plus a noun may spell a name.
        if (
            len(places) == 1
            and noun
            and not said_set
            and places[0].kind in ("room", "floor", "group")
        ):
            named = self.composed(places[0], noun)
            if named is not None:
                return self._single(clause, named.devices, session, focus, target, named.kind)
        match_kind: MatchKind = "exact"
        is_set = said_set or (not name and bool(places))
        if name is not None:
            found = self._by_name(target)
            if isinstance(found, _ANSWERED):
                return found
            candidates, match_kind = found
            if scope is not None:
                candidates = tuple(d for d in candidates if d in scope)
            if not said_set and len(places) > 1 and candidates:
                return self._per_place(clause, candidates, target, session, match_kind)
        else:
            if places and target.type_word and not said_set:
                # Name before type holds with a place said too (一层大门锁: the lock called
                # 大门锁, narrowed by the place), for a full name or an alias: a bare name
                # (一楼的灯) and a place without the named devices leave the type word its
                # type's.
                known = self.names.exact(target.type_word)
                inside = tuple(d for d in known.devices if d in scope) if known and scope else ()
                if known is not None and inside:
                    return self._single(clause, inside, session, focus, target, known.kind)
            if not places and target.type_word and not said_set:
                # The name rule comes before the type rule: a type word that is a device's
                # name, alias or bare name (门锁, 取暖器) means exactly those devices.
                for room in reversed(focus):  # 客厅灯开一下，顺便把窗帘拉上
                    place = Place("room", room, self.home.room(room).name)
                    named = self.composed(place, target.type_word)
                    if named is not None:
                        return self._single(
                            clause, named.devices, session, focus, target, named.kind
                        )
                known = self.names.lookup(target.type_word)
                if known is not None:
                    return self._single(clause, known.devices, session, focus, target, known.kind)
            candidates = self._typed_in(target.device_type, scope)
            if target.device_type is None and clause.action in ("on", "off"):
                # 都关掉 / 除了卧室灯都关掉: "everything" is what 关/开 switches the power of,
                # never a lock, valve, cover or garage door (their 关 is another command).
                candidates = tuple(d for d in candidates if "onoff" in self._capabilities[d])
        for excluded in target.exclude:
            removed = self._excluded(excluded, session, focus)
            if isinstance(removed, _ANSWERED):
                return removed
            candidates = tuple(d for d in candidates if d not in removed)
        if not candidates:
            return Refuse(self._not_found(target))
        if is_set and self._unsaid_attribute(clause, target):
            # 设置书房至百分之29 / 客厅的暂停: a value or a verb for a place with nothing
            # saying what it acts on, while its devices would take it as different commands
            # (brightness, volume, position; pause, pause_cleaning): ask which, never all.
            able = self._able(candidates, clause)
            if len({command_for(self.home.device(d), clause) for d in able}) > 1:
                return Ask(tuple(able), self._question(able, clause))
        if is_set:
            return self._set(clause, candidates, target)
        return self._single(clause, candidates, session, focus, target, match_kind)

    def _single(
        self,
        clause: Clause,
        candidates: tuple[str, ...],
        session: Session,
        focus: Sequence[str],
        target: Target,
        match: MatchKind,
    ) -> Resolution:
        able = self._able(candidates, clause)
        if not able:
            return Refuse(self._cannot(candidates, clause), candidates)
        if len(able) == 1:
            return Found(able, match)
        if target.quantifier == "any":
            return Found((able[0],), match)
        # The nearest place said before, in this utterance, narrows it first: it is the
        # freshest context there is.
        for room in reversed(focus):
            here = tuple(d for d in able if self.home.device(d).room == room)
            if len(here) == 1:
                return Found(here, match)
            if here:
                able = here
                break
        # One of them acted on in this session's recent turns is the one meant.
        recent = [d for d in able if d in session.recent_devices]
        if len(recent) == 1:
            return Found((recent[0],), match)
        return Ask(able, self._question(able, clause))

    def _set(self, clause: Clause, candidates: tuple[str, ...], target: Target) -> Resolution:
        able = self._able(candidates, clause)
        if not able:
            return Refuse(self._cannot(candidates, clause), candidates)
        if target.quantifier == "any":
            return Found((able[0],))
        if target.count is None and clause.action != "query" and len(able) < len(candidates):
            # A set command acts on the members that can do it and names those it skipped;
            # a place said alone names no set (这里的亮度调到50: its lights, no one skipped).
            if target.is_place_only:
                return Found(able)
            kept = set(able)  # a set: thousands of candidates are not tested against a tuple
            return Found(able, skipped=tuple(d for d in candidates if d not in kept))
        if target.count is not None and target.count != len(able):
            noun = target.type_word or (target.name.text if target.name else say("word.device"))
            if target.count > len(able):
                # 关闭三个插座 with two: no answer picks three of two, so say how many there are.
                return Refuse(say("refuse.count_too_large", found=len(able), noun=noun))
            question = say(
                "ask.which_count",
                found=len(able),
                noun=noun,
                action=clause.action,
                count=target.count,
            )
            return Ask(able, question)
        return Found(able)

    def _complaint(self, clause: Clause, kind: str, area: str | None) -> Resolution:
        """太热了: the obvious actuator in the room said, else in the speaker's room; one is
        acted on, several asked among, none refused; with no room, the room is asked."""
        places = clause.target.places if clause.target is not None else ()
        if not places and area is not None:
            places = (Place("room", area, self.home.room(area).name),)
        if not places:
            return Ask((), say("ask.complaint_room", remedy=kind))
        scope = self._places(places, None, (), area)
        if not isinstance(scope, set):
            return scope if scope is not None else Ask((), say("ask.complaint_room", remedy=kind))
        types, step = COMPLAINT_REMEDIES[kind]
        able = [d for d in self._sorted(scope) if self._remedies(d, kind, types)]
        if not able and kind in COMPLAINT_SECOND:
            # No actuator of the first kind here: the second choice (hot: a fan).
            types, step = COMPLAINT_SECOND[kind]
            able = [d for d in self._sorted(scope) if self._remedies(d, kind, types)]
        if step is not None and kind in COMPLAINTS_ON_ONLY:
            # A dimmer, a quieter: only what can make that step is an actuator of it.
            attribute, direction = step
            stepped = Clause("adjust", None, Value("relative", attribute, direction=direction))
            able = list(self._able(able, stepped))
        if not able:
            return Refuse(
                say("refuse.complaint_none", places=[p.text for p in places], remedy=kind)
            )
        if len(able) > 1 and kind not in COMPLAINT_CAUSES:
            return Ask(tuple(able), self._question(able, clause))
        return Found(tuple(able))  # several that may cause it: the planner reads which does

    @staticmethod
    def _unsaid_attribute(clause: Clause, target: Target) -> bool:
        """A value or a change with no attribute, or a verb other than 开/关 (whose "everything"
        is the power), said of places only, with no type word or name."""
        return (
            clause.action not in ("on", "off")
            and (clause.value is None or clause.value.attribute is None)
            and target.name is None
            and target.type_word is None
            and target.device_type is None
        )

    def _remedies(self, device_id: str, kind: str, types: tuple[str, ...]) -> bool:
        """Whether the device is an actuator of the complaint: of one of its types, and able
        to switch to the mode the complaint needs when it has modes (cold: heat)."""
        device = self.home.device(device_id)
        if not any(device.serves_as(t) for t in types):
            return False
        mode = COMPLAINT_MODES.get(kind)
        if mode is None or device.type != "AirConditioner":
            return True
        return "hvac_mode" in device.capabilities or kind == "hot"

    def _per_place(
        self,
        clause: Clause,
        candidates: tuple[str, ...],
        target: Target,
        session: Session,
        match: MatchKind,
    ) -> Resolution:
        """打开客厅和书房的台灯: several places and one name mean that name in each place, a
        set; a place with several such asks about that place alone. A place with none adds
        nothing, as it would to 客厅和卧室的灯 (the caller saw some place has one)."""
        found: list[str] = []
        for place in target.places:
            scope = self._places((place,), session, ())
            if not isinstance(scope, set):
                return scope if scope is not None else Refuse(self._not_found(target))
            here = tuple(d for d in candidates if d in scope)
            if not here:
                continue
            able = self._able(here, clause)
            if len(able) > 1:
                return Ask(able, self._question(able, clause))
            if not able:
                return Refuse(self._cannot(here, clause))
            found.extend(able)
        return Found(self._sorted(found), match)

    # --- pieces -------------------------------------------------------------

    def _by_name(self, target: Target) -> tuple[tuple[str, ...], MatchKind] | Refuse | Ask:
        assert target.name is not None
        match = self.names.lookup(target.name.text)
        if match is not None:
            kind = "pinyin" if target.name.match == "pinyin" else match.kind
            return match.devices, kind
        fuzzy = self.names.fuzzy(target.name.text)
        if not fuzzy:
            return Refuse(say("refuse.no_such_name", name=shown(target.name.said)))
        best = fuzzy[0][1]
        close = [m for _, m in fuzzy[1:] if best.score * 100 - m.score * 100 < FUZZY_MARGIN]
        if close:
            ids = self._sorted({d for m in (best, *close) for d in m.devices})
            question = self._question(ids)
            return Ask(
                ids, say("ask.did_you_mean", name=shown(target.name.said), question=question)
            )
        return best.devices, "fuzzy"

    def _places(
        self,
        places: tuple[Place, ...],
        session: Session | None,
        focus: Sequence[str],
        area: str | None = None,
    ) -> set[str] | Refuse | Ask | None:
        """The devices of the places said; None when no place was said.

        Rooms are a union (客厅卧室的灯), and so are floors and groups. Said together the kinds
        nest, so they intersect: a room on a floor is that room (一楼书房), a room at home is
        that room (家里书房), an area and a group are the group's devices there (主卧的氛围灯).
        Nesting never widens: 二楼书房, where the study is on the first floor, is nothing, not
        both floors' worth.
        """
        if not places:
            return None
        rooms: set[str] | None = None
        floors: set[str] | None = None
        groups: set[str] | None = None
        for place in places:
            if place.kind == "room" and place.id:
                rooms = (rooms or set()).union(self._in_room.get(place.id, ()))
            elif place.kind == "floor" and place.id:
                floors = (floors or set()).union(*self._on_floor.get(place.id, ()))
            elif place.kind == "group" and place.id:
                groups = (groups or set()).union(self.home.group(place.id).members)
            elif place.kind != "home":  # the home holds every place said with it
                # 这里 is where the speaker is, when the hub says; else the room in focus.
                here = area if area is not None and place.kind == "this_room" else None
                here = here or self._focus_room(session, focus)
                if here is None:
                    if not place.text:  # 灯都关了: where the speaker is, said by nobody
                        return Ask((), say("ask.which_room_unsaid"))
                    return Ask((), say("ask.which_room", place=place.text))
                if place.kind == "this_room":
                    said = set(self._in_room.get(here, ()))
                else:
                    # Every device but here's: a set difference, not a walk over the home.
                    said = set(self._everything.difference(self._in_room.get(here, ())))
                rooms = said if rooms is None else rooms | said
        said_sets = [ids for ids in (rooms, floors, groups) if ids is not None]
        if not said_sets:
            return set(self._all)  # 全屋 alone
        return said_sets[0] if len(said_sets) == 1 else set.intersection(*said_sets)

    def _focus_room(self, session: Session | None, focus: Sequence[str]) -> str | None:
        if focus:
            return focus[-1]
        if session is not None and session.recent_rooms:
            return session.recent_rooms[0]
        return None

    def _excluded(
        self, target: Target, session: Session, focus: Sequence[str]
    ) -> set[str] | Refuse | Ask:
        scope = self._places(target.places, session, focus)
        if isinstance(scope, _ANSWERED):
            return scope
        pool = scope if scope is not None else set(self._all)
        if target.name is not None:
            match = self.names.lookup(target.name.text)
            if match is None:
                return Refuse(say("refuse.no_such_exclusion", name=shown(target.name.said)))
            pool &= set(match.devices)
        if target.device_type is not None:
            pool &= set(self._of_type(target.device_type))
        return pool

    def _typed_in(self, kind: str | None, scope: set[str] | None) -> tuple[str, ...]:
        """Devices serving as `kind` within `scope` (anywhere for None), in home order; walks
        the smaller of the two, so a room's lookup never scans the whole home."""
        typed = self._of_type(kind)
        if scope is None:
            return typed
        if len(scope) < len(typed):
            if kind is None:
                return self._sorted(scope)
            device = self.home.device
            return self._sorted({d for d in scope if device(d).serves_as(kind)})
        return tuple(filter(scope.__contains__, typed))

    def _sorted(self, ids: set[str] | Sequence[str]) -> tuple[str, ...]:
        return tuple(sorted(set(ids), key=self._order.__getitem__))

    def _question(self, options: Sequence[str], clause: Clause | None = None) -> str:
        devices = [self.home.device(d) for d in options]
        rooms = [d.room for d in devices]
        if len(devices) > MAX_READ_OUT:
            # Eleven room names read out is no question: ask for the room, or how many.
            target = clause.target if clause is not None else None
            noun = (
                target.type_word or shown(target.name.said)
                if target and target.name
                else target.type_word
                if target
                else None
            ) or say("word.device")
            return say(
                "ask.too_many_rooms" if len(set(rooms)) > 1 else "ask.too_many",
                found=len(devices),
                noun=noun,
                action=clause.action if clause is not None else None,
            )
        bares = {self.home.bare_name(d) for d in devices}
        if len(set(rooms)) == len(rooms) and len(bares) == 1 and None not in bares:
            words = [shown(self.home.room(r).name) for r in rooms]
            return say("ask.rooms_of", rooms=words, bare=bares.pop())
        return say("ask.one_of", names=[shown(d.name) for d in devices])

    def _cannot(self, candidates: Sequence[str], clause: Clause) -> str:
        return cannot(self.home, candidates, clause)

    def _not_found(self, target: Target) -> str:
        noun = shown(target.name.said if target.name else (target.type_word or say("word.device")))
        if target.places:
            return say("refuse.not_found_in", places=[p.text for p in target.places], noun=noun)
        return say("refuse.not_found", noun=noun)
