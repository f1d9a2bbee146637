"""Delayed commands (半小时后关空调): resolved and validated now, confirmed now if risky, kept
through the driver's store; and a session's questions about them (还有多久关空调, 取消定时)."""

from __future__ import annotations

from collections.abc import Sequence

from jiayu.catalog import is_high_risk, params_error
from jiayu.grammar.phrases import say
from jiayu.ir import Clause, Command, Condition, Timing
from jiayu.planner import conditions
from jiayu.planner.draft import Draft, failed
from jiayu.planner.effects import AddSchedule, CancelSchedules
from jiayu.planner.replies import Acknowledged, asked_verb, done_phrase, when_phrase
from jiayu.planner.timing import Schedule, ScheduleError, fire_time, new_schedule_id
from jiayu.resolver.session import PendingConfirm
from jiayu.text import shown


def schedule(
    draft: Draft,
    commands: Sequence[Command],
    when: Timing,
    condition: Condition | None,
    focus: Sequence[str],
    confirmed: bool = False,
) -> None:
    """半小时后关空调: resolved and validated now, held for 确认 now if risky, sent later."""
    home, now = draft.ctx.home, draft.ctx.now
    try:
        at = fire_time(when, now)
    except ScheduleError as err:
        draft.say("rejected", say("refuse.bad_time", error=err))
        return
    for command in commands:
        device = home.device(command.device)
        problem = params_error(device, command.command, command.params)
        if problem is not None:
            draft.say(
                "rejected", say("refuse.cannot_schedule", name=shown(device.name), error=problem)
            )
            return
    risky = [c for c in commands if is_high_risk(home.device(c.device), c.command, c.params)]
    if risky and not confirmed:
        names = [shown(home.device(c.device).name) for c in risky]
        draft.held += tuple(commands)
        question = say(
            "ask.confirm_later",
            when=when_phrase(at, now),
            command=asked_verb(risky[0].command),
            names=names,
        )
        draft.say("confirm", question)
        draft.pending = PendingConfirm(tuple(commands), condition, tuple(focus), draft.text, when)
        return
    kept = Schedule(
        new_schedule_id(),
        draft.ctx.session.id,
        draft.ctx.user,
        at,
        tuple(commands),
        draft.text,
        conditions.guard(draft, condition, focus) if condition else None,
        now,
        confirmed=bool(risky),  # asked above, so confirmed by now
    )
    answer = draft.write(AddSchedule(kept))
    error = failed(answer)
    if error is not None:
        draft.say("rejected", say("refuse.not_scheduled", error=error))
        return
    assert isinstance(answer, Schedule)
    draft.scheduled.append(answer.result_json())
    draft.devices.extend(c.device for c in commands)
    said = done_phrase(home, None, commands, "later")
    draft.say(
        "scheduled", Acknowledged(say("done.scheduled", when=when_phrase(at, now), what=said))
    )


def schedules(draft: Draft, clause: Clause, devices: Sequence[str] | None) -> None:
    """取消定时 / 还有多久关空调: this session's schedules, for these devices if said."""
    session = draft.ctx.session.id
    if clause.action == "schedule_cancel":
        answer = draft.write(
            CancelSchedules(session, tuple(devices) if devices is not None else None)
        )
        error = failed(answer)
        if error is not None:
            draft.say("rejected", say("refuse.not_cancelled", error=error))
            return
        assert isinstance(answer, list)
        if not answer:
            draft.say("noop", say("refuse.no_such_schedule"))
            return
        listed = _listed(draft, answer)
        draft.say(
            "executed",
            Acknowledged(say("done.cancelled_schedules", count=len(answer), schedules=listed)),
        )
        return
    waiting = draft.ctx.schedules.pending(session=session, devices=devices)
    draft.say("answered", _listed(draft, waiting) if waiting else say("refuse.no_such_schedule"))


def _listed(draft: Draft, kept: Sequence[Schedule]) -> str:
    now = draft.ctx.now
    return say(
        "answer.schedules",
        schedules=[
            say(
                "answer.schedule",
                when=when_phrase(s.at, now),
                what=done_phrase(draft.ctx.home, None, s.commands, "later"),
            )
            for s in kept[:3]
        ],
    )
