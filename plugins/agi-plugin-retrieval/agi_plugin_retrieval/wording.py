"""How an answer from memory is said to the user: a sentence that quotes its memories, then the citations.

The heuristic answer (:func:`agi_plugin_retrieval.answering.answer`) is a span of words tuned for
token-F1 ("sister called"), not something to say. The reply quotes the memory it comes from, with who
said it: ``You told me “my sister is called Maya” and “Maya lives in Lyon”. [ltm-…] [ltm-…]``; a
"when" question leads with the date it resolved (``7 May 2023 (on 8 May 2023, Caroline said “I went
to a LGBTQ support group yesterday.”). [D1:3]``). The span stays the module's answer
(its state's ``last.answer``), which ``benchmarks/locomo_answers.py`` scores.
"""

from __future__ import annotations

from typing import Any

from agi_plugin_retrieval.answering import _bare, asked_about, day_text, names_in, said_on, words

QUOTED_MAX = 240  # characters of a quoted sentence; a longer one is cut at a word, with "…"
QUOTES_MAX = 2


def quoted(sentence: str) -> str:
    """``sentence`` in quotes, its square brackets made round: a bracket in the reply is a citation only
    (LoCoMo turns end with ``[shares <photo caption>]``, which read as three more "citations")."""
    text = " ".join(sentence.split()).replace("[", "(").replace("]", ")")
    if len(text) > QUOTED_MAX:
        text = text[:QUOTED_MAX].rsplit(" ", 1)[0] + " …"
    return f"“{text}”"


def who(hit: dict[str, Any], asker: str) -> str:
    """``you told me`` (the asker's own words), ``Caroline said``, or ``my memory holds`` (no speaker)."""
    speaker = hit.get("speaker")
    if not speaker:
        return "my memory holds"
    return "you told me" if speaker == asker else f"{speaker} said"


def _also_quoted(question: str, used: list[tuple[dict[str, Any], str]]) -> list[tuple[dict[str, Any], str]]:
    """The memories quoted: the best; and, when the question asks about names alone ("who is Maya?": every
    memory of Maya answers it), the next that says every name ("my sister is called Maya", then "Maya
    lives in Lyon"), never the same sentence twice. "What did Ann sell?" quotes only its best memory."""
    names = names_in(question)
    shown = used[:1]
    if asked_about(question):
        return shown
    for hit, said in used[1:]:
        if len(shown) >= QUOTES_MAX:
            break
        if names and names <= {_bare(w) for w in words(said)} and all(said != s for _, s in shown):
            shown.append((hit, said))
    return shown


def _ended(text: str) -> str:
    return text if text.endswith(("”.", ".”", "!”", "?”", "…”")) else f"{text}."


def sentence(question: str, answer: str, used: list[tuple[dict[str, Any], str]], asker: str, *, when: bool) -> str:
    """The reply's words (before its citations) for ``answer`` taken from ``used`` (memory, sentence) pairs:
    ``You told me “A” and “B”.``, ``Caroline said “A”; Melanie said “B”.``, ``7 May 2023 (on 8 May 2023,
    Caroline said “…”).``"""
    if not used:
        return answer
    first, first_said = used[0]
    day = said_on(first)
    if when and day is not None:
        on = f"on {day_text(day)}, {who(first, asker)} {quoted(first_said)}"
        return _ended(f"{on[0].upper()}{on[1:]}") if answer == day_text(day) else f"{answer} ({on})."
    parts: list[str] = []
    said_by = None
    for hit, said in _also_quoted(question, used):
        opener = who(hit, asker)
        if opener == said_by:
            parts[-1] += f" and {quoted(said)}"
        else:
            parts.append(f"{opener} {quoted(said)}")
        said_by = opener
    text = "; ".join(parts)
    return _ended(f"{text[0].upper()}{text[1:]}")
