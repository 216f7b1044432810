"""A considerate speaker's openings: the opening a tactic adds ("Thanks for telling me.", "Sure, Dan!") is
spared where a person would not say it.

- no opening before a reply that opens socially already: a greeting, a farewell, a thanks-reply, small
  talk, or any reply that opens with an interjection ("Goodbye! …", "You're welcome.", "Hmm, …");
- not the same opening in two consecutive replies to a speaker: a run of statements gets
  "Thanks for telling me." on the first only;
- no "Sure!" or "Certainly." before a reply that says no ("I have nothing in memory that answers that.");
- the speaker's name in at most one reply of any ``NAME_EVERY`` of their turns (so never in two
  consecutive ones): "Sure, Dan!" becomes "Sure!" in between.

Pure functions: the module keeps ``tone/SPEAKER`` (the last opening offered, its turn, the turn the
name was last said) and asks ``ctx.changed(CONSIDERATE)`` where a tactic adds an opening, so a journal
from before replays as written.
"""

from __future__ import annotations

import re
from typing import Any

from agi_core.brain.stage0.small_talk import REPLIES as SMALL_TALK

#: the change (``ctx.changed``) that spares openings; asked only in ticks where a tactic adds one
CONSIDERATE = "considerate_openings"
NAME_EVERY = 4  # a speaker's name is said in at most one reply of any 4 of their turns
SPACED = ("acknowledge", "match_register")  # the tactics whose opening is spared (de-escalation is not)
OPENING_KEPT = 80  # characters of the opening kept in the state
#: what opens a reply socially already (lowered, "’" as "'"): greetings, farewells, thanks-replies, interjections
SOCIAL_OPENERS = (
    "hello",
    "hi",
    "hey",
    "greetings",
    "good morning",
    "good afternoon",
    "good evening",
    "good day",
    "good night",
    "welcome",
    "goodbye",
    "bye",
    "see you",
    "you're welcome",
    "you are welcome",
    "no problem",
    "anytime",
    "thanks",
    "thank you",
    "sure",
    "certainly",
    "of course",
    "hmm",
    "ok",
    "okay",
    "alright",
    "oh",
    "ah",
    "well",
    "great",
    "yes",
    "no",
    "sorry",
    "my apologies",
    "understood",
    "fair enough",
    "i hear your",
)
_OPENER = re.compile(r"(?:" + "|".join(re.escape(p) for p in SOCIAL_OPENERS) + r")(?![\w'])")
#: a reply that says no or that nothing is known: "Sure!" or "Certainly." would agree to it
_SAYS_NO = re.compile(
    r"(?:i have nothing|i don't|i do not|i can't|i cannot|i currently don't|there is no|nothing)(?!\w)"
)
_AGREEING = ("sure", "certainly")
_EXCLAIMED = re.compile(r"[^.!?]{1,30}!")  # a short first sentence that exclaims ("Great news!")
_SMALL_TALK = tuple(reply.replace("’", "'").lower() for reply in SMALL_TALK)


def opening_added(draft: str, text: str) -> str | None:
    """The opening ``text`` puts before ``draft`` (None: it adds none, or changes the draft itself)."""
    if len(text) <= len(draft) or not text.endswith(draft):
        return None
    return text[: -len(draft)].strip() or None


def opens_socially(reply: str) -> bool:
    """Whether ``reply`` opens with a greeting, farewell, thanks-reply, small talk or an interjection."""
    low = reply.lstrip().replace("’", "'").lower()
    if low.startswith(_SMALL_TALK):
        return True
    return _OPENER.match(low) is not None or (
        _EXCLAIMED.match(low) is not None and len(low.split("!", 1)[0].split()) <= 3
    )


def _named(opening: str, name: str | None) -> bool:
    return bool(name) and re.search(rf"(?<!\w){re.escape(str(name))}(?!\w)", opening) is not None


def without_name(opening: str, name: str | None) -> str:
    """``opening`` without the speaker's name: "Sure, Dan!" → "Sure!"."""
    if not _named(opening, name):
        return opening
    return re.sub(rf",?\s*(?<!\w){re.escape(str(name))}(?!\w)", "", opening).strip()


def considered(
    draft: str, text: str, name: str | None, turn: int, before: dict[str, Any] | None
) -> tuple[str, dict[str, Any], str]:
    """``text`` (``draft`` with an opening) as a considerate speaker says it on the speaker's ``turn``, the
    ``tone/SPEAKER`` state to keep, and why it changed ("" when it did not)."""
    opening = opening_added(draft, text) or ""
    plain = without_name(opening, name)
    last = before or {}
    name_turn = last.get("name_turn")
    state: dict[str, Any] = {"opening": plain[:OPENING_KEPT], "turn": turn, "name_turn": name_turn}
    if opens_socially(draft):
        return draft, {**state, "opening": None}, "the reply opens socially already"
    if plain.lower().startswith(_AGREEING) and _SAYS_NO.match(draft.lstrip().replace("’", "'").lower()):
        return draft, {**state, "opening": None}, "it would agree to a reply that says no"
    if last.get("opening") == state["opening"] and last.get("turn") == turn - 1:
        return draft, state, "the same opening as the previous reply"
    if _named(opening, name):
        if isinstance(name_turn, int) and turn - name_turn < NAME_EVERY:
            kept = f"{plain} {draft}" if any(c.isalnum() for c in plain) else draft  # "Dan," alone: nothing left
            return kept, state, f"the name was said within {NAME_EVERY} turns"
        state["name_turn"] = turn
    return text, state, ""
