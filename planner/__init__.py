"""The turn, with no I/O: given what was understood, the session's state, the home and the
time, a turn yields the effects it needs (planner/effects.py: fresh reads, a state-file
write, the LLM's answer) and then the plan it wants sent (batches, confirmations,
schedules, session changes and the reply); the drivers (jiayu/engine.py, jiayu/runtime.py)
do the I/O."""
