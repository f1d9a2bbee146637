"""Diagnostics: the home in counts, the versions, what is kept, the last failures; the entry's
secrets redacted, no name of the home and nothing anyone said."""

from __future__ import annotations

import json
from importlib.metadata import version

from agent import say, setup_agent
from homeassistant.const import __version__ as ha_version
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator


async def test_diagnostics_summarise_without_secrets(
    hass: HomeAssistant, hass_client: ClientSessionGenerator
) -> None:
    agent, entry = await setup_agent(hass)
    hass.config_entries.async_update_entry(entry, data={**entry.data, "token": "s3cret"})
    await hass.async_block_till_done()  # the entry reloads with its new data
    await say(hass, agent, "一分钟后关闭客厅灯")
    await say(hass, agent, "打开卧室灯")  # no light service: HA refuses it
    found = await get_diagnostics_for_config_entry(hass, hass_client, entry)
    print(json.dumps(found, ensure_ascii=False, indent=1))
    assert found["versions"] == {"jiayu": version("jiayu"), "homeassistant": ha_version}
    assert found["entry"]["data"]["token"] == "**REDACTED**"
    home = found["home"]
    assert (home["rooms"], home["devices"], home["delayed_commands"]) == (2, 4, 1)
    assert home["device_types"] == {"AirConditioner": 1, "Light": 2, "Lock": 1}
    assert home["runtime_started"] is True
    assert home["missing_entities"] == []
    [failure] = found["last_failures"]
    assert (failure["device"], failure["command"], failure["reason"]) == (
        "light.bedroom",
        "turn_on",
        "refused",
    )
    text = json.dumps(found, ensure_ascii=False)
    for private in ("s3cret", "客厅灯", "一分钟后"):
        assert private not in text
