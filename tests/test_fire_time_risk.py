"""The risk gate at fire time: a delayed command or a scene's delayed step is judged on the
home loaded when it is sent, not when it was set. A relay set to switch on in half an hour,
which the home was since edited to call a garage door (a lock, a valve, or something acting
as one) and the engine restarted on, is not opened: it is dropped and told. A confirmation
given when it was set still counts for a command that was high-risk then."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jiayu.catalog import is_high_risk
from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock
from jiayu.executor.hubs import SimulatedHub
from jiayu.home import Home, parse_home

START = datetime(2026, 1, 5, 20, 0, tzinfo=UTC)
DEMO: dict[str, Any] = json.loads(Path(demo_home_path()).read_text("utf-8"))
PLAIN = {  # relays and lights with on/off only, by the name a user says
    "switch_entrance": "玄关开关",
    "switch_balcony": "阳台开关",
    "plug_kitchen": "厨房插座",
    "plug_study": "书房插座",
    "light_study": "书房灯",
}
EDITS = [("type", "GarageDoor"), ("type", "Lock"), ("type", "Valve")] + [
    ("acts_as", kind) for kind in ("GarageDoor", "Lock", "Valve")
]


def _edited(doc: dict[str, Any], device: str, edit: tuple[str, str]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for item in doc["devices"]:
        if item["id"] == device:
            field, kind = edit
            item[field] = kind if field == "type" else [kind]
    return doc


def _engine(doc: dict[str, Any], schedules: Path) -> Engine:
    home: Home = parse_home(doc, "home.json")
    hub = SimulatedHub(home)
    return Engine(home, hub=hub, clock=ManualClock(START), schedules_path=schedules)


def _restart(engine: Engine, doc: dict[str, Any], schedules: Path) -> Engine:
    """The engine stopped, the home edited, a new engine on the same schedules file."""
    engine.close()
    return _engine(doc, schedules)


def _unconfirmed_risky(engine: Engine) -> list[Any]:
    hub = engine.hub
    assert isinstance(hub, SimulatedHub)
    return [(d, c, p) for d, c, p in hub.sent if is_high_risk(engine.home.device(d), c, p)]


def test_a_relay_made_a_garage_door_since_is_not_opened(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    engine = _engine(DEMO, path)
    assert engine.turn("半小时后打开玄关开关", "s").outcome == "scheduled"
    engine = _restart(engine, _edited(DEMO, "switch_entrance", ("type", "GarageDoor")), path)
    (fired,) = engine.run_due(START + timedelta(minutes=31))
    assert fired.outcome == "rejected" and fired.commands == [], fired.reply
    assert isinstance(engine.hub, SimulatedHub) and engine.hub.sent == []
    told = engine.turn("客厅灯开着吗", "s").reply
    assert "定时的操作" in told and "确认" in told, told


def test_a_scene_step_on_a_relay_made_a_lock_since_is_not_sent(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    doc = copy.deepcopy(DEMO)
    relax = next(s for s in doc["scenes"] if s["name"] == "放松模式")
    relax["steps"].append(
        {"device": "switch_entrance", "command": "turn_on", "params": {}, "delay_s": 600}
    )
    engine = _engine(doc, path)
    assert engine.turn("放松模式", "s").outcome in ("executed", "scheduled")
    engine = _restart(engine, _edited(doc, "switch_entrance", ("type", "Lock")), path)
    engine.run_due(START + timedelta(hours=1))
    assert _unconfirmed_risky(engine) == []
    assert isinstance(engine.hub, SimulatedHub)
    assert "switch_entrance" not in {d for d, _c, _p in engine.hub.sent}


def test_a_command_confirmed_when_set_is_sent_when_it_fires(tmp_path: Path) -> None:
    engine = _engine(DEMO, tmp_path / "schedules.json")
    assert engine.turn("半小时后打开车库门", "s").outcome == "confirm"
    assert engine.turn("确认", "s").outcome == "scheduled"
    (fired,) = engine.run_due(START + timedelta(minutes=31))
    assert fired.outcome == "executed", fired.reply
    assert fired.commands == [{"device": "garage_door", "command": "open", "params": {}}]


def test_a_confirmation_given_when_set_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "schedules.json"
    engine = _engine(DEMO, path)
    assert engine.turn("半小时后打开车库门", "s").outcome == "confirm"
    assert engine.turn("确认", "s").outcome == "scheduled"
    engine = _restart(engine, DEMO, path)
    (fired,) = engine.run_due(START + timedelta(minutes=31))
    assert fired.outcome == "executed", fired.reply
    assert fired.commands == [{"device": "garage_door", "command": "open", "params": {}}]
    assert isinstance(engine.hub, SimulatedHub)
    assert engine.hub.sent == [("garage_door", "open", {})]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    device=st.sampled_from(sorted(PLAIN)),
    edit=st.sampled_from(EDITS),
    minutes=st.integers(min_value=1, max_value=600),
    by_scene=st.booleans(),
    keep=st.booleans(),
)
def test_no_fired_command_is_high_risk_on_the_home_it_is_sent_on(
    tmp_path_factory: Any,
    device: str,
    edit: tuple[str, str],
    minutes: int,
    by_scene: bool,
    keep: bool,
) -> None:
    """Over homes edited between setting and firing (or not: `keep`), by a timer or a
    scene's delayed step: whatever fires, nothing high-risk on the home it is sent on goes
    out unconfirmed."""
    path = tmp_path_factory.mktemp("fire") / "schedules.json"
    doc = copy.deepcopy(DEMO)
    if by_scene:
        relax = next(s for s in doc["scenes"] if s["name"] == "放松模式")
        relax["steps"].append(
            {"device": device, "command": "turn_on", "params": {}, "delay_s": minutes * 60}
        )
        text = "放松模式"
    else:
        text = f"{minutes}分钟后打开{PLAIN[device]}"
    engine = _engine(doc, path)
    set_result = engine.turn(text, "s")
    assume(set_result.scheduled)
    engine = _restart(engine, doc if keep else _edited(doc, device, edit), path)
    results = engine.run_due(START + timedelta(minutes=minutes, seconds=30))
    assert _unconfirmed_risky(engine) == []
    sent = {c["device"] for r in results for c in r.commands}
    assert (device in sent) == keep, (keep, [r.reply for r in results])
