"""The heuristic path: which memories count as evidence, the answer span, dates, citation labels."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import Stemmer

from agi_core.brain.stage0.facts import PEOPLE

#: a hit counts as evidence when its cosine similarity to the question reaches this (BM25 is
#: relative to the best candidate, so the top hit always has 1.0: it cannot be a threshold)
MIN_DENSE = 0.3
MAX_CITATIONS = 3

STOPWORDS = frozenset(
    """a an the and or but if of to in on at for with by from about as into over after before is are was were be
    been being am do does did done have has had having i you he she it we they me him her them my your his its our
    their this that these those what which who whom whose when where why how there here not no so than too very can
    could will would shall should may might must just also then only some any all more most such own same other
    s t don now ever yet up down out off again once like get got go going went really oh yeah well um hey wow
    what's that's it's i'm you're i've""".split()
)
#: words a question frames what it asks with ("my favorite food", "the names of…"): they do not name it
FRAMING = frozenset("favorite favourite name names main new old one thing things something kind type sort".split())
_STEM = Stemmer.Stemmer("english")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
#: a number as written, kept whole in an answer (-3, 72.5, 1,250.75, 10:30, 2023-06-13), else a word
_TOKEN = re.compile(r"(?:(?<![\w.,-])[-+])?\d+(?:[.,:/-]\d+)*%?|[A-Za-z0-9][A-Za-z0-9'’-]*")
#: words that say whose thing a question asks about ("my brother", "her job")
POSSESSIVES = frozenset("my your his her their our".split())
#: words that make a question about its asker ("what is my favorite color?", "where did I park?")
FIRST_PERSON = frozenset("my me i mine myself".split())
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WHEN = re.compile(r"^\s*(when|what (year|month|date|day|time)|how long ago)\b", re.IGNORECASE)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "few": 3, "couple of": 2}
_AGO = re.compile(r"\b(\d+|a|one|two|three|four|five|six|a few|a couple of)\s+(day|week|month|year)s?\s+ago\b", re.I)


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def keywords(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS}


def is_question(text: str) -> bool:
    return text.rstrip().endswith("?")


def _bare(word: str) -> str:
    return word.removesuffix("'s").strip("'")


def names_in(question: str) -> set[str]:
    """The names ``question`` says: its capitalised words after the first ("What is Maya's job?" → ``{"maya"}``)."""
    said = [w.lower().replace("’", "'") for w in _WORD.findall(question)[1:] if w[0].isupper()]
    return {_bare(w) for w in said} - STOPWORDS


def owned_in(question: str) -> set[str]:
    """Whose thing ``question`` asks about, by relation: the word after a possessive that is no framing
    word ("where does my brother live?" → ``{"brother"}``, "what is my favorite food?" → ``{"food"}``)."""
    said = [_bare(w) for w in words(question)]
    owned = set()
    for at, word in enumerate(said[:-1]):
        if word in POSSESSIVES:
            following = next((w for w in said[at + 1 :] if w not in FRAMING and w not in STOPWORDS), None)
            if following is not None:
                owned.add(following)
    return owned


def relation_owners(question: str) -> dict[str, set[str]]:
    """Whose relations ``question`` asks about by name: each owner (the word before "'s") with the nouns of someone's
    (:data:`~agi_core.brain.stage0.facts.PEOPLE`) it is said of: "where does Alice's sister live?" →
    ``{"alice": {"sister"}}``; "What is Maya's job?" and "what is France's capital?" name no relation."""
    said = words(question)
    owners: dict[str, set[str]] = {}
    for at, word in enumerate(said[:-1]):
        owner, noun = word.removesuffix("'s"), _bare(said[at + 1])
        if owner != word and owner not in STOPWORDS and noun in PEOPLE:
            owners.setdefault(owner, set()).add(noun)
    return owners


def of_another(hit: dict[str, Any], owners: dict[str, set[str]]) -> bool:
    """Whether memory ``hit`` speaks of its own speaker's relation that the question asks of someone else: it says
    "my sister" (or "our …") for a noun asked, and neither its speaker nor its words are an owner asked: bob's "my
    sister lives in Paris" is bob's sister, not Alice's; his "Alice's sister lives in Nice", or what alice says of
    "my sister", may be hers; "how did they handle it?" names no one's and stays."""
    said = [_bare(word) for word in words(hit["text"])]
    nouns = set().union(*owners.values())
    own = any(word in ("my", "our") and said[at + 1] in nouns for at, word in enumerate(said[:-1]))
    speaker = set(words(str(hit.get("speaker") or "")))
    return own and not set(owners) & (speaker | set(said))


def asked_about(question: str) -> set[str]:
    """The stems of what ``question`` asks about: its keywords, less the names it says and the words
    that only frame it ("What is Maya's job?" → ``{"job"}``)."""
    kept = {_bare(w) for w in keywords(question)} - names_in(question) - FRAMING
    return set(_STEM.stemWords(sorted(kept)))


#: a memory this close to the question may answer it in other words ("what did she paint?" — "a sunset, in oils")
CLOSE_DENSE = 0.4  # chosen on LoCoMo (benchmarks/locomo_answers.py): 0.4 / 0.5 / 0.6 cite 62.6 / 62.0 / 60.8 %


def holds_what_is_asked(question: str, hit: dict[str, Any]) -> bool:
    """A memory that may answer ``question``: it holds a word of what is asked, or says it in other words
    (its dense similarity reaches :data:`CLOSE_DENSE`)."""
    close = (hit.get("breakdown") or {}).get("dense", 0.0) >= CLOSE_DENSE
    return close or shares_what_is_asked(question, hit["text"])


def shares_what_is_asked(question: str, sentence: str) -> bool:
    """Whether ``sentence`` holds a word (stem) of what ``question`` asks about: the least a memory must
    have to answer it ("my favorite food is sushi" does not answer "what did I eat yesterday?"; "?" or
    "!!!" asks about nothing)."""
    return bool(asked_about(question) & set(_STEM.stemWords([_bare(w) for w in words(sentence)])))


def names_what_is_asked(question: str, sentence: str, *, text: str = "", said_by: str = "") -> bool:
    """Whether ``sentence`` (of a memory holding ``text``, said by ``said_by``) is a statement that names
    what ``question`` asks about, and every name the question says is in the memory or its speaker: the
    bar for a memory to answer a question the agent's facts could not. "my favourite colour is green" does
    not answer "what is my favorite food?", "My sister Maya lives in Lyon" does not answer "What is Maya's
    job?", "the capital of France is Paris" does not answer "what is the capital of Peru?"."""
    if is_question(sentence):
        return False
    stems = set(_STEM.stemWords([_bare(w) for w in words(sentence)]))
    known = {_bare(w) for w in words(f"{text or sentence} {said_by}")}
    owned = owned_in(question)
    # what is asked about whom: "where does my brother live?" needs "brother" said, and "live" beside it
    about = asked_about(question) - set(_STEM.stemWords(sorted(owned)))
    return bool((about or asked_about(question)) & stems) and (names_in(question) | owned) <= known


def is_evidence(hit: dict[str, Any]) -> bool:
    """A memory that may answer: close enough to the question, not the agent's own reply, and not a
    question asked in an earlier tick (a mirrored episode, with no metadata, that holds no answer)."""
    breakdown = hit.get("breakdown") or {}
    close = breakdown.get("dense", 0.0) >= MIN_DENSE
    asked = is_question(hit["text"]) and not hit.get("metadata")
    return close and not asked and hit.get("speaker") != "agent"


def label(hit: dict[str, Any]) -> str:
    """How a memory is cited: its ``dia_id`` (LoCoMo ``D8:6``) when it has one, else its memory id."""
    dia = (hit.get("metadata") or {}).get("dia_id")
    return str(dia) if dia else str(hit["id"])


def best_sentence(question: str, text: str) -> str:
    """The sentence of ``text`` sharing the most keywords with ``question`` (the first on ties)."""
    wanted = keywords(question)
    sentences = [s for s in _SENTENCE.split(text.strip()) if s.strip()] or [text]
    return max(sentences, key=lambda s: (len(wanted & keywords(s)), -sentences.index(s))).strip()


def span(question: str, sentence: str, max_words: int = 12) -> str:
    """The words of ``sentence`` the question did not already say, each once: the answer, without its frame."""
    asked = set(words(question))
    kept: dict[str, str] = {}  # lower case -> the word as said, first said first
    for word in _TOKEN.findall(sentence):  # a number stays whole: 72.5, not "72 5"
        low = word.lower()
        if low not in asked and low not in STOPWORDS:
            kept.setdefault(low, word)
    return " ".join(list(kept.values())[:max_words]) or sentence


def day_text(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def resolve_date(text: str, said_on: date) -> str:
    """The date ``text`` refers to, resolved against the day it was said ("last week" on 13 June 2023 →
    "the week of 6 June 2023"); the day itself when it names none."""
    low = text.lower()
    if "yesterday" in low:
        return day_text(said_on - timedelta(days=1))
    if "last weekend" in low:
        return f"the weekend before {day_text(said_on)}"
    if "last week" in low:
        return f"the week of {day_text(said_on - timedelta(days=7))}"
    if "last month" in low:
        first = said_on.replace(day=1) - timedelta(days=1)
        return f"{first:%B %Y}"
    if "last year" in low:
        return str(said_on.year - 1)
    if "next month" in low:
        nxt = (said_on.replace(day=28) + timedelta(days=4)).replace(day=1)
        return f"{nxt:%B %Y}"
    for n, name in enumerate(_WEEKDAYS):
        if f"last {name}" in low or f"on {name}" in low:
            back = (said_on.weekday() - n) % 7 or 7
            return day_text(said_on - timedelta(days=back))
    if (ago := _AGO.search(low)) is not None:
        count = int(ago.group(1)) if ago.group(1).isdigit() else _NUMBERS.get(ago.group(1).replace("a ", "", 1), 1)
        unit = ago.group(2)
        if unit == "year":
            return str(said_on.year - count)
        days = {"day": 1, "week": 7, "month": 30}[unit] * count
        return day_text(said_on - timedelta(days=days))
    return day_text(said_on)


def said_on(hit: dict[str, Any]) -> date | None:
    stamp = hit.get("timestamp")
    try:
        return date.fromisoformat(str(stamp)[:10]) if stamp else None
    except ValueError:
        return None


def is_when(question: str) -> bool:
    """Whether ``question`` asks for a date ("when…?", "what year…?", "how long ago…?")."""
    return _WHEN.search(question) is not None


def answer(question: str, hit: dict[str, Any]) -> tuple[str, str]:
    """``(answer, sentence)``: the answer to ``question`` taken from ``hit``, and the sentence it comes from
    (a substring of the memory: what a claim says the memory holds)."""
    sentence = best_sentence(question, hit["text"])
    day = said_on(hit)
    if _WHEN.search(question) and day is not None:
        return resolve_date(sentence, day), sentence
    return span(question, sentence), sentence


def cited(text: str, labels: list[str]) -> str:
    return " ".join([text, *(f"[{name}]" for name in labels)])


def observation_text(observation: dict[str, Any]) -> str:
    """How one observation of a percept is said ('' when it names nothing to say)."""
    kind = observation.get("object")
    if kind == "file" and isinstance(observation.get("name"), str):
        size = observation.get("bytes")
        return f"the file {observation['name'][:200]}" + (f" ({size} bytes)" if type(size) is int else "")
    topics = [t for t in observation.get("topics") or [] if isinstance(t, str)]
    if kind == "text" and topics:
        return "something about " + ", ".join(topics[:5])
    return str(observation.get("description") or observation.get("label") or "")[:200] if kind else ""
