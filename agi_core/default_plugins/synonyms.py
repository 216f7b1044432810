"""Built-in canonical-key synonyms (rule S4): the curated groups of :mod:`.synonym_groups`."""

from __future__ import annotations

from agi_core.default_plugins.synonym_groups import synonym_table
from agi_core.hookspecs import Register, hookimpl

SYNONYMS = synonym_table()


@hookimpl
def agi_register_synonyms(register: Register) -> None:
    register(SYNONYMS, name="builtin")
