"""Setting up the jiayu agent in HA's test harness, and saying a sentence to it."""

from __future__ import annotations

from pathlib import Path

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jiayu.const import CONF_HOME_PATH, DOMAIN

HOME = Path(__file__).parent / "home.json"


async def setup_agent(
    hass: HomeAssistant, home_path: str = str(HOME)
) -> tuple[str, MockConfigEntry]:
    """jiayu set up on a home; returns its agent's entity id and the entry."""
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    hass.states.async_set("light.living", "off", {"supported_color_modes": ["brightness"]})
    hass.states.async_set("light.bedroom", "off", {"supported_color_modes": ["brightness"]})
    hass.states.async_set("lock.front", "locked")
    hass.states.async_set(
        "climate.living", "cool", {"temperature": 26, "hvac_modes": ["off", "cool"]}
    )
    entry = MockConfigEntry(domain=DOMAIN, title="家语", data={CONF_HOME_PATH: home_path})
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED
    agent = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, entry.entry_id)
    assert agent is not None
    return agent, entry


async def say(
    hass: HomeAssistant,
    agent: str,
    text: str,
    conversation_id: str | None = None,
    device_id: str | None = None,
    context: Context | None = None,
) -> conversation.ConversationResult:
    """One sentence to the agent, as a pipeline passes it."""
    return await conversation.async_converse(
        hass,
        text,
        conversation_id,
        context or Context(),
        language="zh-Hans",
        agent_id=agent,
        device_id=device_id,
    )


def spoken(result: conversation.ConversationResult) -> str:
    """What the agent answered, as HA speaks it."""
    speech: str = result.response.speech["plain"]["speech"]
    return speech
