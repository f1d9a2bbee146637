"""The jiayu conversation agent inside a real Home Assistant (HA's own test harness):
setting up the entry, commands that call HA's services, clarify and confirm turns that keep
the conversation open, errors as HA's error codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent import say, setup_agent
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.jiayu.const import CONF_HOME_PATH, DOMAIN


async def test_the_entry_sets_up_an_agent(hass: HomeAssistant) -> None:
    agent, entry = await setup_agent(hass)
    assert hass.states.get(agent) is not None
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert entry.state is ConfigEntryState.NOT_LOADED


async def test_a_broken_home_file_fails_the_setup(hass: HomeAssistant, tmp_path: Path) -> None:
    broken = tmp_path / "home.json"
    broken.write_text('{"version": 1, "name": "x", "devices": [{"id": "a"}]}', encoding="utf-8")
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_HOME_PATH: str(broken)})
    entry.add_to_hass(hass)
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    assert not await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.SETUP_ERROR


async def test_a_command_calls_the_right_service(hass: HomeAssistant) -> None:
    agent, _ = await setup_agent(hass)
    calls = async_mock_service(hass, "light", "turn_on")
    result = await say(hass, agent, "把客厅灯调到40%")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    # The runtime's reply, said once HA has carried the command out.
    assert result.response.speech["plain"]["speech"] == "好的，正在把客厅灯亮度调到40%"
    assert result.continue_conversation is False
    assert [(c.domain, c.service, dict(c.data)) for c in calls] == [
        ("light", "turn_on", {"brightness_pct": 40, "entity_id": "light.living"})
    ]


async def test_the_service_calls_carry_the_speakers_context(hass: HomeAssistant) -> None:
    # HA's logbook and permissions see who spoke, as with HA's own agent; a confirmation
    # carries the context of the turn that confirmed.
    agent, _ = await setup_agent(hass)
    lights = async_mock_service(hass, "light", "turn_on")
    unlocks = async_mock_service(hass, "lock", "unlock")
    speaker = Context(user_id="0123456789abcdef")
    await say(hass, agent, "打开客厅灯", context=speaker)
    assert [c.context.user_id for c in lights] == ["0123456789abcdef"]
    assert lights[0].context.id == speaker.id
    asked = await say(hass, agent, "打开前门", context=Context(user_id="u1"))
    await say(hass, agent, "确认", asked.conversation_id, context=Context(user_id="u1"))
    assert [c.context.user_id for c in unlocks] == ["u1"]


async def test_a_clarify_continues_the_conversation(hass: HomeAssistant) -> None:
    agent, _ = await setup_agent(hass)
    calls = async_mock_service(hass, "light", "turn_on")
    asked = await say(hass, agent, "开灯")
    assert asked.continue_conversation is True
    assert "客厅" in asked.response.speech["plain"]["speech"]
    assert calls == []
    answered = await say(hass, agent, "客厅的", asked.conversation_id)
    assert answered.conversation_id == asked.conversation_id
    assert answered.continue_conversation is False
    assert [dict(c.data) for c in calls] == [{"entity_id": "light.living"}]


async def test_an_unlock_waits_for_confirmation(hass: HomeAssistant) -> None:
    agent, _ = await setup_agent(hass)
    calls = async_mock_service(hass, "lock", "unlock")
    asked = await say(hass, agent, "打开前门")
    assert asked.continue_conversation is True
    assert "确认" in asked.response.speech["plain"]["speech"]
    assert calls == []
    done = await say(hass, agent, "确认", asked.conversation_id)
    assert done.continue_conversation is False
    assert [(c.service, dict(c.data)) for c in calls] == [("unlock", {"entity_id": "lock.front"})]


async def test_the_satellites_area_is_the_speakers_room(hass: HomeAssistant) -> None:
    agent, entry = await setup_agent(hass)
    bedroom = ar.async_get(hass).async_get_or_create("卧室")
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={(DOMAIN, "satellite")}, name="卧室音箱"
    )
    dr.async_get(hass).async_update_device(satellite.id, area_id=bedroom.id)
    # HA slugs the name into the id, as the home file (written by from-ha) expects.
    assert bedroom.id == "wo_shi"
    calls = async_mock_service(hass, "light", "turn_on")
    result = await say(hass, agent, "开灯", device_id=satellite.id)
    assert result.continue_conversation is False
    assert [dict(c.data) for c in calls] == [{"entity_id": "light.bedroom"}]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("啦啦啦啦", intent.IntentResponseErrorCode.NO_INTENT_MATCH),
        ("把客厅灯调到200%", intent.IntentResponseErrorCode.NO_VALID_TARGETS),
    ],
)
async def test_what_jiayu_cannot_do_is_an_ha_error(
    hass: HomeAssistant, text: str, code: intent.IntentResponseErrorCode
) -> None:
    agent, _ = await setup_agent(hass)
    result = await say(hass, agent, text)
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.response.error_code is code


async def test_a_failing_service_is_failed_to_handle(hass: HomeAssistant) -> None:
    agent, _ = await setup_agent(hass)
    # No light service is registered at all: HA raises ServiceNotFound.
    result = await say(hass, agent, "打开客厅灯")
    assert result.response.error_code is intent.IntentResponseErrorCode.FAILED_TO_HANDLE


async def test_the_home_can_come_from_has_registries(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    study = ar.async_get(hass).async_get_or_create("书房")
    er.async_get(hass).async_get_or_create(
        "light", "demo", "lamp1", suggested_object_id="desk_lamp"
    )
    er.async_get(hass).async_update_entity("light.desk_lamp", area_id=study.id, aliases={"台灯"})
    hass.states.async_set(
        "light.desk_lamp", "off", {"friendly_name": "书桌灯", "supported_color_modes": ["onoff"]}
    )
    async_expose_entity(hass, "conversation", "light.desk_lamp", True)
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_HOME_PATH: ""})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    agent = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, entry.entry_id)
    assert agent is not None
    calls = async_mock_service(hass, "light", "turn_on")
    result = await say(hass, agent, "打开书房的台灯")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert [dict(c.data) for c in calls] == [{"entity_id": "light.desk_lamp"}]
