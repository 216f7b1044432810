"""The ``social`` module: a profile per interlocutor, a tactic per reply, the reply's form adapted.

``perceive`` reads the message (register, rudeness, name, topics, the adaptive lexicon) into
the speaker's profile and scores the tactic of the previous reply from this reaction
(``social_interaction_outcome``, then ``social_rule_update``). ``revise`` picks a tactic
(``social_tactic_selector``) and rewrites the reply's form (``social_conversation_rewrite``);
a rewrite that would change a fact (:func:`~agi_plugin_social.rewrite.keeps_facts`) is
refused and the heuristic form used instead. Without a contract provider every contract
answers with its heuristic fallback; either way each call is validated and journaled.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar

from agi_core.model import Input
from agi_core.modules import CognitiveModule, Draft, ModuleContext, Revision
from agi_core.serialization import is_number
from agi_plugin_social import answers, critic, rewrite, signals, tactics, tone

STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "social_state.json").read_text(encoding="utf-8")
)
DEFAULT_SPEAKER = "user"
FORMAL_AT, INFORMAL_AT = 0.25, -0.25
TOPICS_KEPT, OUTCOMES_KEPT = 8, 10
MOOD_KEPT = 0.6  # the share of the previous mood kept when a turn's valence comes in
ADOPT_AT = 0.6  # the simulated score from which a mined rule is adopted
#: the change (``ctx.changed``) that asks "What do you mean?" only where the meaning is not plain: recorded where a
#: quoted rulebook reply or a line told of its writer would change the tactic, so a journal from before replays
PLAIN_MEANING = "plain_meaning"
#: the change that takes a speaker for informal only once they used an informal marker ("hey", "lol", "ok"): before
#: it, lines' shape alone (a lowercase start, a contraction) made the register informal; recorded where it differs
MARKED_INFORMAL = "marked_informal"
#: the change that takes a statement for the answer to an open question only when it stores a fact the question's
#: tick read and missed (before it: when it held the question's content words, "my sister lives in Paris" answered
#: "what does my sister do?"); recorded where the two ways differ (keeping a question's missed keys, an answer)
ANSWERED_BY_READS = "answered_by_reads"
PENDING_KEPT = 5  # open questions kept per speaker
TURNS_READ = 200  # the journal records a conversation's context is drawn from
FOLLOW_UP_WINDOW = 10  # a speaker's turns before clarify may ask them the same follow-up (or topic) again
GREETINGS = {"formal": "Good day.", "informal": "Hey!", "neutral": "Hello!"}
UNANSWERED = ("unknown", "missing", "failure")


def speaker_of(data: Input) -> str:
    return data.speaker or DEFAULT_SPEAKER


def conversational(data: Input) -> bool:
    """A line someone said (not the clock, maintenance, a job or a goal step)."""
    return data.source in ("user", "event") or data.speaker is not None


def key(kind: str, speaker: str) -> str:
    """``profile/SPEAKER`` (a long label by its hash: state keys hold 200 characters)."""
    label = speaker if len(speaker) <= 180 else "sha256-" + hashlib.sha256(speaker.encode()).hexdigest()[:32]
    return f"{kind}/{label}"


def new_profile(speaker: str) -> dict[str, Any]:
    return {
        "speaker": speaker[:200],
        "name": None,
        "register": "neutral",
        "formality": 0.0,
        "turns": 0,
        "rude_turns": 0,
        "topics": {},
        "lexicon": [],
        "outcomes": [],
        "mood": 0.0,
    }


def register_of(formality: float) -> str:
    return "formal" if formality >= FORMAL_AT else "informal" if formality <= INFORMAL_AT else "neutral"


def informal_marked(profile: dict[str, Any], seen: signals.Signals) -> bool:
    """Whether the speaker used an informal marker: in this line, or one their lexicon keeps."""
    return any(kind == "informal" for _t, kind in seen.markers) or any(
        entry.get("kind") == "informal" for entry in profile["lexicon"]
    )


def clean_lexicon(tokens: Any) -> list[dict[str, Any]] | None:
    """The lexicon a contract returned, kept to what the state allows (None: unusable)."""
    if not isinstance(tokens, list):
        return None
    out = []
    for entry in tokens:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str) or not entry["token"].strip():
            continue
        kind = entry.get("kind") if entry.get("kind") in (*signals.MARKER_KINDS, "other") else "other"
        weight = entry["weight"] if is_number(entry.get("weight")) else 1.0
        weight = float(weight) if abs(weight) < 1e9 else 1.0
        out.append({"token": entry["token"].strip().lower()[:40], "kind": kind, "weight": round(weight, 4)})
    return out[: signals.LEXICON_SIZE]


def unit(value: Any) -> float | None:
    return float(value) if is_number(value) and 0 <= value <= 1 else None


class SocialModule(CognitiveModule):
    """Knows who it talks to and adapts the form of its replies (docs: the package README)."""

    name = "social"
    priority = 200  # revises late: after the modules that change what a reply says
    contracts = (
        "social_adaptive_lexicon",
        "social_interaction_outcome",
        "social_rule_update",
        "social_tactic_selector",
        "social_conversation_rewrite",
        "social_interaction_context",
        "social_conversation_analysis",
        "social_interaction_miner",
        "social_simulation_score",
        "social_rule_self_evaluation",
        "intent_ingestion",
        "dialogue_state",
        "language_nlg",
        "conversation_context",
    )
    state_schema = STATE_SCHEMA
    timeout_s = 180.0  # the LLM path asks a model up to five times a phase; the heuristics take microseconds
    # idle time: the critic asks a model once per speaker and rule
    phase_timeouts: ClassVar[dict[str, float]] = {"maintain": 600.0}

    def perceive(self, ctx: ModuleContext) -> Any:
        if not conversational(ctx.input):
            return None
        speaker, text = speaker_of(ctx.input), ctx.text
        profile = ctx.own.get(key("profile", speaker)) or new_profile(speaker)
        lexicon = ctx.contracts.call("social_adaptive_lexicon", {"text": text, "state": {"tokens": profile["lexicon"]}})
        if lexicon.ok and (tokens := clean_lexicon((lexicon.value or {}).get("state", {}).get("tokens"))) is not None:
            profile["lexicon"] = tokens
        learned = {entry["token"]: entry["kind"] for entry in profile["lexicon"]}
        seen = signals.read(text, learned)
        profile["formality"] = round(0.6 * profile["formality"] + 0.4 * seen.register_score, 4)
        profile["register"] = register_of(profile["formality"])
        if profile["register"] == "informal" and not informal_marked(profile, seen) and ctx.changed(MARKED_INFORMAL):
            profile["register"] = "neutral"  # the shape alone (lowercase, a contraction) is no informality
        profile["turns"] += 1
        profile["rude_turns"] += int(seen.rude)
        profile["name"] = seen.name or profile["name"] or (ctx.input.speaker if ctx.input.speaker else None)
        upset, turn_topics = self._context(ctx, profile, text, seen)
        topics = dict(profile["topics"])
        for topic in turn_topics:
            topics[topic] = topics.get(topic, 0) + 1
        profile["topics"] = dict(sorted(topics.items(), key=lambda item: (-item[1], item[0]))[:TOPICS_KEPT])
        outcome = self._score_pending(ctx, speaker, seen, profile)
        ctx.own.put(key("profile", speaker), profile)
        intent = (ctx.contracts.call("intent_ingestion", {"text": text}).value or {}).get("intent") or {}
        return {
            "speaker": speaker,
            "register": profile["register"],
            "signals": seen.to_json(),
            "upset": upset,
            "intent": str(intent.get("label") or "").upper()[:40],
            "outcome": outcome,
        }

    def _context(
        self, ctx: ModuleContext, profile: dict[str, Any], text: str, seen: signals.Signals
    ) -> tuple[bool, list[str]]:
        """``social_interaction_context``: whether the writer is upset, the turn's topics; the mood moves
        with the turn's valence. An unusable answer keeps the markers' reading."""
        snapshot = {k: profile.get(k) for k in ("register", "formality", "turns", "rude_turns")}
        snapshot["mood"] = profile.get("mood", 0.0)
        value = ctx.contracts.call("social_interaction_context", {"snapshot": snapshot, "turn": text}).value or {}
        context, measured = value.get("context") or {}, value.get("signals") or {}
        risk, valence = unit(measured.get("risk")), measured.get("valence")
        upset = context.get("upset") is True or (risk is not None and risk >= critic.UPSET_AT)
        if is_number(valence) and -1 <= valence <= 1:
            profile["mood"] = round(MOOD_KEPT * profile.get("mood", 0.0) + (1 - MOOD_KEPT) * valence, 4)
        topics = value.get("topics")
        if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
            topics = list(seen.topics)
        return upset, [t.strip().lower()[:40] for t in topics if t.strip()][:3]

    def _score_pending(
        self, ctx: ModuleContext, speaker: str, seen: signals.Signals, profile: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The previous reply's tactic, scored by this reaction; its rule's confidence updated."""
        pending = ctx.own.get(key("pending", speaker))
        if pending is None:
            return None
        tactic = pending["tactic"]
        judged = ctx.contracts.call(
            "social_interaction_outcome",
            {"exchange": {"reply": pending["reply"], "reaction": ctx.text}, "tactic": {"name": tactic}},
        )
        reward = unit((judged.value or {}).get("reward"))
        source = judged.source if reward is not None else "heuristic"
        if reward is None:
            reward = tactics.reward_of({"rude": seen.rude, "grateful": seen.grateful})
        rules = ctx.own.get("rules") or tactics.default_rules()
        rule = rules[tactic]
        update = ctx.contracts.call(
            "social_rule_update",
            {"rule": {k: rule[k] for k in ("id", "tactic", "confidence")}, "outcomes": [{"reward": reward}]},
        )
        proposed = (update.value or {}).get("rule") or {}
        confidence = unit(proposed.get("confidence")) if proposed.get("id") == rule["id"] else None
        if confidence is None:
            confidence = tactics.updated_confidence(rule["confidence"], [reward])
        rules[tactic] = {**rule, "confidence": round(confidence, 4), "uses": rule["uses"] + 1}
        ctx.own.put("rules", rules)
        ctx.own.delete(key("pending", speaker))
        entry = {"tick": ctx.tick, "tactic": tactic, "reward": reward, "source": source}
        profile["outcomes"] = [*profile["outcomes"], entry][-OUTCOMES_KEPT:]
        return {**entry, "confidence": rules[tactic]["confidence"]}

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """The tactic's form of the reply, then rendered with a greeting (``intent_ingestion``) and a
        note when it answers an earlier open question (``dialogue_state``) by ``language_nlg``."""
        perceived = ctx.earlier.get(self.name, {}).get("perceive")
        if draft.action.type != "response" or not isinstance(perceived, dict):
            return None
        speaker = perceived["speaker"]
        profile = ctx.own.get(key("profile", speaker)) or new_profile(speaker)
        styled = self._styled(ctx, draft, perceived, speaker, profile)
        text, reason = styled or (draft.reply, "")
        answered = self._dialogue(ctx, speaker, draft.reply)
        rendered = self._rendered(ctx, draft.reply, text, perceived, profile, answered)
        if rendered != text:
            text, reason = rendered, "; ".join(r for r in (reason, "rendered") if r)
        return None if text == draft.reply else Revision.rewrite(text, reason)

    def _dialogue(self, ctx: ModuleContext, speaker: str, reply: str) -> list[str]:
        """``dialogue_state``: the open questions of this speaker after this turn; the ones this turn answered."""
        slot = key("dialogue", speaker)
        before = ctx.own.get(slot) or {"summary": "", "pending_questions": []}
        turn = {"user": ctx.text, "agent": reply, "answered": rewrite.reply_kind(reply) not in UNANSWERED}
        value = ctx.contracts.call("dialogue_state", {"state": {**before, "open_commitments": []}, "turn": turn}).value
        if not value:
            return []
        pending = [q.strip()[:300] for q in value.get("pending_questions") or [] if isinstance(q, str) and q.strip()]
        summary = value["summary"][:300] if isinstance(value.get("summary"), str) else before["summary"]
        answered = [q for q in before["pending_questions"] if q not in pending]
        missed_slot = key("missed", speaker)
        missed = ctx.own.get(missed_slot) or {}
        new_pending, new_answered, new_missed = answers.settled(
            before["pending_questions"],
            pending,
            missed,
            answers.stored_keys(ctx.fact_writes),
            answers.missed_keys(ctx.fact_reads),
        )
        new_missed = {q: keys for q, keys in new_missed.items() if q in new_pending[-PENDING_KEPT:]}
        differs = (new_pending[-PENDING_KEPT:], new_answered, new_missed) != (pending[-PENDING_KEPT:], answered, missed)
        if differs and ctx.changed(ANSWERED_BY_READS):
            pending, answered = new_pending, new_answered
            if new_missed:
                ctx.own.put(missed_slot, new_missed)
            elif missed:
                ctx.own.delete(missed_slot)
        ctx.own.put(slot, {"summary": summary, "pending_questions": pending[-PENDING_KEPT:]})
        return answered

    def _rendered(
        self,
        ctx: ModuleContext,
        draft: str,
        text: str,
        perceived: dict[str, Any],
        profile: dict[str, Any],
        answered: list[str],
    ) -> str:
        """``language_nlg`` renders the plan (an opening, sections); a rendering that changes a fact is
        refused. A greeting is the reply's opening: it replaces one the tactic added."""
        plan: dict[str, Any] = {"register": profile["register"], "sections": []}
        if perceived.get("intent") == "GREETING" and not perceived["signals"]["rude"]:
            plan["opening"] = GREETINGS[profile["register"]]
            text = text if text.startswith(draft) else draft
        for question in answered[:1]:
            plan["sections"].append({"name": "earlier_question", "text": f'That answers your question "{question}".'})
        if "opening" not in plan and not plan["sections"]:
            return text
        if "opening" in plan and rewrite.words(text[:80]) & {"hello", "hey", "hi", "greetings", "howdy"}:
            del plan["opening"]  # the reply greets already (Stage-0 answers a bare greeting with one)
        message = (ctx.contracts.call("language_nlg", {"base_text": text, "plan": plan}).value or {}).get("message")
        return message if isinstance(message, str) and rewrite.keeps_facts(text, message) else text

    def _styled(
        self, ctx: ModuleContext, draft: Draft, perceived: dict[str, Any], speaker: str, profile: dict[str, Any]
    ) -> tuple[str, str] | None:
        """The reply in the form of the tactic chosen for it, and the reason; None: no tactic fits."""
        seen = perceived["signals"]
        kind, told = rewrite.reply_kind(draft.reply), rewrite.tells(ctx.input.raw)
        before = rewrite.reply_kind(draft.reply, quotes_skipped=False)
        if (kind != before or (told and kind == "unknown")) and not ctx.changed(PLAIN_MEANING):
            kind, told = before, False  # a journal from before: "What do you mean?" as it was asked then
        context: dict[str, Any] = {
            "register": profile["register"],
            "rude": seen["rude"],
            "grateful": seen["grateful"],
            "reply_kind": kind,
            "asks": rewrite.asks(draft.reply),
            "name": profile["name"],
            "upset": bool(perceived.get("upset")),
            "hostile_history": "hostility" in (ctx.own.get(key("analysis", speaker)) or {}).get("risks", []),
            "follow_up": self._follow_up(ctx, speaker, profile),
            "told": told,
        }
        rules = ctx.own.get("rules") or tactics.default_rules()
        candidates, mined = self._mined(ctx, context, tactics.eligible(rules, context), rules)
        if not candidates:
            return None
        chosen = self._choose(ctx, context, candidates)
        context["tactic"] = chosen
        asked = ctx.contracts.call("social_conversation_rewrite", {"text": draft.reply, "context": context})
        text = (asked.value or {}).get("rewritten")
        reason = f"{chosen} ({profile['register']})" + (f"; mined {mined[chosen]}" if chosen in mined else "")
        if not isinstance(text, str) or not rewrite.keeps_facts(draft.reply, text):
            if asked.source == "llm":
                reason += "; the model's rewrite changed a fact and was refused"
            text = rewrite.rewrite(draft.reply, context)
        elif context["asks"] and rewrite.questions(text) > rewrite.questions(draft.reply):
            reason += "; the model's rewrite asked a second question and was refused"
            text = rewrite.rewrite(draft.reply, context)
        if chosen in tone.SPACED and tone.opening_added(draft.reply, text) and ctx.changed(tone.CONSIDERATE):
            slot = key("tone", speaker)
            text, spoken, why = tone.considered(draft.reply, text, profile["name"], profile["turns"], ctx.own.get(slot))
            ctx.own.put(slot, spoken)
            reason += f"; opening spared: {why}" if why else ""
        ctx.own.put(key("pending", speaker), {"tick": ctx.tick, "tactic": chosen, "reply": text[:500]})
        if context["follow_up"] and context["follow_up"] in text and context["follow_up"] not in draft.reply:
            self._asked(ctx, speaker, profile, context["follow_up"])
        return text, reason

    @staticmethod
    def _follow_up(ctx: ModuleContext, speaker: str, profile: dict[str, Any]) -> str | None:
        """The conversation's follow-up question for ``clarify``, unless this speaker was asked it, or asked
        about its topic, in their last ``FOLLOW_UP_WINDOW`` turns (None: clarify asks what is meant)."""
        conversation = ctx.own.get(key("conversation", speaker)) or {}
        follow, topic = conversation.get("follow_up"), (conversation.get("topics") or [None])[0]
        recent = (ctx.own.get(key("asked", speaker)) or {}).get("follow_ups", [])
        for entry in recent:
            if profile["turns"] - entry["turn"] < FOLLOW_UP_WINDOW and (
                entry["question"] == follow or (topic is not None and entry["topic"] == topic)
            ):
                return None
        return follow if isinstance(follow, str) else None

    @staticmethod
    def _asked(ctx: ModuleContext, speaker: str, profile: dict[str, Any], question: str) -> None:
        """Keep the follow-up just asked (and its topic), with the speaker's turn, for ``FOLLOW_UP_WINDOW`` turns."""
        topic = ((ctx.own.get(key("conversation", speaker)) or {}).get("topics") or [None])[0]
        recent = (ctx.own.get(key("asked", speaker)) or {}).get("follow_ups", [])
        kept = [e for e in recent if profile["turns"] - e["turn"] < FOLLOW_UP_WINDOW]
        entry = {"question": question[:200], "topic": topic, "turn": profile["turns"], "tick": ctx.tick}
        ctx.own.put(key("asked", speaker), {"follow_ups": [*kept, entry][-FOLLOW_UP_WINDOW:]})

    def _mined(
        self,
        ctx: ModuleContext,
        context: dict[str, Any],
        candidates: list[dict[str, Any]],
        rules: dict[str, dict[str, Any]],
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The candidates with the adopted mined rules that hold in ``context``: their tactic fits fully
        (a rude or upset writer is left to the built-in fits: de-escalation comes first)."""
        proven: dict[str, str] = {}
        if context["rude"] or context["upset"]:
            return candidates, {}
        for name, rule in sorted(ctx.own.items()):
            if name.startswith("mined/") and critic.matches(rule, context) and rule["tactic"]["name"] in rules:
                proven.setdefault(rule["tactic"]["name"], rule["id"])
        if not proven:
            return candidates, {}
        others = [c for c in candidates if c["tactic"]["name"] not in proven]
        fitted = [{**rules[t], "fit": 1.0} for t in tactics.TACTICS if t in proven]
        return sorted([*others, *fitted], key=lambda c: tactics.TACTICS.index(c["tactic"]["name"])), proven

    def maintain(self, ctx: ModuleContext) -> Any:
        """The social critic, while the user is idle: each conversation analysed again once it has new
        turns (``social_conversation_analysis``), and rules mined from the outcomes
        (``social_interaction_miner``), adopted when their simulated score reaches ``ADOPT_AT``
        (``social_simulation_score``) and the evaluator plans how to check them
        (``social_rule_self_evaluation``)."""
        profiles = {k: v for k, v in ctx.own.items() if k.startswith("profile/")}
        analysed = [self._analyse(ctx, profile) for profile in profiles.values()]
        adopted = self._mine(ctx, list(profiles.values()))
        contexts = self._contexts(ctx, {p["speaker"] for p in profiles.values()})
        return {"analysed": [a for a in analysed if a], "adopted": adopted, "contexts": contexts}

    def _contexts(self, ctx: ModuleContext, speakers: set[str]) -> list[str]:
        """``conversation_context`` of each speaker's recent turns: topics, style, alerts and the
        follow-up question the ``clarify`` tactic asks instead of "What do you mean?"."""
        said: dict[str, list[str]] = {}
        for record in ctx.journal.last(TURNS_READ):
            data = record.get("input") or {}
            if isinstance(data, dict) and data.get("source") == "user" and isinstance(data.get("raw"), str):
                said.setdefault(str(data.get("speaker") or DEFAULT_SPEAKER), []).append(data["raw"][:500])
        done = []
        for speaker in sorted(speakers & said.keys()):
            slot, turns = key("conversation", speaker), said[speaker][-20:]
            if (ctx.own.get(slot) or {}).get("turns") == len(said[speaker]):
                continue
            value = ctx.contracts.call("conversation_context", {"turns": turns}).value or {}
            follow = [q.strip()[:200] for q in value.get("follow_up_questions") or [] if isinstance(q, str)]
            entry = {
                "topics": [t[:40] for t in value.get("topics") or [] if isinstance(t, str)][:5],
                "alerts": [a[:200] for a in value.get("alerts") or [] if isinstance(a, str)][:5],
                "follow_up": follow[0] if follow and follow[0].endswith("?") else None,
                "turns": len(said[speaker]),
            }
            ctx.own.put(slot, entry)
            done.append(speaker)
        return done

    def _analyse(self, ctx: ModuleContext, profile: dict[str, Any]) -> str | None:
        slot = key("analysis", profile["speaker"])
        if (ctx.own.get(slot) or {}).get("turns") == profile["turns"]:
            return None
        fields = ("speaker", "name", "register", "turns", "rude_turns", "mood")
        conversation = {**{k: profile.get(k) for k in fields}, "topics": list(profile["topics"])}
        conversation["outcomes"] = profile["outcomes"]
        done = ctx.contracts.call("social_conversation_analysis", {"conversation": conversation})
        value = done.value or {}
        if not isinstance(value.get("summary"), str):
            return None
        risks = [r.strip().lower()[:80] for r in value.get("risks") or [] if isinstance(r, str) and r.strip()]
        chances = [o.strip()[:120] for o in value.get("opportunities") or [] if isinstance(o, str) and o.strip()]
        ctx.own.put(
            slot,
            {
                "summary": value["summary"][:500],
                "risks": risks[:5],
                "opportunities": chances[:5],
                "turns": profile["turns"],
                "source": done.source,
            },
        )
        return str(profile["speaker"])

    def _mine(self, ctx: ModuleContext, profiles: list[dict[str, Any]]) -> list[str]:
        exchanges = [
            {"speaker": p["speaker"], "register": p["register"], "tactic": o["tactic"], "reward": o["reward"]}
            for p in profiles
            for o in p["outcomes"]
        ]
        if not exchanges:
            return []
        mined = ctx.contracts.call("social_interaction_miner", {"exchanges": exchanges}).value or {}
        adopted = []
        for rule in mined.get("rules") or []:
            tactic = (rule.get("tactic") or {}).get("name") if isinstance(rule.get("tactic"), dict) else None
            ident = rule.get("id")
            register = next((p.get("value") for p in rule.get("predicates") or [] if p.get("key") == "register"), None)
            if tactic not in tactics.TACTICS or not isinstance(ident, str) or ctx.own.get(f"mined/{ident}") is not None:
                continue
            if not isinstance(register, str) or not critic.matches(rule, {"register": register}):
                continue  # only rules on the register, with eq predicates, can be checked
            same = [e for e in exchanges if e["register"] == register]
            scenario = {
                "rule": rule,
                "with": [e["reward"] for e in same if e["tactic"] == tactic],
                "without": [e["reward"] for e in same if e["tactic"] != tactic],
            }
            simulated = ctx.contracts.call("social_simulation_score", {"scenario": scenario}).value or {}
            score = unit(simulated.get("score"))
            if score is None or score < ADOPT_AT:
                continue
            planned = ctx.contracts.call("social_rule_self_evaluation", {"rule": rule}).value or {}
            checks = [a["label"][:200] for a in planned.get("actions") or [] if isinstance(a.get("label"), str)]
            if not checks:
                continue  # a rule nobody plans to check is not adopted
            ctx.own.put(
                f"mined/{ident}"[:200],
                {
                    "id": ident[:180],
                    "tactic": {"name": tactic},
                    "predicates": [{"key": "register", "op": "eq", "value": register}],
                    "score": score,
                    "checks": checks[:5],
                    "tick": ctx.tick,
                },
            )
            adopted.append(ident)
        return adopted

    def _choose(self, ctx: ModuleContext, context: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
        """The selector's tactic when it is one of the candidates, else the heuristic pick."""
        offered = [{k: rule[k] for k in ("id", "tactic", "confidence", "fit")} for rule in candidates]
        selected = ctx.contracts.call("social_tactic_selector", {"context": context, "rules": offered})
        rule = (selected.value or {}).get("selected_rule") or {}
        name = rule.get("tactic", {}).get("name") if isinstance(rule.get("tactic"), dict) else None
        if name in {c["tactic"]["name"] for c in candidates}:
            return str(name)
        best = tactics.pick(candidates)
        assert best is not None  # candidates is not empty
        return str(best["tactic"]["name"])
