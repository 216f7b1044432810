"""Memory upkeep in maintenance ticks: what the user said lately, kept or not,
tagged, linked, digested and told back as a narrative.

The steps, each a contract (its heuristic fallback without a provider):

1. ``semantic_memory_manager`` schedules the upkeep: it runs when due (``next_run``) and the
   user said something since the last one; the manager sets the next run (a backlog of 10 or
   more halves the period);
2. ``memory_store_strategy`` decides each recent statement's kind, tags and retention priority:
   a ``low`` one (questions, chatter) is left out of the digest;
3. ``memory_semantic_bridge`` relays the kept ones with their tags and salience, ids intact
   (a memory whose id the bridge lost is dropped);
4. ``episodic_linker`` links the memories (``m0``, ``m1`` …) that belong together;
5. ``memory_long_term_digest`` draws themes and highlights;
6. ``memory_system_narrative`` writes the narrative the module says when asked "what have we
   talked about?".
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from agi_core.modules import ChangedReading, ModuleContext
from agi_core.serialization import is_number
from agi_plugin_retrieval import forgotten

DIGEST_PERIOD_S = 3600
NEW_KEPT = 20  # the newest statements one upkeep looks at
EPISODES_READ = 200
PAST_BOOKKEEPING = "statements_past_bookkeeping"  # the change (ctx.changed) that reads past clock ticks
SALIENT_AT = 0.5


def recent_statements(ctx: ModuleContext) -> ChangedReading[list[dict[str, Any]]]:
    """The user's newest inputs, oldest first, at most ``NEW_KEPT``, however many clock and maintenance
    ticks came after them (the change ``PAST_BOOKKEEPING``), and as read before it, among the newest
    ``EPISODES_READ`` episodes only (an idle half hour of ``--follow`` ticks), so a journal from then
    replays so. The change is asked for only where what the upkeep does with them differs."""
    newest = _statements(ctx.memory.episodes(EPISODES_READ))[-NEW_KEPT:]
    found = _statements(ctx.memory.episodes(NEW_KEPT, user_inputs=True))
    return ChangedReading(ctx, PAST_BOOKKEEPING, newest, found)


def _statements(episodes: list[Any]) -> list[dict[str, Any]]:
    """The user's inputs among ``episodes`` (newest first), oldest first."""
    found = [
        {"id": e.id[:16], "text": e.event[:500], "time": e.timestamp}
        for e in episodes
        if e.context.get("kind") == "input" and e.context.get("source") == "user"
    ]
    return found[::-1]


def now_seconds(ctx: ModuleContext) -> int:
    """The tick's clock reading in seconds; without a clock, the deterministic timestamp's."""
    if ctx.now_ms is not None:
        return ctx.now_ms // 1000
    return int(datetime.fromisoformat(ctx.now().replace("Z", "+00:00")).timestamp())


def due(ctx: ModuleContext, backlog: Callable[[], int]) -> bool:
    """``semantic_memory_manager``'s schedule: run when the next run has come and there is a backlog
    (``backlog()``, read only then); the manager sets the next run."""
    schedule = ctx.own.get("schedule") or {}
    now_s = now_seconds(ctx)
    if now_s < schedule.get("next_run", 0):
        return False
    waiting = backlog()
    if waiting == 0:
        return False
    tasks = [{"task": "digest", "period": DIGEST_PERIOD_S, "backlog": waiting}]
    planned = ctx.contracts.call("semantic_memory_manager", {"tasks": tasks, "now": now_s}).value or {}
    task: dict[str, Any] = next((t for t in planned.get("tasks") or [] if t.get("task") == "digest"), {})
    period, next_run = task.get("period"), task.get("next_run")
    period = period if is_number(period) and period > 0 else DIGEST_PERIOD_S
    next_run = next_run if is_number(next_run) else now_s + period
    ctx.own.put("schedule", {"period": int(period), "next_run": int(max(next_run, now_s)), "backlog": waiting})
    return True


def kept(ctx: ModuleContext, statements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The statements ``memory_store_strategy`` does not rank low, tagged and made salient by the bridge."""
    strategies = []
    for item in statements:
        asked = ctx.contracts.call("memory_store_strategy", {"item": {"kind": "input", "text": item["text"]}})
        value = asked.value or {}
        tags = [t.lower()[:40] for t in value.get("tags") or [] if isinstance(t, str)][:5]
        priority, kind = value.get("retention_priority"), value.get("normalized_kind")
        priority = priority if isinstance(priority, str) else "normal"
        kind = kind if isinstance(kind, str) else "input"
        if priority != "low":
            strategies.append({**item, "kind": kind[:40], "tags": tags, "priority": priority})
    if not strategies:
        return []
    sent = [{k: s[k] for k in ("id", "kind", "text", "tags", "priority")} for s in strategies]
    relayed = ctx.contracts.call("memory_semantic_bridge", {"memories": sent}).value or {}
    annotated = {m["id"]: m for m in relayed.get("memories") or [] if isinstance(m, dict) and "id" in m}
    out = []
    for item in strategies:
        if item["id"] not in annotated:
            continue  # the bridge lost it: not relayed
        note = annotated[item["id"]]
        salience = note.get("salience")
        salience = salience if is_number(salience) else 0.5
        tags = [t.lower()[:40] for t in note.get("tags") or [] if isinstance(t, str)][:5] or item["tags"]
        if salience >= SALIENT_AT:
            out.append({**item, "tags": tags, "salience": round(float(salience), 4)})
    return out


def linked(ctx: ModuleContext, memories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``episodic_linker``'s links between the memories, by text (a link naming an unknown alias is dropped)."""
    aliases = {f"m{i}": m for i, m in enumerate(memories)}
    shown = {alias: {"text": m["text"], "tags": m["tags"]} for alias, m in aliases.items()}
    value = ctx.contracts.call("episodic_linker", {"memories": shown}).value or {}
    links = []
    for link in value.get("links") or []:
        src, dst = aliases.get(str(link.get("src"))), aliases.get(str(link.get("dst")))
        if src is not None and dst is not None and src is not dst:
            confidence = link.get("confidence") if type(link.get("confidence")) in (int, float) else 0.5
            relation = str(link.get("relation") or "related")[:40]
            links.append({"src": src["id"], "dst": dst["id"], "relation": relation, "confidence": confidence})
    return links[:10]


def narrative_of(ctx: ModuleContext, memories: list[dict[str, Any]], links: list[dict[str, Any]]) -> dict[str, Any]:
    """``memory_long_term_digest``'s themes, then ``memory_system_narrative``'s telling of them."""
    digest = {"memories": [{k: m[k] for k in ("text", "tags", "time")} for m in memories], "links": len(links)}
    drawn = ctx.contracts.call("memory_long_term_digest", {"digest": digest})
    themes = [t for t in (drawn.value or {}).get("themes") or [] if isinstance(t, str)][:5]
    base = f"We talked about {', '.join(themes)}." if themes else "We talked about a few things."
    if links:
        by_id = {m["id"]: m["text"] for m in memories}
        base += f" '{by_id[links[0]['src']]}' goes with '{by_id[links[0]['dst']]}'."
    events = [{"id": m["id"], "text": m["text"], "time": m["time"]} for m in memories]
    told = ctx.contracts.call("memory_system_narrative", {"events": events, "narrative": base})
    text = (told.value or {}).get("enhanced_narrative")
    narrative = text.strip()[:1000] if isinstance(text, str) and text.strip() else base
    return {"themes": themes, "narrative": narrative, "source": told.source if narrative != base else "base"}


def run(ctx: ModuleContext) -> dict[str, Any] | None:
    """One upkeep of the newest statements: None when none is new since the last or it is not due."""
    last = ctx.own.get("digest") or {}
    reading = recent_statements(ctx)
    since = str(last.get("until", ""))
    if not due(ctx, lambda: reading.view(lambda statements: sum(1 for s in statements if s["time"] > since))):
        return None  # not due, or no backlog either way: the same both ways, nothing recorded
    statements = reading.view(lambda statements: statements)
    until = statements[-1]["time"]
    memories = kept(ctx, forgotten.unsaid(ctx, statements)[0])  # what was forgotten is not digested
    if not memories:
        ctx.own.put("digest", {**last, "until": until, "tick": ctx.tick})
        return {"kept": 0}
    links = linked(ctx, memories)
    told = narrative_of(ctx, memories, links)
    earlier = [t for t in last.get("themes", []) if t not in told["themes"]]
    digest = {
        "themes": told["themes"],
        "earlier_themes": earlier[:10],
        "narrative": told["narrative"],
        "source": told["source"],
        "links": links,
        "memories": [{k: m[k] for k in ("id", "text", "kind", "tags", "salience")} for m in memories],
        "until": until,
        "tick": ctx.tick,
    }
    ctx.own.put("digest", digest)
    return {"kept": len(memories), "themes": told["themes"], "links": len(links)}
