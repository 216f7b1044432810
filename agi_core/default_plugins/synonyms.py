"""Built-in canonical-key synonyms (rule S4): the curated groups of :mod:`.synonym_groups`."""

from __future__ import annotations

import functools

from agi_core.hookspecs import Register, hookimpl


@functools.cache
def builtin_synonyms() -> dict[str, str]:
    """The table, built once, when first registered (a kernel opens), not when the module loads (``agi --help``)."""
    from agi_core.default_plugins.synonym_groups import synonym_table

    return synonym_table()


@hookimpl
def agi_register_synonyms(register: Register) -> None:
    register(builtin_synonyms(), name="builtin")
