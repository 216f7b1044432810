"""The ``learning`` module: feedback on a reply becomes a reward on the decisions that produced it.

``perceive`` reads the user's line as feedback on the previous reply (``feedback.read``:
"thanks" +1, "that's wrong" and "no, I meant …" −1, the same question again −0.5) and moves
the weight of each decision behind that reply (the router's agent, a module's candidate, a
module's revision such as a social tactic: ``policy.decisions`` of the journal record) towards
the reward (``policy.updated``), with the evidence; ``experiential_learning_cycle`` draws the
lesson. ``revise`` uses the weights: a reply from a decision that weighs under
``policy.AVOID_BELOW`` is replaced by another module's candidate that weighs more
(``learning_reinforcement_policy`` picks among them), and ``vote`` (the council seat
``learned_feedback``) rejects a claimed value the user said was wrong. ``maintain`` assesses how it is doing
(``learning_self_assessment``) and tunes itself (``tuning``: its learning rate, its avoidance
threshold, retries of punished decisions, priors of new ones). A criticism without a correction,
once curious enough, gets a question back (``response_contract``). The weights are the module's own
state: journaled, replayed, rolled back with the agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agi_core.modules import CognitiveModule, Draft, ModuleContext, Revision
from agi_core.serialization import is_number
from agi_plugin_learning import feedback, policy, tuning

STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "learning_state.json").read_text(encoding="utf-8")
)
WEIGHTS_KEPT = 100
LESSONS_KEPT = 10
CORRECTIONS_KEPT = 20
#: the feedback that says a claimed value was wrong; the same question asked again only weighs on the reply
SAID_WRONG = frozenset({"wrong", "meant"})
#: the change (``ctx.changed``) that leaves out of the council's vote a claim punished only by questions asked
#: again (before: any claim weighing under ``policy.AVOID_BELOW``, so asking three times rejected the answer)
SAID_WRONG_ONLY = "said_wrong_only"


class LearningModule(CognitiveModule):
    """Turns feedback into weights on decisions, and avoids what was punished (see the package README)."""

    name = "learning"
    priority = 40  # replaces a reply before the modules that reword it
    contracts = (
        "learning_reinforcement_policy",
        "experiential_learning_cycle",
        "learning_self_assessment",
        "learning_curiosity_update",
        "response_contract",
        "learning_meta_controller",
        "learning_auto_curriculum",
        "learning_curriculum_planner",
        "learning_transfer_mapping",
    )
    state_schema = STATE_SCHEMA
    timeout_s = 60.0  # the LLM path asks a model (two contracts on feedback); the heuristics take microseconds
    phase_timeouts = MappingProxyType({"maintain": 300.0})  # five contracts, while the user is away

    def __init__(self) -> None:
        self.distrusted: dict[str, float] = {}  # this tick's punished claims, for vote (set in perceive)

    def perceive(self, ctx: ModuleContext) -> Any:
        weights = ctx.own.get("weights") or {}
        punished = {k: w for k, w in weights.items() if k.startswith("claim:") and w["weight"] < policy.AVOID_BELOW}
        said_wrong = {k for k, w in punished.items() if any(e.get("feedback") in SAID_WRONG for e in w["evidence"])}
        if len(said_wrong) < len(punished) and not ctx.changed(SAID_WRONG_ONLY):  # a journal from before
            said_wrong = set(punished)
        self.distrusted = {k: punished[k]["weight"] for k in said_wrong}
        if ctx.input.source != "user":
            return None
        turns = [t[len("user: ") :] for t in ctx.memory.working.recent_turns if t.startswith("user: ")]
        if feedback.read(ctx.input.raw, turns[-1] if turns else None) is None:
            return None  # not feedback even against the last line in working memory: the journal is not read
        previous = next(
            (r for r in reversed(ctx.journal.last(5)) if (r.get("input") or {}).get("source") == "user"), None
        )
        if previous is None:
            return None
        said = feedback.read(ctx.input.raw, str((previous.get("input") or {}).get("raw") or ""))
        if said is None:
            return None
        kind, detail = said
        reward = feedback.REWARDS[kind]
        evidence = {
            "tick": int(previous.get("tick") or 0),
            "feedback": kind,
            "reward": reward,
            "line": ctx.input.raw[:120],
        }
        weights = dict(ctx.own.get("weights") or {})
        moved = {}
        tuned = ctx.own.get("tuning") or {}
        rate, priors = float(tuned.get("rate", policy.RATE)), ctx.own.get("priors") or {}
        for decision in policy.decisions(previous, self.name):
            before = weights.pop(decision, None)  # the newest last: the oldest go first past WEIGHTS_KEPT
            prior = float(priors.get(tuning.family(decision) or "", 0.0))
            weights[decision] = policy.updated(before, reward, evidence, rate=rate, prior=prior)
            moved[decision] = weights[decision]["weight"]
        ctx.own.put("weights", dict(list(weights.items())[-WEIGHTS_KEPT:]))
        if kind == "meant" and detail:  # what the earlier line meant, kept for the record
            asked = feedback.normalized(str((previous.get("input") or {}).get("raw") or "")) or "?"
            corrections = {**(ctx.own.get("corrections") or {})}
            corrections.pop(asked, None)
            corrections[asked] = detail
            ctx.own.put("corrections", dict(list(corrections.items())[-CORRECTIONS_KEPT:]))
        self._lesson(ctx, kind, reward, moved, previous)
        self._curiosity(ctx, kind, reward)
        return {"feedback": kind, "reward": reward, "about_tick": evidence["tick"], "weights": moved}

    def _curiosity(self, ctx: ModuleContext, kind: str, reward: float) -> None:
        """The curiosity level after this feedback (``learning_curiosity_update``)."""
        level = float(ctx.own.get("curiosity", tuning.CURIOSITY_START))
        asked = ctx.contracts.call(
            "learning_curiosity_update", {"stimulus": {"feedback": kind, "reward": reward}, "level": level}
        )
        told = asked.advised("curiosity_level", lambda v: type(v) in (int, float) and 0 <= v <= 1)
        ctx.own.put("curiosity", round(float(told), 4) if told is not None else tuning.curiosity(level, kind))

    def _lesson(
        self, ctx: ModuleContext, kind: str, reward: float, moved: dict[str, float], previous: Mapping[str, Any]
    ) -> None:
        experience = {
            "input": str((previous.get("input") or {}).get("raw") or "")[:200],
            "reply": str(previous.get("final_output") or "")[:200],
            "feedback": kind,
            "reward": reward,
            "decisions": moved,
        }
        answer = ctx.contracts.call("experiential_learning_cycle", {"experience": experience})
        summary = (answer.value or {}).get("summary")
        if answer.source != "llm" or not isinstance(summary, str) or not summary.strip():
            summary = f"{kind} on tick {previous.get('tick')}: " + ", ".join(f"{d} → {w:g}" for d, w in moved.items())
        lessons = [*(ctx.own.get("lessons") or []), {"tick": ctx.tick, "text": summary[:300], "source": answer.source}]
        ctx.own.put("lessons", lessons[-LESSONS_KEPT:])

    def vote(self, claims: list[dict[str, Any]], evidence_items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A council seat (voter ``learned_feedback``): reject a claimed value the user said was wrong."""
        for claim in claims:
            decision = policy.claim_decision(claim)
            if decision in self.distrusted:
                reason = f"the user said {decision} was wrong (weight {self.distrusted[decision]:g})"
                return [{"voter": "learned_feedback", "vote": "reject", "reason": reason}]
        return [{"voter": "learned_feedback", "vote": "approve", "reason": "no feedback against these claims"}]

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """A reply from a punished decision gives way to another module's candidate that weighs more."""
        if ctx.input.source != "user" or draft.action.type != "response":
            return None
        weights = ctx.own.get("weights") or {}
        avoided = f"agent:{draft.agent}"
        low = weights.get(avoided, {}).get("weight", 0.0)
        if low >= float((ctx.own.get("tuning") or {}).get("avoid_below", policy.AVOID_BELOW)):
            return self._ask_back(ctx, draft)
        others: dict[str, tuple[float, float, str]] = {}
        for module, phases in ctx.earlier.items():
            proposed = phases.get("deliberate") if isinstance(phases, Mapping) else None
            for candidate in (proposed or {}).get("candidates") or [] if isinstance(proposed, Mapping) else []:
                key = f"agent:module:{module}"
                weight = weights.get(key, {}).get("weight", 0.0)
                if key != avoided and weight > low and isinstance(candidate.get("reply"), str):
                    others.setdefault(key, (weight, float(candidate.get("score") or 0), candidate["reply"]))
        if not others:
            return self._ask_back(ctx, draft)
        ranked = sorted(others, key=lambda k: (-others[k][0], -others[k][1], k))
        chosen = ctx.contracts.call(
            "learning_reinforcement_policy",
            {"state": {"avoid": avoided, "weights": {k: others[k][0] for k in ranked}}, "actions": ranked},
        )
        pick = (chosen.value or {}).get("action")
        pick = pick if chosen.source == "llm" and pick in others else ranked[0]
        reason = f"chose {pick} ({others[pick][0]:g}) over {avoided} ({low:g})"
        return Revision.replace(others[pick][2], reason)

    def _ask_back(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """Criticised without a correction and curious enough: ask for the right answer (``response_contract``)."""
        seen = ctx.earlier.get(self.name, {}).get("perceive")
        if not isinstance(seen, Mapping) or seen.get("feedback") != "wrong":
            return None
        if float(ctx.own.get("curiosity", tuning.CURIOSITY_START)) < tuning.ASK_AT:
            return None
        context = {"line": ctx.input.raw[:200], "about_tick": seen.get("about_tick"), "draft": draft.reply[:300]}
        asked = ctx.contracts.call("response_contract", {"context": context})
        question = asked.advised("prochain_test", lambda v: isinstance(v, str) and v.strip().endswith("?"))
        question = " ".join(question.split())[:200] if question else tuning.NEXT_TEST
        return Revision.rewrite(f"{draft.reply} {question}".strip(), f"asked back ({asked.source})")

    def maintain(self, ctx: ModuleContext) -> Any:
        """How the replies are doing: the feedback count and mean reward (``learning_self_assessment``)."""
        weights = ctx.own.get("weights") or {}
        rewards = [e["reward"] for w in weights.values() for e in w["evidence"]]
        mean = round(sum(rewards) / len(rewards), 4) if rewards else 0.0
        asked = ctx.contracts.call(
            "learning_self_assessment",
            {"concept": "replies", "evidence": {"feedbacks": len(rewards), "mean_reward": mean}},
        )
        confidence = (asked.value or {}).get("confidence")
        if asked.source != "llm" or type(confidence) not in (int, float):
            confidence = round((mean + 1) / 2, 4)
        assessment = {"feedbacks": len(rewards), "mean_reward": mean, "confidence": confidence, "source": asked.source}
        ctx.own.put("assessment", assessment)
        return {**assessment, **self._tune(ctx, rewards)}

    def _tune(self, ctx: ModuleContext, rewards: list[float]) -> dict[str, Any]:
        """The rate, the threshold, the retries and the priors, from the evidence (``tuning``)."""
        weights = dict(ctx.own.get("weights") or {})
        performance = {"feedbacks": len(rewards), "negative": sum(r < 0 for r in rewards)}
        meta = ctx.contracts.call("learning_meta_controller", {"module": self.name, "performance": performance})
        adjustments = meta.advised("adjustments", lambda v: isinstance(v, Mapping)) or {}
        rate = adjustments.get("learning_rate")
        rate = float(rate) if is_number(rate) and 0.05 <= rate <= 0.9 else tuning.rate(rewards)
        curriculum = ctx.contracts.call(
            "learning_auto_curriculum", {"progress": {**performance, "mean_reward": _mean(rewards)}}
        )
        adjustments = curriculum.advised("adjustments", lambda v: isinstance(v, Mapping)) or {}
        avoid = adjustments.get("avoid_below")
        avoid = float(avoid) if is_number(avoid) and -0.9 <= avoid <= 0 else tuning.avoid_below(rewards)
        ctx.own.put("tuning", {"rate": rate, "avoid_below": avoid, "source": f"{meta.source}/{curriculum.source}"})
        punished = [
            {"name": d, "weight": w["weight"], "idle_ticks": ctx.tick - tuning.last_tick(w)}
            for d, w in weights.items()
            if w["weight"] < avoid and not d.startswith("claim:")
        ]
        planned = ctx.contracts.call("learning_curriculum_planner", {"modules": punished})
        focus = planned.advised("focus_modules", lambda v: isinstance(v, list))
        known = {p["name"] for p in punished}
        retried = (
            [d for d in focus if isinstance(d, str) and d in known][:10]
            if focus is not None
            else tuning.retries(weights, ctx.tick, avoid)
        )
        for decision in retried:  # forgiven halfway to the threshold: the next choice may try it again
            weights[decision] = {**weights[decision], "weight": round(avoid / 2, 4)}
        if retried:
            ctx.own.put("weights", weights)
        source = {d: w["weight"] for d, w in weights.items() if w["n"] >= tuning.ESTABLISHED}
        mapped = ctx.contracts.call(
            "learning_transfer_mapping",
            {"source": source, "target": sorted({tuning.family(d) or "" for d in weights} - {""})},
        )
        families = {tuning.family(d) for d in weights} - {None}
        target = mapped.advised("updated_target", lambda v: isinstance(v, Mapping))
        priors = (
            {
                k: round(float(v), 4)
                for k, v in target.items()
                if k in families and type(v) in (int, float) and -1 <= v <= 1
            }
            if target is not None
            else tuning.priors(weights)
        )
        ctx.own.put("priors", dict(list(priors.items())[:20]))
        return {"rate": rate, "avoid_below": avoid, "retried": retried, "priors": priors}


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0
