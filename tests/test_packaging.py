"""The package as PyPI and a user get it: the sdist and wheel pass `twine check --strict`, and the
wheel, installed from the built file into a fresh virtual environment, runs the `jiayu` command
with each extra (qwen, mqtt, homeassistant, wyoming) and its dependency importable, and without
any extra names the one to install instead of failing with a traceback.

The extras come from PyPI (uv's cache makes a second run quick; without PyPI those tests skip
unless JIAYU_REQUIRE_PYPI is set, as CI sets it); each step is bounded, and the module takes
about 10 s on a warm cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
VERSION = PROJECT["version"]
EXTRAS = {
    "qwen": "dashscope",
    "mqtt": "paho.mqtt.client",
    "homeassistant": "websockets.sync.client",
    "wyoming": "wyoming.server",
}
"""Each extra and a module it must make importable."""
STEP_S = 300
"""The longest one build or install may take (a cold cache downloads the extras)."""

pytestmark = pytest.mark.skipif(shutil.which("uv") is None, reason="building needs uv")


def _run(argv: Sequence[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # Away from the checkout, with no PYTHONPATH: only what was installed is found.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_S
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _succeeded(_run(["uv", "build", "--sdist", "--wheel", "--out-dir", str(out), str(ROOT)]))
    return out


def _wheel(dist: Path) -> Path:
    return dist / f"jiayu-{VERSION}-py3-none-any.whl"


def _venv(folder: Path, requirement: str) -> Path:
    """A fresh virtual environment with `requirement` installed; its python."""
    made = _run(["uv", "venv", "--quiet", "--python", sys.executable, str(folder)])
    assert made.returncode == 0, made.stderr
    python = folder / "bin" / "python"
    _succeeded(_run(["uv", "pip", "install", "--quiet", "--python", str(python), requirement]))
    return python


def _succeeded(done: subprocess.CompletedProcess[str]) -> None:
    """A build or install went through. The build backend and the extras come from PyPI: a
    machine that cannot reach it (and has nothing cached) skips, unless JIAYU_REQUIRE_PYPI says
    it must not (CI)."""
    words = ("failed to fetch", "dns error", "connect error", "timed out", "network", "offline")
    if done.returncode != 0 and any(word in done.stderr.lower() for word in words):
        if os.environ.get("JIAYU_REQUIRE_PYPI"):
            pytest.fail(f"PyPI is unreachable, and JIAYU_REQUIRE_PYPI is set: {done.stderr}")
        pytest.skip("PyPI is unreachable (set JIAYU_REQUIRE_PYPI to fail instead)")
    assert done.returncode == 0, done.stderr


def test_twine_accepts_the_sdist_and_the_wheel(dist: Path) -> None:
    files = sorted(str(p) for p in dist.iterdir() if p.name.startswith("jiayu-"))
    assert [Path(f).name for f in files] == [
        f"jiayu-{VERSION}-py3-none-any.whl",
        f"jiayu-{VERSION}.tar.gz",
    ]
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", *files])
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_wheel_installs_one_top_level_package_with_its_data(dist: Path) -> None:
    names = zipfile.ZipFile(_wheel(dist)).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"jiayu"}  # generic folders (compiler, executor) only under jiayu
    for data in (
        "jiayu/grammar/jiayu.lark",
        "jiayu/grammar/jiayu.tables.json",
        "jiayu/corpus/homes/demo.json",
        "jiayu/schemas/home.schema.json",
        "jiayu/py.typed",
        "jiayu/__main__.py",
    ):
        assert data in names, data


def test_the_wheel_declares_each_extra(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as wheel:
        metadata = wheel.read(f"jiayu-{VERSION}.dist-info/METADATA").decode()
    provided = {line.split(":", 1)[1].strip() for line in metadata.splitlines()
                if line.startswith("Provides-Extra:")}  # fmt: skip
    assert provided == set(EXTRAS)
    assert "Description-Content-Type: text/markdown" in metadata


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_the_wheel_installs_with_each_extra(dist: Path, tmp_path: Path, extra: str) -> None:
    python = _venv(tmp_path / "venv", f"{_wheel(dist)}[{extra}]")
    imported = _run([str(python), "-c", f"import {EXTRAS[extra]}"], cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    version = _run([str(python), "-m", "jiayu", "--version"], cwd=tmp_path)
    assert version.stdout == f"jiayu {VERSION}\n", version.stderr
    turn = _run([str(tmp_path / "venv" / "bin" / "jiayu"), "run", "打开客厅灯"], cwd=tmp_path)
    assert turn.stdout == "好的，已打开客厅灯\n", turn.stderr


def test_without_the_extra_the_command_names_it(dist: Path, tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv", str(_wheel(dist)))
    argv = [str(python), "-m", "jiayu", "run", "--hub", "z2m", "--mqtt-url", "mqtt://127.0.0.1:1"]
    done = _run([*argv, "打开客厅灯"], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "jiayu: the zigbee2mqtt hub needs paho: pip install 'jiayu[mqtt]'\n"
    argv = [str(python), "-m", "jiayu", "home", "from-ha", "--url", "http://127.0.0.1:1"]
    done = _run([*argv, "--token", "t"], cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "jiayu[homeassistant]" in done.stderr
