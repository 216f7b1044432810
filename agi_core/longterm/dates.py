"""Dates in memories and in queries, without reading the clock.

:func:`parse_timestamp` turns the date strings memories carry ("1:56 pm on 8 May, 2023",
"2023-05-08T13:56:00Z", "8 May 2023") into ISO 8601. :func:`query_window` finds an
explicit date in a query ("in May 2023", "on 3 May, 2023", "in 2022", "in June") and
returns the span of days it names, so the ranker can favour memories stored then.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

import attrs

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))

_TIME = r"(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)"
_DMY = rf"(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m>{_MONTH_RE})\.?,?\s+(?P<y>\d{{4}})"
_MDY = rf"(?P<m2>{_MONTH_RE})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})"
_SESSION_RE = re.compile(rf"(?:{_TIME}\s*(?:on\s+)?)?(?:{_DMY}|{_MDY})", re.IGNORECASE)
_ISO_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?")


def parse_timestamp(text: str | None) -> str | None:
    """ISO 8601 (``YYYY-MM-DDTHH:MM:SS``) for a date string, or None if there is none."""
    if not text:
        return None
    iso = _ISO_RE.search(text)
    if iso:
        y, mo, d, h, mi, s = (int(g) if g else 0 for g in iso.groups())
        try:
            return datetime(y, mo, d, h, mi, s).isoformat()
        except ValueError:
            return None
    found = _SESSION_RE.search(text)
    if not found:
        return None
    g = found.groupdict()
    month = _MONTHS[(g["m"] or g["m2"]).lower().rstrip(".")]
    day = int(g["d"] or g["d2"])
    year = int(g["y"] or g["y2"])
    hour = minute = 0
    if g["h"]:
        hour = int(g["h"]) % 12 + (12 if g["ampm"].lower().startswith("p") else 0)
        minute = int(g["mi"] or 0)
    try:
        return datetime(year, month, day, hour, minute).isoformat()
    except ValueError:
        return None


@attrs.frozen
class DateWindow:
    """Days a query refers to: ``start``..``end`` inclusive; ``month_only`` when no year was given."""

    start: date | None
    end: date | None
    month: int | None = None
    month_only: bool = False
    text: str = ""

    def contains(self, iso: str | None, slack_days: int) -> bool:
        """True if ``iso`` falls in the window, or up to ``slack_days`` after it
        (people tell of an event in the days that follow it)."""
        if not iso:
            return False
        try:
            day = date.fromisoformat(iso[:10])
        except ValueError:
            return False
        if self.month_only:
            later = day - timedelta(days=slack_days)
            return self.month in (day.month, later.month)
        assert self.start is not None and self.end is not None
        return self.start <= day <= self.end + timedelta(days=slack_days)


_Q_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_Q_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_Q_MY = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.IGNORECASE)
_Q_Y = re.compile(r"\b(?:in|of|during|since|from)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_Q_M = re.compile(
    r"\b(?:in|during|of|early|late|mid)\s+(january|february|march|april|may|june|july|august"
    r"|september|october|november|december)\b",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"\b(before|prior to|leading up to)\b", re.IGNORECASE)


def query_window(query: str) -> DateWindow | None:
    """The date span ``query`` names explicitly, or None.

    A day ("on 3 May, 2023") gives that day; "before <day>" the 30 days up to it; a
    month and year the month; a year the year; a bare month name after "in" that month of
    any year. Relative phrases ("last week") are not resolved: the query has no "now".
    """
    for rx, order in ((_Q_DMY, "dmy"), (_Q_MDY, "mdy")):
        found = rx.search(query)
        if found:
            a, b, y = found.groups()
            d, m = (a, b) if order == "dmy" else (b, a)
            try:
                day = date(int(y), _MONTHS[m.lower()], int(d))
            except ValueError:
                continue
            if _BEFORE.search(query[: found.start()]):
                return DateWindow(day - timedelta(days=30), day, text=found.group(0))
            return DateWindow(day, day, text=found.group(0))
    found = _Q_MY.search(query)
    if found:
        month, year = _MONTHS[found.group(1).lower()], int(found.group(2))
        last = calendar.monthrange(year, month)[1]
        return DateWindow(date(year, month, 1), date(year, month, last), month=month, text=found.group(0))
    found = _Q_Y.search(query)
    if found:
        year = int(found.group(1))
        return DateWindow(date(year, 1, 1), date(year, 12, 31), text=found.group(1))
    found = _Q_M.search(query)
    if found:
        return DateWindow(None, None, month=_MONTHS[found.group(1).lower()], month_only=True, text=found.group(1))
    return None
