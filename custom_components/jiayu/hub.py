"""jiayu's `AsyncHub` on Home Assistant itself: `hass.services` to act, `hass.states` to read,
on HA's event loop, where jiayu's asyncio runtime runs. The command → service table and the
state mapping are jiayu's own (`jiayu.executor.hubs.homeassistant`), shared with the
WebSocket hub.

Every service call carries the speaker's HA `Context` (its `user_id`), as HA's own agent
passes it: the logbook says who switched the light and HA's permissions apply to them. The
conversation agent sets `SPEAKER` around a turn; the runtime sends in tasks made inside it,
which copy the context, so a turn's commands carry the turn's speaker and a schedule firing
later (made by the runtime's own task) carries none.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from homeassistant.core import Context, HomeAssistant, State
from homeassistant.util import dt as dt_util
from jiayu.executor.hubs import HubError
from jiayu.executor.hubs.homeassistant import device_state, service_call

SPEAKER: ContextVar[Context | None] = ContextVar("jiayu_speaker", default=None)
"""The HA context of the sentence whose turn is running."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Failure:
    """One read or send HA refused, kept for the diagnostics."""

    at: datetime
    device: str
    command: str | None
    reason: str
    detail: str


class HassHub:
    """A jiayu `AsyncHub` acting through `hass.services` and reading `hass.states`."""

    def __init__(self, hass: HomeAssistant) -> None:
        self._hass = hass
        self.failures: deque[Failure] = deque(maxlen=20)
        """The last failures, newest last."""

    async def read(self, device_id: str) -> Mapping[str, Any]:
        state = self._known(device_id, None)
        return device_state(device_id, state.state, state.attributes)

    async def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        state = self._known(device_id, command)
        try:
            device_state(device_id, state.state, state.attributes)  # unavailable: unsent
            call = service_call(device_id, command, params, state.attributes)
            await self._hass.services.async_call(
                call.domain,
                call.service,
                dict(call.data),
                blocking=True,
                target={"entity_id": device_id},
                context=SPEAKER.get(),
            )
        except HubError as err:
            self._failed(device_id, command, err.reason, str(err))
            raise
        except Exception as err:  # ServiceNotFound, ServiceValidationError, vol.Invalid...
            # Whatever HA raised, the command did not happen as asked: never claim it did.
            self._failed(device_id, command, "refused", repr(err))
            raise HubError(device_id, "refused") from err

    def _known(self, device_id: str, command: str | None) -> State:
        state = self._hass.states.get(device_id)
        if state is None:
            # An entity of the home file HA does not have (removed, renamed): to the speaker
            # it is a device that cannot be reached.
            self._failed(device_id, command, "offline", "Home Assistant has no such entity")
            raise HubError(device_id, "offline")
        return state

    def _failed(self, device_id: str, command: str | None, reason: str, detail: str) -> None:
        log.warning("Home Assistant failed to %s %s: %s", command or "read", device_id, detail)
        self.failures.append(Failure(dt_util.utcnow(), device_id, command, reason, detail))
