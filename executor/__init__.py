"""Executor: what sends and keeps: the hub protocol and hubs, the sync and asyncio runners
that send a planned turn's batches (audited ahead), the schedule store and its scheduler,
long scenes in the background, live events and the clock."""
