"""The linear phrase parsers give what the former regular expressions gave (issue 9, input is linear).

The former patterns are kept here only as the reference: on short texts they are fast,
and Hypothesis builds texts from the words and characters the patterns care about.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agi_core.brain.stage0 import phrases

_END = r"\s*[.!?]*\s*$"
OLD_PROFILE_WRITE = re.compile(
    r"^(?:please )?(?:remember(?: that)? )?my (?P<attr>[\w' -]+?) (?:is|are) (?P<value>.+?)" + _END, re.I
)
OLD_PROFILE_READ = re.compile(r"^(?:what|who|where|when)(?: is|'s|’s| are) my (?P<attr>[\w' -]+?)" + _END, re.I)
OLD_WORLD_WRITE = re.compile(
    r"^(?:the )?(?P<attr>[\w' -]+?) of (?P<entity>[\w' .-]+?) (?:is|are|was) (?P<value>.+?)" + _END, re.I
)
OLD_WORLD_READ = re.compile(
    r"^(?:what|who|where|when)(?: is|'s|’s| are| was) (?:the )?(?P<attr>[\w' -]+?) of "
    r"(?P<entity>[\w' .-]+?)" + _END,
    re.I,
)

PIECES = [
    "my ", "My ", "MY ", "is ", " is ", " IS ", "are ", " are ", "was ", " was ", " of ", "of ", "the ", "The ",
    "what", "What", "who", "where", "when", "'s ", "’s ", "please ", "remember ", "that ", "x", "y", "é", "_", "7",
    " ", "  ", ".", "!", "?", "'", "-", ",", "/", "\n", "\t", "favorite color", "Paris", "St. Kitts",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


def _groups(match: re.Match[str] | None) -> tuple[str, ...] | None:
    return None if match is None else tuple(match.groups())


@settings(max_examples=3000, deadline=None)
@given(texts)
def test_parsers_agree_with_the_former_patterns(text):
    assert phrases.profile_read(text) == (None if (m := OLD_PROFILE_READ.match(text)) is None else m["attr"])
    assert phrases.profile_write(text) == _groups(OLD_PROFILE_WRITE.match(text))
    assert phrases.world_read(text) == _groups(OLD_WORLD_READ.match(text))
    assert phrases.world_write(text) == _groups(OLD_WORLD_WRITE.match(text))


def test_parsers_on_the_rulebook_examples():
    assert phrases.profile_write("Please remember that my favourite colour is green!!") == ("favourite colour", "green")
    assert phrases.profile_read("what's my favorite color?") == "favorite color"
    assert phrases.world_read("What is the capital of St. Kitts?") == ("capital", "St. Kitts")
    assert phrases.world_write("the capital of France is Paris.") == ("capital", "France", "Paris")
    assert phrases.world_write("the population of the city of Rome is 2.8 million.") == (
        "population",
        "the city of Rome",
        "2.8 million",
    )
    assert phrases.profile_write("my e/mail is a@b") is None
