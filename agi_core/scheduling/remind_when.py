"""When a reminder is due, read from the words a user types (plain string tests, no regex).

:func:`read_when` reads a phrase such as ``tomorrow at 9``, ``at 9am tomorrow``, ``tonight at 8``,
``on Monday at 10am``, ``monday morning``, ``at 5``, ``in 2 hours``; it returns a :class:`When`, or
None. The local date and time are resolved later, in the tick, against its recorded wall clock
(:func:`agi_core.scheduling.conversation.remind_on`).

- A day alone is due at its default hour: :data:`DEFAULT_TIME` (09:00) for ``tomorrow`` and a
  weekday, a part of the day's hour (:data:`PART_TIMES`) for ``tonight``, ``tomorrow evening`` …
- A bare hour (no am/pm, no minutes) is a daytime hour: 7-11 the morning, 12 noon, 1-6 the
  afternoon (``at 9`` is 09:00, ``at 3`` 15:00); after ``tonight``, ``evening``, ``afternoon`` any
  hour up to 11 is pm (``tonight at 8`` is 20:00). ``17:30``, ``5:30``, ``0:15`` are read as written.
- ``tonight`` at an hour of the morning (``tonight at 1am``) is the night after today: tomorrow.
"""

from __future__ import annotations

import attrs

from agi_core.brain.stage0.phrases import lower_ascii

DEFAULT_TIME = "09:00"
"""When ``tomorrow`` or ``on Monday`` alone is due."""
PART_TIMES = {"morning": "09:00", "afternoon": "15:00", "evening": "18:00", "night": "20:00"}
"""When a part of a day alone is due (``tonight`` is today's night)."""
PM_PARTS = frozenset({"afternoon", "evening", "night"})
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY_NAMES = {
    **{day: day for day in WEEKDAYS},
    **{day[:3]: day for day in WEEKDAYS},
    "tues": "tuesday",
    "wednes": "wednesday",
    "thur": "thursday",
    "thurs": "thursday",
}
DAYS = frozenset({"today", "tomorrow", "tonight", *WEEKDAY_NAMES})
"""Words that name a day on their own."""
STARTS = frozenset({"at", "in", "on", "this", "next", *DAYS})
"""Words a time phrase may begin with."""
MAX_WORDS = 8
"""The most words a time phrase has (``on monday morning at 10 : 30 am`` is 8)."""
DELAY_UNITS = {
    "second": "s",
    "seconds": "s",
    "sec": "s",
    "secs": "s",
    "minute": "m",
    "minutes": "m",
    "min": "m",
    "mins": "m",
    "hour": "h",
    "hours": "h",
    "hr": "h",
    "hrs": "h",
    "day": "d",
    "days": "d",
    "week": "w",
    "weeks": "w",
}


@attrs.frozen
class When:
    """A reminder's time as typed: a ``delay`` (``10m``), else a clock time ``hhmm`` on ``day``
    (``today``, ``tomorrow``, a weekday; ``""``: the next such time)."""

    delay: str = ""
    day: str = ""
    hhmm: str = ""


def read_when(phrase: str) -> When | None:
    """The time ``phrase`` says (see the module), or None if it is not one this reads."""
    words = lower_ascii(phrase).replace(",", " ").split()
    if not words or len(words) > MAX_WORDS:
        return None
    if words[0] == "in":
        delay = _delay(words[1:])
        return When(delay=delay) if delay else None
    day = part = time = ""
    index = 0
    while index < len(words):
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else ""
        if word == "on" and following in WEEKDAY_NAMES and not day:
            day, index = WEEKDAY_NAMES[following], index + 2
        elif word in DAYS and not day:
            day = "today" if word == "tonight" else WEEKDAY_NAMES.get(word, word)
            part = "night" if word == "tonight" else part
            index += 1
        elif word == "this" and following in PART_TIMES and not day:
            day, part, index = "today", following, index + 2
        elif word in PART_TIMES and day and not part:
            part, index = word, index + 1
        elif (word == "at" or (day and not time)) and not time:
            end = index + 1 if word == "at" else index
            stop = end
            while stop < len(words) and words[stop] not in STARTS and words[stop] not in PART_TIMES:
                stop += 1
            if stop == end:
                return None
            time, index = " ".join(words[end:stop]), stop
        else:
            return None
    return _moment(day, part, time)


def _moment(day: str, part: str, time: str) -> When | None:
    if not time:
        if not day or (day == "today" and not part):
            return None  # "today" alone says no time
        return When(day=day, hhmm=PART_TIMES[part] if part else DEFAULT_TIME)
    hhmm = _clock(time, part)
    if hhmm is None:
        return None
    if part == "night" and day == "today" and hhmm < "12:00":
        day = "tomorrow"  # "tonight at 1am": the coming night
    return When(day=day, hhmm=hhmm)


def _clock(time: str, part: str) -> str | None:
    """``HH:MM`` of a time's words read after a part of the day (``""``: none), or None."""
    from agi_core.scheduling.goal_phrases import clock_time

    compact = time.replace(" ", "").replace(".", "")
    written = compact.removesuffix("h").removesuffix("o'clock")
    hour_text, colon, minute_text = written.partition(":")
    if hour_text.isdigit() and len(hour_text) <= 2 and (not colon or (minute_text.isdigit() and len(minute_text) == 2)):
        hour, minute = int(hour_text), int(minute_text or 0)
        if hour > 23 or minute > 59:
            return None
        if hour == 12 and part == "night" and not colon:
            hour = 0  # "tonight at 12": midnight
        elif 1 <= hour <= 11 and not hour_text.startswith("0"):
            if part in PM_PARTS or (not part and not colon and not compact.endswith("h") and hour <= 6):
                hour += 12
        return f"{hour:02d}:{minute:02d}"
    return clock_time(compact)


def _delay(words: list[str]) -> str:
    """``10 minutes`` → ``10m``, ``an hour`` → ``1h``, ``half an hour`` → ``30m``, ``2 weeks`` → ``14d``; else ""."""
    if words == ["half", "an", "hour"]:
        return "30m"
    if len(words) == 1 and words[0][:-1].isdigit() and words[0][-1:] in ("s", "m", "h", "d"):
        return words[0]
    if len(words) != 2 or words[1] not in DELAY_UNITS or not (words[0].isdigit() or words[0] in ("a", "an", "one")):
        return ""
    number, unit = int(words[0]) if words[0].isdigit() else 1, DELAY_UNITS[words[1]]
    return f"{number * 7}d" if unit == "w" else f"{number}{unit}"


def looks_like_time(words: list[str], index: int) -> bool:
    """Whether ``words[index:]`` starts like a time (``at 2…``, ``in 3…``, ``tomorrow``, ``on Monday``), read or not."""
    word = words[index]
    following = words[index + 1] if index + 1 < len(words) else ""
    if word in ("at", "in"):
        return following[:1].isdigit()
    return word in ("today", "tonight", "tomorrow") or (word in ("on", "next") and following in WEEKDAY_NAMES)


__all__ = ["DEFAULT_TIME", "PART_TIMES", "When", "looks_like_time", "read_when"]
