# examples/asyncio_turns.py: answer first, send in the background, hear how it went.
import asyncio

import jiayu
from jiayu.engine import Engine
from jiayu.executor.events import Event


async def main() -> None:
    engine = Engine(jiayu.demo_home())
    events: list[Event] = []
    engine.subscribe("s1", events.append)  # command.started / finished / failed, turn.done
    handled = await engine.handle("打开客厅灯和卧室灯", session_id="s1", area="living")
    print(handled.reply)  # say this now: it never claims what has not happened yet
    result = await handled.result  # the same Result turn() gives, once the hub has answered
    print(result.outcome, [c["device"] for c in result.commands])
    for event in sorted(events, key=lambda e: (e.kind, e.device or "")):
        print(event.kind, *filter(None, [event.device, event.reply]))


asyncio.run(main())
