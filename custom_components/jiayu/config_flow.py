"""Config flow: where jiayu's home comes from (a home file, or HA's registries)."""

from __future__ import annotations

import logging
from typing import Any

import voluptuous as vol
from homeassistant.config_entries import ConfigFlow, ConfigFlowResult, OptionsFlow
from homeassistant.core import HomeAssistant, callback
from jiayu.errors import HomeError
from jiayu.home import load_home

from .const import CONF_HOME_PATH, DOMAIN

log = logging.getLogger(__name__)


def _schema(default: str) -> vol.Schema:
    return vol.Schema({vol.Optional(CONF_HOME_PATH, default=default): str})


async def _check(
    hass: HomeAssistant, user_input: dict[str, Any], placeholders: dict[str, str]
) -> dict[str, str]:
    """Form errors for a home path that does not load, its first problem in `placeholders`
    (the form shows it: file, JSON pointer, what is wrong); none for an empty path."""
    path = user_input.get(CONF_HOME_PATH, "").strip()
    user_input[CONF_HOME_PATH] = path
    if not path:
        return {}
    try:
        await hass.async_add_executor_job(load_home, path)
    except HomeError as err:
        log.warning("jiayu home file %s rejected: %s", path, err)
        lines = str(err).splitlines()
        more = f" (+{len(lines) - 1})" if len(lines) > 1 else ""
        placeholders["error"] = lines[0] + more
        return {CONF_HOME_PATH: "invalid_home"}
    return {}


class JiayuConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set jiayu up as a conversation agent."""

    VERSION = 1

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for a home file, or nothing to use HA's registries."""
        errors: dict[str, str] = {}
        placeholders = {"error": ""}
        if user_input is not None:
            errors = await _check(self.hass, user_input, placeholders)
            if not errors:
                return self.async_create_entry(title="家语 jiayu", data=user_input)
        return self.async_show_form(
            step_id="user",
            data_schema=_schema(""),
            errors=errors,
            description_placeholders=placeholders,
        )

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: Any) -> JiayuOptionsFlow:
        """Options: another home source."""
        return JiayuOptionsFlow()


class JiayuOptionsFlow(OptionsFlow):
    """Change where the home comes from; the entry reloads with it."""

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Ask for the home file again."""
        errors: dict[str, str] = {}
        placeholders = {"error": ""}
        if user_input is not None:
            errors = await _check(self.hass, user_input, placeholders)
            if not errors:
                return self.async_create_entry(data=user_input)
        current = {**self.config_entry.data, **self.config_entry.options}
        return self.async_show_form(
            step_id="init",
            data_schema=_schema(current.get(CONF_HOME_PATH, "")),
            errors=errors,
            description_placeholders=placeholders,
        )
