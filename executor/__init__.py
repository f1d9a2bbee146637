"""Executor: the capability catalog, the hub protocol, planning, conditions and the risk gate."""
