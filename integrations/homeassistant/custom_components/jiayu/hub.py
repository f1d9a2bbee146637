"""jiayu's sync `Hub` on Home Assistant itself: `hass.services` to act, `hass.states` to read.

The engine runs in an executor thread (its turn blocks); every touch of HA is scheduled onto
HA's event loop and waited for, so nothing of HA is used off its loop. The command → service
table and the state mapping are jiayu's own (`jiayu.executor.hubs.homeassistant`), shared
with the WebSocket hub.

Every service call carries the speaker's HA `Context` (its `user_id`), as HA's own agent
passes it: the logbook says who switched the light and HA's permissions apply to them. The
conversation agent sets `SPEAKER` around a turn; the engine sends from the thread that runs
the turn, so the context is the one that turn set (a schedule firing later has none).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import ContextVar
from typing import Any

from homeassistant.core import Context, HomeAssistant, State
from jiayu.executor.hubs import HubError
from jiayu.executor.hubs.homeassistant import device_state, service_call

SPEAKER: ContextVar[Context | None] = ContextVar("jiayu_speaker", default=None)
"""The HA context of the sentence whose turn is running in this thread."""


class HassHub:
    """A jiayu `Hub` acting through `hass.services` and reading `hass.states`."""

    def __init__(self, hass: HomeAssistant, *, timeout: float) -> None:
        self._hass = hass
        self._timeout = timeout

    def read(self, device_id: str) -> Mapping[str, Any]:
        state = self._known(device_id)
        return device_state(device_id, state.state, state.attributes)

    def send(self, device_id: str, command: str, params: Mapping[str, Any]) -> None:
        state = self._known(device_id)
        device_state(device_id, state.state, state.attributes)  # unavailable: offline, unsent
        call = service_call(device_id, command, params, state.attributes)
        coro = self._hass.services.async_call(
            call.domain,
            call.service,
            dict(call.data),
            blocking=True,
            target={"entity_id": device_id},
            context=SPEAKER.get(),
        )
        self._on_loop(device_id, coro)

    def _known(self, device_id: str) -> State:
        state = self._on_loop(device_id, self._state(device_id))
        if state is None:
            raise HubError(device_id, "unknown device")
        return state

    async def _state(self, device_id: str) -> State | None:
        return self._hass.states.get(device_id)

    def _on_loop[T](self, device_id: str, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._hass.loop)
        try:
            return future.result(self._timeout)
        except FutureTimeout as exc:
            future.cancel()
            raise HubError(device_id, "timeout") from exc
        except HubError:
            raise
        except Exception as exc:  # ServiceNotFound, ServiceValidationError, vol.Invalid...
            # Whatever HA raised, the command did not happen as asked: never claim it did.
            raise HubError(device_id, "refused") from exc
