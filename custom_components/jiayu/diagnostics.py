"""Diagnostics of a jiayu entry (Settings → Devices & services → jiayu → Download
diagnostics): what the home holds, the versions, what is kept, and the last errors. No secret
reaches it: the entry's data is redacted, and neither the home's names nor what users said
or like are included, only counts."""

from __future__ import annotations

from dataclasses import asdict
from importlib.metadata import version
from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import __version__ as ha_version
from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from . import JiayuConfigEntry

TO_REDACT = {"token", "access_token", "api_key", "password"}
"""Keys whose values never leave in diagnostics, wherever they appear."""


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: JiayuConfigEntry
) -> dict[str, Any]:
    """The entry's diagnostics."""
    runtime = entry.runtime_data
    engine = runtime.engine
    home: dict[str, Any] | None = None
    if engine is not None:
        kinds: dict[str, int] = {}
        for device in engine.home.devices:
            kinds[device.type] = kinds.get(device.type, 0) + 1
        home = {
            "source": "home file" if runtime.home_path else "Home Assistant registries",
            "floors": len(engine.home.floors),
            "rooms": len(engine.home.rooms),
            "devices": len(engine.home.devices),
            "device_types": dict(sorted(kinds.items())),
            "scenes": len(engine.home.scenes),
            "missing_entities": [
                d.id for d in engine.home.devices if hass.states.get(d.id) is None
            ],
            "delayed_commands": len(engine.schedules),
            "runtime_started": engine.runtime is not None and engine.runtime.scheduler is not None,
            "time_zone": str(dt_util.get_default_time_zone()),
        }
    return {
        "entry": async_redact_data(
            {"data": dict(entry.data), "options": dict(entry.options)}, TO_REDACT
        ),
        "versions": {"jiayu": version("jiayu"), "homeassistant": ha_version},
        "home": home,
        "home_errors": list(runtime.errors),
        "last_failures": [{**asdict(f), "at": f.at.isoformat()} for f in runtime.hub.failures],
    }
