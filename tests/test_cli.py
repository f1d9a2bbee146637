"""The `jiayu` command as a user meets it: `python -m jiayu`, `--version`, `--log-level`,
`--area` by id or name, `parse` per argument, one line naming the extra to install, and `run`
and `shell` on real hubs' protocols (the loopback fake of Home Assistant; a fake zigbee2mqtt
bridge on a real mosquitto)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from mqtt_broker import Broker
from test_examples import HA_TOKEN, ha_url, home_assistant, zigbee2mqtt

import jiayu
from jiayu.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _jiayu(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jiayu", *argv],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        cwd=ROOT,
    )


def test_python_dash_m_jiayu_and_the_version() -> None:
    done = _jiayu("--version")
    assert done.returncode == 0
    assert done.stdout == f"jiayu {jiayu.__version__}\n"
    assert jiayu.__version__ not in ("", "unknown")


def test_parse_explains_each_argument_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "打开客厅灯", "关掉卧室空调"]) == 0
    out = capsys.readouterr().out
    first, second = out.split("\n\ntext ")
    assert first.startswith("text        打开客厅灯\n") and "卧室" not in first
    assert second.startswith("       关掉卧室空调\n")
    assert '"a": "打开"' in first and '"a": "关闭"' in second


@pytest.mark.parametrize("area", ["bedroom", "卧室", "次卧"])
def test_area_by_id_name_or_alias(area: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--area", area, "开灯"]) == 0
    assert capsys.readouterr().out == "好的，已打开卧室灯\n"


def test_an_unknown_area_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--area", "火星", "开灯"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "jiayu: --area: the home has no room '火星' (give an id or a name)\n"


def test_the_shells_area_takes_the_same_names() -> None:
    done = _jiayu("shell", stdin=":area 次卧\n开灯\n:area 火星\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "房间：卧室（bedroom）",
        "好的，已打开卧室灯",
        "  → light_bedroom turn_on {}",
        "  卧室灯: on false → true",
        "家里没有叫“火星”的房间",
    ]


def test_a_bad_log_level_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--log-level", "chatty", "run", "开灯"]) == 2
    assert capsys.readouterr().err == (
        "jiayu: --log-level: unknown log level 'chatty': "
        "use debug, info, warning, error or critical\n"
    )


def test_a_missing_extra_is_named_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "paho", None)  # as if paho-mqtt were not installed
    argv = ["run", "--hub", "z2m", "--mqtt-url", "mqtt://127.0.0.1:1", "开灯"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "jiayu: the zigbee2mqtt hub needs paho: pip install 'jiayu[mqtt]'\n"
    )


def test_a_missing_module_met_anywhere_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "websockets", None)
    monkeypatch.setitem(sys.modules, "websockets.sync", None)
    monkeypatch.setitem(sys.modules, "websockets.sync.client", None)
    argv = ["home", "from-ha", "--url", "http://127.0.0.1:1", "--token", "t"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "jiayu[homeassistant]" in err


def test_run_drives_home_assistant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with home_assistant() as fake:
        home, url = str(tmp_path / "home.json"), ha_url(fake)
        assert main(["home", "from-ha", "--url", url, "--token", HA_TOKEN, "--out", home]) == 0
        capsys.readouterr()
        hub = ["--hub", "ha", "--ha-url", url, "--ha-token", HA_TOKEN]
        assert main(["run", "--home", home, *hub, "打开客厅的大灯", "卧室空调调到26度"]) == 0
        assert capsys.readouterr().out.splitlines() == [
            "好的，已打开客厅吸顶灯",
            "好的，已把卧室空调温度调到26度",
        ]
        assert fake.states["light.ceiling"]["state"] == "on"


def test_the_shell_drives_zigbee2mqtt(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with zigbee2mqtt(broker.host, broker.port) as bridge:
        home = str(tmp_path / "home.json")
        where = ["--host", broker.host, "--port", str(broker.port)]
        rooms = str(ROOT / "tests" / "data" / "z2m" / "rooms.json")
        assert main(["home", "from-z2m", *where, "--rooms", rooms, "--out", home]) == 0
        monkeypatch.setattr(sys, "stdin", io.StringIO(":area 书房\n开灯\n"))
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        mqtt = f"mqtt://{broker.host}:{broker.port}"
        assert main(["shell", "--home", home, "--hub", "z2m", "--mqtt-url", mqtt]) == 0
        assert out.getvalue().splitlines() == [
            "房间：书房（study）",
            "好的，已打开书房插座",
            "  → z2m_0xa4c1380000ac0006 turn_on {}",
            "  书房插座: on false → true",
        ]
        assert bridge.states["书房插座"]["state"] == "ON"
