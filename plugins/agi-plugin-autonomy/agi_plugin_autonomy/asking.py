"""When and what to ask, heuristically; each rule gives way to its contract's validated model answer.

- ``question_manager``: the question about a person (the template of ``curiosity.ATTRIBUTES``), not about
  the attribute the last question was about when another is unknown (no "What does … do?" twice in a row);
- ``question_auto_answer``: the answer already in the user's own lines ("Maya is a nurse"), so the
  agent asks the next thing instead;
- ``autonomy_core``: whether to ask about a person again (not after a question the user ignored);
- ``cognition_context_inference``: whether the user said they are busy ("I'm at work") or free again;
- ``world_model``: whether to ask now (not while busy, not after a real answer to the user's question);
- ``identity_mission``: what the user allows ("stop asking me questions", "you can remind me again");
- ``reasoning_episode``: why the agent asked, when the user asks "why did you ask?";
- ``response_formatter``: the reply and the question as one text (a full stop after a reply without one).
"""

from __future__ import annotations

import re
from typing import Any

from agi_plugin_autonomy.signals import unanswered

END = r"(?:[.,;!]|$| and\b)"
ANSWERS = {
    "job": r"\b{name}\b(?: is an?| works as an?| works as| works at| works in)\s+([a-z][a-z -]{{1,40}}?)" + END,
    "city": r"\b{name}\b lives in\s+([A-Z][A-Za-z -]{{1,40}}?)" + END,
    "birthday": r"\b{name}'?s birthday is(?: on)?\s+([A-Za-z0-9 ]{{3,30}}?)" + END,
}
BUSY = re.compile(r"\b(?:i'?m|i am)\s+(?:busy|at work|in a meeting|driving|working)\b", re.I)
FREE = re.compile(r"\b(?:i'?m|i am)\s+(?:free|back|done|available)(?: now)?\b", re.I)
MISSION = re.compile(
    r"\b(?:(?P<stop>stop|don'?t|do not|never)\s+(?:asking me|ask me|reminding me|remind me)"
    r"|(?P<allow>you can|you may|feel free to|please)\s+(?:ask|remind) me)\b"
    r"(?P<rest>[^.?!]{0,40})",
    re.I,
)
PRONOUN = re.compile(r"\b(?:she|he|they|her|his|their|hers|him|them)\b", re.I)
WHY = re.compile(r"\bwhy (?:did|do|are) you (?:ask|asking|remind|reminding)\b", re.I)


def answer(name: str, attribute: str, lines: list[str]) -> str | None:
    """The value of ``attribute`` the user already gave about ``name`` in ``lines`` (newest wins), or None."""
    pattern = re.compile(ANSWERS[attribute].format(name=re.escape(name)), re.I if attribute == "job" else 0)
    for line in reversed(lines):
        found = pattern.search(line[:2000])
        if found:
            return found.group(1).strip()[:60]
    return None


#: "she is", "he's", "they are", "she": the person a question was about, as the subject of the answer
SUBJECT = re.compile(r"\b(?:she|he|they)('s|’s|'re|’re| is| are)?(?![\w'’])", re.I)


def answer_to(name: str, attribute: str, line: str) -> str | None:
    """The value of ``attribute`` in the user's answer to a question about ``name``: "Maya is a nurse", or
    "she is a nurse" read as about ``name``; None when the line does not say it."""
    if attribute not in ANSWERS:
        return None
    return answer(name, attribute, [SUBJECT.sub(lambda m: name + (" is" if m.group(1) else ""), line[:2000], count=1)])


def pick(gaps: list[str], last_attribute: str | None) -> str:
    """The first unknown attribute, unless it is the one the last question was about and another is unknown."""
    return next((a for a in gaps if a != last_attribute), gaps[0])


def joined(reply: str, question: str) -> str:
    """``reply`` then ``question``, with a full stop after a reply that ends without one ("2+2 = 4")."""
    reply = reply.rstrip()
    if reply and reply[-1] not in ".!?…:;)\"'”’":
        reply += "."
    return f"{reply} {question}".strip()


def ignored(name: str, reply: str) -> bool:
    """The user's line after a question about ``name`` neither names them nor speaks of someone ("she is…")."""
    return name.lower() not in reply.lower()[:2000] and not PRONOUN.search(reply[:2000])


def busy(line: str, before: bool) -> bool:
    """Whether the user is busy after saying ``line``: ``before`` unless the line says otherwise."""
    if FREE.search(line[:2000]):
        return False
    if BUSY.search(line[:2000]):
        return True
    return before


def ask_now(situation: dict[str, Any]) -> bool:
    """Not while busy; not when the user asked a question and the reply answered it."""
    if situation["busy"]:
        return False
    return not (situation["user_asked"] and situation["reply_answered"])


def situation(line: str, reply: str, is_busy: bool) -> dict[str, Any]:
    return {"busy": is_busy, "user_asked": line.rstrip().endswith("?"), "reply_answered": not unanswered(reply)}


def mission(line: str, current: dict[str, bool]) -> dict[str, bool]:
    """``{"questions": bool, "reminders": bool}`` after ``line`` ("stop asking me questions", "you can remind me")."""
    out = dict(current)
    for found in MISSION.finditer(line[:2000]):
        said = found.group(0).lower()
        allowed = found.group("allow") is not None
        if "remind" in said:
            out["reminders"] = allowed
        else:
            out["questions"] = allowed
    return out


def reasoning(asked: dict[str, Any]) -> str:
    """Why the last goal was asked, from what was recorded when it was."""
    signal = asked["signal"]
    why = f"{signal['metric']} was {signal['value']:g} (target {signal['target']:g})"
    if asked["kind"] == "question":
        _, who, attribute = [*asked["about"].split("/"), "", ""][:3]
        return f'I asked because I did not know {who.capitalize()}\'s {attribute} and {why}: "{asked["text"]}"'
    return f'I reminded you because your goal was still open and {why}: "{asked["text"]}"'
