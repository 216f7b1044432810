"""Feedback in a user's line about the previous reply: explicit ("thanks", "that's wrong", "no, I meant …")
and implicit (the same question again, a reply corrected), each with its reward in [-1, 1]. A line like the
one before that says something new ("my weight is 71 kg" after "my weight is 70 kg") is news, not a repeat."""

from __future__ import annotations

import difflib
import re

POSITIVE = re.compile(r"^\s*(thanks|thank you|thx|great|perfect|exactly|that'?s right|correct|good answer)\b", re.I)
NEGATIVE = re.compile(
    r"\b(that'?s wrong|that is wrong|wrong answer|incorrect|not what i asked|that'?s not right)\b", re.I
)
MEANT = re.compile(r"^\s*no\s*[,.!]?\s*i meant\b\s*(.*)$", re.I)
REPEAT_RATIO = 0.85
#: words a line said again may add and still say nothing new ("tell me a joke, please")
FILLER = frozenset("please again so ok okay now just well hey um uh come on i said asked".split())
REWARDS = {"thanks": 1.0, "wrong": -1.0, "meant": -1.0, "repeated": -0.5}


def normalized(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))[:500]


def read(line: str, previous_line: str | None) -> tuple[str, str] | None:
    """``(kind, detail)``: ``thanks``, ``wrong``, ``meant`` (detail: what was meant) or ``repeated``; None."""
    line = line[:2000]
    if (meant := MEANT.match(line)) is not None:
        return "meant", meant.group(1).strip()[:200]
    if NEGATIVE.search(line):
        return "wrong", ""
    if POSITIVE.match(line):
        return "thanks", ""
    if previous_line is not None:
        now, before = normalized(line), normalized(previous_line)
        says_more = set(now.split()) - set(before.split()) - FILLER  # "my weight is 71 kg" after "… 70 kg": news
        if now and not says_more and difflib.SequenceMatcher(None, now, before).ratio() >= REPEAT_RATIO:
            return "repeated", ""
    return None
