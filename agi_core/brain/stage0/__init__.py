"""The Stage-0 brain of the MACE rulebook: a deterministic rule router and four agents."""
