"""jiayu behind a protocol: one engine's asyncio runtime answering turns that arrive from
another program (Home Assistant's `wyoming` integration, HA's conversation agent). No logic
of its own: a turn is `Engine.handle` with the session and the speaker's room the message
carries (`turns.answer`)."""
