"""Beliefs LLM output contracts for agi-core (registered by :mod:`agi_plugin_beliefs.plugin`)."""

from pathlib import Path

#: the folder holding this distribution's contract files
CONTRACTS = Path(__file__).resolve().parent / "contracts"

__all__ = ["CONTRACTS"]
