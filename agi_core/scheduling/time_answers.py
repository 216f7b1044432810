"""Questions about time, answered from the recorded wall clock (never the deterministic D2 clock).

- "what time is it?", "what day is it?", "what's the date?": the tick's clock reading (the
  ``tick_clock`` external, or one recorded read when the tick has none), in the machine's local
  time, whose UTC offset is recorded too (``utc_offset``), so replay answers the same anywhere;
- "when did we last talk?": the newest earlier user line's recorded clock (``wall_ms`` in its
  episode) and how long ago that was;
- "how long ago did I tell you X?": X names a fact (``my favorite color``, ``where my sister
  lives``); the newest journaled tick that wrote it gives its recorded clock.

Ticks with no clock reading (a kernel opened without a clock) have no wall time: the answers
then say so instead of making one up (S9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.brain.stage0.facts import noun_ref, parse
from agi_core.brain.stage0.habits import quoted
from agi_core.brain.stage0.phrases import lower_ascii, strip_end, strip_trailing
from agi_core.scheduling import wall_time
from agi_core.scheduling.wall_time import ago, day_text, local, offset_text, recorded_in

if TYPE_CHECKING:
    from agi_core.reasoning import ReasonContext

TIME_PHRASES = frozenset(
    {
        "what time is it",
        "what time is it now",
        "what's the time",
        "what is the time",
        "whats the time",
        "what's the time now",
        "tell me the time",
        "do you know the time",
        "do you know what time it is",
        "current time",
        "the time",
        "time",
    }
)
DAY_PHRASES = frozenset(
    {
        "what day is it",
        "what day is it today",
        "what day is today",
        "which day is it",
        "what's the date",
        "what is the date",
        "what's the date today",
        "what is the date today",
        "what's today's date",
        "what is today's date",
        "what date is it",
        "what date is it today",
        "today's date",
        "what's today",
        "what is today",
        "date",
    }
)
LAST_TALK_PHRASES = frozenset(
    {
        "when did we last talk",
        "when did we last speak",
        "when did we last chat",
        "when did we talk last",
        "when did we speak last",
        "when was the last time we talked",
        "when was the last time we spoke",
        "when did i last talk to you",
        "when did i last speak to you",
        "when did you last hear from me",
    }
)
TOLD_PREFIXES = (
    "how long ago did i tell you ",
    "how long ago did you learn ",
    "how long ago did i say ",
    "when did i tell you ",
    "when did you learn ",
)
GAP_MS = 30 * 60 * 1000
"""User lines further apart than this belong to two conversations ("when did we last talk?")."""
LAST_TALK_SCAN = 400


def time_request(text: str) -> tuple[str, str] | None:
    """``(kind, rest)`` for a question about time (``time``, ``day``, ``last_talk``, ``told``), else None."""
    normalized = strip_end(" ".join(text.replace("’", "'").split()))
    phrase = lower_ascii(normalized)
    if phrase not in TIME_PHRASES and phrase not in DAY_PHRASES:  # "what time is it again?"
        normalized = strip_trailing(normalized)
        phrase = lower_ascii(normalized)
    if phrase in TIME_PHRASES:
        return "time", ""
    if phrase in DAY_PHRASES:
        return "day", ""
    if phrase in LAST_TALK_PHRASES:
        return "last_talk", ""
    for prefix in TOLD_PREFIXES if phrase.startswith(TOLD_PREFIXES) else ():
        if phrase.startswith(prefix) and phrase[len(prefix) :].strip():
            return "told", normalized[len(prefix) :].strip()  # lowering keeps every index
    return None


def answer(ctx: ReasonContext, kind: str, rest: str) -> str:
    """The reply to a time question of ``kind``."""
    if kind in ("time", "day"):
        now = now_ms(ctx)
        if kind == "time":
            return wall_time.time_text(now, utc_offset_s(ctx, now))
        return f"Today is {day_text(_local(ctx, now))}."
    if kind == "last_talk":
        return _last_talk(ctx)
    return _told(ctx, rest)


def now_ms(ctx: ReasonContext) -> int:
    """The tick's recorded wall-clock reading (:func:`agi_core.scheduling.wall_time.tick_wall_ms`)."""
    return wall_time.tick_wall_ms(ctx.externals)


def recorded_now(ctx: ReasonContext) -> int | None:
    """The tick's clock reading if it has one (nothing is read)."""
    return wall_time.recorded_wall_ms(ctx.externals)


def utc_offset_s(ctx: ReasonContext, ms: int) -> int:
    """The machine's UTC offset at ``ms``, in seconds, recorded (replay on another machine answers the same)."""
    return wall_time.utc_offset_s(ctx.externals, ms)


def _local(ctx: ReasonContext, ms: int) -> Any:
    return local(ms, utc_offset_s(ctx, ms))


def _when(ctx: ReasonContext, then_ms: int) -> str:
    """``3 minutes ago (Wednesday 25 November 2026 16:20 UTC+00:00)``."""
    now = now_ms(ctx)
    moment = _local(ctx, then_ms)
    return f"{ago((now - then_ms) / 1000)} ago ({day_text(moment)} {moment:%H:%M} {offset_text(moment)})"


def _last_talk(ctx: ReasonContext) -> str:
    """The last line of the previous conversation: user lines less than ``GAP_MS`` apart are one conversation.

    The newest ``LAST_TALK_SCAN`` episodes are read first; when they hold no line of an earlier conversation,
    ten times as many, and so on (an idle ``agi run --follow`` agent's clock and maintenance ticks fill 400
    episodes in about an hour). A tick that looks further records ``last_talk_scan``; a journal from before,
    which never looked further, replays as it was written.
    """
    limit = LAST_TALK_SCAN
    while True:
        episodes = ctx.store.episodes(limit, newest_first=True)
        lines: list[tuple[Any, str]] = []  # (the line's wall-clock reading, the line), newest first
        for episode in episodes:
            context = episode.context or {}
            if context.get("kind") == "input" and context.get("source", "user") == "user":
                lines.append((context.get("wall_ms"), episode.event))
        told = _previous_conversation(ctx, lines)
        if told is not None or len(episodes) < limit or not _look_further(ctx, limit):
            break
        limit *= 10
    if told is not None:
        return told
    if not lines:
        return "This is the first time we talk."
    since = _local(ctx, lines[-1][0])  # an int: _previous_conversation found each line's
    return f"We have been talking since {since:%H:%M} {offset_text(since)}; I remember no conversation before this one."


LAST_TALK_WIDER = "last_talk_scan"
"""The external a tick records when "when did we last talk?" read past the newest ``LAST_TALK_SCAN`` episodes."""


def _look_further(ctx: ReasonContext, limit: int) -> bool:
    """Whether to read past ``limit`` episodes: yes, recorded, unless this replays a journal from before."""
    if ctx.externals.recorded is not None and LAST_TALK_WIDER not in ctx.externals.recorded:
        return False
    ctx.externals.fetch(LAST_TALK_WIDER, lambda: limit * 10)
    return True


def _previous_conversation(ctx: ReasonContext, lines: list[tuple[Any, str]]) -> str | None:
    """The answer ``lines`` (the user's, newest first) give; None when they are all one conversation."""
    if not lines:
        return None
    if not isinstance(lines[0][0], int):
        return f"We last talked when you said {quoted(lines[0][1])}, but I have no clock reading for it."
    newer = recorded_now(ctx) or now_ms(ctx)
    for wall, event in lines:
        if not isinstance(wall, int):
            since = _local(ctx, newer)
            return (
                f"We have been talking since {since:%H:%M} {offset_text(since)}; "
                "I remember no conversation before this one."
            )
        if newer - wall >= GAP_MS:
            return f"Before this conversation, we last talked {_when(ctx, wall)}, when you said {quoted(event)}."
        newer = wall
    return None


def _told_keys(ctx: ReasonContext, what: str) -> list[str]:
    """The keys ``what`` names: a fact's noun phrase, a statement, or a question ("where my sister lives")."""
    from agi_core.brain.stage0.fact_replies import key_of

    low = lower_ascii(what)
    for lead in ("that ", "about "):
        if low.startswith(lead):
            what, low = what[len(lead) :], low[len(lead) :]
    refs = []
    if (ref := noun_ref(what)) is not None:
        refs.append(ref)
    if (parsed := parse(what)) is not None:
        refs.extend(parsed.refs)
    for word in ("where ", "who ", "when ", "what "):  # "where my sister lives" asks "where does my sister live"
        if low.startswith(word) and (asked := _embedded(what, word)) is not None:
            refs.extend(asked.refs)
    keys = []
    for ref in refs:
        try:
            keys.append(key_of(ctx, ref))
        except Exception:  # noqa: BLE001 - a phrase that makes no key names no fact
            continue
    return keys


def _embedded(what: str, word: str) -> Any:
    """``where my sister lives`` → the question ``where does my sister live``."""
    rest = what[len(word) :]
    words = rest.split()
    if len(words) >= 2 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    aux = "do" if lower_ascii(words[0]) == "i" else "does"
    return parse(f"{word}{aux} {' '.join(words)}?")


def _told(ctx: ReasonContext, what: str) -> str:
    keys = _told_keys(ctx, what)
    if not keys:
        return f"I can't tell which fact {quoted(what)} is; ask about one, e.g. “how long ago did I tell you my name?”"
    found = _last_write(ctx, keys)
    if found is None:
        return "You haven't told me that yet."
    record, writes = found
    if writes[-1].get("value") is None:
        return "You asked me to forget that, so I no longer know it."
    stamp = recorded_in(record.get("externals") or {})
    told = quoted((record.get("input") or {}).get("raw", ""))
    if stamp is None:
        return f"You told me in tick {record.get('tick')} ({told}), but I have no clock reading for that tick."
    return f"You told me {_when(ctx, int(stamp))}: {told}."


WRITES = '"sem_writes":'
NO_WRITES = WRITES + "[]"  # a tick that wrote no fact, as canonical JSON stores it


def _last_write(ctx: ReasonContext, keys: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The newest journal record that wrote one of ``keys`` (a write that succeeded), with those writes.

    One pass over the stored texts, oldest first, keeping only the newest match: a text is parsed only if it
    holds a key (canonical keys are ``[a-z0-9_/]``, never escaped in JSON, and never a blob) and may hold a
    write (its one ``"sem_writes":`` is not ``[]``; every tick recalls the focus entity's facts, so most
    texts hold the keys). Reading the whole journal into a list and parsing it newest first held every
    record at once: 227 MB and 4.7 s on 100,000 ticks.
    """
    found: tuple[dict[str, Any], list[dict[str, Any]]] | None = None
    for _tick, _id, text, *_rest in ctx.store.journal_rows():
        if not any(key in text for key in keys) or (NO_WRITES in text and text.count(WRITES) == 1):
            continue
        record = ctx.store.load_json(text)
        writes = [w for w in record.get("sem_writes") or [] if w.get("key") in keys and w.get("ok", True)]
        if writes:
            found = (record, writes)
    return found


__all__ = ["ago", "answer", "time_request"]
