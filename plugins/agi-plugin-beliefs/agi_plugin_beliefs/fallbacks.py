"""Heuristic fallbacks of the beliefs contracts: the belief module's path without a model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agi_core.contracts.fallbacks import items_of, mapping_of, text_of
from agi_plugin_beliefs import graph, linking


def entity_linker(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The candidate closest to the mention across spellings; none close enough: the mention itself, new."""
    mention = text_of(variables.get("mention"), 200) or "unknown"
    candidates = [mapping_of(c) for c in items_of(variables.get("candidates"))]
    found = linking.best_match(mention, candidates)
    if found is None:
        ident = linking.normalized(mention).replace(" ", "_") or "unknown"
        entity = {"canonical_id": ident, "entity_type": "unknown", "confidence": 0.0, "aliases": [mention]}
        return {"entity": entity, "aliases": [], "notes": "heuristic: no candidate close enough"}
    entity = {"canonical_id": found[0], "entity_type": "belief", "confidence": found[1], "aliases": [mention]}
    return {"entity": entity, "aliases": [mention], "notes": "heuristic: normalized spelling match"}


def ontology_enrichment(variables: Mapping[str, Any]) -> dict[str, Any]:
    """An entity type per observed entity type, a relation per observed attribute (domain: that type)."""
    entities: dict[str, dict[str, Any]] = {}
    relations: dict[str, dict[str, Any]] = {}
    for observation in items_of(variables.get("observations")):
        seen = mapping_of(observation)
        kind, attribute = seen.get("entity_type"), seen.get("attribute")
        if isinstance(kind, str) and kind:
            entities.setdefault(kind, {"name": kind, "parent": "thing"})
            if isinstance(attribute, str) and attribute:
                relations.setdefault(attribute, {"name": attribute, "domain": kind, "range": "value"})
    return {"entities": list(entities.values()), "relations": list(relations.values()), "events": [], "notes": ""}


def belief_graph_orchestrator(variables: Mapping[str, Any]) -> dict[str, Any]:
    """``upsert_belief``: the belief after the statement by the graph's rules; a contradiction as a pair."""
    payload = mapping_of(variables.get("payload"))
    known = [mapping_of(b) for b in items_of(variables.get("beliefs"))]
    key = payload["key"] if isinstance(payload.get("key"), str) else "unknown"
    belief = next((b for b in known if b.get("key") == key and "confidence" in b), None)
    tick = payload["tick"] if type(payload.get("tick")) is int else 0
    source = payload["source"] if isinstance(payload.get("source"), str) else "hearsay"
    after, change = graph.updated(
        dict(belief) if belief is not None else None,
        key=key,
        label=str(payload.get("label") or key),
        value=payload.get("value"),
        source=source,
        tick=tick,
        stored=payload.get("stored") is True,
    )
    pairs = [{"positive": key, "negative": f"{key}#{change}"}] if change in ("changed", "contested") else []
    return {
        "result": {"operation": "upsert_belief", "belief_id": key},
        "updates": {"beliefs": [{"id": key, "value": after["value"], "confidence": after["confidence"]}]},
        "pairs": pairs,
        "notes": f"heuristic: {change}",
    }


def belief_summarizer(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The graph's own wording of each belief: confidence, value, evidence, earlier values."""
    beliefs = [mapping_of(b) for b in items_of(variables.get("beliefs"))]
    texts = [graph.summary(dict(b)) for b in beliefs if {"label", "value", "confidence", "evidence"} <= set(b)]
    scores = [float(b["confidence"]) for b in beliefs if type(b.get("confidence")) in (int, float)]
    coherence = min(1.0, max(0.0, sum(scores) / len(scores))) if scores else 0.0
    return {"narrative": " ".join(texts), "anchors": [str(b.get("key")) for b in beliefs], "coherence_score": coherence}
