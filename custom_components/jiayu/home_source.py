"""The home jiayu speaks about when no home file is given: HA's own registries, in process.

It is the same home `jiayu home from-ha` writes (jiayu's `build_home`
over the same shapes the WebSocket commands answer with): the entities exposed to Assist,
their names and aliases, areas and floors; device ids are entity_ids.
"""

from __future__ import annotations

import logging

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from jiayu.home import Home, parse_home
from jiayu.importers.ha import ASSISTANT, Registries, build_home

log = logging.getLogger(__name__)


@callback
def registries_now(hass: HomeAssistant) -> Registries:
    """A snapshot of HA's registries, states and Assist exposure; on the event loop."""
    entities = er.async_get(hass).entities
    states = hass.states.async_all()
    return Registries(
        floors=[
            {"floor_id": f.floor_id, "name": f.name, "aliases": sorted(f.aliases)}
            for f in fr.async_get(hass).async_list_floors()
        ],
        areas=[
            {"area_id": a.id, "name": a.name, "aliases": sorted(a.aliases), "floor_id": a.floor_id}
            for a in ar.async_get(hass).async_list_areas()
        ],
        devices=[{"id": d.id, "area_id": d.area_id} for d in dr.async_get(hass).devices.values()],
        entities={
            e.entity_id: {
                "area_id": e.area_id,
                "device_id": e.device_id,
                "aliases": sorted(e.aliases),
                "name": e.name,
                "original_name": e.original_name,
            }
            for e in entities.values()
        },
        states=[
            {"entity_id": s.entity_id, "state": s.state, "attributes": dict(s.attributes)}
            for s in states
        ],
        exposed={
            s.entity_id: {ASSISTANT: True}
            for s in states
            if async_should_expose(hass, ASSISTANT, s.entity_id)
        },
        name=hass.config.location_name,
    )


def home_from_registries(registries: Registries) -> Home:
    """The home for a registries snapshot (HomeError if it is somehow invalid)."""
    built = build_home(registries)
    for line in built.skipped:
        # Why an exposed entity is not reachable by voice: the user's first question.
        log.info("jiayu left out %s", line)
    return parse_home(built.home, "Home Assistant registries")
