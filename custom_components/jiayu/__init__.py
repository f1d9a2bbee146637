"""家语 (jiayu) as a Home Assistant conversation agent.

One config entry; its conversation entity runs jiayu's asyncio runtime on the home in a jiayu
home file, or on the home HA's own registries describe (the entities exposed to Assist). The
runtime lives as long as the entry: started when HA has started (kept delayed commands fire
from then, with no sentence needed), closed when the entry unloads. Its delayed commands and
what users like are files of the entry under HA's config folder, so a reload or a restart
keeps them; times are in HA's time zone.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryError
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers.event import async_call_later
from homeassistant.helpers.start import async_at_started
from jiayu.engine import Engine
from jiayu.errors import JiayuError
from jiayu.home import Home, load_home
from jiayu.importers.ha import ASSISTANT

from .clock import HassClock
from .const import CONF_HOME_PATH, RELOAD_AFTER_S, SERVICE_TIMEOUT, STATE_DIR
from .home_source import home_from_registries, registries_now
from .hub import HassHub
from .issues import entity_gone, entity_renamed, missing_entities

PLATFORMS = [Platform.CONVERSATION]

log = logging.getLogger(__name__)


@dataclass
class JiayuRuntime:
    """The entry's engine and its asyncio runtime: built from the file at setup, from the
    registries once HA has started (before, HA may still be adding entities)."""

    hass: HomeAssistant
    hub: HassHub
    home_path: str
    state_dir: Path
    engine: Engine | None = None
    errors: list[str] = field(default_factory=list)
    """What went wrong with the home (one line each), for the diagnostics."""
    _building: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def async_engine(self) -> Engine:
        """The engine, built and started on first use."""
        async with self._building:
            if self.engine is None:
                home = await self._home()
                # Building the lexicon is CPU work, and the state files are files: off the loop.
                engine = await self.hass.async_add_executor_job(
                    partial(
                        Engine,
                        home,
                        hub=self.hub,
                        command_timeout=SERVICE_TIMEOUT,
                        clock=HassClock(self.hass),
                        schedules_path=self.state_dir / "schedules.json",
                        preferences_path=self.state_dir / "preferences.json",
                    )
                )
                await engine.start()
                self.engine = engine
            return self.engine

    async def _home(self) -> Home:
        if self.home_path:
            return await self.hass.async_add_executor_job(load_home, self.home_path)
        snapshot = registries_now(self.hass)
        return await self.hass.async_add_executor_job(home_from_registries, snapshot)

    async def async_close(self) -> None:
        """Stop the runtime; its delayed commands stay in their file for the next start (a
        reload's new engine owns the files at once: this one gives them up)."""
        async with self._building:
            engine, self.engine = self.engine, None
        if engine is not None:
            await engine.aclose()
            engine.close()


type JiayuConfigEntry = ConfigEntry[JiayuRuntime]


def state_dir(hass: HomeAssistant, entry: ConfigEntry) -> Path:
    """The entry's own folder for its state files."""
    return Path(hass.config.path(STATE_DIR, entry.entry_id))


async def async_setup_entry(hass: HomeAssistant, entry: JiayuConfigEntry) -> bool:
    """Set up jiayu from a config entry."""
    settings = {**entry.data, **entry.options}
    folder = state_dir(hass, entry)
    await hass.async_add_executor_job(partial(folder.mkdir, parents=True, exist_ok=True))
    runtime = JiayuRuntime(hass, HassHub(hass), settings.get(CONF_HOME_PATH, ""), folder)
    if runtime.home_path:
        # A broken home file is the user's to fix: say so now, not at the first sentence.
        try:
            await runtime.async_engine()
        except JiayuError as err:
            raise ConfigEntryError(str(err).splitlines()[0]) from err
    entry.runtime_data = runtime
    entry.async_on_unload(entry.add_update_listener(_async_reload))
    entry.async_on_unload(runtime.async_close)

    async def started(hass: HomeAssistant) -> None:
        try:
            engine = await runtime.async_engine()
        except JiayuError as err:
            runtime.errors.append(str(err).splitlines()[0])
            log.error("jiayu has no valid home: %s", err)
            return
        missing_entities(hass, entry, engine.home)

    entry.async_on_unload(async_at_started(hass, started))
    _follow_the_registries(hass, entry)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: JiayuConfigEntry) -> bool:
    """Unload a config entry (the runtime closes with it: `async_on_unload`)."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


async def async_remove_entry(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """The entry is deleted: its state files go with it, their one owner."""
    await hass.async_add_executor_job(
        partial(shutil.rmtree, state_dir(hass, entry), ignore_errors=True)
    )


async def _async_reload(hass: HomeAssistant, entry: JiayuConfigEntry) -> None:
    # New options (another home file) mean another home: rebuild everything.
    await hass.config_entries.async_reload(entry.entry_id)


def _follow_the_registries(hass: HomeAssistant, entry: JiayuConfigEntry) -> None:
    """A home built from HA's registries is rebuilt when they change (a rename, an area, a
    floor, an entity added or removed); a device of the home that HA renames or removes
    raises a repair issue naming it (a home file cannot follow it by itself)."""
    pending: list[CALLBACK_TYPE] = []

    @callback
    def cancel() -> None:
        while pending:
            pending.pop()()

    @callback
    def reload_soon() -> None:
        # Once, after the last change of a burst (a rename touches several registries).
        cancel()

        @callback
        def reload(_now: datetime) -> None:
            pending.clear()
            hass.config_entries.async_schedule_reload(entry.entry_id)

        pending.append(async_call_later(hass, RELOAD_AFTER_S, reload))

    entry.async_on_unload(cancel)
    built_from_registries = not entry.runtime_data.home_path

    @callback
    def entity_changed(event: Event[er.EventEntityRegistryUpdatedData]) -> None:
        engine = entry.runtime_data.engine
        if engine is None:
            return
        data = event.data
        known = engine.home.has_device
        if data["action"] == "remove" and known(data["entity_id"]):
            entity_gone(hass, entry, engine.home, data["entity_id"])
        elif data["action"] == "update" and known(data.get("old_entity_id", "")):
            entity_renamed(hass, entry, engine.home, data["old_entity_id"], data["entity_id"])
        if built_from_registries and _matters(hass, data, known):
            reload_soon()

    entry.async_on_unload(hass.bus.async_listen(er.EVENT_ENTITY_REGISTRY_UPDATED, entity_changed))
    if built_from_registries:

        @callback
        def place_changed(_event: Event[Any]) -> None:
            if entry.runtime_data.engine is not None:
                reload_soon()

        for kind in (ar.EVENT_AREA_REGISTRY_UPDATED, fr.EVENT_FLOOR_REGISTRY_UPDATED):
            entry.async_on_unload(hass.bus.async_listen(kind, place_changed))


def _matters(hass: HomeAssistant, data: er.EventEntityRegistryUpdatedData, known: Any) -> bool:
    """Whether a registry change can change a home built from the registries: a device of it
    changed or left, or an entity came that may be exposed to Assist."""
    if data["action"] == "create":
        return async_should_expose(hass, ASSISTANT, data["entity_id"])
    return bool(known(data["entity_id"]) or known(data.get("old_entity_id", "")))
