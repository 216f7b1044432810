"""Brains turn a tick's input and recall into a decision; Stage-0 is the rule-based one."""
