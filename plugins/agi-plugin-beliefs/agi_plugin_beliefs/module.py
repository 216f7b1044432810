"""The ``beliefs`` module: a belief graph beside the facts.

Every fact written in a tick becomes (or confirms, or changes) a belief with a confidence,
its evidence (ticks and sources) and its history (``observe``, through
``belief_graph_orchestrator``; a new attribute through ``ontology_enrichment``). A
statement that changes a belief is said (``revise``: "You told me earlier your favorite
color was teal; I now have red."). A claim heard from someone else ("Bob says…") gets the
confidence of its source and never displaces a surer belief. "are you sure about X?" links
X to a belief across spellings (``entity_linker``) and answers with the confidence and the
evidence (``belief_summarizer``), its claim citing the fact read this tick. The beliefs a
line touches fill the tick's ``beliefs``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from agi_core.modules import Belief, Candidate, Claim, CognitiveModule, Draft, ModuleContext, Proposals, Revision
from agi_plugin_beliefs import graph, linking, statements

STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "beliefs_state.json").read_text(encoding="utf-8")
)
ONTOLOGY_KEPT = 50
#: the changes (``ctx.changed``) asked where they differ, so a journal from before them replays as it was written:
#: "are you sure about that" means the agent's last reply (was: a belief named "that"), and one of the user's is
#: labelled "your sister's name" (was: "the name of sister"); the last reply rests on the facts it wrote too
#: ("Got it: your favorite color is red."; was: only on the facts its claims cite); a named thing keeps the case
#: the line wrote it in ("the home of Maya", was: "the home of maya")
LAST_REPLY, RELATION_LABEL, LAST_REPLY_WRITES = "last_reply", "relation_label", "last_reply_writes"
ENTITY_CASE = "entity_case"
FORGOTTEN = "forgotten_facts"
"""The change (``ctx.changed``) that keeps a fact the user asked to forget (its value ``null``) unsaid: no notice when
it is told again (was: "You told me earlier your dog's name was None; I now have Max."), "are you sure about it?"
says it was forgotten (was: "… your dog's name is None. … Earlier: Rex …"), and no earlier value from before the
forget is said."""
#: "are you sure about my dislikes?" finds the belief labelled "what you don't like" by its key's words too ("your
#: dislikes"; was: "I hold no belief about your dislikes.")
KEY_ALIAS = "key_alias"
LOOKED_BACK = 20  # journal records searched for the agent's last reply in this conversation
QUOTED_MAX = 200  # characters of the last reply quoted when it rests on no belief


def belief_key(key: str) -> str:
    return f"belief/{key}" if len(key) <= 190 else "belief/sha256-" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _since_forgotten(ctx: ModuleContext, belief: dict[str, Any]) -> dict[str, Any]:
    """``belief`` with the history from before its last forget (a ``null`` value) left out (:data:`FORGOTTEN`)."""
    history = belief["history"]
    last = max((at for at, earlier in enumerate(history) if earlier["value"] is None), default=None)
    if last is None or not ctx.changed(FORGOTTEN):
        return belief
    return {**belief, "history": history[last + 1 :]}


#: what may come before "forget" in a line that asks to forget
FORGET_OPENINGS = ("", "please ", "can you ", "could you ", "would you ", "can you please ", "could you please ")


def asks_to_forget(line: str) -> bool:
    """Whether ``line`` asks to forget something: "forget that I like hiking", "can you forget it?"."""
    low = " ".join(line.lower().split())
    return any(low.startswith(opening + "forget ") for opening in FORGET_OPENINGS)


def source_of(ctx: ModuleContext) -> str:
    """The source of the tick's own statements: the user, a named speaker, or a document."""
    document = ctx.input.metadata.get("document")
    if isinstance(document, str) and document:
        return f"document:{document[:100]}"
    return f"speaker:{ctx.input.speaker.lower()}" if ctx.input.speaker else "user"


def label_of(key: str, speaker_entity: str = "self", *, relations: bool = True, line: str = "") -> str:
    """``your favorite color`` for a fact of the tick's speaker (``user/person/<speaker_entity>/…``),
    ``your sister's name`` for one of the user's (``user/relation/sister/name``; ``relations=False``: ``the name
    of sister``, as before the :data:`RELATION_LABEL` change), ``the home of Maya`` for a named thing's, its
    name as ``line`` wrote it (:func:`written_name`; the key's lower case where the line does not name it)."""
    scope, kind, entity, attribute = key.split("/")
    words = attribute.replace("_", " ")
    if scope == "user" and kind == "relation" and relations:
        return f"your {entity.replace('_', ' ')}'s {words}"
    mine = scope == "user" and entity in ("self", speaker_entity)
    name = (written_name(entity, line) if scope == "world" else None) or entity.replace("_", " ")
    return f"your {words}" if mine else f"the {words} of {name}"


def liked_label(key: str, line: str = "") -> str:
    """The label of a list of likes or dislikes: ``what you like`` (the speaker's own), ``what your sister doesn't
    like``, ``what Bob likes`` (someone else's, since Stage-0's ``others_likes``; the name as ``line`` wrote it)."""
    scope, kind, entity, attribute = key.split("/")
    liked = attribute == "likes"
    if scope == "user" and kind == "person":
        return "what you like" if liked else "what you don't like"
    if scope == "user":
        whose = entity.replace("__", "'s ").replace("_", " ")
        who = f"{whose}" if "'s " in whose else f"your {whose}"
    else:
        who = written_name(entity, line) or entity.replace("_", " ")
    return f"what {who} likes" if liked else f"what {who} doesn't like"


def written_name(entity: str, line: str) -> str | None:
    """The words of ``line`` that a key's entity id was made of, as written (``eiffel_tower`` in "the Eiffel Tower
    is in Paris" → ``Eiffel Tower``); None when the line holds no such words."""
    between = "[^A-Za-z0-9]{1,3}"  # what a key segment joins with "_": spaces, a hyphen, an apostrophe, a dot
    words = between.join(re.escape(part) for part in entity.split("_"))
    found = re.search(f"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", line, re.IGNORECASE) if line else None
    return found.group() if found else None


def others_own(key: str, speaker_entity: str) -> bool:
    """Whether ``key`` is a fact another speaker told about themself (``user/person/<them>/…``): their
    "my …" is never this speaker's."""
    parts = key.split("/")
    return parts[:2] == ["user", "person"] and len(parts) == 4 and parts[2] != speaker_entity


class BeliefsModule(CognitiveModule):
    """Holds every fact as a belief with its confidence, evidence and history (see the package README)."""

    name = "beliefs"
    priority = 60  # revises before the modules that change only a reply's form
    contracts = ("entity_linker", "ontology_enrichment", "belief_graph_orchestrator", "belief_summarizer")
    state_schema = STATE_SCHEMA
    timeout_s = 30.0  # the LLM path asks a model; the heuristics take microseconds

    def _key(self, ctx: ModuleContext, said: statements.Statement) -> str | None:
        """The fact's key; "my …" is the tick's speaker's (``user/person/<speaker>/…``, as Stage-0 keeps it)."""
        kind = "person" if said.scope == "user" else "entity"
        entity = ctx.user_entity if said.scope == "user" else said.entity
        try:
            return ctx.memory.reason.key(said.scope, kind, entity, said.attribute)
        except Exception:  # noqa: BLE001 - a line that makes no canonical key holds no belief
            return None

    def _beliefs(self, ctx: ModuleContext) -> list[dict[str, Any]]:
        return [value for name, value in ctx.own.items() if name.startswith("belief/")]

    def perceive(self, ctx: ModuleContext) -> Any:
        """What the line says about beliefs: a statement, a statement heard from someone, a question."""
        out: dict[str, Any] = {}
        if (heard := statements.hearsay(ctx.input.raw)) is not None and (key := self._key(ctx, heard[1])):
            out["heard"] = {
                "key": key,
                "value": heard[1].value,
                "label": heard[1].label,
                "source": f"hearsay:{heard[0]}",
            }
        elif (said := statements.statement(ctx.input.raw)) is not None and (key := self._key(ctx, said)):
            out["said"] = {"key": key, "label": said.label}
        if (mention := statements.sure_about(ctx.input.raw)) is not None:
            if statements.points_back(mention) and ctx.changed(LAST_REPLY):  # "…that": the agent's last reply
                out["asked"] = {"mention": mention, "key": None, "previous": True}
            else:
                out["asked"] = {"mention": mention, "key": self._link(ctx, mention)}
        return out or None

    def _link(self, ctx: ModuleContext, mention: str) -> str | None:
        """The belief ``mention`` names, across spellings (``entity_linker``)."""
        mine = ctx.user_entity
        known = [b for b in self._beliefs(ctx) if not others_own(b["key"], mine)]
        if not known:
            return None
        candidates = [{"id": b["key"], "aliases": [b["label"]]} for b in known]
        linked = ctx.contracts.call("entity_linker", {"mention": mention, "candidates": candidates})
        entity = (linked.value or {}).get("entity") or {}
        ident = entity.get("canonical_id")
        if ident in {b["key"] for b in known}:
            return str(ident)
        found = linking.best_match(mention, candidates)  # the model named no known belief: the heuristic's
        if found is None:  # by the key's own words: "your dislikes" for "what you don't like"
            aliased = [{"id": b["key"], "aliases": [b["label"], label_of(b["key"], mine)]} for b in known]
            found = linking.best_match(mention, aliased)
            found = found if found is not None and ctx.changed(KEY_ALIAS) else None
        return found[0] if found else None

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        seen = ctx.earlier.get(self.name, {}).get("perceive")
        if not isinstance(seen, dict):
            return None
        beliefs: list[Belief] = []
        candidates: list[Candidate] = []
        if (heard := seen.get("heard")) is not None:
            current = ctx.own.get(belief_key(heard["key"]))
            weight = graph.reliability(heard["source"])
            who = graph.who(heard["source"])
            if current is None or current["value"] == heard["value"]:
                reply = f"Noted, with confidence {weight:g} since it comes from {who}: "
                reply += f"{heard['label']} is {heard['value']}."
            elif current["confidence"] > weight:
                reply = (
                    f"{who} says {heard['label']} is {heard['value']}; I keep {current['value']}, "
                    f"from {graph.who(current['source'])} (confidence {current['confidence']:g} against {weight:g})."
                )
            else:
                reply = f"{who} says {heard['label']} is {heard['value']}; I now have that, with confidence {weight:g}."
            candidates.append(Candidate(reply, score=0.8))
            beliefs.append(Belief(heard["key"], heard["value"], weight))
        if (asked := seen.get("asked")) is not None:
            candidates.append(self._answer_previous(ctx) if asked.get("previous") else self._answer_sure(ctx, asked))
        for key in [seen.get("said", {}).get("key"), (asked or {}).get("key")]:
            if key and (belief := ctx.own.get(belief_key(key))) is not None:
                beliefs.append(Belief(key, belief["value"], belief["confidence"]))
        return Proposals(beliefs=beliefs, candidates=candidates)

    def _answer_sure(self, ctx: ModuleContext, asked: dict[str, Any]) -> Candidate:
        key = asked.get("key")
        belief = ctx.own.get(belief_key(key)) if isinstance(key, str) else None
        if belief is None or not isinstance(key, str):
            mention = re.sub(r"^my\b", "your", asked["mention"], flags=re.I)
            return Candidate(f"I hold no belief about {mention}.", score=0.6)
        fact = ctx.memory.fact(key)  # the claim cites this read: the council checks it
        value = fact.value if fact.exists else None
        if fact.exists and value is None and belief["value"] is None and ctx.changed(FORGOTTEN):
            return Candidate(f"You asked me to forget {belief['label']}, so I hold nothing about it.", score=0.9)
        belief = _since_forgotten(ctx, belief)
        text = graph.summary(belief, value)
        summarized = ctx.contracts.call("belief_summarizer", {"beliefs": [belief]})
        narrative = (summarized.value or {}).get("narrative")
        shown = belief["value"] if value is None else value
        if summarized.source == "llm" and isinstance(narrative, str) and str(shown) in narrative:
            text = narrative.strip()[:600]  # the model's wording, when it keeps the value
        if not fact.exists:
            return Candidate(text, score=0.9)
        claim = Claim(key=key, value=value, text=text, evidence=ctx.evidence_for(key))
        return Candidate(text, score=0.9, claims=[claim])

    def _last_reply(self, ctx: ModuleContext) -> dict[str, Any] | None:
        """The newest journal record of this conversation (same source and speaker) before this tick."""
        for record in reversed(ctx.journal.last(LOOKED_BACK)):
            said = record.get("input") or {}
            if isinstance(said, dict) and (said.get("source"), said.get("speaker")) == (
                ctx.input.source,
                ctx.input.speaker,
            ):
                return record
        return None

    def _answer_previous(self, ctx: ModuleContext) -> Candidate:
        """ "are you sure about that?": the beliefs behind the agent's last reply (the facts its claims cite, and
        those it wrote: "Got it: …"), each read again this tick and cited; a reply that rests on no belief says so."""
        record = self._last_reply(ctx)
        if record is None:
            return Candidate("I have said nothing yet that I could be sure about.", score=0.6)
        cited = [c.get("key") for c in record.get("claims") or [] if isinstance(c, dict)]
        written = [  # a forget (a null write) leaves no belief to be sure about
            w.get("key")
            for w in record.get("sem_writes") or []
            if isinstance(w, dict) and w.get("ok") and w.get("value") is not None
        ]
        if set(written) - set(cited) and ctx.changed(LAST_REPLY_WRITES):
            cited += written
        keys: list[str] = [k for k in dict.fromkeys(cited) if isinstance(k, str) and k.count("/") == 3]
        texts: list[str] = []
        claims: list[Claim] = []
        for key in keys:
            belief = ctx.own.get(belief_key(key))
            if belief is None:
                continue
            fact = ctx.memory.fact(key)  # the claim cites this read: the council checks it
            text = graph.summary(_since_forgotten(ctx, belief), fact.value if fact.exists else None)
            texts.append(text)
            if fact.exists:
                claims.append(Claim(key=key, value=fact.value, text=text, evidence=ctx.evidence_for(key)))
        if not texts:
            said = str(record.get("final_output") or "")
            said = said if len(said) <= QUOTED_MAX else said[:QUOTED_MAX].rsplit(" ", 1)[0] + " …"
            return Candidate(f"My last reply (“{said}”) rests on no fact I hold, so I hold no belief about it.", 0.6)
        return Candidate(" ".join(texts), score=0.9, claims=claims)

    def revise(self, ctx: ModuleContext, draft: Draft) -> Revision | None:
        """Say that a statement changed a belief, before the reply."""
        if draft.action.type != "response" or asks_to_forget(ctx.input.raw):
            return None  # a forget ("forget that I like hiking") is no change of mind to announce
        notices = []
        for write in self._writes(ctx):
            belief = ctx.own.get(belief_key(write["key"]))
            # a forget (a null write, "forget my name") is no new value to announce
            if (
                belief is not None
                and write["value"] is not None
                and not graph.same_value(belief["value"], write["value"])
            ):
                if belief["value"] is None and ctx.changed(FORGOTTEN):  # forgotten: told anew
                    continue
                notice = graph.change_notice(belief, write["value"], source_of(ctx))
                notices.extend([notice] if notice else [])
        if not notices:
            return None
        return Revision.rewrite(" ".join([*notices, draft.reply]), "a statement changed a belief")

    def _writes(self, ctx: ModuleContext) -> list[dict[str, Any]]:
        return [w for w in ctx.memory.reason.sem_writes if w.get("ok")]

    def observe(self, ctx: ModuleContext) -> Any:
        """Every fact written this tick, and every statement heard, into the graph."""
        seen = ctx.earlier.get(self.name, {}).get("perceive")
        seen = seen if isinstance(seen, dict) else {}
        said = seen.get("said") or {}
        updates = [
            {
                "key": w["key"],
                "value": w["value"],
                "source": source_of(ctx),
                "stored": True,
                "label": said.get("label") if said.get("key") == w["key"] else self._label(ctx, w["key"], w["value"]),
            }
            for w in self._writes(ctx)
        ]
        if (heard := seen.get("heard")) is not None:
            updates.append({**heard, "stored": False})
        changes = [self._apply(ctx, update) for update in updates]
        return {"changes": changes} if changes else None

    @staticmethod
    def _label(ctx: ModuleContext, key: str, value: Any = None) -> str:
        """:func:`label_of` the key; the label before the :data:`RELATION_LABEL` or :data:`ENTITY_CASE` change in
        a journal from before it. The user's likes (a list: Stage-0's since its ``likes`` change) are "what you
        like" and "what you don't like"."""
        if graph.listed({"key": key}, value) and not others_own(key, ctx.user_entity):
            return liked_label(key, ctx.input.raw)
        label, before = label_of(key, ctx.user_entity), label_of(key, ctx.user_entity, relations=False)
        label = label if label == before or ctx.changed(RELATION_LABEL) else before
        cased = label_of(key, ctx.user_entity, relations=label != before, line=ctx.input.raw)
        return cased if cased == label or ctx.changed(ENTITY_CASE) else label

    def _apply(self, ctx: ModuleContext, update: dict[str, Any]) -> dict[str, Any]:
        before = ctx.own.get(belief_key(update["key"]))
        after, change = graph.updated(
            before,
            key=update["key"],
            label=update["label"],
            value=update["value"],
            source=update["source"],
            tick=ctx.tick,
            stored=update["stored"],
        )
        asked = ctx.contracts.call(
            "belief_graph_orchestrator",
            {
                "operation": "upsert_belief",
                "payload": {**update, "tick": ctx.tick},
                "beliefs": [before] if before else [],
            },
        )
        proposed: dict[str, Any] = next(iter(((asked.value or {}).get("updates") or {}).get("beliefs") or []), {})
        confidence: Any = proposed.get("confidence")
        if (
            proposed.get("id") == update["key"]
            and proposed.get("value", after["value"]) == after["value"]
            and type(confidence) in (int, float)
            and 0 <= confidence <= 1
        ):
            after["confidence"] = round(float(confidence), 4)  # the model's confidence for the value the rules kept
        if before is None:
            self._enrich(ctx, update["key"])
        ctx.own.put(belief_key(update["key"]), after)
        return {"key": update["key"], "change": change, "value": after["value"], "confidence": after["confidence"]}

    def _enrich(self, ctx: ModuleContext, key: str) -> None:
        """A new kind of belief: its entity type and attribute join the ontology (``ontology_enrichment``)."""
        scope, kind, _entity, attribute = key.split("/")
        ontology = ctx.own.get("ontology") or {"entities": [], "relations": []}
        if any(r.get("name") == attribute and r.get("domain") == kind for r in ontology["relations"]):
            return
        answer = ctx.contracts.call(
            "ontology_enrichment",
            {"ontology": ontology, "observations": [{"scope": scope, "entity_type": kind, "attribute": attribute}]},
        )
        value = answer.value or {}
        for part in ("entities", "relations"):
            for item in value.get(part) or []:
                if isinstance(item, dict) and isinstance(item.get("name"), str) and item not in ontology[part]:
                    ontology[part].append({k: v for k, v in item.items() if isinstance(v, str)})
            ontology[part] = ontology[part][-ONTOLOGY_KEPT:]
        ctx.own.put("ontology", ontology)
