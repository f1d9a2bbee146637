"""HA's clock for jiayu's runtime: the time in HA's configured time zone, and waiting for a
time with HA's own timer (`async_track_point_in_utc_time`), so a delayed command fires when
HA says it is time, and HA's tests can move it."""

from __future__ import annotations

from datetime import datetime

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.event import async_track_point_in_utc_time
from homeassistant.util import dt as dt_util


class HassClock:
    """A jiayu `Clock` on Home Assistant's time."""

    def __init__(self, hass: HomeAssistant) -> None:
        self._hass = hass

    def now(self) -> datetime:
        # In HA's configured time zone: 晚上十点 is ten in the evening there.
        return dt_util.now()

    async def sleep_until(self, when: datetime) -> None:
        if when <= dt_util.utcnow():
            return
        woken = self._hass.loop.create_future()

        @callback
        def wake(_now: datetime) -> None:
            if not woken.done():
                woken.set_result(None)

        cancel = async_track_point_in_utc_time(self._hass, wake, dt_util.as_utc(when))
        try:
            await woken
        finally:
            cancel()
