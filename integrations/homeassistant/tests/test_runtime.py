"""The integration runs jiayu's asyncio runtime for the entry's life: a delayed command fires
at its time on HA's clock with no further sentence, in HA's time zone; reloads and restarts
keep delayed commands and preferences (files of the entry under HA's config folder)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

from agent import say, setup_agent, spoken
from freezegun.api import FrozenDateTimeFactory
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context, HomeAssistant
from pytest_homeassistant_custom_component.common import (
    async_fire_time_changed,
    async_mock_service,
)

from custom_components.jiayu import state_dir


async def _settle(hass: HomeAssistant) -> None:
    # The runtime's tasks are asyncio's own: let them run, then HA's.
    for _ in range(20):
        await asyncio.sleep(0)
        await hass.async_block_till_done()


async def test_a_delayed_command_fires_on_has_clock_after_a_reload(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    freezer.move_to(datetime(2026, 11, 27, 12, 0, tzinfo=UTC))
    agent, entry = await setup_agent(hass)
    hass.states.async_set("light.living", "on", {"supported_color_modes": ["brightness"]})
    calls = async_mock_service(hass, "light", "turn_off")
    said = await say(hass, agent, "一分钟后关闭客厅灯")
    assert spoken(said) == "好的，1分钟后关闭客厅灯"
    kept = state_dir(hass, entry) / "schedules.json"
    [schedule] = json.loads(kept.read_text(encoding="utf-8"))["schedules"]
    assert schedule["commands"] == [{"device": "light.living", "command": "turn_off", "params": {}}]

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    freezer.tick(30)
    async_fire_time_changed(hass)
    await _settle(hass)
    assert calls == []
    freezer.tick(31)
    async_fire_time_changed(hass)
    await _settle(hass)
    assert [dict(c.data) for c in calls] == [{"entity_id": "light.living"}]
    assert json.loads(kept.read_text(encoding="utf-8"))["schedules"] == []


async def test_times_are_in_has_time_zone(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    await hass.config.async_set_time_zone("Asia/Shanghai")
    freezer.move_to(datetime(2026, 11, 27, 12, 0, tzinfo=UTC))  # 20:00 in Shanghai
    agent, entry = await setup_agent(hass)
    said = await say(hass, agent, "晚上十点关客厅灯")
    assert spoken(said) == "好的，今天22:00关闭客厅灯"
    kept = state_dir(hass, entry) / "schedules.json"
    [schedule] = json.loads(kept.read_text(encoding="utf-8"))["schedules"]
    assert datetime.fromisoformat(schedule["at"]) == datetime(2026, 11, 27, 14, 0, tzinfo=UTC)


async def test_a_preference_survives_a_reload(hass: HomeAssistant) -> None:
    agent, entry = await setup_agent(hass)
    calls = async_mock_service(hass, "climate", "set_temperature")
    speaker = Context(user_id="u1")
    said = await say(hass, agent, "记住我喜欢24度", context=speaker)
    assert spoken(said) == "好的，记住了，你喜欢的温度是24度"
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    said = await say(hass, agent, "把客厅空调调到我喜欢的温度", context=Context(user_id="u1"))
    assert "24" in spoken(said)
    assert [dict(c.data) for c in calls] == [{"entity_id": "climate.living", "temperature": 24}]


async def test_unloading_stops_the_runtime_and_removing_deletes_its_files(
    hass: HomeAssistant,
) -> None:
    _, entry = await setup_agent(hass)
    engine = entry.runtime_data.engine
    assert engine is not None and engine.runtime is not None
    assert engine.runtime.scheduler is not None  # firing since setup, before any sentence
    folder = state_dir(hass, entry)
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert engine.runtime.scheduler is None
    assert folder.is_dir()
    await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()
    assert not folder.exists()
