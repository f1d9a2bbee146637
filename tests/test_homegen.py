"""The benchmark's home generator makes valid homes of the size asked for."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from jiayu.home import parse_home

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "homegen.py"


def _homegen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("jiayu_bench_homegen", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_home_is_valid_and_sized() -> None:
    data = _homegen().generate_home(1000)
    home = parse_home(data, "generated")
    assert len(home.devices) == 1000
    ids = [
        item["id"]
        for key in ("floors", "rooms", "groups", "scenes", "devices")
        for item in data.get(key, ())
    ]
    assert len(ids) == len(set(ids))
    assert len({d.id for d in home.devices}) == 1000
    assert len({r.name for r in home.rooms}) == len(home.rooms)
    assert len(home.floors) == 1000 // 100 + 1
    # Every device is called "<room><bare name>".
    assert all(home.bare_name(d) for d in home.devices)


def test_generation_is_deterministic() -> None:
    homegen = _homegen()
    assert homegen.generate_home(50, seed=3) == homegen.generate_home(50, seed=3)
    assert homegen.generate_home(50, seed=3) != homegen.generate_home(50, seed=4)
