"""家语 (jiayu) as a Home Assistant conversation agent.

One config entry; its conversation entity runs jiayu's engine on the home in a jiayu home
file, or on the home HA's own registries describe (the entities exposed to Assist).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from functools import partial

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryError
from jiayu.engine import Engine
from jiayu.errors import HomeError
from jiayu.home import load_home

from .const import CONF_HOME_PATH, SERVICE_TIMEOUT
from .home_source import home_from_registries, registries_now
from .hub import HassHub

PLATFORMS = [Platform.CONVERSATION]


@dataclass
class JiayuRuntime:
    """The entry's engine, built once: from the file at setup, from the registries at the
    first turn (at setup HA may still be adding entities)."""

    hass: HomeAssistant
    hub: HassHub
    home_path: str
    engine: Engine | None = None
    _building: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def async_engine(self) -> Engine:
        """The engine, built on first use."""
        async with self._building:
            if self.engine is None:
                if self.home_path:
                    home = await self.hass.async_add_executor_job(load_home, self.home_path)
                else:
                    snapshot = registries_now(self.hass)
                    home = await self.hass.async_add_executor_job(home_from_registries, snapshot)
                # Building the lexicon is CPU work: off the event loop.
                self.engine = await self.hass.async_add_executor_job(
                    partial(Engine, home, hub=self.hub)
                )
            return self.engine


type JiayuConfigEntry = ConfigEntry[JiayuRuntime]


async def async_setup_entry(hass: HomeAssistant, entry: JiayuConfigEntry) -> bool:
    """Set up jiayu from a config entry."""
    settings = {**entry.data, **entry.options}
    runtime = JiayuRuntime(
        hass, HassHub(hass, timeout=SERVICE_TIMEOUT), settings.get(CONF_HOME_PATH, "")
    )
    if runtime.home_path:
        # A broken home file is the user's to fix: say so now, not at the first sentence.
        try:
            await runtime.async_engine()
        except HomeError as err:
            raise ConfigEntryError(str(err)) from err
    entry.runtime_data = runtime
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: JiayuConfigEntry) -> bool:
    """Unload a config entry."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


async def _async_reload(hass: HomeAssistant, entry: JiayuConfigEntry) -> None:
    # New options (another home file) mean another home: rebuild everything.
    await hass.config_entries.async_reload(entry.entry_id)
