"""Fixtures: HA's test harness (pytest-homeassistant-custom-component) with our integration."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from homeassistant.core import HomeAssistant


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> Iterator[None]:
    """Let HA load custom_components/jiayu in every test."""
    yield


@pytest.fixture(autouse=True)
def config_dir(hass: HomeAssistant, tmp_path: Path) -> Iterator[None]:
    """HA's config folder per test: jiayu keeps its state files under it."""
    hass.config.config_dir = str(tmp_path)
    yield


@pytest.fixture(autouse=True)
def wait_for_jiayus_warm_up() -> Iterator[None]:
    """A new engine builds its pinyin index in a short-lived thread; HA's harness fails a
    test that leaves any thread running, so let it finish first."""
    yield
    for thread in threading.enumerate():
        if thread.name == "jiayu-pinyin":
            thread.join(30)
