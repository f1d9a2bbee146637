"""`scripts/install-into-ha`, the one command that puts jiayu into Home Assistant's Python
before jiayu is on PyPI: tested into fresh environments of HA's interpreter, with pip (as a HA
Core venv has) and without, and checked against what the integration's manifest requires."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "install-into-ha"
MANIFEST = ROOT / "custom_components" / "jiayu" / "manifest.json"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _ha_python() -> str:
    found = subprocess.run(
        [str(ROOT / "integrations" / "homeassistant" / "ha-python")],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


@pytest.mark.skipif(shutil.which("uv") is None, reason="the command builds with uv")
@pytest.mark.parametrize("with_pip", [True, False], ids=["pip", "no-pip"])
def test_the_command_installs_what_the_manifest_requires(tmp_path: Path, with_pip: bool) -> None:
    venv = tmp_path / "ha-venv"
    seed = ["--seed"] if with_pip else []
    subprocess.run(
        ["uv", "venv", "--quiet", *seed, "--python", _ha_python(), str(venv)], check=True
    )
    python = venv / "bin" / "python"
    config = tmp_path / "ha-config"
    done = subprocess.run(
        [str(SCRIPT), "--python", str(python), "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"jiayu {VERSION} installed"
    # What HA checks before setting the integration up: its requirements are installed.
    [requirement] = json.loads(MANIFEST.read_text(encoding="utf-8"))["requirements"]
    name, _, version = requirement.partition("==")
    check = f"import importlib.metadata as m, sys;sys.exit(m.version({name!r}) != {version!r})"
    subprocess.run([str(python), "-c", check], check=True)
    # The installed wheel works on its own, away from this checkout.
    turn = (
        "from jiayu.cli import demo_home_path; from jiayu.engine import Engine;"
        "import websockets;"
        "print(Engine.from_file(demo_home_path()).turn('打开客厅灯').reply)"
    )
    said = subprocess.run(
        [str(python), "-c", turn], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert said.stdout.strip() == "好的，已打开客厅灯"
    # Everything the integration imports from jiayu is in the wheel.
    modules = sorted(
        {
            line.split()[1]
            for path in (ROOT / "custom_components" / "jiayu").glob("*.py")
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("from jiayu")
        }
    )
    assert "jiayu.serve" in modules
    imports = ";".join(f"import {m}" for m in modules)
    subprocess.run([str(python), "-c", imports], check=True, cwd=tmp_path)
    installed = config / "custom_components" / "jiayu"
    assert (installed / "manifest.json").read_text() == MANIFEST.read_text()
    assert (installed / "conversation.py").is_file()


def test_the_command_refuses_without_a_python(tmp_path: Path) -> None:
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 2 and "usage" in done.stderr
    done = subprocess.run(
        [str(SCRIPT), "--python", sys.executable + "-missing"], capture_output=True, text=True
    )
    assert done.returncode == 2
