"""Every file in examples/ runs, against the simulated hub or the project's loopback fakes (Home
Assistant's WebSocket API, a zigbee2mqtt bridge on a real mosquitto, SmartThings' REST API, an
OpenAI-compatible model server), and prints exactly the output the README shows under it; the
README's snippets are the examples' text, character for character.

After a reply's wording changes, `uv run python tests/test_examples.py` rewrites the README's
blocks from the examples and what they print now.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fake_ha import FakeHomeAssistant, area_entry, device_entry, entity_entry, ha_state
from fake_llm_server import FakeLLMServer
from fake_smartthings import FakeSmartThings
from fake_z2m import FakeZ2m
from mqtt_broker import Broker

from jiayu.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
README = ROOT / "README.md"
DATA = Path(__file__).parent / "data"
HA_TOKEN = "example-token"
ST_TOKEN = "pat-example"

_BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)


def readme_examples() -> dict[str, tuple[str, str | None]]:
    """examples/NAME.py → (the README's code block of it, the output block right after it)."""
    blocks = [(m.group(1), m.group(2), m.start(), m.end()) for m in _BLOCK.finditer(_readme())]
    found: dict[str, tuple[str, str | None]] = {}
    for i, (lang, body, _, end) in enumerate(blocks):
        named = re.match(r"# (examples/\w+\.py)", body)
        if lang != "python" or named is None:
            continue
        output = None
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            between = _readme()[end : blocks[i + 1][2]]
            if between.strip() in ("", "prints:", "Prints:"):
                output = blocks[i + 1][1]
        found[named.group(1)] = (body, output)
    return found


def _readme() -> str:
    return README.read_text("utf-8")


# --- the loopback fakes the examples run against -------------------------------------------


@contextmanager
def home_assistant() -> Iterator[FakeHomeAssistant]:
    """A fake Home Assistant with a living room's ceiling light, a bedroom's air conditioner
    and its thermometer, registered as HA's registries list them."""
    with FakeHomeAssistant(token=HA_TOKEN) as fake:
        fake.location_name = "示例之家"
        fake.areas = [area_entry("living_room", "客厅"), area_entry("bedroom", "卧室")]
        fake.devices = [device_entry("dev1", "吸顶灯", "living_room")]
        fake.entities = [
            entity_entry("light.ceiling", "大灯", device="dev1"),
            entity_entry("climate.bedroom_ac", area="bedroom"),
            entity_entry("sensor.bedroom_temp", area="bedroom", device_class="temperature"),
        ]
        # Exposed to Assist, as HA's voice settings do: the importer takes only these.
        fake.exposed = {e["entity_id"]: {"conversation": True} for e in fake.entities}
        fake.add(
            ha_state(
                "light.ceiling", "off", friendly_name="客厅吸顶灯", supported_color_modes=["onoff"]
            )
        )
        fake.add(
            ha_state(
                "climate.bedroom_ac",
                "cool",
                friendly_name="卧室空调",
                supported_features=1,
                hvac_modes=["off", "cool", "heat"],
                min_temp=16,
                max_temp=30,
                temperature=24,
                current_temperature=28,
            )
        )
        fake.add(
            ha_state(
                "sensor.bedroom_temp",
                "27.5",
                friendly_name="卧室温度",
                device_class="temperature",
                unit_of_measurement="°C",
            )
        )
        yield fake


def ha_url(fake: FakeHomeAssistant) -> str:
    """The fake's address as a user types it (http://host:port)."""
    return fake.url.replace("ws://", "http://").removesuffix("/api/websocket")


def _z2m_devices() -> list[dict[str, Any]]:
    devices: list[dict[str, Any]] = json.loads((DATA / "z2m" / "bridge_devices.json").read_text())
    return devices


Z2M_STATES = {
    "客厅/吸顶灯": {"state": "OFF", "brightness": 254, "color_temp": 370},
    "客厅/灯带": {"state": "OFF", "brightness": 100, "color_temp": 250},
    "客厅/温湿度计": {"temperature": 28.5, "humidity": 61, "battery": 90},
    "卧室/温湿度计": {"temperature": 22.0, "humidity": 45},
    "客厅空调": {"system_mode": "off", "current_heating_setpoint": 24, "local_temperature": 27},
    "卧室窗帘": {"state": "CLOSE", "position": 0},
    "入户门锁": {"state": "LOCK", "lock_state": "locked"},
    "厨房水阀": {"state": "ON", "flow": 0.2},
    "走廊开关": {"state_left": "OFF", "state_right": "OFF", "power": 0},
    "书房插座": {"state": "OFF", "power": 0},
}


@contextmanager
def zigbee2mqtt(host: str, port: int) -> Iterator[FakeZ2m]:
    """A fake zigbee2mqtt bridge on the broker, with tests/data/z2m's devices."""
    bridge = FakeZ2m(host, port, _z2m_devices(), Z2M_STATES)
    try:
        yield bridge
    finally:
        bridge.close()


def _st_items(name: str) -> list[dict[str, Any]]:
    text = (DATA / "smartthings" / name).read_text("utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    loaded = json.loads(text)
    items: list[dict[str, Any]] = loaded["items"] if isinstance(loaded, dict) else loaded
    return items


@contextmanager
def smartthings() -> Iterator[FakeSmartThings]:
    """A fake SmartThings API with tests/data/smartthings' 30 devices."""
    with FakeSmartThings(
        _st_items("devices.json"), _st_items("rooms.jsonl"), token=ST_TOKEN
    ) as fake:
        yield fake


MODEL_ANSWER = '[{"a":"打开","s":"书房","n":"灯","t":"Light","q":"one"}]'
"""What the fake model answers for the sentence the grammar leaves to it."""


# --- the tests -----------------------------------------------------------------------------


def _run(example: str, cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _shown(example: str) -> str:
    found = readme_examples().get(f"examples/{example}")
    assert found is not None, f"the README does not show examples/{example}"
    assert found[1] is not None, f"the README shows no output under examples/{example}"
    return found[1]


def test_every_example_is_in_the_readme_as_it_is_in_the_file() -> None:
    shown = readme_examples()
    files = {f"examples/{p.name}" for p in EXAMPLES.glob("*.py")}
    assert set(shown) == files
    for name, (body, _) in shown.items():
        assert body == (ROOT / name).read_text("utf-8"), f"{name} differs from the README"


DEMO_EXAMPLES = ("quickstart.py", "asyncio_turns.py", "custom_hub.py", "schedules.py")
"""The examples that need no hub but the simulated one."""


@pytest.mark.parametrize("example", DEMO_EXAMPLES)
def test_an_example_on_the_demo_home(example: str, tmp_path: Path) -> None:
    assert _run(example, tmp_path) == _shown(example)


def test_the_home_assistant_example(tmp_path: Path) -> None:
    with home_assistant() as fake:
        url = ha_url(fake)
        out = tmp_path / "home.json"
        assert main(["home", "from-ha", "--url", url, "--token", HA_TOKEN, "--out", str(out)]) == 0
        printed = _run("home_assistant.py", tmp_path, JIAYU_HA_URL=url, JIAYU_HA_TOKEN=HA_TOKEN)
        assert fake.states["light.ceiling"]["state"] == "on"
        assert fake.states["climate.bedroom_ac"]["attributes"]["temperature"] == 26
    assert printed == _shown("home_assistant.py")


def test_the_zigbee2mqtt_example(broker: Broker, tmp_path: Path) -> None:
    with zigbee2mqtt(broker.host, broker.port) as bridge:
        out = tmp_path / "home.json"
        rooms = DATA / "z2m" / "rooms.json"
        where = ["--host", broker.host, "--port", str(broker.port)]
        assert main(["home", "from-z2m", *where, "--rooms", str(rooms), "--out", str(out)]) == 0
        printed = _run(
            "zigbee2mqtt.py", tmp_path, JIAYU_MQTT_URL=f"mqtt://{broker.host}:{broker.port}"
        )
        assert bridge.states["客厅/吸顶灯"]["state"] == "ON"
        assert bridge.states["书房插座"]["state"] == "ON"
    assert printed == _shown("zigbee2mqtt.py")


def test_the_smartthings_example(tmp_path: Path) -> None:
    with smartthings() as fake:
        out = tmp_path / "home.json"
        argv = ["home", "from-smartthings", "--url", fake.url, "--token", ST_TOKEN]
        assert main([*argv, "--out", str(out)]) == 0
        printed = _run(
            "smartthings.py",
            tmp_path,
            JIAYU_SMARTTHINGS_URL=fake.url,
            JIAYU_SMARTTHINGS_TOKEN=ST_TOKEN,
        )
        assert fake.received, "nothing reached the API"
    assert printed == _shown("smartthings.py")


def test_the_llm_fallback_example(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        server.script(MODEL_ANSWER)
        printed = _run(
            "llm_fallback.py",
            tmp_path,
            JIAYU_LLM_BASE_URL=server.openai_url,
            JIAYU_LLM_MODEL="qwen-plus",
        )
        # One call, for the sentence the grammar did not understand as a whole.
        assert len(server.requests) == 1
    assert printed == _shown("llm_fallback.py")


# --- rewriting the README's blocks ---------------------------------------------------------


def _outputs(workdir: Path) -> dict[str, str]:
    """Each example's output, run as the tests run it."""
    from mqtt_broker import running_broker

    out = {name: _run(name, workdir) for name in DEMO_EXAMPLES}
    with home_assistant() as fake:
        url = ha_url(fake)
        main(["home", "from-ha", "--url", url, "--token", HA_TOKEN, "--out", "home.json"])
        out["home_assistant.py"] = _run(
            "home_assistant.py", workdir, JIAYU_HA_URL=url, JIAYU_HA_TOKEN=HA_TOKEN
        )
    with running_broker(workdir) as broker, zigbee2mqtt(broker.host, broker.port):
        where = ["--host", broker.host, "--port", str(broker.port)]
        rooms = str(DATA / "z2m" / "rooms.json")
        main(["home", "from-z2m", *where, "--rooms", rooms, "--out", "home.json"])
        mqtt = f"mqtt://{broker.host}:{broker.port}"
        out["zigbee2mqtt.py"] = _run("zigbee2mqtt.py", workdir, JIAYU_MQTT_URL=mqtt)
    with smartthings() as fake:
        argv = ["home", "from-smartthings", "--url", fake.url, "--token", ST_TOKEN]
        main([*argv, "--out", "home.json"])
        out["smartthings.py"] = _run(
            "smartthings.py",
            workdir,
            JIAYU_SMARTTHINGS_URL=fake.url,
            JIAYU_SMARTTHINGS_TOKEN=ST_TOKEN,
        )
    with FakeLLMServer() as server:
        server.script(MODEL_ANSWER)
        out["llm_fallback.py"] = _run(
            "llm_fallback.py", workdir, JIAYU_LLM_BASE_URL=server.openai_url,
            JIAYU_LLM_MODEL="qwen-plus",
        )  # fmt: skip
    return out


def rewrite_readme() -> None:
    """Put each example's text, and the output it prints now, into the README's blocks (after
    a reply's wording changed): `uv run python tests/test_examples.py`."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)  # the importers write home.json here, where the examples read it
        outputs = _outputs(Path(folder))
    text = _readme()
    for name, output in outputs.items():
        body = (EXAMPLES / name).read_text("utf-8")
        block = re.compile(
            rf"```python\n# examples/{re.escape(name)}.*?```(\s*)```text\n.*?```", re.S
        )
        found = list(block.finditer(text))
        count = len(found)
        if count == 1:
            m = found[0]
            shown = f"```python\n{body}```{m.group(1)}```text\n{output}```"
            text = text[: m.start()] + shown + text[m.end() :]
        assert count == 1, f"the README has no block of examples/{name} with its output"
    README.write_text(text, "utf-8")


if __name__ == "__main__":
    rewrite_readme()
