"""The turn, with no I/O: given what was understood, the session's state, the home and the
time, say which reads are needed, then the plan (batches, confirmations, schedules,
preference writes, session updates and the reply)."""
