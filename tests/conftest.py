"""Shared fixtures: the demo home and engines on it (built once per test session), and a real
mosquitto broker per test module that asks for one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mqtt_broker import Broker, running_broker

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


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """mosquitto on 127.0.0.1 for one test module (zigbee2mqtt tests)."""
    with running_broker(tmp_path_factory.mktemp("mosquitto")) as running:
        yield running
