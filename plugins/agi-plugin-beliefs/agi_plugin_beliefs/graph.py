"""The belief graph's rules, as pure functions: how a statement changes a belief, and how a belief reads.

A belief is ``{"key", "label", "value", "confidence", "source", "since_tick", "evidence",
"history", "rivals"}``. A source's reliability sets the confidence a statement brings: the
user's own statement 0.9, a named speaker's 0.8, a document 0.6, a third party's ("Bob
says…") 0.5. The same value again raises the confidence (noisy-or, at most 0.99); a
different value from a source that wrote the fact replaces it (the old value goes to the
history); a different value that was only heard is kept as a rival when the belief is
surer than the source.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from agi_core.brain.stage0 import likes

#: the keys of the user's likes and dislikes (Stage-0's ``…/likes``, ``…/dislikes``), whose value is a list
PREFERENCES = ("/likes", "/dislikes")

RELIABILITY = {"user": 0.9, "speaker": 0.8, "document": 0.6, "hearsay": 0.5}
MAX_CONFIDENCE = 0.99
KEPT = 10  # evidence and history entries kept per belief
RIVALS_KEPT = 5


def source_kind(source: str) -> str:
    """``user``, ``speaker:ada``, ``document:notes.txt``, ``hearsay:bob`` → its kind."""
    return source.split(":", 1)[0] if source.split(":", 1)[0] in RELIABILITY else "hearsay"


def reliability(source: str) -> float:
    return RELIABILITY[source_kind(source)]


def new_belief(key: str, label: str, value: Any, source: str, tick: int, confidence: float) -> dict[str, Any]:
    return {
        "key": key,
        "label": label,
        "value": value,
        "confidence": round(confidence, 4),
        "source": source,
        "since_tick": tick,
        "evidence": [{"tick": tick, "source": source, "value": value, "confidence": round(confidence, 4)}],
        "history": [],
        "rivals": [],
    }


def updated(
    belief: dict[str, Any] | None,
    *,
    key: str,
    label: str,
    value: Any,
    source: str,
    tick: int,
    stored: bool,
) -> tuple[dict[str, Any], str]:
    """The belief after a statement, and what happened: ``new``, ``confirmed``, ``changed`` or ``contested``.

    ``stored``: the statement wrote the fact (the belief must follow it).
    """
    weight = reliability(source)
    if belief is None:
        return new_belief(key, label, value, source, tick, weight), "new"
    proof = {"tick": tick, "source": source, "value": value, "confidence": weight}
    if belief["value"] == value:
        confidence = min(MAX_CONFIDENCE, 1 - (1 - belief["confidence"]) * (1 - weight))
        evidence = [*belief["evidence"], proof][-KEPT:]
        return {**belief, "confidence": round(confidence, 4), "evidence": evidence}, "confirmed"
    if stored or weight >= belief["confidence"]:
        past = {
            "value": belief["value"],
            "confidence": belief["confidence"],
            "source": belief["source"],
            "from_tick": belief["since_tick"],
            "until_tick": tick,
        }
        fresh = new_belief(key, label or belief["label"], value, source, tick, weight)
        return {**fresh, "history": [*belief["history"], past][-KEPT:], "rivals": belief["rivals"]}, "changed"
    rival = {"value": value, "source": source, "confidence": weight, "tick": tick}
    return {**belief, "rivals": [*belief["rivals"], rival][-RIVALS_KEPT:]}, "contested"


def who(source: str) -> str:
    """Who a source is, as the replies name it: ``you``, ``Bob``, ``the document notes.txt``."""
    kind, _, name = source.partition(":")
    if kind == "user":
        return "you"
    if kind == "document":
        return f"the document {name}"
    return name.capitalize() if name else "someone"


def certainty(confidence: float) -> str:
    return "Fairly sure" if confidence >= 0.85 else "Reasonably sure" if confidence >= 0.6 else "Not sure"


def listed(belief: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` is a list of the user's likes or dislikes (said as "hiking and jazz")."""
    return isinstance(value, list) and str(belief["key"]).endswith(PREFERENCES)


def shown(belief: dict[str, Any], value: Any) -> Any:
    """``value`` as a reply says it: a list of likes as ``hiking and jazz`` (``nothing`` when empty)."""
    if not listed(belief, value):
        return value
    things = likes.items(value)
    return likes.joined(things) if things else "nothing"


def summary(belief: dict[str, Any], fact_value: Any = None) -> str:
    """The answer to "are you sure about …?": confidence, value, evidence, earlier values and rivals."""
    value = shown(belief, belief["value"] if fact_value is None else fact_value)
    said = "; ".join(f"told by {who(e['source'])} at tick {e['tick']}" for e in belief["evidence"][-3:])
    text = f"{certainty(belief['confidence'])} (confidence {belief['confidence']:g}): {belief['label']} is {value}."
    text += f" Evidence: {said}."
    if belief["history"]:
        last = belief["history"][-1]
        text += f" Earlier: {shown(belief, last['value'])} ({who(last['source'])}, until tick {last['until_tick']})."
    if belief["rivals"]:
        rival = belief["rivals"][-1]
        text += f" {who(rival['source']).capitalize()} said {rival['value']} (confidence {rival['confidence']:g})."
    return text


def change_notice(belief: dict[str, Any], value: Any, speaking: str = "user") -> str | None:
    """ "You told me earlier your favorite color was teal; I now have red." ``speaking`` is the source of the
    statement that changed it: "you" only when it is the one who said the old value. A list of likes changes
    only when a thing leaves it ("You told me earlier you liked hiking; now you don't."): None for one added."""
    source = belief["source"]
    told = "You" if source == speaking else "My user" if source == "user" else who(source).capitalize()
    if listed(belief, belief["value"]) and listed(belief, value):
        gone = [thing for thing in likes.items(belief["value"]) if not likes.holds(likes.items(value), thing)]
        if not gone:
            return None
        liked = str(belief["key"]).endswith("/likes")
        now = "now you don't" if liked else "now you do"
        return f"{told} told me earlier you {'liked' if liked else 'did not like'} {likes.joined(gone)}; {now}."
    return f"{told} told me earlier {belief['label']} was {belief['value']}; I now have {value}."


def same_value(old: Any, new: Any) -> bool:
    """Whether two values say the same thing written differently ("72.5 kg", "72.50 KG")."""
    if old == new:
        return True
    if not isinstance(old, str) or not isinstance(new, str):
        return False
    return _plain(old) == _plain(new)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _plain(text: str) -> str:
    spaced = " ".join(text.casefold().split())
    return _NUMBER.sub(lambda m: str(Decimal(m.group()).normalize()), spaced)  # 72.50 -> 72.5, exactly
