"""jiayu's conversation entity: a sentence in, jiayu's turn run, HA's services called."""

from __future__ import annotations

import logging
from typing import Literal

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import intent
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from jiayu.errors import JiayuError
from jiayu.importers.ha import room_id
from jiayu.serve import Answer, answer

from . import JiayuConfigEntry
from .const import LANGUAGES, SERVICE_TIMEOUT
from .hub import SPEAKER

log = logging.getLogger(__name__)

# Outcomes HA reports as an error, and as which one.
_ERRORS = {
    "unknown": intent.IntentResponseErrorCode.NO_INTENT_MATCH,
    "rejected": intent.IntentResponseErrorCode.NO_VALID_TARGETS,
}


async def async_setup_entry(
    hass: HomeAssistant,
    entry: JiayuConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the entry's conversation entity."""
    async_add_entities([JiayuConversationEntity(entry)])


def response_for(said: Answer, language: str) -> intent.IntentResponse:
    """HA's response for what jiayu answered."""
    response = intent.IntentResponse(language=language)
    if said.outcome in _ERRORS:
        response.async_set_error(_ERRORS[said.outcome], said.reply)
    elif not said.handled:
        # The hub failed every command it was given: nothing happened, and HA should know.
        response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, said.reply)
    else:
        if said.outcome == "answered":
            response.response_type = intent.IntentResponseType.QUERY_ANSWER
        response.async_set_speech(said.reply)
    return response


class JiayuConversationEntity(conversation.ConversationEntity):
    """jiayu as an Assist conversation agent."""

    _attr_has_entity_name = True
    # It switches devices; HA's UI and pipelines use this to tell agents that can.
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, entry: JiayuConfigEntry) -> None:
        self.entry = entry
        self._attr_name = entry.title
        self._attr_unique_id = entry.entry_id

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Chinese only: jiayu's grammar is Chinese."""
        return LANGUAGES

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Run one jiayu turn for the sentence, in the chat's session."""
        runtime = self.entry.runtime_data
        try:
            engine = await runtime.async_engine()
        except JiayuError as err:
            log.error("jiayu has no valid home: %s", err)
            response = intent.IntentResponse(language=user_input.language)
            response.async_set_error(
                intent.IntentResponseErrorCode.FAILED_TO_HANDLE, "家语的家庭配置无效，请查看日志。"
            )
            return conversation.ConversationResult(response, chat_log.conversation_id)
        token = SPEAKER.set(user_input.context)
        try:
            said = await answer(
                engine,
                user_input.text,
                chat_log.conversation_id,
                area=self._area(user_input.device_id),
                user=user_input.context.user_id,
                settle_s=SERVICE_TIMEOUT,
            )
        finally:
            SPEAKER.reset(token)
        log.debug("jiayu turn of %s: %s", chat_log.conversation_id, said.outcome)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=said.reply)
        )
        return conversation.ConversationResult(
            response=response_for(said, user_input.language),
            conversation_id=chat_log.conversation_id,
            continue_conversation=said.asks,
        )

    def _area(self, device_id: str | None) -> str | None:
        """The speaker's room: the area of the satellite (device) that heard the sentence."""
        if device_id is None:
            return None
        device = dr.async_get(self.hass).async_get(device_id)
        if device is None or device.area_id is None:
            return None
        return room_id(device.area_id)
