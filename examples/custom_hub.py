# examples/custom_hub.py: jiayu driving your own devices through a hub of your own.
from collections.abc import Mapping
from typing import Any

import jiayu
from jiayu.engine import Engine
from jiayu.executor.hubs import HubError


class MyHub:
    """A blocking hub: `read` a device's state, `send` one command; fail with HubError."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {
            "light_living": {"on": False, "brightness": 60},
            "ac_bedroom": {"on": False, "target_temperature": 24, "hvac_mode": "cool"},
        }

    def read(self, device_id: str) -> Mapping[str, Any]:
        if device_id not in self.states:
            raise HubError(device_id, "offline")  # never sent to, never claimed done
        return self.states[device_id]

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        print("  hub:", device_id, command, dict(params))
        state = dict(self.read(device_id))
        if command in ("turn_on", "turn_off"):
            state["on"] = command == "turn_on"
        elif command == "set_brightness":
            state["brightness"] = params["value"]
        elif command == "set_temperature":
            state["target_temperature"] = params["value"]
        else:
            raise HubError(device_id, "refused")
        self.states[device_id] = state


engine = Engine(jiayu.demo_home(), hub=MyHub())
for text in ["打开客厅灯", "卧室空调调到26度", "打开书房灯"]:
    print(text, "→", engine.turn(text, session_id="s1").reply)
