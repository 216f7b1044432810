"""Retrieval LLM output contracts for agi-core (registered by :mod:`agi_plugin_retrieval.plugin`)."""

import os

#: the folder holding this distribution's contract files (a str: pathlib is not imported for agi --help)
CONTRACTS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "contracts")

__all__ = ["CONTRACTS"]
