"""Heuristic fallbacks of the memory upkeep contracts: how an item is stored, its tags and
salience, the links between memories, the digest, the narrative, the upkeep schedule, the
index boosts, and what a percept holds.

Each is a deterministic function of the call's variables (words counted, never guessed), so a
module that consumes them behaves the same with no model and replays equal.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of

Variables = Mapping[str, Any]

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
STOPWORDS = frozenset(
    """a an the and or but if of to in on at for with by from about as into over after before is are was were be
    been being am do does did done have has had having i you he she it we they me him her them my your his its our
    their this that these those what which who whom whose when where why how there here not no so than too very can
    could will would shall should may might must just also then only some any all more most such own same other
    like get got go going went really oh yeah well um hey hi hello thanks thank please ok okay yes called
    i'm you're it's that's what's""".split()
)
_PREFERENCE = re.compile(r"\b(favou?rite|prefer|love|like|hate|enjoy)\b", re.I)
_PERSONAL = re.compile(r"\b(my|i|i'm|me|mine)\b", re.I)
TAGS_KEPT = 5
DIGEST_THEMES = 5
LINKS_KEPT = 10


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def tags_of(text: str) -> list[str]:
    """The content words of ``text`` (3 letters or more, not stopwords), first seen first, at most 5."""
    return list(dict.fromkeys(w for w in words(text) if len(w) >= 3 and w not in STOPWORDS))[:TAGS_KEPT]


def memory_store_strategy(variables: Variables) -> dict[str, Any]:
    """A question or greeting is kept low, a preference or a personal statement high, the rest normal."""
    item = mapping_of(variables.get("item"))
    text = text_of(item.get("text"))
    tags = tags_of(text)
    if text.endswith("?") or not tags:
        kind, priority = ("question" if text.endswith("?") else "chatter"), "low"
    elif _PREFERENCE.search(text):
        kind, priority = "preference", "high"
    elif _PERSONAL.search(text):
        kind, priority = "personal", "high"
    else:
        kind, priority = "statement", "normal"
    return {"normalized_kind": kind, "tags": tags, "retention_priority": priority, "notes": "heuristic: words"}


def memory_semantic_bridge(variables: Variables) -> dict[str, Any]:
    """The memories, ids intact, with their tags (given, else their content words) and a salience:
    0.8 for a high retention priority, 0.5 normal, 0.2 low."""
    out = []
    for memory in map(mapping_of, items_of(variables.get("memories"))):
        if type(memory.get("id")) not in (str, int):
            continue
        given = [t for t in items_of(memory.get("tags")) if isinstance(t, str) and t]
        tags = given or tags_of(text_of(memory.get("text")))
        salience = {"high": 0.8, "normal": 0.5, "low": 0.2}.get(str(memory.get("priority")), 0.5)
        out.append({"id": memory["id"], "kind": text_of(memory.get("kind"), 40) or "memory", "tags": tags[:TAGS_KEPT]})
        out[-1]["salience"] = salience
    return {"memories": out}


def episodic_linker(variables: Variables) -> dict[str, Any]:
    """Memories sharing a tag are ``related``, with the share of tags they share as confidence."""
    memories = mapping_of(variables.get("memories"))
    tagged = {alias: set(items_of(mapping_of(m).get("tags"))) for alias, m in memories.items()}
    aliases = sorted(tagged, key=lambda a: (len(a), a))
    links: list[dict[str, Any]] = []
    for i, src in enumerate(aliases):
        for dst in aliases[i + 1 :]:
            shared, union = tagged[src] & tagged[dst], tagged[src] | tagged[dst]
            if shared:
                share = round(len(shared) / len(union), 4)
                links.append({"src": src, "dst": dst, "relation": "related", "confidence": share})
    links.sort(key=lambda link: -link["confidence"])
    return {"links": links[:LINKS_KEPT], "notes": "heuristic: shared tags"}


def memory_long_term_digest(variables: Variables) -> dict[str, Any]:
    """The most frequent tags as themes (ties: first seen), the count as trend, the first memories as highlights."""
    memories = [mapping_of(m) for m in items_of(mapping_of(variables.get("digest")).get("memories"))]
    counts: Counter[str] = Counter(t for m in memories for t in items_of(m.get("tags")) if isinstance(t, str))
    order: dict[str, int] = {}
    for tag in (t for m in memories for t in items_of(m.get("tags")) if isinstance(t, str)):
        order.setdefault(tag, len(order))
    themes = sorted(counts, key=lambda t: (-counts[t], order[t]))[:DIGEST_THEMES]
    highlights = [
        {"period": text_of(m.get("time"))[:10], "note": text_of(m.get("text"), 200)} for m in memories[:3] if m
    ]
    return {"themes": themes, "trend": f"{len(memories)} memorable statement(s)", "highlights": highlights}


def memory_system_narrative(variables: Variables) -> dict[str, Any]:
    """The base narrative and what the user said, in the order said; coherence: the share of events kept."""
    events = [mapping_of(e) for e in items_of(variables.get("events"))]
    base = text_of(variables.get("narrative"))
    said = [text_of(e.get("text"), 200).rstrip(".!") for e in events if text_of(e.get("text"))][:5]
    told = f" You told me: {'; '.join(said)}." if said else ""
    return {
        "enhanced_narrative": (base + told).strip(),
        "coherence": round(len(said) / len(events), 4) if events else 0.0,
        "insights": [],
        "notes": "heuristic: the events as said",
    }


def semantic_memory_manager(variables: Variables) -> dict[str, Any]:
    """Each task's period halved while its backlog is 10 or more; the next run one period after ``now``."""
    given = variables.get("now")
    now: int = given if isinstance(given, int) and not isinstance(given, bool) else 0
    tasks = []
    for task in map(mapping_of, items_of(variables.get("tasks"))):
        name, asked = task.get("task"), task.get("period")
        if not isinstance(name, str) or not isinstance(asked, (int, float)) or isinstance(asked, bool) or asked <= 0:
            continue
        period, backlog = int(asked), task.get("backlog")
        period = period // 2 if type(backlog) is int and backlog >= 10 else period
        tasks.append({"task": name, "category": "upkeep", "period": max(period, 1), "next_run": now + max(period, 1)})
    return {"tasks": tasks}


def memory_index_optimizer(variables: Variables) -> dict[str, Any]:
    """A boost of 0.1 times the share of the query's terms a document holds (``terms``: the caller's
    keywords of the query; else its content words)."""
    terms = {t for t in items_of(variables.get("terms")) if isinstance(t, str)} or set(
        tags_of(text_of(variables.get("query")))
    )
    reranked = []
    for document in map(mapping_of, items_of(variables.get("documents"))):
        if type(document.get("id")) is not int or not terms:
            continue
        held = set(words(text_of(document.get("title"), 4000)))
        reranked.append({"id": document["id"], "boost": round(0.1 * len(terms & held) / len(terms), 6)})
    return {"reranked": reranked}


def perception_module(variables: Variables) -> dict[str, Any]:
    """What the scene names: a file (its name and size) and the content words of its text; no settings."""
    scene = mapping_of(variables.get("scene"))
    metadata = mapping_of(scene.get("metadata"))
    observations: list[dict[str, Any]] = []
    if isinstance(metadata.get("file"), str) and metadata["file"]:
        size = metadata.get("bytes") if type(metadata.get("bytes")) is int else None
        observations.append({"object": "file", "name": metadata["file"][:200], "bytes": size})
    if tags := tags_of(text_of(scene.get("text"))):
        observations.append({"object": "text", "topics": tags})
    return {"observations": observations, "recommended_settings": {}, "notes": "heuristic: metadata and words"}


__all__ = [
    "episodic_linker",
    "memory_index_optimizer",
    "memory_long_term_digest",
    "memory_semantic_bridge",
    "memory_store_strategy",
    "memory_system_narrative",
    "perception_module",
    "semantic_memory_manager",
]
