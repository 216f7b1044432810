"""What one message says about its writer: register, rudeness, politeness, name, topics, markers.

Pure functions of the text (no state, no clock): the heuristic path of the social module and
the fallback of ``social_adaptive_lexicon``.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

FORMAL = (
    "please",
    "kindly",
    "would you",
    "could you",
    "thank you",
    "good morning",
    "good afternoon",
    "good evening",
    "dear",
    "regards",
    "sincerely",
    "may i",
    "i would like",
    "appreciate",
    "pardon",
)
INFORMAL = (
    "hey",
    "yo",
    "lol",
    "gonna",
    "wanna",
    "u",
    "ur",
    "pls",
    "plz",
    "thx",
    "dude",
    "yeah",
    "yep",
    "nope",
    "haha",
    "cool",
    "ok",
    "okay",
    "sup",
    "btw",
    "gotta",
    "kinda",
    "hi",
)
RUDE = (
    "idiot",
    "stupid",
    "dumb",
    "useless",
    "shut up",
    "wtf",
    "damn",
    "hate you",
    "sucks",
    "suck",
    "moron",
    "garbage",
    "trash",
    "worthless",
    "pathetic",
    "crap",
    "screw you",
)
GRATEFUL = ("thanks", "thank you", "thx", "great", "perfect", "awesome", "nice", "merci", "cheers", "helpful")
STOPWORDS = frozenset(
    "about after again also because been before being could does doing from have having here into just like "
    "more most much only other over same should some such than that their them then there these they this "
    "those through very what when where which while will with would your yours you tell know want need "
    "please kindly thank thanks favorite favourite called name".split()
)
_WORD = re.compile(r"[a-z][a-z']*")
_NAME = re.compile(r"\b(?i:my name is|call me)\s+([A-Z][a-zA-Z-]{1,30})\b")
#: "Hi, I'm Bob." introduces a name after a greeting; "I am French" alone says no name
_INTRO = re.compile(
    r"\b(?i:hi|hello|hey|greetings|good (?:morning|afternoon|evening))\b[,!.]?\s+"
    r"(?i:i am|i'm)\s+([A-Z][a-zA-Z-]{1,30})\b"
)
#: someone else's words: "Eve said my name is Mallory" names no one (hearsay before it in the sentence)
_HEARSAY = re.compile(r"\b(?:said|says|told|tells|thinks?|claims?|believes?|according to|heard)\b[^.!?]*$", re.I)
MARKER_KINDS = ("formal", "informal", "rude", "grateful")
LEXICON_SIZE = 20  # the heaviest markers a profile keeps


@attrs.frozen
class Signals:
    """What the message shows: ``register_score`` in [-1, 1] (informal to formal), rudeness, gratitude."""

    register_score: float
    rude: bool
    grateful: bool
    question: bool
    name: str | None
    topics: tuple[str, ...]
    markers: tuple[tuple[str, str], ...]  # (token, kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "register_score": self.register_score,
            "rude": self.rude,
            "grateful": self.grateful,
            "question": self.question,
            "name": self.name,
            "topics": list(self.topics),
            "markers": [[token, kind] for token, kind in self.markers],
        }


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _has(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words (each phrase's pattern compiled once)."""
    pattern = _PATTERNS.get(phrase)
    if pattern is None:
        pattern = _PATTERNS[phrase] = re.compile(rf"(?<![a-z']){re.escape(phrase)}(?![a-z'])")
    return pattern.search(text) is not None


_MARKER_TABLE = tuple(
    (kind, phrase, phrase.split(" ", 1)[0])
    for kind, phrases in (("formal", FORMAL), ("informal", INFORMAL), ("rude", RUDE), ("grateful", GRATEFUL))
    for phrase in phrases
)
_RUN = re.compile(r"[a-z']+")


def found_markers(text: str) -> list[tuple[str, str]]:
    """Every built-in marker in ``text`` (lower-cased), as ``(token, kind)``, in a fixed order.

    A marker's words are runs of ``[a-z']`` joined by spaces, so a whole-word occurrence starts with
    a run of the text: the text's runs are collected once and only a phrase whose first word is one
    of them is searched for (a one-word phrase needs no search)."""
    low = text.lower()
    runs = set(_RUN.findall(low))
    return [
        (phrase, kind)
        for kind, phrase, first in _MARKER_TABLE
        if first in runs and (first == phrase or _has(low, phrase))
    ]


ACRONYM_MAX = 4  # letters: an all-capital word this short is taken for a name (NASA, FYI, ASAP), not a raised voice


def shouting(text: str) -> bool:
    """A raised voice: most letters capitals, over three or more capitalized words, one longer than an
    acronym or five of them ("WHY ARE YOU SO SLOW"). "NASA ESA JAXA CNES" names agencies; emphasis
    punctuation ("!!!", "?!") alone is no rudeness."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 8 or sum(c.isupper() for c in letters) < 0.7 * len(letters):
        return False
    capital = [
        w for w in ("".join(c for c in token if c.isalpha()) for token in text.split()) if len(w) >= 2 and w.isupper()
    ]
    return len(capital) >= 5 or (len(capital) >= 3 and any(len(word) > ACRONYM_MAX for word in capital))


def register_score(text: str, markers: list[tuple[str, str]], learned: dict[str, str] | None = None) -> float:
    """From -1 (informal) to 1 (formal): the markers, then the shape (capitalized, punctuated, no contraction)."""
    stripped = text.strip()
    score = sum(1.0 for _t, kind in markers if kind == "formal") - sum(
        1.0 for _t, kind in markers if kind == "informal"
    )
    for token, kind in (learned or {}).items():  # tokens the lexicon learned (the LLM path adds some)
        if kind in ("formal", "informal") and _has(stripped.lower(), token) and (token, kind) not in markers:
            score += 0.5 if kind == "formal" else -0.5
    if stripped[:1].isupper() and stripped[-1:] in ".?!":
        score += 0.5
    elif stripped[:1].islower():
        score -= 0.5
    if re.search(r"[a-z]'[a-z]", stripped.lower()) and not markers:
        score -= 0.25
    return max(-1.0, min(1.0, score / 2))


def topics_of(text: str, limit: int = 3) -> tuple[str, ...]:
    """Up to ``limit`` content words (4 letters or more, not stopwords), in order of appearance."""
    seen: list[str] = []
    for word in _WORD.findall(text.lower()):
        word = word.strip("'")
        if len(word) >= 4 and word not in STOPWORDS and word not in seen and word not in RUDE:
            seen.append(word)
    return tuple(seen[:limit])


HEARSAY_WINDOW = 200  # characters before a name looked at for "X said …": bounded, so a long line stays linear


def _hearsay_before(text: str, at: int) -> bool:
    return _HEARSAY.search(text, max(0, at - HEARSAY_WINDOW), at) is not None


def read(text: str, learned: dict[str, str] | None = None) -> Signals:
    """The signals of one message; ``learned`` maps lexicon tokens to their kind."""
    markers = found_markers(text)
    low = text.lower()
    learned_rude = any(kind == "rude" and _has(low, token) for token, kind in (learned or {}).items())
    rude = any(kind == "rude" for _t, kind in markers) or shouting(text) or learned_rude
    name = next(
        (m for pattern in (_NAME, _INTRO) for m in pattern.finditer(text) if not _hearsay_before(text, m.start())),
        None,
    )
    return Signals(
        register_score=round(register_score(text, markers, learned), 4),
        rude=rude,
        grateful=any(kind == "grateful" for _t, kind in markers) and not rude,
        question=text.rstrip().endswith("?"),
        name=name.group(1) if name else None,
        topics=topics_of(text),
        markers=tuple(markers),
    )
