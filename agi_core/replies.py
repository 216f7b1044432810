"""The rulebook's failure replies, word for word (MACE Stage-0 §3)."""

F1_SEM_MISS = "I don’t have this information stored yet."
F3_NO_AGENT = "I currently don’t have a module for this type of request."
F4_AGENT_FAILURE = (
    "One of my internal modules failed while processing this; here is a partial answer based on the remaining modules."
)
F5_SEM_WRITE_FAILURE = "I tried to store this, but my memory backend failed. I may not remember this next time."

#: Beyond the rulebook: a statement of the user's that no rule stores ("I have a red bike"). Before Stage-0's
#: ``noted_statement`` change it was F3, which reads as if the agent could not take the line in at all; the line
#: is kept (an episode of the journal, and long-term memory's), but no fact is written that a question could
#: read back by its key. A reply that carries nothing stored, as F3 does.
F3_NOTED_NOT_STORED = "I noted this as an episode, but I have no rule to store it as a fact yet."
