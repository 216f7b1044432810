"""The rulebook's failure replies, word for word (MACE Stage-0 §3)."""

F1_SEM_MISS = "I don’t have this information stored yet."
F3_NO_AGENT = "I currently don’t have a module for this type of request."
F4_AGENT_FAILURE = (
    "One of my internal modules failed while processing this; here is a partial answer based on the remaining modules."
)
F5_SEM_WRITE_FAILURE = "I tried to store this, but my memory backend failed. I may not remember this next time."
