"""Shared fixtures: the demo home and engines on it (built once per test session)."""

from __future__ import annotations

import pytest

from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.home import Home, load_home


@pytest.fixture(scope="session")
def demo_home() -> Home:
    return load_home(demo_home_path())


@pytest.fixture(scope="session")
def demo_engine(demo_home: Home) -> Engine:
    return Engine(demo_home)


@pytest.fixture
def engine(demo_engine: Engine) -> Engine:
    """A fresh engine per test: new sessions and a new simulated hub, shared indexes."""
    return demo_engine.fresh()
