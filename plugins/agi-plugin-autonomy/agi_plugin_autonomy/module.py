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

Every other contract it calls changes one of those steps (``asking``, ``pacing``, ``pursuit``,
``report``: the heuristic of each, replaced by the contract's validated model answer): what it
asks and whether it already knows the answer, whether it asks now, what the user allows, why it
asked, how hard it works, which goals go first, fade or expire, and the report it keeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agi_core.modules import ChangedReading, CognitiveModule, Draft, ModuleContext, Revision
from agi_core.serialization import is_number
from agi_plugin_autonomy import asking, curiosity, pacing, pursuit, report, signals, upkeep
from agi_plugin_autonomy.rotation import IdleCalls

STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "autonomy_state.json").read_text(encoding="utf-8")
)
HOUR_MS = 3_600_000
ENTITIES_KEPT = 20
GOALS_KEPT = 20
INTENTION = {"action_type": "converse", "description": "answer the user well and keep what they say consistent"}
EVOLVED = {"action_type": "answer_better", "description": "leave fewer of the user's lines unanswered"}
ALLOWED = {"questions": True, "reminders": True}
KIND_OF = {"question": "questions", "reminder": "reminders"}
LOG_KEPT = 20
DAYS_KEPT = 7
CONTEXT_WORDS = re.compile(r"\b(?:busy|work|meeting|driving|free|back|done|available)\b", re.I)


def top_goal(goals: list[dict[str, Any]]) -> dict[str, Any]:
    """The highest priority; among equals the oldest, then the newest mention (the last in the list)."""
    return max(reversed(goals), key=lambda g: (g["priority"], -g["created_tick"]))


def _number(low: float, high: float) -> Callable[[object], bool]:
    return lambda v: is_number(v) and low <= v <= high


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
        # asking
        "question_manager",
        "question_auto_answer",
        "autonomy_core",
        "cognition_context_inference",
        "world_model",
        "identity_mission",
        "reasoning_episode",
        "response_formatter",
        # pacing
        "phenomenal_kernel",
        "phenomenal_mode_manager",
        "system_monitor",
        "trigger_router",
        "cognition_proposer",
        "auto_evolution",
        # pursuit
        "goal_interpreter",
        "planner_support",
        "goal_priority_review",
        "runtime_job_manager",
        "scheduler",
        # a tool call the brain chose, weighed before it runs
        "action_interface",
        # report
        "runtime_analytics",
        "runtime_dash",
        "jsonl_logger",
    )
    state_schema = STATE_SCHEMA
    timeout_s = 60.0  # the LLM path asks a model (two contracts at most in a user's tick); the heuristics take ms
    #: an idle tick asks the model model_calls_per_idle_tick times (1: rotation.py); raise it with that setting
    phase_timeouts = MappingProxyType({"maintain": 120.0})

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
        return {"since_tick": before["tick"], "mentioned": mentioned, **self._context(ctx), **self._mission(ctx)}

    def _context(self, ctx: ModuleContext) -> dict[str, Any]:
        """Whether the user is busy (``cognition_context_inference``), asked when the line speaks of it."""
        where = dict(ctx.own.get("where") or {"busy": False})
        if not CONTEXT_WORDS.search(ctx.input.raw[:2000]):
            return {}
        inferred = ctx.contracts.call(
            "cognition_context_inference", {"signals": {"line": ctx.input.raw[:500]}, "identity": where}
        )
        told = inferred.advised("where", lambda v: type(v.get("busy")) is bool)
        if told is not None and inferred.advised("should_update") is True:
            busy = bool(told["busy"])
        else:
            busy = asking.busy(ctx.input.raw, bool(where["busy"]))
        ctx.own.put("where", {"busy": busy, "tick": ctx.tick})
        return {"busy": busy}

    def _mission(self, ctx: ModuleContext) -> dict[str, Any]:
        """What the user allows it to do ("stop asking me questions"; ``identity_mission``)."""
        if not asking.MISSION.search(ctx.input.raw[:2000]):
            return {}
        current = {**ALLOWED, **(ctx.own.get("mission") or {})}
        asked = ctx.contracts.call(
            "identity_mission", {"mission": current, "experience": {"line": ctx.input.raw[:500]}}
        )
        told = asked.advised("mission", lambda v: all(type(v.get(k, True)) is bool for k in ALLOWED))
        mission = (
            {k: bool(told.get(k, current[k])) for k in ALLOWED} if told else asking.mission(ctx.input.raw, current)
        )
        ctx.own.put("mission", mission)
        return {"mission": mission}

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """The user is back: the top open goal's question or reminder, once, after the reply, when the time is
        right (``world_model``) and the user allows it; "why did you ask?" gets the reason (``reasoning_episode``)."""
        if draft.action.type == "tool":
            return self._weigh(ctx, draft)
        if ctx.input.source != "user" or draft.action.type != "response":
            return None
        last = ctx.own.get("last_asked")
        if last and asking.WHY.search(ctx.input.raw[:2000]):
            reasoned = ctx.contracts.call("reasoning_episode", {"question": ctx.input.raw[:300], "context": last})
            told = reasoned.advised("summary", lambda v: isinstance(v, str) and v.strip())
            return Revision.replace(" ".join(told.split())[:400] if told else asking.reasoning(last), "why it asked")
        seen = ctx.earlier.get(self.name, {}).get("perceive")
        since = seen.get("since_tick", 0) if isinstance(seen, dict) else ctx.tick
        goals = list(ctx.own.get("goals") or [])
        allowed = {**ALLOWED, **(ctx.own.get("mission") or {})}
        held = set(ctx.own.get("held") or [])
        ready = [
            g
            for g in goals
            if g["status"] == "open" and (g["created_tick"] > since or g["id"] in held) and allowed[KIND_OF[g["kind"]]]
        ]  # proposed while away (or held back for a better moment), of a kind the user allows
        if not ready:
            return None
        now = asking.situation(ctx.input.raw, draft.reply, bool((ctx.own.get("where") or {}).get("busy")))
        judged = ctx.contracts.call("world_model", {"situation": now, "options": ["ask_now", "wait"]})
        told = judged.advised("action", lambda v: v in ("ask_now", "wait"))
        if (told == "wait") if told is not None else not asking.ask_now(now):
            ctx.own.put("held", [g["id"] for g in ready][-GOALS_KEPT:])  # asked at a better moment
            return None
        chosen = ctx.own.get("next")
        top = next((g for g in ready if g["id"] == chosen), None) or top_goal(ready)
        top = {**top, "status": "asked", "asked_tick": ctx.tick}
        ctx.own.put("goals", [top if g["id"] == top["id"] else g for g in goals])
        signal = (ctx.own.get("signals") or {}).get(top["signal"]) or {"value": 0.0, "target": 0.0}
        ctx.own.put(
            "last_asked",
            {
                **{k: top[k] for k in ("id", "kind", "about", "text")},
                "signal": {"metric": top["signal"], "value": signal["value"], "target": signal["target"]},
            },
        )
        self._count(ctx, "goals_asked")
        said = asking.joined(draft.reply, top["text"])
        formatted = ctx.contracts.call("response_formatter", {"text": said})
        told = formatted.advised("message", lambda v: isinstance(v, str) and draft.reply in v and len(v) <= 800)
        return Revision.rewrite(told or said, f"autonomy goal {top['id']}")

    def _weigh(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """The tool call the brain chose, weighed before it runs (``action_interface``: impact, effort, risk;
        without a model, risk by the tool's declared effect): at or over the setting ``action_risk_limit``
        it is vetoed, the estimate and its rationale said."""
        effect = ctx.tool_effect(draft.action.name) or "unknown"
        weighed = ctx.contracts.call("action_interface", {"actions": [{"name": draft.action.name, "type": effect}]})
        found = next((a for a in (weighed.value or {}).get("actions", []) if a.get("name") == draft.action.name), None)
        limit = float(ctx.settings.get("action_risk_limit", 0.8))
        if found is None or not isinstance(found.get("risk"), int | float) or found["risk"] < limit:
            return None
        why = str(found.get("rationale") or effect)[:200]
        return Revision.veto(
            f"risk {found['risk']:g} of {draft.action.name} reaches action_risk_limit {limit:g} ({why})",
            f"I won't run {draft.action.name}: its risk ({found['risk']:g}: {why}) reaches my limit of {limit:g}.",
        )

    def observe(self, ctx: ModuleContext) -> Any:
        """An asked question is settled by the user's next line: answered when the answer is stored (a fact about
        the person's attribute) or understood in the question's context ("she is a nurse" after "What does Maya do
        for a living?": kept in ``answers``), ignored when the line speaks of no one; otherwise it stays open."""
        if ctx.input.source != "user":
            return None
        goals = list(ctx.own.get("goals") or [])
        due = [g for g in goals if g["status"] == "asked" and g.get("asked_tick", ctx.tick) < ctx.tick]
        if not due:
            return None
        answers = dict(ctx.own.get("answers") or {})
        settled: dict[str, dict[str, Any]] = {}
        for goal in due:
            if goal["kind"] != "question":
                settled[goal["id"]] = {"status": "done"}
                continue
            _, key, attribute = goal["about"].split("/")
            if asking.ignored(key, ctx.input.raw):
                settled[goal["id"]] = {"status": "done", "answered": False}
                continue
            name = (ctx.own.get("entities") or {}).get(key, {}).get("name", key.capitalize())
            value = self._stored(ctx, key, attribute) or asking.answer_to(name, attribute, ctx.input.raw)
            if value is None:  # spoke of someone, but nothing stored or understood: not answered yet
                settled[goal["id"]] = {"status": "open"}
                continue
            answers.pop(goal["about"], None)
            answers[goal["about"]] = value
            settled[goal["id"]] = {"status": "done", "answered": True}
        ctx.own.put("goals", [{**g, **settled[g["id"]]} if g["id"] in settled else g for g in goals])
        if answers != (ctx.own.get("answers") or {}):
            ctx.own.put("answers", dict(list(answers.items())[-40:]))
        return {
            "done": [gid for gid, how in settled.items() if how["status"] == "done"],
            **({"open": open_} if (open_ := [gid for gid, how in settled.items() if how["status"] == "open"]) else {}),
        }

    @staticmethod
    def _stored(ctx: ModuleContext, key: str, attribute: str) -> str | None:
        """The stored fact that answers the person's ``attribute`` (``user/person/KEY/ATTR``, ``world/entity/…``)."""
        for prefix in ("user/person", "world/entity"):
            found = ctx.memory.fact(f"{prefix}/{key}/{attribute}")
            if found.exists:
                return str(found.value)[:60]
        return None

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
        limit = int(ctx.settings.get("model_calls_per_idle_tick", 1))  # type: ignore[arg-type]
        calls_from = int(ctx.own.get("model_turn") or 0)
        calls = ctx.contracts = IdleCalls(ctx.contracts, calls_from, limit)
        current = self._evolve(ctx, self._signals(ctx))
        mood = self._mood(ctx, budget, current)
        goals = self._propose(ctx) if mood["mode"] == "travail" else list(ctx.own.get("goals") or [])
        scan = ctx.own.get("scan") or signals.empty_scan()
        opened = sum(g["status"] == "open" and g["kind"] == "question" for g in goals)
        current["unresolved_questions"]["value"] = float(scan["questions_unanswered"] + opened)
        ctx.own.put("signals", current)
        drives = self._drives(ctx, current, budget, self._risks(ctx, goals, current))
        goals = self._rank(ctx, goals, current, drives)
        open_goals = [g for g in goals if g["status"] == "open"]
        top = self._next(ctx, open_goals)
        signal = (
            current[top["signal"]] if top else max(current.values(), key=lambda s: (signals.pressure(s), s["metric"]))
        )
        why: dict[str, Any] = {
            "source": "maintain",
            "signal": {"metric": signal["metric"], "value": signal["value"], "pressure": signals.pressure(signal)},
            "goal": {k: top[k] for k in ("id", "kind", "text", "priority")} if top else None,
        }
        done = {"ran": True, "why": why, "drives": drives, "budget": budget, "open_goals": len(open_goals)}
        self._report(ctx, current, why, len(open_goals))
        done = {**done, "mood": mood, "upkeep": self._upkeep(ctx)}
        if calls.next_turn() != calls_from:
            ctx.own.put("model_turn", calls.next_turn())
        return {**done, "model": calls.asked} if calls.asked else done

    # -- pacing ----------------------------------------------------------------------------
    def _evolve(self, ctx: ModuleContext, current: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """After several ticks with the F3 rate off target, "answer better" is promoted (``auto_evolution``)."""
        evolution = dict(ctx.own.get("evolution") or {"streak": 0, "promoted": []})
        off = signals.pressure(current["f3_rate"]) > 0
        evolution["streak"] = evolution["streak"] + 1 if off else 0
        if EVOLVED["action_type"] in evolution["promoted"] or not off:
            ctx.own.put("evolution", evolution)
            return current
        asked = ctx.contracts.call(
            "auto_evolution", {"intention": EVOLVED, "context": {"f3_rate": current["f3_rate"], **evolution}}
        )
        told = asked.advised("accepted", lambda v: type(v) is bool)
        if told if told is not None else pacing.evolve(evolution["streak"], current):
            evolution["promoted"] = [*evolution["promoted"], EVOLVED["action_type"]]
            weight = round(min(1.0, current["f3_rate"]["weight"] + pacing.EVOLVED_WEIGHT), 4)
            current = {**current, "f3_rate": {**current["f3_rate"], "weight": weight}}
            ctx.own.put("signals", current)
        ctx.own.put("evolution", evolution)
        return current

    def _mood(self, ctx: ModuleContext, budget: dict[str, int], current: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Energy, arousal, hedonic reward (``phenomenal_kernel``) and the mode (``phenomenal_mode_manager``)."""
        mood: dict[str, Any] = pacing.mood(budget, current)
        felt = ctx.contracts.call("phenomenal_kernel", {"state": {**mood, "budget": budget}, "events": {}})
        for key in ("energy", "arousal", "hedonic_reward"):
            told = felt.advised(key, _number(0, 1))
            mood[key] = round(float(told), 4) if told is not None else mood[key]
        moded = ctx.contracts.call("phenomenal_mode_manager", {"state": mood})
        mood["mode"] = moded.advised("mode", lambda v: v in ("travail", "flanerie")) or pacing.mode(mood["energy"])
        ctx.own.put("mood", mood)
        return mood

    def _risks(self, ctx: ModuleContext, goals: list[dict[str, Any]], current: dict[str, dict[str, Any]]) -> list[str]:
        """Risks in the agent's own measurements (``system_monitor``): each raises the rest drive."""
        measurements = {
            "open_goals": sum(g["status"] == "open" for g in goals),
            "contradictions": current["contradiction_count"]["value"],
        }
        seen = ctx.contracts.call("system_monitor", {"measurements": measurements})
        told = seen.advised("risks", lambda v: isinstance(v, list) and all(isinstance(r, str) for r in v))
        return [r[:80] for r in told][:5] if told is not None else pacing.risks(measurements)

    def _next(self, ctx: ModuleContext, open_goals: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The goal that goes first (``runtime_job_manager``), kept for ``revise``."""
        if not open_goals:
            ctx.own.delete("next")
            return None
        ranked = sorted(reversed(open_goals), key=lambda g: (-g["priority"], g["created_tick"]))  # as top_goal
        jobs = [
            {"job_id": g["id"], "kind": g["kind"], "priority": g["priority"], "age": ctx.tick - g["created_tick"]}
            for g in ranked
        ]
        last = (ctx.own.get("last_asked") or {}).get("kind")
        managed = ctx.contracts.call("runtime_job_manager", {"jobs": jobs})
        told = managed.advised("prioritized_jobs", lambda v: isinstance(v, list))
        known = {g["id"]: g for g in ranked}
        picked = next(
            (
                j["job_id"]
                for j in told or []
                if isinstance(j, Mapping) and isinstance(j.get("job_id"), str) and j["job_id"] in known
            ),
            None,
        )
        chosen = known[picked] if picked else known[pursuit.first_job(jobs, last) or ranked[0]["id"]]
        ctx.own.put("next", chosen["id"])
        return chosen

    def _report(
        self, ctx: ModuleContext, current: dict[str, dict[str, Any]], why: dict[str, Any], open_goals: int
    ) -> None:
        """The signals off target (``runtime_analytics``), the event (``jsonl_logger``), the day (``runtime_dash``)."""
        metrics = {m: {k: s[k] for k in ("value", "target", "direction")} for m, s in current.items()}
        analysed = ctx.contracts.call("runtime_analytics", {"metrics": metrics})
        alerts = analysed.advised("alerts", lambda v: isinstance(v, list) and all(isinstance(a, Mapping) for a in v))
        alerts = [report.plain(a) for a in alerts][:10] if alerts is not None else report.alerts(current)
        told = analysed.advised("summary", lambda v: isinstance(v, str) and v.strip())
        summary = told[:400] if told else report.summary(report.alerts(current), len(current))
        ctx.own.put("report", {"tick": ctx.tick, "summary": summary, "alerts": alerts, "source": analysed.source})
        logged = ctx.contracts.call("jsonl_logger", {"event": why})
        tags, priority = report.tags(why)
        told_tags = logged.advised("tags", lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v))
        entry = {
            "tick": ctx.tick,
            "tags": sorted({*tags, *(t[:40] for t in told_tags or [])})[:10],
            "priority": str(logged.advised("priority", lambda v: isinstance(v, str) and v) or priority)[:20],
            "goal": (why["goal"] or {}).get("id"),
        }
        ctx.own.put("log", [*(ctx.own.get("log") or []), entry][-LOG_KEPT:])
        self._count(ctx, "autonomous_ticks", open_goals=open_goals)

    def _count(self, ctx: ModuleContext, counter: str, **also: Any) -> None:
        """Today's counters; a new day first closes the previous one with its summary (``runtime_dash``)."""
        if ctx.now_ms is None:
            return
        today = report.day(ctx.now_ms)
        dash = dict(ctx.own.get("dash") or {"today": None, "days": []})
        current = dash["today"] or {"day": today, "autonomous_ticks": 0, "goals_asked": 0, "open_goals": 0}
        if current["day"] != today:
            told = ctx.contracts.call("runtime_dash", {"metrics": current}).advised(
                "daily_summary", lambda v: isinstance(v, str) and v.strip()
            )
            dash["days"] = [*dash["days"], {"day": current["day"], "summary": (told or report.daily(current))[:300]}][
                -DAYS_KEPT:
            ]
            current = {"day": today, "autonomous_ticks": 0, "goals_asked": 0, "open_goals": 0}
        current = {**current, **also, counter: current[counter] + 1}
        ctx.own.put("dash", {**dash, "today": current})

    def _upkeep(self, ctx: ModuleContext) -> dict[str, Any] | None:
        """A digest and the concepts of the user's lines since the last one, when enough came in."""
        memory = ctx.own.get("memory") or {"digests": [], "concepts": {}, "since": ""}
        since = memory["since"]
        lines = upkeep.recent_user_lines(ctx).view(lambda read: [line for line in read if line["timestamp"] > since])
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
        self, ctx: ModuleContext, current: dict[str, dict[str, Any]], budget: dict[str, int], risks: list[str]
    ) -> dict[str, float]:
        """Curiosity rises with the unresolved questions, rest with the budget spent and each risk (``homeostasis``)."""
        unresolved = signals.pressure(current["unresolved_questions"])
        drives = {
            "curiosity": round(min(1.0, 0.5 + 0.5 * unresolved), 4),
            "rest": round(min(1.0, budget["used"] / max(1, budget["per_hour"]) + pacing.RISK_REST * len(risks)), 4),
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
        """New goals, of the kinds the user allows: a question about a mentioned person with an unknown attribute
        (unless the user already said it, or ignored the last one), a reminder of the active goal."""
        goals = list(ctx.own.get("goals") or [])
        allowed = {**ALLOWED, **(ctx.own.get("mission") or {})}
        about = {g["about"] for g in goals}
        pending = {g["about"].split("/")[1] for g in goals if g["kind"] == "question" and g["status"] != "done"}
        said = upkeep.recent_user_lines(ctx)
        known_answers = dict(ctx.own.get("answers") or {})
        for key, entity in (ctx.own.get("entities") or {}).items() if allowed["questions"] else ():
            if key in pending or not self._pursue(ctx, key, entity, goals):
                continue  # one question per person at a time; none after an ignored one
            known = {k.rsplit("/", 1)[-1] for k in ctx.memory.facts(f"user/person/{key}/")}
            known |= {k.rsplit("/", 1)[-1] for k in ctx.memory.facts(f"world/entity/{key}/")}
            gaps = []
            for attribute, _ in curiosity.ATTRIBUTES:
                topic = f"person/{key}/{attribute}"
                if attribute in known or topic in about or topic in known_answers:
                    continue
                found = self._answered(ctx, entity, attribute, said)
                if found is not None:
                    known_answers[topic] = found  # the user already said it: ask the next thing
                    continue
                gaps.append(attribute)
                if len(gaps) == 2:  # enough to choose from
                    break
            if gaps:
                attribute, text = self._question(ctx, entity, gaps, goals)
                goals.append(self._goal(ctx, "question", f"person/{key}/{attribute}", text, "unresolved_questions"))
                about.add(f"person/{key}/{attribute}")  # one question per person at a time
        if known_answers:
            ctx.own.put("answers", dict(list(known_answers.items())[-40:]))
        active = ctx.memory.working.active_goal
        if allowed["reminders"] and active is not None and f"goal/{active.id}" not in about:
            goals.append(self._goal(ctx, "reminder", f"goal/{active.id}", self._reminder(ctx, active), "f3_rate"))
        return goals

    def _pursue(self, ctx: ModuleContext, key: str, entity: dict[str, Any], goals: list[dict[str, Any]]) -> bool:
        """Whether to ask about a person again (``autonomy_core``): not after a question they ignored."""
        history = [
            {"text": g["text"], "answered": g["answered"]}
            for g in goals
            if g["kind"] == "question" and g["about"].split("/")[1] == key and "answered" in g
        ]
        if not history:
            return True
        decided = ctx.contracts.call(
            "autonomy_core",
            {"goal": f"learn about the user's {entity['relation']} {entity['name']}", "history": history},
        )
        told = decided.advised("decision", lambda v: v.get("action") in ("ask", "wait"))
        return told["action"] == "ask" if told is not None else bool(history[-1]["answered"])

    def _answered(
        self, ctx: ModuleContext, entity: dict[str, Any], attribute: str, said: ChangedReading[list[dict[str, str]]]
    ) -> str | None:
        """What the user already said about the person's ``attribute`` (``question_auto_answer``), or None."""
        name = entity["name"].lower()
        heard = said.view(lambda read: [line["text"] for line in read if name in line["text"].lower()])
        if not heard:
            return None
        question = dict(curiosity.ATTRIBUTES)[attribute].format(name=entity["name"])
        answered = ctx.contracts.call("question_auto_answer", {"question": question, "knowledge": heard[-10:]})
        told = answered.advised("answer", lambda v: isinstance(v, str) and v.strip())
        if told is not None and answered.advised("confidence", _number(0.7, 1)) is not None:
            return told.strip()[:60]
        return asking.answer(entity["name"], attribute, heard)

    def _question(
        self, ctx: ModuleContext, entity: dict[str, Any], gaps: list[str], goals: list[dict[str, Any]]
    ) -> tuple[str, str]:
        """The attribute to ask about and the question (``question_manager``): not the attribute of the last
        question asked when another is unknown; the model's words when they name the person."""
        asked_before = sorted((g for g in goals if "asked_tick" in g), key=lambda g: g["asked_tick"])
        last = asked_before[-1]["about"].rsplit("/", 1)[-1] if asked_before else None
        attribute = asking.pick(gaps, last)
        text = curiosity.question(entity["relation"], entity["name"], attribute)
        wanted = [{"person": entity["name"], "relation": entity["relation"], "attribute": a} for a in gaps]
        recent = [g["text"] for g in asked_before[-3:]]
        made = ctx.contracts.call("question_manager", {"gaps": wanted, "recent": recent})
        told = made.advised("questions", lambda v: isinstance(v, list) and v and isinstance(v[0].get("text"), str))
        asked = " ".join(str(told[0]["text"]).split())[:300] if told else ""
        if entity["name"].lower() in asked.lower() and asked.endswith("?"):
            return attribute, f"You mentioned your {entity['relation']} {entity['name']}. {asked}"[:400]
        return attribute, text

    def _reminder(self, ctx: ModuleContext, active: Any) -> str:
        """The goal as a phrase and the action (``goal_interpreter``), its next step (``planner_support``)."""
        read = ctx.contracts.call("goal_interpreter", {"goal": active.description[:300]})
        phrase = read.advised("normalized_goal", lambda v: isinstance(v, str) and v.strip()) or pursuit.normalized(
            active.description
        )
        first = (read.advised("candidate_actions", lambda v: isinstance(v, list)) or [{}])[0]
        action = (
            first.get("action")
            if isinstance(first, Mapping) and first.get("action") in ("remind", "ask_progress")
            else None
        )
        planned = ctx.contracts.call("planner_support", {"goal": phrase, "context": {"progress": active.progress}})
        told = planned.advised(
            "plan", lambda v: isinstance(v, list) and all(isinstance(x.get("description"), str) for x in v)
        )
        steps = [str(x["description"])[:120] for x in told][:8] if told else pursuit.plan(phrase)
        text = (
            f"Reminder: you wanted to {' '.join(phrase.split())[:200]} (goal {active.id}, {active.progress:.0%} done)."
        )
        step = pursuit.next_step(steps, active.progress)
        if step:
            text += f" Next step: {step}."
        if (action or pursuit.action(active.progress)) == "ask_progress":
            text += " How is it going?"
        return text[:400]

    def _rank(
        self,
        ctx: ModuleContext,
        goals: list[dict[str, Any]],
        current: dict[str, dict[str, Any]],
        drives: dict[str, float],
    ) -> list[dict[str, Any]]:
        """Each open goal's priority from its signal's pressure and a drive (``cognition_goal_prioritizer``), the
        base of questions (``cognition_proposer``), the routed pipeline (``trigger_router``), fading
        (``goal_priority_review``) and expiry (``scheduler``)."""
        question_base = self._question_base(ctx, goals)
        routed = self._route(ctx, current)
        for goal in goals:
            if goal["status"] == "open":
                base = question_base if goal["kind"] == "question" else 0.4
                lift = signals.pressure(current[goal["signal"]])
                drive = drives["curiosity"] if goal["kind"] == "question" else 1 - drives["rest"]
                routed_lift = pacing.ROUTED_LIFT if KIND_OF[goal["kind"]] == routed else 0.0
                goal["priority"] = round(min(1.0, base + 0.3 * lift + 0.2 * drive + routed_lift), 4)
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
        for goal in goals:
            if goal["status"] == "open" and ctx.tick - goal["created_tick"] >= pursuit.FADE_EVERY:
                goal["priority"] = self._review(ctx, goal)
        kept = self._expire(ctx, goals)[-GOALS_KEPT:]
        ctx.own.put("goals", kept)
        return kept

    def _question_base(self, ctx: ModuleContext, goals: list[dict[str, Any]]) -> float:
        """How much questions weigh, from how often the user answered them (``cognition_proposer``)."""
        answered = sum(g.get("answered") is True for g in goals)
        ignored = sum(g.get("answered") is False for g in goals)
        proposed = ctx.contracts.call(
            "cognition_proposer",
            {
                "self_model": {"question_base": pacing.QUESTION_BASE},
                "signals": {"answered": answered, "ignored": ignored},
            },
        )
        told = proposed.advised("suggestions", lambda v: isinstance(v, list))
        for suggestion in told or []:
            value = suggestion.get("value") if isinstance(suggestion, Mapping) else None
            path = suggestion.get("path") if isinstance(suggestion, Mapping) else None
            if path in ("question_base", ["question_base"]) and is_number(value) and 0.3 <= value <= 0.7:
                return round(float(value), 4)
        return pacing.question_base(answered, ignored)

    def _route(self, ctx: ModuleContext, current: dict[str, dict[str, Any]]) -> str:
        """The pipeline the worst signal calls for first (``trigger_router``)."""
        worst = max(current.values(), key=lambda s: (signals.pressure(s), s["metric"]))
        trigger = {"metric": worst["metric"], "pressure": signals.pressure(worst)}
        routed = ctx.contracts.call("trigger_router", {"trigger": trigger, "pipelines": ["questions", "reminders"]})
        told = routed.advised("pipelines", lambda v: isinstance(v, list) and v and v[0] in ("questions", "reminders"))
        return str(told[0]) if told else pacing.route(current)[0]

    def _review(self, ctx: ModuleContext, goal: dict[str, Any]) -> float:
        """A goal open for long fades (``goal_priority_review``)."""
        age = ctx.tick - goal["created_tick"]
        reviewed = ctx.contracts.call(
            "goal_priority_review",
            {"goal": {"id": goal["id"], "text": goal["text"], "age_ticks": age}, "priority": goal["priority"]},
        )
        told = reviewed.advised("priority", _number(0, 1))
        return round(float(told), 4) if told is not None else pursuit.faded(goal["priority"], age)

    def _expire(self, ctx: ModuleContext, goals: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Open goals older than the schedule allows are dropped (``scheduler``)."""
        oldest = max((ctx.tick - g["created_tick"] for g in goals if g["status"] == "open"), default=0)
        planned = ctx.contracts.call(
            "scheduler", {"state": {"open_goals": len(goals), "oldest_age_ticks": oldest, "targets": ["goals"]}}
        )
        after = pursuit.EXPIRE_AFTER
        for action in planned.advised("actions", lambda v: isinstance(v, list)) or []:
            if not isinstance(action, Mapping):
                continue
            args = action.get("args")
            if (
                action.get("method") == "expire"
                and isinstance(args, Mapping)
                and _number(20, 100_000)(args.get("older_than_ticks"))
            ):
                after = int(args["older_than_ticks"])
        return [g for g in goals if g["status"] != "open" or ctx.tick - g["created_tick"] < after]

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
