"""The reply's form, never its facts: the heuristic rewrite of each tactic and the guard every rewrite passes.

A heuristic rewrite keeps the reply verbatim, except a leading "Got it:" that a formal register
turns into "Understood:", and adds a short opening or a closing question. :func:`keeps_facts` is
the guard: a rewrite (the model's too) that drops or changes a number, a word that carries
content or a rulebook reply (F1-F5) is refused.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F3_NOTED_NOT_STORED, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE

RULEBOOK_REPLIES = (F1_SEM_MISS, F3_NO_AGENT, F4_AGENT_FAILURE, F5_SEM_WRITE_FAILURE, F3_NOTED_NOT_STORED)
#: words that carry form, not facts: a rewrite may add or drop them
FORM_WORDS = frozenset(
    "got it noted ok okay sure certainly understood hi hello hey well yes thanks thank fair enough hmm "
    "right alright of course please".split()
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"\w+")
_ACK = re.compile(r"(?:^|(?<=[.!?] ))(Got it|Noted):\s+")  # a sentence that acknowledges a statement
#: a sentence that ends in "?" (closing quotes or brackets after it); a quoted question inside a sentence
#: ('That answers your question "what is my dog called?".') is not one
_QUESTION = re.compile(r"\?[\"'”’)\]]*(?=\s|$)")


def numbers(text: str) -> Counter[str]:
    return Counter(_NUMBER.findall(text))


def words(text: str) -> set[str]:
    """Every word of ``text``, lowered (form words included)."""
    return {m.lower() for m in _WORD.findall(text)}


def content_words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in FORM_WORDS and not w.isdigit()}


def keeps_facts(original: str, rewritten: str) -> bool:
    """Whether ``rewritten`` keeps every fact of ``original``: its numbers (no more, no fewer), its
    content words, and any rulebook reply (F1-F5) verbatim."""
    if not isinstance(rewritten, str) or not rewritten.strip():
        return isinstance(rewritten, str) and not original.strip()  # blank for blank: no fact to lose
    if numbers(original) != numbers(rewritten):
        return False
    if any(reply in original and reply not in rewritten for reply in RULEBOOK_REPLIES):
        return False
    return content_words(original) <= content_words(rewritten)


def questions(text: str) -> int:
    """How many questions ``text`` asks: sentences that end in "?" outside its rulebook replies."""
    for reply in RULEBOOK_REPLIES:
        text = text.replace(reply, " ")
    return len(_QUESTION.findall(text))


def asks(text: str) -> bool:
    """Whether ``text`` asks a question already, anywhere (another module's question after the rule's reply)."""
    return questions(text) > 0


#: a quotation in a reply (“…” or "…"): an earlier reply quoted ("I said “I currently don't have …”") is no
#: rulebook reply of this one
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")
#: the words that open a line telling something of its writer ("I like hiking", "my dog is old")
TELLING = frozenset("i i'm im i've ive i'd my we we're were we've our".split())


def tells(text: str) -> bool:
    """Whether ``text`` tells something of its writer ("I like hiking"): it opens with "I", "my", "we"…
    and asks nothing. A rule that cannot answer it has nothing to clarify: the meaning is plain."""
    first = text.strip().split(" ", 1)[0].lower().replace("’", "'").strip(",.!")
    return first in TELLING and not text.rstrip().endswith("?")


def reply_kind(reply: str, *, quotes_skipped: bool = True) -> str:
    """``unknown`` (no rule: F3, or Stage-0's statement noted as an episode only), ``missing`` (F1), ``failure``
    (F4, F5), ``noted`` (a write), else ``answer``;
    a rulebook reply inside quotes (an earlier reply quoted) does not count (``quotes_skipped=False``: it does,
    as before the plain-meaning change)."""
    reply = _QUOTED.sub(" ", reply) if quotes_skipped and ("“" in reply or '"' in reply) else reply
    if F3_NO_AGENT in reply or F3_NOTED_NOT_STORED in reply:  # no rule took it in (a statement: as an episode only)
        return "unknown"
    if F1_SEM_MISS in reply:
        return "missing"
    if F4_AGENT_FAILURE in reply or F5_SEM_WRITE_FAILURE in reply:
        return "failure"
    if _ACK.search(reply):
        return "noted"
    return "answer"


def rewrite(text: str, context: dict[str, Any]) -> str:
    """``text`` in the form ``context["tactic"]`` asks for (``register``, ``name``, ``reply_kind`` refine it)."""
    tactic, register = context.get("tactic"), context.get("register")
    kind = context.get("reply_kind") or reply_kind(text)
    name = context.get("name") if isinstance(context.get("name"), str) else None
    if tactic == "de_escalate":
        return f"I hear your frustration. {text}"
    if tactic == "acknowledge":
        return f"Fair enough. {text}" if context.get("rude") else f"Thanks for telling me. {text}"
    if tactic == "clarify":
        if asks(text):
            return text  # one question a reply: the draft asks one already (autonomy's, say)
        follow = context.get("follow_up") if isinstance(context.get("follow_up"), str) else None
        ask = follow or ("Could you tell me more about what you need?" if register == "formal" else "What do you mean?")
        return f"{text} {ask}"
    if tactic == "match_register":
        if register == "formal":
            if _ACK.search(text):
                return _ACK.sub("Understood: ", text, count=1)
            opening = {"answer": "Certainly.", "missing": "My apologies.", "unknown": "My apologies."}.get(kind)
            return f"{opening} {text}" if opening else text
        if register == "informal":
            opening = {"answer": "Sure", "missing": "Hmm", "unknown": "Hmm"}.get(kind)
            if opening is None:
                return text
            return f"{opening}, {name}! {text}" if name and kind == "answer" else f"{opening}! {text}"
    return text
