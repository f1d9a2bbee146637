"""The entity registry followed: a home built from HA's registries follows a rename; a device
of the home HA removes, renames or lacks is a repair issue naming it; a sentence about a
device HA lacks is answered in Chinese."""

from __future__ import annotations

from datetime import timedelta

from agent import say, setup_agent, spoken
from freezegun.api import FrozenDateTimeFactory
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
    async_mock_service,
)

from custom_components.jiayu.const import CONF_HOME_PATH, DOMAIN, RELOAD_AFTER_S


async def test_a_rename_in_ha_is_followed_by_a_registries_home(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    study = ar.async_get(hass).async_get_or_create("书房")
    registry = er.async_get(hass)
    registry.async_get_or_create("light", "demo", "lamp1", suggested_object_id="desk_lamp")
    registry.async_update_entity("light.desk_lamp", area_id=study.id, name="书桌灯")
    hass.states.async_set("light.desk_lamp", "off", {"supported_color_modes": ["onoff"]})
    async_expose_entity(hass, "conversation", "light.desk_lamp", True)
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_HOME_PATH: ""})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = registry.async_get_entity_id("conversation", DOMAIN, entry.entry_id)
    assert agent is not None
    calls = async_mock_service(hass, "light", "turn_on")
    assert "书桌灯" not in spoken(await say(hass, agent, "打开阅读灯"))

    registry.async_update_entity("light.desk_lamp", name="阅读灯")
    freezer.tick(timedelta(seconds=RELOAD_AFTER_S + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    said = await say(hass, agent, "打开阅读灯")
    assert spoken(said) == "好的，正在打开阅读灯"
    assert [dict(c.data) for c in calls] == [{"entity_id": "light.desk_lamp"}]


async def test_a_removed_device_is_a_repair_issue_naming_it(hass: HomeAssistant) -> None:
    registry = er.async_get(hass)
    registry.async_get_or_create("light", "demo", "bed", suggested_object_id="bedroom")
    _, entry = await setup_agent(hass)
    registry.async_remove("light.bedroom")
    await hass.async_block_till_done()
    issue = ir.async_get(hass).async_get_issue(DOMAIN, f"{entry.entry_id}_light.bedroom")
    assert issue is not None
    assert issue.translation_key == "entity_removed"
    assert issue.translation_placeholders == {"name": "卧室灯", "entity_id": "light.bedroom"}


async def test_a_renamed_entity_id_is_a_repair_issue_naming_both(hass: HomeAssistant) -> None:
    registry = er.async_get(hass)
    registry.async_get_or_create("light", "demo", "living", suggested_object_id="living")
    _, entry = await setup_agent(hass)
    registry.async_update_entity("light.living", new_entity_id="light.ke_ting")
    await hass.async_block_till_done()
    issue = ir.async_get(hass).async_get_issue(DOMAIN, f"{entry.entry_id}_light.living")
    assert issue is not None
    assert issue.translation_key == "entity_renamed"
    assert issue.translation_placeholders == {
        "name": "客厅灯",
        "entity_id": "light.living",
        "new_entity_id": "light.ke_ting",
    }


async def test_a_home_file_device_ha_lacks_is_found_at_start_and_said_in_chinese(
    hass: HomeAssistant,
) -> None:
    agent, entry = await setup_agent(hass)
    # setup_agent gave every device of the home a state: no issue.
    assert not ir.async_get(hass).async_get_issue(DOMAIN, f"{entry.entry_id}_light.bedroom")
    hass.states.async_remove("light.bedroom")
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    issue = ir.async_get(hass).async_get_issue(DOMAIN, f"{entry.entry_id}_light.bedroom")
    assert issue is not None and issue.translation_key == "entity_missing"
    said = await say(hass, agent, "打开卧室灯")
    assert spoken(said) == "好的，正在打开卧室灯。刚才卧室灯没有执行：设备离线"
