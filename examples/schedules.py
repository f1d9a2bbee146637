# examples/schedules.py: delayed commands and preferences, kept in state files.
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import jiayu
from jiayu.engine import Engine
from jiayu.executor.clock import ManualClock

state = Path(tempfile.mkdtemp())
clock = ManualClock(datetime(2026, 5, 1, 20, 0, tzinfo=UTC))  # tests move time by hand
engine = Engine(
    jiayu.demo_home(),
    clock=clock,
    schedules_path=state / "schedules.json",  # delayed commands survive a restart
    preferences_path=state / "prefs.json",
)
engine.turn("打开客厅灯", session_id="s1")
result = engine.turn("半小时后关客厅灯", session_id="s1")
print(result.outcome, result.scheduled[0]["at"], result.reply)
print(engine.turn("还有多久关客厅灯", session_id="s1").reply)
clock.advance(31 * 60)  # seconds
for fired in engine.run_due():  # the sync API sends what is due; asyncio fires by itself
    print(fired.outcome, fired.commands)
print(engine.turn("记住我喜欢26度", session_id="s1", user="小明").reply)
print(engine.turn("把卧室空调调到我喜欢的温度", session_id="s1", user="小明").reply)
