"""The social module's marker search against the plain whole-word search it stands for."""

from __future__ import annotations

import re

import pytest
from agi_plugin_social.signals import FORMAL, GRATEFUL, INFORMAL, RUDE, found_markers

TABLE = (("formal", FORMAL), ("informal", INFORMAL), ("rude", RUDE), ("grateful", GRATEFUL))


def whole_word_markers(text: str) -> list[tuple[str, str]]:
    """Every marker as a whole-word occurrence (no letter or apostrophe either side), searched one by one."""
    low = text.lower()
    return [
        (phrase, kind)
        for kind, phrases in TABLE
        for phrase in phrases
        if re.search(rf"(?<![a-z']){re.escape(phrase)}(?![a-z'])", low)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Good morning, could you kindly tell me the time? Thank you.",
        "hey dude, u gonna help or what lol",
        "THIS IS USELESS, shut up you idiot!!!",
        "thanks, that's awesome and helpful",
        "thank  you (two spaces), thankyou, thank-you, you'd, ok.ok, okay?",
        "Dear sir, I would like a pardon; may I? Sincerely, regards",
        "yours truly: dumbbell, suckers, stupidly, hi-fi, hiya, sup?",
        "I'm cool with it, yeah yep nope haha kinda gotta btw",
        "",
        "u",
        "screw you and hate you and crap",
        "merci cheers nice perfect great",
    ],
)
def test_found_markers_are_exactly_the_whole_word_occurrences(text):
    assert found_markers(text) == whole_word_markers(text)
