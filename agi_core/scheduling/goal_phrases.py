"""What a line says about goals, read with plain string tests (linear time, no regex).

:func:`goal_request` returns ``(kind, text)`` or None, where kind is one of:

- ``set``: "my goal is to learn French", "my new goal is …", "new goal: …", "set a goal to …"
- ``list``: "what are my goals?", "show my goals", "what is my goal?"
- ``finish``: "I finished learning French", "I'm done with …", "I completed …", "done: …"
- ``abandon``: "I give up on learning French", "abandon my goal …", "forget my goal …"
- ``remind``: "remind me to call Ada in 10 minutes", "remind me in 2 hours to …" (text is ``WHAT\\x1fDURATION``)
- ``remind_at``: "remind me at 5pm to call Ada", "remind me to call Ada at 17:30" (text is ``WHAT\\x1fHH:MM``)
- ``remind_on``: "remind me to call Ada tomorrow at 9", "… on Monday at 10am", "… tonight at 8"
  (text is ``WHAT\\x1fDAY\\x1fHH:MM``, DAY ``today``, ``tomorrow`` or a weekday; see
  :mod:`agi_core.scheduling.remind_when`)
- ``remind_unread``: a reminder whose time this cannot read, "remind me to call Ada at 25:00" (``WHAT\\x1fPHRASE``)
- ``remind_no_time``: a reminder without a time, "remind me to call Ada" (text is WHAT)
- ``count``: "how many goals do I have?" (the ``goal_asks`` change)
- ``active``: "what is my active goal?", "which goal is active?" (the ``goal_asks`` change)
- ``step``: "next step", "work on my goal", "continue my goal"
- ``reminder``: the line a reminder job says when due ("reminder: call Ada (goal g-1a2b3c4d)")
"""

from __future__ import annotations

from agi_core.brain.stage0.phrases import lower_ascii, strip_end
from agi_core.scheduling.remind_when import DELAY_UNITS, MAX_WORDS, STARTS, When, looks_like_time, read_when

SET_PREFIXES = (
    "my goal is to ",
    "my new goal is to ",
    "my next goal is to ",
    "my goal is ",
    "my new goal is ",
    "set a goal to ",
    "set the goal to ",
    "new goal: ",
    "goal: ",
)
LIST_PHRASES = frozenset(
    {
        "what are my goals",
        "what is my goal",
        "what's my goal",
        "what are my current goals",
        "show my goals",
        "show me my goals",
        "list my goals",
        "my goals",
        "goals",
        "what am i working on",
    }
)
FINISH_PREFIXES = (
    "i finished ",
    "i have finished ",
    "i've finished ",
    "i completed ",
    "i have completed ",
    "i've completed ",
    "i'm done with ",
    "i am done with ",
    "i reached my goal ",
    "finished ",
    "done with ",
    "done: ",
)
ABANDON_PREFIXES = (
    "i give up on ",
    "i gave up on ",
    "i'm giving up on ",
    "i am giving up on ",
    "i abandon ",
    "abandon my goal to ",
    "abandon my goal ",
    "abandon the goal ",
    "abandon ",
    "drop my goal to ",
    "drop my goal ",
    "cancel my goal to ",
    "cancel my goal ",
    "forget my goal to ",
    "forget my goal ",
    "forget the goal ",
    "i no longer want to ",
)
COUNT_PHRASES = frozenset(
    {
        "how many goals do i have",
        "how many goals have i got",
        "how many goals have i",
        "how many goals do i have now",
        "how many goals are there",
        "how many goals",
        "count my goals",
    }
)
ACTIVE_PHRASES = frozenset(
    {
        "what is my active goal",
        "what's my active goal",
        "what is my current goal",
        "what's my current goal",
        "which goal is active",
        "which goal is active now",
        "which is my active goal",
        "what is the active goal",
        "what's the active goal",
        "show my active goal",
    }
)
STEP_PHRASES = frozenset(
    {
        "next step",
        "do the next step",
        "take the next step",
        "work on my goal",
        "continue my goal",
        "continue with my goal",
        "go on with my goal",
    }
)
REMIND_PREFIX = "remind me to "
REMIND_AT_PREFIX = "remind me at "
REMIND_ME = "remind me "
REMINDER_PREFIX = "reminder: "
GOAL_MARK = " (goal "
#: delay words as "remind me to … in N UNIT" read them before the ``remind_when`` change: no weeks, no "hr"
UNITS = {word: unit for word, unit in DELAY_UNITS.items() if unit != "w" and word not in ("hr", "hrs")}


def goal_request(text: str, *, new_times: bool = True, new_asks: bool = True) -> tuple[str, str] | None:
    """``(kind, text)`` for a line about goals, else None; ``new_times=False``: a reminder's time read as
    before the ``remind_when`` change (``at 5pm``, ``at 17:30``, ``in 10 minutes`` only); ``new_asks=False``: no
    ``count`` nor ``active`` (as before the ``goal_asks`` change)."""
    body = strip_end(" ".join(text.split()))
    low = lower_ascii(body).replace("’", "'")
    if low in LIST_PHRASES:
        return "list", ""
    if new_asks and low in COUNT_PHRASES:
        return "count", ""
    if new_asks and low in ACTIVE_PHRASES:
        return "active", ""
    if low in STEP_PHRASES:
        return "step", ""
    if low.startswith(REMINDER_PREFIX):
        return "reminder", body[len(REMINDER_PREFIX) :]
    if new_times and low.startswith(REMIND_ME):
        return _remind_request(body[len(REMIND_ME) :])
    if low.startswith(REMIND_PREFIX) and (parts := _remind_parts(body[len(REMIND_PREFIX) :])) is not None:
        return "remind", "\x1f".join(parts)
    if low.startswith(REMIND_PREFIX) and (parts := _remind_at_end(body[len(REMIND_PREFIX) :])) is not None:
        return "remind_at", "\x1f".join(parts)
    if low.startswith(REMIND_AT_PREFIX) and (to := low.find(" to ", len(REMIND_AT_PREFIX))) > 0:
        when, what = body[len(REMIND_AT_PREFIX) : to], body[to + 4 :].strip()
        if what and (hhmm := clock_time(when)) is not None:
            return "remind_at", f"{what}\x1f{hhmm}"
    for kind, prefixes in (("set", SET_PREFIXES), ("finish", FINISH_PREFIXES), ("abandon", ABANDON_PREFIXES)):
        if not low.startswith(prefixes):  # one C call: the usual line begins with none of them
            continue
        for prefix in prefixes:
            if low.startswith(prefix) and body[len(prefix) :].strip():
                return kind, body[len(prefix) :].strip()
    return None


def reads_otherwise(text: str) -> bool:
    """Whether a line read otherwise before the ``remind_when`` change (a reminder) or the ``goal_asks`` one."""
    if lower_ascii(strip_end(" ".join(text.split()))).replace("’", "'") in COUNT_PHRASES | ACTIVE_PHRASES:
        return True
    if lower_ascii(" ".join(text.split(maxsplit=2)[:2])) != REMIND_ME.strip():  # as goal_request reads it
        return False
    return goal_request(text) != goal_request(text, new_times=False)


def _remind_request(rest: str) -> tuple[str, str] | None:
    """The reminder ``remind me REST`` asks for: ``to WHAT WHEN`` or ``WHEN to WHAT`` (see the module)."""
    low = lower_ascii(rest)
    if low.startswith("to "):
        words = rest[3:].split()
        lowered = [word.strip(",") for word in low[3:].split()]  # "call Ana, tomorrow at 9"
        first = max(1, len(words) - MAX_WORDS)
        for index in range(first, len(words)):
            if lowered[index - 1] == "next":
                continue  # "next Monday": this week's or the next? Not read (the user is asked to say it otherwise)
            if lowered[index] in STARTS and (when := read_when(" ".join(words[index:]))) is not None:
                return _asked(" ".join(words[:index]).rstrip(","), when)
        for index in range(first, len(words)):
            if looks_like_time(lowered, index):
                return "remind_unread", " ".join(words[:index]).rstrip(",") + "\x1f" + " ".join(words[index:])
        return ("remind_no_time", " ".join(words)) if words else None
    at = low.find(" to ")
    phrase, what = rest[:at], rest[at + 4 :].strip()
    if at <= 0 or not what or low.split(" ", 1)[0] not in STARTS:
        return None  # "remind me of …", "remind me how to …": not a reminder
    when = read_when(phrase)
    return _asked(what, when) if when is not None else ("remind_unread", f"{what}\x1f{phrase}")


def _asked(what: str, when: When) -> tuple[str, str]:
    if when.delay:
        return "remind", f"{what}\x1f{when.delay}"
    if not when.day:
        return "remind_at", f"{what}\x1f{when.hhmm}"
    return "remind_on", f"{what}\x1f{when.day}\x1f{when.hhmm}"


def _remind_parts(rest: str) -> tuple[str, str] | None:
    """``call Ada in 10 minutes`` → ``(call Ada, 10m)``; the last `` in `` starts the delay."""
    at = lower_ascii(rest).rfind(" in ")
    if at <= 0:
        return None
    words = rest[at + 4 :].lower().split()
    if len(words) == 1 and words[0][:-1].isdigit() and words[0][-1:] in "smhd":
        return rest[:at].strip(), words[0]
    if len(words) == 2 and words[1] in UNITS and (words[0].isdigit() or words[0] in ("a", "an", "one")):
        number = words[0] if words[0].isdigit() else "1"
        return rest[:at].strip(), number + UNITS[words[1]]
    return None


def _remind_at_end(rest: str) -> tuple[str, str] | None:
    """``call Ada at 5pm`` → ``(call Ada, 17:00)``; the last `` at `` starts the time."""
    at = lower_ascii(rest).rfind(" at ")
    if at <= 0 or (hhmm := clock_time(rest[at + 4 :])) is None:
        return None
    return rest[:at].strip(), hhmm


def clock_time(text: str) -> str | None:
    """``5pm``, ``5 pm``, ``5:30pm``, ``17:30``, ``17h``, ``noon``, ``midnight`` → ``HH:MM``; None otherwise."""
    low = lower_ascii(text.strip()).replace(" ", "").replace(".", "")
    named = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
    if low in named:
        return named[low]
    half = low[-2:] if low.endswith(("am", "pm")) else ""
    digits = (low[:-2] if half else low).removesuffix("h").removesuffix("o'clock")
    hour_text, _, minute_text = digits.partition(":")
    if (
        not hour_text.isdigit()
        or len(hour_text) > 2
        or (minute_text and (not minute_text.isdigit() or len(minute_text) != 2))
    ):
        return None
    hour, minute = int(hour_text), int(minute_text or 0)
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    elif not minute_text and not digits.endswith("h") and not low.endswith("h"):
        return None  # a bare number ("at 5") is not a time of day
    return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def reminder_line(what: str, goal_id: str) -> str:
    """What a reminder job says when due."""
    return f"{REMINDER_PREFIX}{what}{GOAL_MARK}{goal_id})"


def reminder_goal(text: str) -> tuple[str, str | None]:
    """``(what, goal id)`` of a reminder line's text (after ``reminder: ``)."""
    at = text.rfind(GOAL_MARK)
    if at < 0 or not text.endswith(")"):
        return text, None
    return text[:at], text[at + len(GOAL_MARK) : -1]
