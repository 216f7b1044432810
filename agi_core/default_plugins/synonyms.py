"""Built-in canonical-key synonyms (rule S4): British spellings and common short forms."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl

SYNONYMS = {
    "favourite": "favorite",
    "fav": "favorite",
    "fave": "favorite",
    "colour": "color",
    "flavour": "flavor",
    "neighbour": "neighbor",
    "hometown": "home_town",
    "surname": "last_name",
    "firstname": "first_name",
    "birthday": "birth_date",
    "dob": "birth_date",
}


@hookimpl
def agi_register_synonyms(register: Register) -> None:
    register(SYNONYMS, name="builtin")
