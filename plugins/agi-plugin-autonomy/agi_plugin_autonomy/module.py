"""The ``autonomy`` module: goals of its own, pursued while the user is away, bounded and explained.

``perceive`` (the user's lines) notes when the user last spoke and the people they mention
("my sister Maya"). ``maintain`` (idle maintenance ticks under ``agi run --follow``), when the
user has been away ``idle_after_s`` and the hourly budget ``autonomous_ticks_per_hour`` allows:
reads the journal into the auto signals (``auto_signal_derivation``, ``auto_signal_registration``,
``auto_signal_keywords``), sets its drives (``homeostasis``), proposes goals (a question about a
mentioned person with unknown attributes; a reminder of the active goal), ranks them by the
signals (``cognition_goal_prioritizer``) and returns why it ran: the signal, the goal, the
budget. ``revise``, when the user returns, adds the top goal's question or reminder to the reply.
It never acts: no tool call, no write; it only adds words to a reply the brain already chose.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agi_core.modules import CognitiveModule, Draft, ModuleContext, Revision
from agi_plugin_autonomy import curiosity, signals, upkeep

STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "autonomy_state.json").read_text(encoding="utf-8")
)
HOUR_MS = 3_600_000
ENTITIES_KEPT = 20
GOALS_KEPT = 20
INTENTION = {"action_type": "converse", "description": "answer the user well and keep what they say consistent"}


def top_goal(goals: list[dict[str, Any]]) -> dict[str, Any]:
    """The highest priority; among equals the oldest, then the newest mention (the last in the list)."""
    return max(reversed(goals), key=lambda g: (g["priority"], -g["created_tick"]))


class AutonomyModule(CognitiveModule):
    """Proposes and pursues its own goals when the user is idle (see the package README)."""

    name = "autonomy"
    priority = 150  # revises after the modules that choose or reword the reply
    contracts = (
        "auto_signal_derivation",
        "auto_signal_registration",
        "auto_signal_keywords",
        "homeostasis",
        "cognition_goal_prioritizer",
        "semantic_memory_maintenance",
        "memory_summarizer",
        "memory_concept_curation",
    )
    state_schema = STATE_SCHEMA
    timeout_s = 30.0  # the LLM path asks a model; the heuristics take milliseconds

    # -- the user's lines ------------------------------------------------------------
    def perceive(self, ctx: ModuleContext) -> Any:
        if ctx.input.source != "user":
            return None
        before = ctx.own.get("last_user") or {"tick": 0}
        ctx.own.put("last_user", {"tick": ctx.tick, "ms": ctx.now_ms})
        entities = dict(ctx.own.get("entities") or {})
        mentioned = []
        for relation, name in curiosity.mentions(ctx.input.raw):
            key = name.lower()
            entities.pop(key, None)
            entities[key] = {"name": name, "relation": relation, "tick": ctx.tick}
            mentioned.append({"relation": relation, "name": name})
        if mentioned:
            ctx.own.put("entities", dict(list(entities.items())[-ENTITIES_KEPT:]))
        return {"since_tick": before["tick"], "mentioned": mentioned}

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """The user is back: the top open goal's question or reminder, once, after the reply."""
        if ctx.input.source != "user" or draft.action.type != "response":
            return None
        seen = ctx.earlier.get(self.name, {}).get("perceive")
        since = seen.get("since_tick", 0) if isinstance(seen, dict) else ctx.tick
        goals = list(ctx.own.get("goals") or [])
        ready = [g for g in goals if g["status"] == "open" and g["created_tick"] > since]  # proposed while away
        if not ready:
            return None
        top = top_goal(ready)
        top = {**top, "status": "asked", "asked_tick": ctx.tick}
        ctx.own.put("goals", [top if g["id"] == top["id"] else g for g in goals])
        return Revision.rewrite(f"{draft.reply} {top['text']}".strip(), f"autonomy goal {top['id']}")

    def observe(self, ctx: ModuleContext) -> Any:
        """An asked question is answered by the user's next line: the goal is done."""
        if ctx.input.source != "user":
            return None
        goals = list(ctx.own.get("goals") or [])
        done = [g["id"] for g in goals if g["status"] == "asked" and g.get("asked_tick", ctx.tick) < ctx.tick]
        if not done:
            return None
        ctx.own.put("goals", [{**g, "status": "done"} if g["id"] in done else g for g in goals])
        return {"done": done}

    # -- idle maintenance -------------------------------------------------------------
    def maintain(self, ctx: ModuleContext) -> Any:
        now = ctx.now_ms or 0
        per_hour = int(ctx.settings.get("autonomous_ticks_per_hour", 6))  # type: ignore[arg-type]
        idle_after_ms = int(float(ctx.settings.get("idle_after_s", 300)) * 1000)  # type: ignore[arg-type]
        spent = [ms for ms in (ctx.own.get("budget") or []) if now - ms < HOUR_MS]
        budget = {"used": len(spent), "per_hour": per_hour}
        last = ctx.own.get("last_user") or {}
        if isinstance(last.get("ms"), int) and ctx.now_ms is not None and now - last["ms"] < idle_after_ms:
            return {"ran": False, "why": "the user is active", "idle_ms": now - last["ms"], "budget": budget}
        if len(spent) >= per_hour:
            return {"ran": False, "why": "hourly budget spent", "budget": budget}
        ctx.own.put("budget", [*spent, now])
        budget["used"] += 1
        current = self._signals(ctx)
        goals = self._propose(ctx)
        scan = ctx.own.get("scan") or signals.empty_scan()
        opened = sum(g["status"] == "open" and g["kind"] == "question" for g in goals)
        current["unresolved_questions"]["value"] = float(scan["questions_unanswered"] + opened)
        ctx.own.put("signals", current)
        drives = self._drives(ctx, current, budget)
        goals = self._rank(ctx, goals, current, drives)
        open_goals = [g for g in goals if g["status"] == "open"]
        top = top_goal(open_goals) if open_goals else None
        signal = (
            current[top["signal"]] if top else max(current.values(), key=lambda s: (signals.pressure(s), s["metric"]))
        )
        why: dict[str, Any] = {
            "source": "maintain",
            "signal": {"metric": signal["metric"], "value": signal["value"], "pressure": signals.pressure(signal)},
            "goal": {k: top[k] for k in ("id", "kind", "text", "priority")} if top else None,
        }
        done = {"ran": True, "why": why, "drives": drives, "budget": budget, "open_goals": len(open_goals)}
        return {**done, "upkeep": self._upkeep(ctx)}

    def _upkeep(self, ctx: ModuleContext) -> dict[str, Any] | None:
        """A digest and the concepts of the user's lines since the last one, when enough came in."""
        memory = ctx.own.get("memory") or {"digests": [], "concepts": {}, "since": ""}
        lines = [line for line in upkeep.user_lines(ctx.memory.episodes(40)) if line["timestamp"] > memory["since"]]
        plan = ctx.contracts.call(
            "semantic_memory_maintenance",
            {"backlog": {"summaries": len(lines), "concepts": len(lines)}, "last_runs": {"summaries": memory["since"]}},
        )
        wanted = (plan.value or {}).get("run_summaries") if plan.source == "llm" else len(lines) >= upkeep.BATCH
        if not wanted or not lines:
            return None
        summary = upkeep.digest(lines)
        told = ctx.contracts.call("memory_summarizer", {"memories": lines})
        digests = (told.value or {}).get("digests") or []
        if told.source == "llm" and digests and isinstance(digests[0].get("summary"), str):
            summary = digests[0]["summary"][:400]
        found = upkeep.concepts(lines)
        curated = ctx.contracts.call("memory_concept_curation", {"memories": lines})
        if curated.source == "llm":
            found = [
                {"label": str(c["label"]).lower()[:40], "salience": 1}
                for c in (curated.value or {}).get("concepts") or []
                if isinstance(c.get("label"), str)
            ][:5]
        counts = dict(memory["concepts"])
        for concept in found:
            counts[concept["label"]] = counts.get(concept["label"], 0) + int(concept["salience"])
        top = dict(sorted(counts.items(), key=lambda x: (-x[1], x[0]))[:50])
        made = {"tick": ctx.tick, "summary": summary, "source_ids": [line["id"] for line in lines][:40]}
        memory = {"digests": [*memory["digests"], made][-10:], "concepts": top, "since": lines[-1]["timestamp"]}
        ctx.own.put("memory", memory)
        return {"digest": summary, "concepts": [c["label"] for c in found], "lines": len(lines)}

    def _signals(self, ctx: ModuleContext) -> dict[str, dict[str, Any]]:
        scan = ctx.own.get("scan") or signals.empty_scan()
        records = ctx.journal.records(since=scan["cursor"], limit=signals.SCAN_LIMIT)
        scan = signals.scanned(scan, records)
        ctx.own.put("scan", scan)
        registry: dict[str, dict[str, Any]] = dict(ctx.own.get("signals") or {})
        if not registry:
            registry = self._register(ctx)
        for metric, value in signals.values(scan, 0).items():
            if metric in registry:
                registry[metric] = {**registry[metric], "value": value, "updated_ms": ctx.now_ms or 0}
        texts = [
            str((r.get("input") or {}).get("raw") or "")[:300]
            for r in records
            if (r.get("input") or {}).get("source") == "user"
        ]
        if texts:
            found = ctx.contracts.call("auto_signal_keywords", {"text": "\n".join(texts[-10:])})
            words = [w[:40] for w in (found.value or {}).get("keywords") or [] if isinstance(w, str)][:10]
            for entry in registry.values():
                entry["keywords"] = words
        ctx.own.put("signals", registry)
        return registry

    def _register(self, ctx: ModuleContext) -> dict[str, dict[str, Any]]:
        """The signals, derived for the agent's intention and registered with a first observation."""
        derived = ctx.contracts.call("auto_signal_derivation", {"intention": INTENTION})
        wanted = {d["metric"]: d for d in signals.DEFINITIONS}
        registry: dict[str, dict[str, Any]] = {}
        for item in (derived.value or {}).get("signals") or []:
            metric = item.get("metric") if isinstance(item, Mapping) else None
            if isinstance(metric, str) and metric in wanted:  # only metrics the journal can measure
                base = wanted[metric]
                registry[metric] = {
                    "name": str(item.get("name") or base["name"])[:80],
                    "metric": metric,
                    "direction": item.get("direction") if item.get("direction") in ("above", "below") else "below",
                    "target": float(item.get("target", base["target"])),
                    "weight": min(1.0, max(0.0, float(item.get("weight", base["weight"])))),
                    "source": derived.source,
                }
        for metric, base in wanted.items():
            registry.setdefault(metric, {**base, "source": "heuristic"})
        ctx.contracts.call(
            "auto_signal_registration",
            {"signals": [{"metric": m, "last_value": 0.0, "last_updated": (ctx.now_ms or 0) / 1000} for m in registry]},
        )
        return {m: {**s, "value": 0.0, "updated_ms": ctx.now_ms or 0, "keywords": []} for m, s in registry.items()}

    def _drives(
        self, ctx: ModuleContext, current: dict[str, dict[str, Any]], budget: dict[str, int]
    ) -> dict[str, float]:
        """Curiosity rises with the unresolved questions, rest with the budget spent (``homeostasis``)."""
        unresolved = signals.pressure(current["unresolved_questions"])
        drives = {
            "curiosity": round(min(1.0, 0.5 + 0.5 * unresolved), 4),
            "rest": round(budget["used"] / max(1, budget["per_hour"]), 4),
        }
        asked = ctx.contracts.call(
            "homeostasis", {"state": {"drives": drives, "signals": {m: s["value"] for m, s in current.items()}}}
        )
        targets = (asked.value or {}).get("drive_targets") or {}
        if asked.source == "llm":
            drives.update({k: float(v) for k, v in targets.items() if k in drives and type(v) in (int, float)})
        ctx.own.put("drives", drives)
        return drives

    def _propose(self, ctx: ModuleContext) -> list[dict[str, Any]]:
        """New goals: a question about a mentioned person with an unknown attribute, a reminder of the active goal."""
        goals = list(ctx.own.get("goals") or [])
        about = {g["about"] for g in goals}
        pending = {g["about"].split("/")[1] for g in goals if g["kind"] == "question" and g["status"] != "done"}
        for key, entity in (ctx.own.get("entities") or {}).items():
            if key in pending:
                continue  # one question per person at a time
            known = {k.rsplit("/", 1)[-1] for k in ctx.memory.facts(f"user/person/{key}/")}
            known |= {k.rsplit("/", 1)[-1] for k in ctx.memory.facts(f"world/entity/{key}/")}
            for attribute, _ in curiosity.ATTRIBUTES:
                topic = f"person/{key}/{attribute}"
                if attribute not in known and topic not in about:
                    text = curiosity.question(entity["relation"], entity["name"], attribute)
                    goals.append(self._goal(ctx, "question", topic, text, "unresolved_questions"))
                    about.add(topic)
                    break  # one question per person at a time
        active = ctx.memory.working.active_goal
        if active is not None and f"goal/{active.id}" not in about:
            text = f"Reminder: you wanted to {active.description} (goal {active.id}, {active.progress:.0%} done)."
            goals.append(self._goal(ctx, "reminder", f"goal/{active.id}", text[:400], "f3_rate"))
        return goals

    def _rank(
        self,
        ctx: ModuleContext,
        goals: list[dict[str, Any]],
        current: dict[str, dict[str, Any]],
        drives: dict[str, float],
    ) -> list[dict[str, Any]]:
        """Each open goal's priority from its signal's pressure and a drive (``cognition_goal_prioritizer``)."""
        for goal in goals:
            if goal["status"] == "open":
                base = 0.5 if goal["kind"] == "question" else 0.4
                lift = signals.pressure(current[goal["signal"]])
                drive = drives["curiosity"] if goal["kind"] == "question" else 1 - drives["rest"]
                goal["priority"] = round(min(1.0, base + 0.3 * lift + 0.2 * drive), 4)
        ranked = ctx.contracts.call(
            "cognition_goal_prioritizer",
            {
                "goals": [
                    {"goal_id": g["id"], "description": g["text"], "priority": g["priority"], "status": g["status"]}
                    for g in goals
                    if g["status"] == "open"
                ]
            },
        )
        if ranked.source == "llm":
            chosen = {p["goal_id"]: p["priority"] for p in (ranked.value or {}).get("priorities") or []}
            for goal in goals:
                if goal["id"] in chosen:
                    goal["priority"] = round(float(chosen[goal["id"]]), 4)
        kept = goals[-GOALS_KEPT:]
        ctx.own.put("goals", kept)
        return kept

    def _goal(self, ctx: ModuleContext, kind: str, about: str, text: str, signal: str) -> dict[str, Any]:
        return {
            "id": "ag-" + ctx.new_id(about)[-8:],
            "kind": kind,
            "about": about,
            "text": text,
            "signal": signal,
            "priority": 0.5,
            "status": "open",
            "created_tick": ctx.tick,
        }
