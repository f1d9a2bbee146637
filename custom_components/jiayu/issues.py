"""Repair issues for devices of the jiayu home that Home Assistant no longer has: found when
HA starts (a home file naming an entity HA lacks) and when HA's entity registry removes or
renames one, not when someone first asks for the device. Each issue names the device."""

from __future__ import annotations

import logging

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from jiayu.home import Home

from .const import DOMAIN

log = logging.getLogger(__name__)


def _issue_id(entry: ConfigEntry, entity_id: str) -> str:
    return f"{entry.entry_id}_{entity_id}"


def _raise(
    hass: HomeAssistant,
    entry: ConfigEntry,
    home: Home,
    entity_id: str,
    key: str,
    why: str,
    **placeholders: str,
) -> None:
    name = home.device(entity_id).name
    log.warning("jiayu's device %s (%s) %s", name, entity_id, why)
    ir.async_create_issue(
        hass,
        DOMAIN,
        _issue_id(entry, entity_id),
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=key,
        translation_placeholders={"name": name, "entity_id": entity_id, **placeholders},
    )


@callback
def missing_entities(hass: HomeAssistant, entry: ConfigEntry, home: Home) -> list[str]:
    """Raise an issue for each device of the home HA has no state for; clear the issues of
    the devices it has again. Returns the missing entity ids."""
    missing = []
    for device in home.devices:
        if hass.states.get(device.id) is None:
            missing.append(device.id)
            _raise(hass, entry, home, device.id, "entity_missing", "is not in Home Assistant")
        else:
            ir.async_delete_issue(hass, DOMAIN, _issue_id(entry, device.id))
    return missing


@callback
def entity_gone(hass: HomeAssistant, entry: ConfigEntry, home: Home, entity_id: str) -> None:
    """HA's entity registry removed a device of the home."""
    _raise(hass, entry, home, entity_id, "entity_removed", "was removed from Home Assistant")


@callback
def entity_renamed(hass: HomeAssistant, entry: ConfigEntry, home: Home, old: str, new: str) -> None:
    """HA's entity registry gave a device of the home another entity id."""
    _raise(hass, entry, home, old, "entity_renamed", f"was renamed to {new}", new_entity_id=new)
