"""The config flow: a home file, or nothing for HA's registries; options change it."""

from __future__ import annotations

from pathlib import Path

from homeassistant import config_entries
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.setup import async_setup_component

from custom_components.jiayu.const import CONF_HOME_PATH, DOMAIN

HOME = Path(__file__).parent / "home.json"


async def test_a_home_file_creates_the_entry(hass: HomeAssistant, tmp_path: Path) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    form = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    assert form["type"] is FlowResultType.FORM
    missing = await hass.config_entries.flow.async_configure(
        form["flow_id"], {CONF_HOME_PATH: str(tmp_path / "none.json")}
    )
    assert missing["errors"] == {CONF_HOME_PATH: "invalid_home"}
    # The form says what is wrong, in one line: the file and the problem.
    [line] = missing["description_placeholders"]["error"].splitlines()
    assert line.startswith(str(tmp_path / "none.json"))
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"version": 1, "name": "x", "devices": [{"id": "a"}, {"id": "b"}]}', encoding="utf-8"
    )
    invalid = await hass.config_entries.flow.async_configure(
        form["flow_id"], {CONF_HOME_PATH: str(broken)}
    )
    [line] = invalid["description_placeholders"]["error"].splitlines()
    assert line.startswith(f"{broken}: /devices/0")
    assert line.endswith(")")  # (+N): how many more problems the log names
    done = await hass.config_entries.flow.async_configure(
        form["flow_id"], {CONF_HOME_PATH: f" {HOME} "}
    )
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert done["data"] == {CONF_HOME_PATH: str(HOME)}


async def test_options_switch_to_the_registries(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "conversation", {})
    form = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_USER}
    )
    done = await hass.config_entries.flow.async_configure(
        form["flow_id"], {CONF_HOME_PATH: str(HOME)}
    )
    entry = done["result"]
    options = await hass.config_entries.options.async_init(entry.entry_id)
    assert options["type"] is FlowResultType.FORM
    saved = await hass.config_entries.options.async_configure(
        options["flow_id"], {CONF_HOME_PATH: ""}
    )
    assert saved["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert entry.options == {CONF_HOME_PATH: ""}
    assert entry.runtime_data.home_path == ""
