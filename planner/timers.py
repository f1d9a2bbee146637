"""Delayed commands (半小时后关空调): resolved and validated now, confirmed now if risky, kept
through the driver's store; and a session's questions about them (还有多久关空调, 取消定时)."""

from __future__ import annotations

from collections.abc import Sequence

from jiayu.catalog import is_high_risk, params_error
from jiayu.ir import Clause, Command, Condition, Timing
from jiayu.planner import conditions
from jiayu.planner.draft import AddSchedule, CancelSchedules, Draft, failed
from jiayu.planner.replies import COMMAND_VERBS, done_phrase, when_phrase
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
    home, now = draft.home, draft.ctx.now
    try:
        at = fire_time(when, now)
    except ScheduleError as err:
        draft.say("rejected", f"这个时间定不了：{err}")
        return
    for command in commands:
        device = home.device(command.device)
        problem = params_error(device, command.command, command.params)
        if problem is not None:
            draft.say("rejected", f"{shown(device.name)}没法定时：{problem}")
            return
    risky = [c for c in commands if is_high_risk(home.device(c.device), c.command, c.params)]
    if risky and not confirmed:
        names = "、".join(shown(home.device(c.device).name) for c in risky)
        verb = COMMAND_VERBS.get(risky[0].command, "打开")
        draft.held.extend(commands)
        draft.say("confirm", f"确定要{when_phrase(at, now)}{verb}{names}吗？请说“确认”。")
        draft.pending = PendingConfirm(tuple(commands), condition, tuple(focus), draft.text, when)
        return
    kept = Schedule(
        new_schedule_id(),
        draft.session.id,
        draft.ctx.user,
        at,
        tuple(commands),
        draft.text,
        conditions.guard(draft, condition, focus) if condition else None,
        now,
    )
    answer = draft.write(AddSchedule(kept))
    error = failed(answer)
    if error is not None:
        draft.say("rejected", f"定时没有记下来：{error}")
        return
    assert isinstance(answer, Schedule)
    draft.scheduled.append(answer.result_json())
    draft.devices.extend(c.device for c in commands)
    said = done_phrase(home, None, commands)[1:]
    draft.say("scheduled", f"好的，{when_phrase(at, now)}{said}")


def schedules(draft: Draft, clause: Clause, devices: Sequence[str] | None) -> None:
    """取消定时 / 还有多久关空调: this session's schedules, for these devices if said."""
    session = draft.session.id
    if clause.action == "schedule_cancel":
        answer = draft.write(
            CancelSchedules(session, tuple(devices) if devices is not None else None)
        )
        error = failed(answer)
        if error is not None:
            draft.say("rejected", f"定时没有取消：{error}")
            return
        assert isinstance(answer, list)
        if not answer:
            draft.say("noop", "现在没有这样的定时。")
            return
        draft.say("executed", f"好的，已取消{len(answer)}个定时（{_listed(draft, answer)}）")
        return
    waiting = draft.ctx.schedules.pending(session=session, devices=devices)
    draft.say("answered", _listed(draft, waiting) if waiting else "现在没有这样的定时。")


def _listed(draft: Draft, kept: Sequence[Schedule]) -> str:
    now = draft.ctx.now
    return "，".join(
        f"{when_phrase(s.at, now)}{done_phrase(draft.home, None, s.commands)[1:]}" for s in kept[:3]
    )
