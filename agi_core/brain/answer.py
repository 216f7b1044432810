"""Short answers from recalled memories: what a very small model (SmolLM2-135M) can do.

Measured: asked "what is my dog called?" with the facts in its prompt, SmolLM2-135M
answers "Rex is a name that has been passed down through generations in Lyon" — it
cannot be trusted to pick or to keep a fact. So the fact is picked here, deterministically,
and the model only rephrases it:

1. :func:`pick_fact`: among the recalled memories, the one the user stated (not a
   question, not a command such as "forget your name", not an agent reply) that shares
   the most content words with the question (ties: the better search rank), says
   something the question does not, and names every entity the question names ("the
   capital of Germany" is not answered by the capital of France).
2. :func:`prompt`: the fact (in the second person) and the question, one short sentence
   asked for; without a fact, the question alone.
3. :func:`grounded`: the model's reply is kept only if every content word in it comes
   from the fact or the question; otherwise the reply is the fact itself
   (:func:`extractive_reply`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from agi_core.longterm.query import STOP_WORDS, TOKEN

#: Words a phrasing may add without adding content.
FILLER = frozenset("yes yeah sure answer called named name said says say tell told yours yourself".split())
#: First person → second person, for a fact the user stated about themself.
_PERSON = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "am": "are",
    "i'm": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
}
_WORD_OR_APOSTROPHE = re.compile(r"[\w']+|[^\w']+", re.UNICODE)
_QUESTION_START = re.compile(
    r"\s*(what|when|where|who|whom|whose|which|why|how|is|are|am|was|were|do|does|did|can|could"
    r"|will|would|should|have|has|had|tell me|remind me)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"not|no|never|nothing|nobody|none|cannot|\w+n't")
_THE_USERS = re.compile(r"\b[Tt]he user's")
#: A user line starting with one of these is a command to the agent, not a fact about the world.
COMMANDS = frozenset(
    "forget delete remove erase drop clear cancel stop ignore tell show list give say repeat set change"
    " update rename please help explain summarize".split()
)
_TIME_QUESTION = re.compile(
    r"\b(what(?:'s| is)? the time|what time is it|what time|what(?:'s| is)? the date|what(?:'s| is)? today'?s? date"
    r"|what day is (?:it|today)|which day is (?:it|today)|what(?:'s| is)? the day today)\b",
    re.IGNORECASE,
)
SYSTEM = "Reply in one short sentence."


@attrs.frozen
class Fact:
    """A recalled memory chosen to answer with: its text as the user would read it, and why."""

    text: str
    source: str
    overlap: tuple[str, ...]


def content_words(text: str) -> set[str]:
    """Lower-case words of ``text`` that are not stop words, with a plural ``s`` dropped."""
    words = set()
    for raw in TOKEN.findall(text.lower()):
        if raw in STOP_WORDS or raw in _PERSON:
            continue
        words.add(raw[:-1] if len(raw) > 3 and raw.endswith("s") and not raw.endswith("ss") else raw)
    return words


def is_question(text: str) -> bool:
    """Ends with a question mark, or starts with a question word or an auxiliary verb."""
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text))


def asks_time(text: str) -> bool:
    """ "what time is it?", "what's the date?", "what day is it today?" …"""
    return bool(_TIME_QUESTION.search(text))


def is_command(text: str) -> bool:
    """The line starts with a command word ("forget your name", "tell me a joke")."""
    words = TOKEN.findall(text.lower())
    return bool(words) and words[0] in COMMANDS


def named_entities(question: str) -> set[str]:
    """What the question names: capitalized words past its first one (not "I"), and the ENTITY
    of "the ATTR of ENTITY" (lower-cased); a fact that answers it must name them too."""
    from agi_core.brain.stage0.phrases import world_read

    words = TOKEN.findall(question)
    names = {word.lower() for word in words[1:] if word[:1].isupper() and word != "I"}
    if (parts := world_read(question)) is not None:
        names |= {word.lower() for word in TOKEN.findall(parts[1]) if word.lower() not in STOP_WORDS}
    return names


def second_person(text: str) -> str:
    """``my dog is called Rex`` → ``your dog is called Rex``; ``the user's name`` → ``your name``."""
    text = _THE_USERS.sub(lambda m: "Your" if m.group(0)[0] == "T" else "your", text)
    parts: list[str] = []
    start = True  # at the start of a sentence
    for part in _WORD_OR_APOSTROPHE.findall(text):
        swap = _PERSON.get(part.lower())
        if swap is None:
            parts.append(part)
        else:
            # "I" is upper case anywhere; its swap only where a sentence starts.
            upper = part[:1].isupper() and (start or part[:1] != "I")
            parts.append(swap.capitalize() if upper else swap)
        if part.strip():
            start = part.rstrip()[-1] in ".!?"
    return "".join(parts)


def as_sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in '.!?"”' else text + "."


def candidates(hits: Iterable[Mapping[str, Any]], facts: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``(text as the user would read it, source)`` of memories that state something, best first.

    ``hits`` are long-term search hits (``Hit.to_dict()``), ``facts`` semantic entries.
    """
    out: list[tuple[str, str]] = []
    for hit in hits:
        text, speaker = str(hit.get("text", "")), hit.get("speaker")
        if hit.get("kind") == "action" or speaker == "agent" or not text.strip() or is_question(text):
            continue
        if is_command(text):
            continue
        if speaker in (None, "user"):
            out.append((second_person(text), f"memory:{hit.get('id')}"))
        else:
            out.append((f"{speaker} said: “{text.strip()}”", f"memory:{hit.get('id')}"))
    for fact in facts:
        if fact.get("fact"):
            out.append((second_person(str(fact["fact"])), f"fact:{fact.get('key')}"))
    return out


def pick_fact(question: str, found: Sequence[tuple[str, str]]) -> Fact | None:
    """The candidate sharing the most content words with ``question`` and adding at least one."""
    asked = content_words(question)
    names = named_entities(question)
    best: tuple[int, int, Fact] | None = None
    for rank, (text, source) in enumerate(found):
        words = content_words(text)
        shared = asked & words
        if not shared or not words - asked:
            continue
        if not names <= {word.lower() for word in TOKEN.findall(text)}:
            continue
        key = (len(shared), -rank)
        if best is None or key > best[:2]:
            best = (*key, Fact(text, source, tuple(sorted(shared))))
    return best[2] if best else None


def prompt(question: str, fact: Fact | None, time: str = "") -> list[dict[str, str]]:
    """The chat messages: a one-line instruction, the time (``llm_context.time_sentence``), the fact
    if any, the question."""
    system = f"{SYSTEM} {time}".rstrip()
    if fact is None:
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]
    return [
        {"role": "system", "content": f"{system} Use only this fact: {as_sentence(fact.text)}"},
        {"role": "user", "content": question},
    ]


def grounded(reply: str, fact: Fact, question: str) -> bool:
    """True if ``reply`` keeps what the fact adds, brings no content word of its own, and
    negates nothing the fact does not."""
    said = content_words(reply)
    allowed = content_words(fact.text) | content_words(question) | FILLER
    adds = content_words(fact.text) - content_words(question)
    return bool(said & adds) and said <= allowed and _negations(reply) <= _negations(fact.text)


def _negations(text: str) -> set[str]:
    return {word for word in _WORD_OR_APOSTROPHE.findall(text.lower()) if _NEGATION.fullmatch(word)}


def extractive_reply(fact: Fact) -> str:
    return as_sentence(fact.text)


def first_sentences(text: str, limit: int = 2) -> str:
    """The model's reply cut to its first line and at most ``limit`` complete sentences."""
    line = text.strip().split("\n", 1)[0].strip()
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", line)]
    if len(ends) >= limit:
        return line[: ends[limit - 1]]
    if ends and ends[-1] < len(line):  # cut off mid-sentence (max_tokens): keep the complete part
        return line[: ends[-1]]
    return line
