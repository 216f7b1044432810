"""What a query says besides its words: which speakers it names, which dates, and the
content words that go to BM25.

Speaker names are taken out of the BM25 query: "What did Caroline research?" should not
favour the turns where Melanie says "Caroline"; the name becomes a speaker match instead.
Question words and other stop words are taken out too (BM25's IDF alone leaves "did" and
"what" enough weight to pull in noise).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import attrs

from agi_core.longterm.dates import DateWindow, query_window

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

STOP_WORDS = frozenset(
    """a an the of to in on at for with and or but is are was were be been being am do does did done doing
    have has had having what when where who whom whose which why how that this these those it its i you he
    she they we my your his her their our me him them us as by from about into than then so if not no any
    some can could would should will shall may might must there here also just up out over after before
    more most other such only own same too very s t d ll m o re ve y kind kinds type types much many ever
    get got go went going like likely time times one ones thing things something""".split()
)
# Months and years are matched through the date window, not as words.
_DATE_WORDS = re.compile(
    r"^(?:(?:19|20)\d\d|january|february|march|april|june|july|august|september|october|november|december)$"
)


@attrs.frozen
class QueryInfo:
    """The parts of a query the ranker uses."""

    text: str
    words: tuple[str, ...]
    speakers: tuple[str, ...]
    window: DateWindow | None

    def fts_expression(self) -> str | None:
        """An FTS5 MATCH expression OR-ing the content words, or None if there are none."""
        if not self.words:
            return None
        return " OR ".join(f'"{word}"' for word in self.words)


def speaker_aliases(speakers: Iterable[str]) -> dict[str, str]:
    """Lower-case name → speaker: the full name and each word of it that is 3+ letters."""
    aliases: dict[str, str] = {}
    for speaker in speakers:
        if not speaker:
            continue
        aliases.setdefault(speaker.lower(), speaker)
        for part in TOKEN.findall(speaker.lower()):
            if len(part) >= 3:
                aliases.setdefault(part, speaker)
    return aliases


def analyze(query: str, speakers: Iterable[str] = ()) -> QueryInfo:
    """Split ``query`` into content words, named speakers and a date window.

    A capitalised word that starts a known speaker's name ("Mel" for "Melanie") also
    names that speaker.
    """
    aliases = speaker_aliases(speakers)
    named: list[str] = []
    words: list[str] = []
    for raw in TOKEN.findall(query):
        low = raw.lower()
        speaker = aliases.get(low)
        if speaker is None and raw[:1].isupper() and len(low) >= 3:
            speaker = next((s for a, s in aliases.items() if a.startswith(low)), None)
        if speaker is not None:
            if speaker not in named:
                named.append(speaker)
            continue
        if low in STOP_WORDS or _DATE_WORDS.match(low) or low in words:
            continue
        words.append(low)
    return QueryInfo(query, tuple(words), tuple(named), query_window(query))


def plain_words(query: str) -> list[str]:
    """Every word of ``query``, lower-case, once: the textbook BM25 baseline's terms."""
    return list(dict.fromkeys(word.lower() for word in TOKEN.findall(query)))


def plain_expression(query: str) -> str | None:
    """Every word of ``query`` OR-ed: the textbook BM25 baseline."""
    return " OR ".join(f'"{word}"' for word in plain_words(query)) or None
