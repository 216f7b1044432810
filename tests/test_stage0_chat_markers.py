"""Trailing chat markers ("lol", "haha", ":)", …) are not part of a value (the ``chat_markers`` parse change),
through a real kernel and SQLite file."""

from __future__ import annotations

import pytest

from agi_core.brain.stage0.markers import without_markers
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


@pytest.mark.parametrize(
    ("told", "key", "value", "asked"),
    [
        ("hey, my name is Dan lol", "user/person/self/name", "Dan", "what is my name?"),
        ("my name is Dan LOL!", "user/person/self/name", "Dan", "what is my name lol?"),
        ("I'm Dan haha", "user/person/self/name", "Dan", "what is my name?"),
        ("I live in Lisbon lmao", "user/person/self/home", "Lisbon", "where do I live?"),
        ("my dog is called Rex :)", "user/relation/dog/name", "Rex", "what is my dog called?"),
        ("my favorite color is green, hahaha :D", "user/person/self/favorite_color", "green", None),
        ("I like jazz haha", "user/person/self/likes", ["jazz"], "do I like jazz?"),
    ],
)
def test_a_trailing_chat_marker_is_not_part_of_the_value(tmp_path, told, key, value, asked):
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        kernel.tick(told)
        answered = kernel.tick(asked).final_output if asked else ""
        facts = {fact.key: fact.value for fact in kernel.store.facts("user/")}
    assert facts == {key: value}
    assert all(marker not in answered.lower() for marker in ("lol", "haha", "lmao", ":)"))
    assert replay(db, plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("my dog is called Lol", "my dog is called Lol"),  # a name, capitalised
        ("lol", "lol"),  # nothing else: the line is left as it is
        ("my band is called Haha", "my band is called Haha"),
        ("my name is Dan lol haha :)", "my name is Dan"),
        ("my name is Dan, lol", "my name is Dan"),
        ("I love lollipops", "I love lollipops"),
    ],
)
def test_only_a_trailing_marker_is_taken_off(line, kept):
    assert without_markers(line) == kept
