"""The engine: one turn of one session, from text to a Result.

It composes the stages (compile → resolve → plan → send) and owns the
sessions; nothing else holds state. One engine serves many sessions from many
threads: the home, lexicon and name index are immutable and shared, and each
session's turns are serialised by that session's lock.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from jiayu.compiler import CONFIDENCE_THRESHOLD, Lexicon, compile_text
from jiayu.compiler.compact import UNKNOWN, compact
from jiayu.executor.actions import query_attribute, reading_attribute
from jiayu.executor.audit import AuditLog
from jiayu.executor.catalog import HIGH_RISK, params_error
from jiayu.executor.hubs import FAULT_WORDS, Hub, HubError, SimulatedHub
from jiayu.executor.plan import Refusal, needs_read, plan
from jiayu.executor.replies import (
    COMMAND_VERBS,
    answer_phrase,
    done_phrase,
    names_phrase,
    reading_phrase,
)
from jiayu.home import Home, load_home, room_prefix
from jiayu.ir import Clause, Condition, Parse, Target, to_json
from jiayu.resolver.names import NameIndex
from jiayu.resolver.resolve import (
    ACTION_WORDS,
    Ask,
    Found,
    Refuse,
    Resolver,
    attribute_word,
    shown,
)
from jiayu.resolver.session import Command, PendingClarify, PendingConfirm, Session
from jiayu.result import Outcome, Result, most_blocking

log = logging.getLogger("jiayu")

MAX_SESSIONS = 10_000
"""Sessions kept per engine; the least recently used is forgotten beyond this."""

_OPS = {
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
}
_OP_WORDS = {">": "超过", "<": "低于", ">=": "达到", "<=": "不超过"}


@dataclass
class _Turn:
    """What one turn has done so far."""

    outcomes: list[Outcome] = field(default_factory=list)
    sent: list[Command] = field(default_factory=list)
    held: list[Command] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    asked: bool = False  # a clarify is pending: the turn asks one question only


class Engine:
    """Text in, commands sent, a Result out."""

    def __init__(
        self,
        home: Home,
        *,
        hub: Hub | None = None,
        audit_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.home = home
        self.lexicon = Lexicon(home)
        self.names = NameIndex(home)
        self.resolver = Resolver(home, self.names)
        self.hub: Hub = hub if hub is not None else SimulatedHub(home)
        self._audit = AuditLog(audit_path) if audit_path is not None else None
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._sessions_lock = threading.Lock()

    def fresh(self, *, hub: Hub | None = None) -> Engine:
        """A new engine on the same home and indexes: new sessions, and a new simulated hub
        unless one is given. Cheap: nothing is rebuilt."""
        engine = Engine.__new__(Engine)
        engine.home, engine.lexicon, engine.names = self.home, self.lexicon, self.names
        engine.resolver = self.resolver
        engine.hub = hub if hub is not None else SimulatedHub(self.home)
        engine._audit = self._audit
        engine._sessions, engine._sessions_lock = OrderedDict(), threading.Lock()
        return engine

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **kwargs: Any) -> Engine:
        """An engine on the home in a JSON file (HomeError if it is invalid)."""
        return cls(load_home(path), **kwargs)

    def session(self, session_id: str) -> Session:
        """The session with this id, created on first use."""
        with self._sessions_lock:
            session = self._sessions.get(session_id)
            if session is None:
                session = self._sessions[session_id] = Session(session_id)
                if len(self._sessions) > MAX_SESSIONS:
                    self._sessions.popitem(last=False)  # the least recently used one
            else:
                self._sessions.move_to_end(session_id)
            return session

    def turn(
        self,
        text: str,
        session_id: str = "default",
        *,
        area: str | None = None,
        user: str | None = None,
    ) -> Result:
        """Run one turn; never raises for any text.

        `area` is the speaker's room id (a satellite's area), `user` who is speaking (for
        preferences); a hub passes what it knows."""
        session = self.session(session_id)
        with session.lock:
            state = _Turn()
            try:
                return self._turn(text, session, state)
            except Exception:  # fail closed: a bug must not switch anything more
                log.exception("jiayu.turn_failed", extra={"session": session_id, "text": text})
                session.pending = None
                # Whatever was already sent is reported: a reply never hides a command.
                sent = [_command_json(c) for c in state.sent]
                return Result(
                    text,
                    "executed" if sent else "unknown",
                    sent,
                    reply="抱歉，出了点问题，后面的操作没有执行。",
                    failures=state.failures,
                )

    # --- one turn ------------------------------------------------------------

    def _turn(self, text: str, session: Session, state: _Turn) -> Result:
        compiled = compile_text(text, self.lexicon)
        parsed = compiled if isinstance(compiled, Parse) else None
        pending, session.pending = session.pending, None
        if parsed is None:
            log.info(
                "jiayu.no_parse",
                extra={
                    "session": session.id,
                    "text": text,
                    "reason": getattr(compiled, "reason", ""),
                },
            )
            state.outcomes.append("unknown")
            state.replies.append("抱歉，我没听懂。")
            return self._finish(text, session, state, compiled=None, ir=to_json(compiled))
        if parsed.confidence < CONFIDENCE_THRESHOLD:
            # No fallback parser is configured yet; a clause whose target was only found
            # fuzzily is asked back (see _apply), the rest runs on its exact matches.
            log.info(
                "jiayu.low_confidence",
                extra={"session": session.id, "text": text, "confidence": parsed.confidence},
            )
        clauses = parsed.clauses
        answer = clauses[0].action if len(clauses) == 1 else None
        if isinstance(pending, PendingConfirm) and answer in ("confirm", "cancel"):
            # Only a bare 确认 / 算了 answers: "好的，打开客厅灯" is a new command.
            if answer == "confirm":
                self._send(pending.commands, text, session, state, confirmed=True)
            else:
                state.outcomes.append("noop")
                state.replies.append("好的，已取消。")
            return self._finish(text, session, state, parsed)
        if isinstance(pending, PendingClarify):
            if answer == "cancel":
                state.outcomes.append("noop")
                state.replies.append("好的，不操作了。")
                return self._finish(text, session, state, parsed)
            narrowed = self._answer(pending, clauses[0], session)
            if narrowed is not None:
                waiting = pending.clause
                if self._condition_holds(waiting.condition, (), session, state):
                    self._apply(waiting, narrowed, text, session, state)
                clauses = clauses[1:]  # 书房的，然后关掉客厅灯: the rest still runs
        self._run(clauses, text, session, state)
        return self._finish(text, session, state, parsed)

    def _answer(
        self, pending: PendingClarify, first: Clause, session: Session
    ) -> Found | Ask | Refuse | None:
        """What the first clause of this turn says about a pending question; None if it is
        not an answer to it."""
        if first.action == "confirm" and pending.options and pending.yes_no:
            return Found(pending.options)  # 你是说客厅灯吗？— 对
        if first.action != "select":
            return None
        if pending.options:
            return self.resolver.narrow(pending.clause, pending.options, first)
        if first.target is None:
            return None  # 第一个 answers nothing when nothing was offered
        # 要调节哪个设备？— 书房空调: the answer is the target the question lacked.
        return self.resolver.resolve(replace(pending.clause, target=first.target), session)

    def _run(self, clauses: Sequence[Clause], text: str, session: Session, state: _Turn) -> None:
        # Rooms said so far in this utterance, nearest last: they place a later clause
        # whose target has no place of its own (如果客厅温度超过26度就打开空调).
        focus: list[str] = []
        # None until a clause names a target; then the devices it acted on (empty if it
        # failed, and a later clause with no target must not guess from older turns).
        previous: tuple[str, ...] | None = None
        checked: dict[Condition, bool] = {}
        for clause in clauses:
            if state.asked:
                break  # one question per turn: later clauses may depend on its answer
            if clause.action in ("confirm", "cancel") and len(clauses) > 1:
                continue  # 算了，还是把它打开吧: an interjection beside a command
            condition = clause.condition
            if condition is not None:
                if condition.subject is not None:
                    focus.extend(_rooms(condition.subject))
                if condition not in checked:
                    checked[condition] = self._condition_holds(condition, focus, session, state)
                if not checked[condition]:
                    continue
            acted = self._clause(clause, text, session, state, focus, previous)
            if clause.target is not None or previous is not None:
                previous = acted
            if clause.target is not None:
                focus.extend(_rooms(clause.target))
            rooms = {self.home.device(d).room for d in acted}
            if len(rooms) == 1:  # 把书房灯关了，台灯打开: the room inside a name counts too
                focus.append(rooms.pop())

    def _clause(
        self,
        clause: Clause,
        text: str,
        session: Session,
        state: _Turn,
        focus: Sequence[str],
        previous: tuple[str, ...] | None,
    ) -> tuple[str, ...]:
        """Run one clause; returns the devices it acted on (for a following clause)."""
        if clause.action == "repeat":
            if not session.last_commands:
                state.outcomes.append("rejected")
                state.replies.append("还没有可以重复的操作。")
                return ()
            self._send(session.last_commands, text, session, state)
            return tuple(c.device for c in session.last_commands)
        if clause.action in ("confirm", "cancel", "select"):
            state.outcomes.append("unknown")
            state.replies.append(
                "现在没有在等你回答的问题。" if clause.action != "select" else "要对它做什么呢？"
            )
            return ()
        if clause.action == "scene":
            return self._scene(clause, text, session, state)
        resolution = self.resolver.resolve(clause, session, focus=focus, previous=previous)
        return self._apply(clause, resolution, text, session, state)

    def _apply(
        self,
        clause: Clause,
        resolution: Found | Ask | Refuse,
        text: str,
        session: Session,
        state: _Turn,
    ) -> tuple[str, ...]:
        if isinstance(resolution, Refuse):
            state.outcomes.append("rejected")
            state.replies.append(resolution.reason)
            return ()
        yes_no = False
        if (
            isinstance(resolution, Found)
            and resolution.match == "fuzzy"
            and clause.action != "query"
        ):
            # Heard too poorly to act on: ask back with what was understood.
            names = names_phrase(self.home, resolution.devices)
            verb = ACTION_WORDS.get(clause.action, "操作")
            resolution = Ask(resolution.devices, f"没太听清，你是要{verb}{names}吗？")
            yes_no = True
        if isinstance(resolution, Ask):
            state.outcomes.append("clarify")
            state.options.extend(resolution.options)
            state.replies.append(resolution.question)
            state.asked = True
            session.pending = PendingClarify(clause, resolution.options, yes_no)
            return ()
        devices = resolution.devices
        if clause.action == "query":
            self._query(clause, devices, state)
            return devices
        commands: list[Command] = []
        refusals: list[Refusal] = []
        for device_id in devices:
            device = self.home.device(device_id)
            read = None
            if needs_read(clause):
                try:
                    read = self.hub.read(device_id)
                except HubError as err:
                    state.failures.append(
                        {"device": device_id, "command": "read", "reason": err.reason}
                    )
                    continue
            planned = plan(clause, device, read)
            if isinstance(planned, Refusal):
                refusals.append(planned)
            else:
                commands.append(planned)
        if refusals and not commands:
            state.outcomes.append("rejected")
            state.replies.append("；".join(dict.fromkeys(r.reason for r in refusals)))
            return ()
        self._send(commands, text, session, state, clause=clause)
        return tuple(c.device for c in commands)

    def _scene(self, clause: Clause, text: str, session: Session, state: _Turn) -> tuple[str, ...]:
        assert clause.scene is not None
        scene = self.home.scene(clause.scene)
        commands = [Command(s.device, s.command, dict(s.params)) for s in scene.steps]
        failed_before, held_before = len(state.failures), len(state.held)
        self._send(commands, text, session, state, quiet=True)
        if len(state.failures) == failed_before and len(state.held) == held_before:
            state.replies.append(f"好的，已执行{shown(scene.name)}")
        else:  # the reply never claims a scene ran whole when a step failed or waits
            state.replies.append(f"{shown(scene.name)}已部分执行")
        return tuple(dict.fromkeys(c.device for c in commands))

    def _send(
        self,
        commands: Sequence[Command],
        text: str,
        session: Session,
        state: _Turn,
        *,
        clause: Clause | None = None,
        quiet: bool = False,
        confirmed: bool = False,
    ) -> None:
        """Validate, hold the high-risk ones for confirmation, send the rest."""
        sent: list[Command] = []
        held: list[Command] = []
        failed: list[Command] = []
        for command in commands:
            if command in state.sent or command in sent:
                continue  # 客厅灯和客厅灯: one device gets one identical command per turn
            device = self.home.device(command.device)
            error = params_error(device, command.command, command.params)
            if error is not None:  # never send what the schema refuses
                state.failures.append(
                    {"device": command.device, "command": command.command, "reason": error}
                )
                failed.append(command)
                continue
            if command.command in HIGH_RISK and not confirmed:
                held.append(command)
                continue
            try:
                self.hub.send(command.device, command.command, command.params)
                result = "ok"
                sent.append(command)
            except HubError as err:
                result = err.reason
                failed.append(command)
                state.failures.append(
                    {"device": command.device, "command": command.command, "reason": err.reason}
                )
            if self._audit is not None:
                self._audit.record(
                    session=session.id,
                    text=text,
                    device=command.device,
                    command=command.command,
                    params=command.params,
                    result=result,
                )
            log.info(
                "jiayu.sent",
                extra={
                    "session": session.id,
                    "device": command.device,
                    "command": command.command,
                    "result": result,
                },
            )
        state.sent.extend(sent)
        state.devices.extend(c.device for c in sent)
        if held:
            state.held.extend(held)
            state.outcomes.append("confirm")
            names = "、".join(shown(self.home.device(c.device).name) for c in held)
            verb = COMMAND_VERBS.get(held[0].command, "执行")
            state.replies.append(f"确定要{verb}{names}吗？请说“确认”。")
        if failed:
            state.outcomes.append("executed" if sent else "rejected")
            for c in failed:
                reason = next(
                    (f["reason"] for f in state.failures if f["device"] == c.device), "失败"
                )
                state.replies.append(
                    f"{shown(self.home.device(c.device).name)}没有执行："
                    f"{FAULT_WORDS.get(reason, reason)}"
                )
        if sent:
            state.outcomes.append("executed")
            if not quiet:
                state.replies.append(done_phrase(self.home, clause, sent))
        elif not held and not failed:
            state.outcomes.append("noop")

    def _query(self, clause: Clause, devices: Sequence[str], state: _Turn) -> None:
        parts: list[str] = []
        for device_id in devices:
            device = self.home.device(device_id)
            attribute = query_attribute(device, clause)
            if attribute is None:
                continue
            try:
                value = self.hub.read(device_id).get(attribute)
            except HubError as err:
                state.failures.append(
                    {"device": device_id, "command": "read", "reason": err.reason}
                )
                parts.append(
                    f"{shown(device.name)}读不到：{FAULT_WORDS.get(err.reason, err.reason)}"
                )
                continue
            state.answers.append({"device": device_id, "attribute": attribute, "value": value})
            state.devices.append(device_id)
            place_only = clause.target is not None and clause.target.is_place_only
            if place_only and isinstance(value, int | float):
                # 客厅温度多少 asks about the room, so the room answers: 客厅现在27.5度.
                room = shown(self.home.room(device.room).name)
                parts.append(reading_phrase(room, attribute, float(value)))
            else:
                parts.append(answer_phrase(self.home, device, attribute, value))
        if state.answers:
            state.outcomes.append("answered")
        else:
            state.outcomes.append("rejected")
        state.replies.append("，".join(parts) or "读不到这个状态")

    def _condition_holds(
        self, condition: Condition | None, focus: Sequence[str], session: Session, state: _Turn
    ) -> bool:
        """Check a condition once against a fresh read; False records why."""
        if condition is None:
            return True
        if condition.subject is None:
            rooms = list(focus) or list(session.recent_rooms)[:1]
            if not rooms:
                state.outcomes.append("rejected")
                state.replies.append(f"不知道要读哪里的{attribute_word(condition.attribute)}")
                return False
            sources = [
                d.id
                for d in self.home.devices_in_room(rooms[0])
                if reading_attribute(d, condition.attribute) == condition.attribute
            ]
        else:
            resolution = self.resolver.resolve(
                Clause("query", _as_set(condition.subject), attribute=condition.attribute), session
            )
            sources = list(resolution.devices) if isinstance(resolution, Found) else []
            sources = [
                d
                for d in sources
                if reading_attribute(self.home.device(d), condition.attribute)
                == condition.attribute
            ]
        values: list[float] = []
        for device_id in sources:
            try:
                value = self.hub.read(device_id).get(condition.attribute)
            except HubError:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.append(float(value))
        where = _place_words(condition.subject)
        if not values:
            state.outcomes.append("rejected")
            state.replies.append(
                f"读不到{where}的{attribute_word(condition.attribute)}，所以什么都没做"
            )
            return False
        reading = sum(values) / len(values)
        holds = _OPS[condition.op](reading, condition.number)
        phrase = reading_phrase(where, condition.attribute, reading)
        if not holds:
            state.outcomes.append("noop")
            state.replies.append(
                f"{phrase}，没有{_OP_WORDS[condition.op]}"
                f"{reading_phrase('', condition.attribute, condition.number)}，"
                "所以没有执行"
            )
            return False
        state.replies.append(phrase)
        return True

    def _finish(
        self,
        text: str,
        session: Session,
        state: _Turn,
        compiled: Parse | None,
        ir: dict[str, Any] | None = None,
    ) -> Result:
        outcome = most_blocking(state.outcomes)
        if outcome == "confirm":
            session.pending = PendingConfirm(tuple(state.held))
        elif outcome != "clarify" and isinstance(session.pending, PendingClarify):
            session.pending = None
        rooms = tuple(dict.fromkeys(self.home.device(d).room for d in state.devices))
        session.remember(
            text, outcome, tuple(dict.fromkeys(state.devices)), rooms, tuple(state.sent)
        )
        commands = [_command_json(c) for c in (*state.sent, *state.held)]
        if compiled is not None:
            compact_form = compact(
                compiled,
                self._split_room,
                self._type_of,
                lambda place, noun: self.resolver.composed(place, noun) is not None,
            )
            ir = to_json(compiled)
        else:
            compact_form = [dict(u) for u in UNKNOWN]
        reply = "，".join(r for r in state.replies if r)
        if outcome == "executed" and not reply.startswith("好的"):
            reply = "好的，" + reply
        return Result(
            text,
            outcome,
            commands,
            state.answers,
            list(dict.fromkeys(state.options)),
            reply,
            "grammar" if compiled is not None else "none",
            compact_form,
            ir or {},
            state.failures,
        )

    def _split_room(self, name: str) -> tuple[str | None, str]:
        for room in self.home.rooms:
            word = room_prefix(room, name)
            if word is not None and len(name) > len(word):
                return word, name[len(word) :]
        return None, name

    def _type_of(self, name: str) -> str:
        match = self.names.lookup(name)
        if match is None:
            return "Unknown"
        types = {self.home.device(d).type for d in match.devices}
        return types.pop() if len(types) == 1 else "Unknown"


def _command_json(command: Command) -> dict[str, Any]:
    return {"device": command.device, "command": command.command, "params": dict(command.params)}


def _rooms(target: Target) -> list[str]:
    return [p.id for p in target.places if p.kind == "room" and p.id]


def _as_set(target: Target) -> Target:
    # A condition reads every sensor of the place, not one of them.
    if target.places and not target.name and not target.type_word:
        return Target(places=target.places, quantifier="all")
    return target


def _place_words(target: Target | None) -> str:
    if target is None:
        return "这里"
    words = [p.text for p in target.places]
    if target.name is not None:
        words.append(target.name.said)
    elif target.type_word:
        words.append(target.type_word)
    return "".join(words) or "这里"
