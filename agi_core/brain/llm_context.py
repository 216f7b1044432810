"""What the LLM brain's prompt holds: the tick's recalled state, bounded and in a fixed order.

The model gets what the Stage-0 brain works from: the active goal, the facts (this tick's
semantic reads first, then the focus entity's facts), the modules' proposals, the beliefs,
long-term memories (the recorded ``ltm_recall`` external, those not in the short-term memory)
and the recent turns: AgentOne's 200-item short-term memory (:mod:`agi_core.longterm.short_term`),
the newest that fit. Each item
is cut to :data:`ITEM_CHARS`; the sections are filled in that order until the context's
token budget (4 characters a token) is spent, and what did not fit is counted, not sent.
The same tick state therefore gives the same context, byte for byte.

The prompt also holds the time (:func:`time_note`): the tick's recorded wall-clock reading,
worded as the Stage-0 time rule words it, and how long ago the user's previous line came,
from that line's recorded reading (``wall_ms`` in its episode). The brain never reads a clock
of its own: a kernel without a clock reads it once for the tick (``wall_clock``), recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agi_core.brain.stage0 import phrases
from agi_core.longterm.short_term import short_term
from agi_core.reasoning import ReasonContext
from agi_core.scheduling import wall_time

#: Tokens the context may take in the prompt (the system prompt and the tools come on top).
CONTEXT_TOKENS = 600
#: Characters one item keeps (a fact, a memory, a turn, a proposal …).
ITEM_CHARS = 300
#: Long-term memories asked for, and kept at most.
RECALL_K, MEMORIES_MAX = 8, 5
#: Filled in this order; a section that does not fit is cut, the later ones get what is left.
SECTIONS = ("goal", "facts", "proposals", "beliefs", "long_term_memories", "recent_turns")
#: Sections filled from their last item back (the short-term memory: the newest turns matter most), sent in order.
NEWEST_FIRST = frozenset({"recent_turns"})
#: The externals kind recording that the tick's prompt holds the time (journals from before replay without it).
TIME_EXTERNAL = "llm_clock"
#: Episodes looked through, newest first, for the user's previous line.
PREVIOUS_LINE_SCAN = 400


def time_note(ctx: ReasonContext) -> dict[str, str] | None:
    """``{"now": "It is 17:11 (UTC+00:00) on …", "since_last_turn": "3 minutes"}`` from the tick's
    recorded wall clock; None when replaying a journal from before the prompt held the time."""
    externals = ctx.externals
    if externals.recorded is not None and TIME_EXTERNAL not in externals.recorded:
        return None
    if TIME_EXTERNAL not in externals.log:
        externals.fetch(TIME_EXTERNAL, lambda: True)
    now = wall_time.tick_wall_ms(externals)
    note = {"now": wall_time.time_text(now, wall_time.utc_offset_s(externals, now))}
    note["since_last_turn"] = since_previous_line(ctx, now)
    return note


def since_previous_line(ctx: ReasonContext, now_ms: int) -> str:
    """How long ago the user's previous line came (``3 minutes``), from its recorded reading."""
    for episode in ctx.store.episodes(PREVIOUS_LINE_SCAN, newest_first=True):
        context = episode.context or {}
        if context.get("kind") != "input" or context.get("source", "user") != "user":
            continue
        wall = context.get("wall_ms")
        if not isinstance(wall, int):
            return "unknown (the previous line has no clock reading)"
        return wall_time.ago((now_ms - wall) / 1000)
    return "none: this is the user's first line"


def time_sentence(note: dict[str, str] | None) -> str:
    """The note as one or two sentences (the ``answer`` mode's short prompt); "" without one."""
    if note is None:
        return ""
    since = note["since_last_turn"]
    if since[:1].isdigit():
        return f"{note['now']} The user's previous message came {since} ago."
    return f"{note['now']} The user's previous message: {since}."


def sem_facts(ctx: ReasonContext) -> list[dict[str, Any]]:
    """The stored answers to a profile or world question (``what is my …?``), read through the
    context (recorded as ``sem_reads``, cited as evidence), as the Stage-0 agents read them."""
    raw = phrases.strip_trailing(ctx.state.input.raw.strip())  # "what was my name again?" asks "… my name"
    found = []
    if (attr := phrases.profile_read(raw)) is not None:
        key, fact = ctx.key("user", "person", "self", attr), "the user's {attr} is {value}"
        found.append((key, fact, {"attr": attr.strip().lower()}))
    if (parts := phrases.world_read(raw)) is not None:
        key, fact = ctx.key("world", "entity", parts[1].strip(), parts[0]), "the {attr} of {entity} is {value}"
        found.append((key, fact, {"attr": parts[0].strip().lower(), "entity": parts[1].strip()}))
    facts = []
    for key, template, names in found:
        read = ctx.sem_read(key)
        if read.exists:
            facts.append({"key": key, "value": read.value, "fact": template.format(value=read.value, **names)})
    return facts


def _cut(value: Any) -> Any:
    """A string cut to :data:`ITEM_CHARS`; anything else as compact JSON, cut the same way."""
    text = value if isinstance(value, str) else json.dumps(_plain(value), sort_keys=True, ensure_ascii=False)
    if len(text) <= ITEM_CHARS:
        return value if isinstance(value, str) else _plain(value)
    return text[: ITEM_CHARS - 1] + "…"


def _plain(value: Any) -> Any:
    if attrs.has(type(value)):
        return attrs.asdict(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def proposals(ctx: ReasonContext) -> list[Any]:
    """The modules' proposals for this tick, wherever the kernel put them (none before modules)."""
    found = getattr(ctx, "proposals", None)
    if found is None:
        found = getattr(ctx.state, "proposals", None)
    return list(found or [])


def _facts(ctx: ReasonContext, read: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[Any] = set()
    out: list[dict[str, Any]] = []
    reads = [{"key": r["key"], "value": r["value"]} for r in ctx.sem_reads if r.get("exists")]
    for item in [*read, *reads, *ctx.state.recalled.semantic]:
        key = item.get("key")
        if key in seen:
            continue
        seen.add(key)
        out.append({k: item[k] for k in ("key", "value", "fact") if k in item})
    return out


def sections(ctx: ReasonContext, read: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Every section's items, uncut, in order (``read``: :func:`sem_facts` of this tick)."""
    state = ctx.state
    recent = short_term(ctx.store)  # AgentOne's 200-item short-term memory; the newest that fit are sent
    said = {turn.split(": ", 1)[-1] for turn in recent}  # a turn is "source: text"
    memories = [hit["text"] for hit in ctx.recall_long_term(ctx.text, RECALL_K) if hit["text"] not in said]
    beliefs = [*state.beliefs.facts, *({"uncertain": text} for text in state.beliefs.uncertainties)]
    goal = getattr(state, "goal", None)
    return {
        "goal": [goal] if goal is not None else [],
        "facts": _facts(ctx, read),
        "proposals": proposals(ctx),
        "beliefs": beliefs,
        "long_term_memories": memories[:MEMORIES_MAX],
        "recent_turns": recent,
    }


def bounded(found: Mapping[str, Iterable[Any]], tokens: int = CONTEXT_TOKENS) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(context, report)``: the sections cut to the budget, and what was sent and left out."""
    room = tokens * 4
    context: dict[str, Any] = {}
    sent: dict[str, int] = {}
    omitted: dict[str, int] = {}
    for name in SECTIONS:
        items = [_cut(item) for item in found.get(name, ())]
        newest_first = name in NEWEST_FIRST
        kept = []
        for item in reversed(items) if newest_first else items:
            size = len(json.dumps(item, ensure_ascii=False, sort_keys=True)) + 2
            if size > room:
                break
            room -= size
            kept.append(item)
        if newest_first:
            kept.reverse()
        if name == "goal":
            context[name] = kept[0] if kept else None
        else:
            context[name] = kept
        sent[name] = len(kept)
        if len(items) > len(kept):
            omitted[name] = len(items) - len(kept)
    used = tokens - room // 4
    return context, {"sent": sent, "omitted": omitted, "tokens": used, "budget": tokens}
