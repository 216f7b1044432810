"""The ``retrieval`` module: answers questions from long-term memory, citing its sources.

When no rule answers a question (``deliberate`` proposes a candidate; a rule's answer wins) and
long-term memory holds items close enough to it, the reply is the answer taken from the best
items followed by up to three citations in square brackets: the item's ``dia_id`` (LoCoMo
``[D8:6]``) or its memory id. Dates are resolved against the day the item was said. Each
citation is a claim citing the memory recalled this tick, which the council checks. With no
item close enough it says it has nothing (no invention). "what do you remember about X?"
lists the facts and memories about X with their sources.

The heuristic path (no LLM) takes the answer span from the best items and says it as a sentence
quoting the memory it comes from (:mod:`agi_plugin_retrieval.wording`); the span is kept as the
state's ``last.answer``. With a contract
provider, ``retrieval_orchestrator`` plans (extra queries, or a refusal),
``memory_retrieval_ranking`` reranks and ``retrieval_answer`` writes the answer; an answer
whose citations are not among the recalled items is not used (the heuristics answer).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

from agi_core.modules import Candidate, Claim, CognitiveModule, ModuleContext, Proposals
from agi_plugin_retrieval import answering, forgotten, upkeep, wording
from agi_plugin_retrieval.answering import MAX_CITATIONS
from agi_plugin_retrieval.forgotten import FORGOTTEN_UNSAID

AS_SENTENCE = "answer_as_sentence"
"""The change (``ctx.changed``) that says an answer as a sentence quoting its memory, or its fact, not as the span
or value alone: recorded where it differs, so a journal from before replays its span."""
STATE_SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "schemas" / "retrieval_state.json").read_text(encoding="utf-8")
)
RECALL_K = 10
ANSWER_SCORE = 0.6
#: an answer whose best memory names what the question asks: enough to answer in place of a rule's F1
#: miss (the Stage-0 brain's ``ANSWERS_A_MISS``)
NAMED_ANSWER_SCORE = 0.8
LLM_WEIGHT = 0.35  # the share of the model's score in a reranked item's score (the contract's own rule)
_TALKED = re.compile(r"^\s*what\s+(?:have|did)\s+we\s+(?:talk(?:ed)?|discuss(?:ed)?)\s+about\s*\?*\s*$", re.I)
NO_DIGEST = "I have not put our conversation together yet."
TALKED_NOW = "talked_about_now"
"""The change (``ctx.changed``) that draws the digest in the tick when none covers what the user said since (a
chat has no idle tick for the upkeep): recorded where it differs, so a journal from before says :data:`NO_DIGEST`
or the old narrative."""
_NOTICED = re.compile(r"^\s*what\s+(?:have\s+you|did\s+you)\s+(?:notice[d]?|perceive[d]?|see[n]?)\s*\?*\s*$", re.I)
NOTHING_NOTICED = "I have noticed nothing around me."
PERCEPTS_KEPT = 10
_REMEMBER = re.compile(r"^\s*what\s+do\s+you\s+(?:remember|know|recall)\s+about\s+(?P<what>.+?)\s*\?*\s*$", re.I)
FACTS_SCANNED = 500  # the facts looked at for one the question asks about
NOTHING = "I have nothing in memory that answers that."
OWNED_FACTS = "owned_facts"
"""The change (``ctx.changed``) that finds a speaker's relation (``user/relation/bob__sister/home`` for "where does
Bob's sister live?") and an attribute asked by its verb among the current facts: recorded where the fact found
differs, so a journal from before replays the lookup it made."""
OWNERS_RELATION = "owners_relation"
"""The change (``ctx.changed``) that drops, for a question about a named owner's relation ("where does Alice's sister
live?"), the memories of another speaker's own ("my sister lives in Paris", bob's: before, it answered): recorded
where it drops a memory, so a journal from before replays the memory it cited."""
SELF = "self"  # the user who names no speaker (agi_core.memory.keys.SELF_ENTITY)
RELATION_OWNER = "__"  # between a speaker's entity and the noun: user/relation/bob__sister (agi_core.reasoning)
#: the words a question asks an attribute by, beside the attribute's own ("where does Bob's sister live?")
ASKED_BY = {
    "home": {"live", "lives", "lived", "living"},
    "workplace": {"work", "works", "worked", "working"},
    "school": {"study", "studies", "studied", "studying"},
    "home_town": {"grow", "grew", "grown", "from"},
}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


class RetrievalModule(CognitiveModule):
    """Answers questions from long-term memory with sources (see the package README)."""

    name = "retrieval"
    priority = 80
    contracts = (
        "retrieval_orchestrator",
        "memory_index_optimizer",
        "memory_retrieval_ranking",
        "retrieval_answer",
        "semantic_memory_manager",
        "memory_store_strategy",
        "memory_semantic_bridge",
        "episodic_linker",
        "memory_long_term_digest",
        "memory_system_narrative",
        "perception_module",
    )
    state_schema = STATE_SCHEMA
    recalls_long_term = True  # every question: the kernel mirrors the episodes before the first tick, not in it
    timeout_s = 120.0  # recall may load the embedding model; the LLM path asks a model three times
    # idle time: the upkeep asks a model up to a dozen times
    phase_timeouts: ClassVar[dict[str, float]] = {"maintain": 600.0}

    def perceive(self, ctx: ModuleContext) -> Any:
        """``perception_module`` reads what a sensor perceived (source ``env``: a file, …); its
        observations are kept for "what have you noticed?"."""
        if ctx.input.source != "env":
            return None
        scene = {"source": "env", "text": ctx.input.raw[:2000], "metadata": dict(ctx.input.metadata or {})}
        seen = ctx.contracts.call("perception_module", {"scene": scene}).value or {}
        observations = [o for o in seen.get("observations") or [] if isinstance(o, dict)][:5]
        said = [answering.observation_text(o) for o in observations]
        said = [text for text in said if text]
        if said:
            kept = [*(ctx.own.get("percepts") or []), {"tick": ctx.tick, "noticed": said}]
            ctx.own.put("percepts", kept[-PERCEPTS_KEPT:])
        return {"noticed": said}

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        question = ctx.input.raw.strip()
        if _NOTICED.match(question):
            noticed = [text for entry in ctx.own.get("percepts") or [] for text in entry["noticed"]]
            reply = "I noticed: " + "; ".join(noticed[-5:]) + "." if noticed else NOTHING_NOTICED
            return Proposals(candidates=[Candidate(reply, score=0.8)])
        if _TALKED.match(question):
            return Proposals(candidates=[Candidate(self._talked_about(ctx), score=0.8)])
        if (about := _REMEMBER.match(question)) is not None:
            return Proposals(candidates=[self._remember(ctx, about.group("what"))])
        if not answering.is_question(question):
            return None
        return Proposals(candidates=[self._answer(ctx, question)])

    def _talked_about(self, ctx: ModuleContext) -> str:
        """The upkeep's narrative; where it does not cover the user's newest statements (or there is none yet: no
        idle tick came), one drawn now from them as the upkeep draws it, not kept (the upkeep keeps its own)."""
        digest = ctx.own.get("digest") or {}
        narrative = digest.get("narrative")
        statements, fresh = forgotten.unsaid(ctx, upkeep.recent_statements(ctx).view(list))
        narrative = None if fresh else narrative  # a digest drawn before a forget may say what it forgot
        covered = narrative and all(s["time"] <= str(digest.get("until", "")) for s in statements)
        if covered or not statements or not ctx.changed(TALKED_NOW):
            return str(narrative or NO_DIGEST)
        memories = upkeep.kept(ctx, statements)
        if not memories:
            return str(narrative or NO_DIGEST)
        return str(upkeep.narrative_of(ctx, memories, upkeep.linked(ctx, memories))["narrative"])

    def _recall(self, ctx: ModuleContext, queries: list[str]) -> list[dict[str, Any]]:
        hits: dict[str, dict[str, Any]] = {}
        for query in queries:
            for hit in ctx.memory.long_term(query, RECALL_K):
                if hit["id"] not in hits or hit["score"] > hits[hit["id"]]["score"]:
                    hits[hit["id"]] = hit
        found = sorted((h for h in hits.values() if answering.is_evidence(h)), key=lambda h: (-h["score"], h["id"]))
        gone = forgotten.left_out(ctx, found)
        if gone and ctx.changed(FORGOTTEN_UNSAID):  # else as before (a journal from before)
            return [h for h in found if h["id"] not in gone]
        return found

    @staticmethod
    def _own_if_asked(ctx: ModuleContext, question: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A question about "my …" is answered from what its asker said (or what names no speaker), never
        from another speaker's memory: bob's "what is my favorite color?" is not alice's red."""
        if not set(answering.words(question)) & answering.FIRST_PERSON:
            return hits
        asker = ctx.input.speaker or ctx.input.source  # as long-term memory names who said an episode
        return [h for h in hits if h.get("speaker") in (None, asker)]

    @staticmethod
    def _owners_if_asked(ctx: ModuleContext, question: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A question about a named owner's relation ("where does Alice's sister live?") is never answered from
        another speaker's own ("my sister lives in Paris", bob's); a tick where that drops a memory records
        :data:`OWNERS_RELATION` (a journal from before cited it)."""
        owners = answering.relation_owners(question)
        kept = [hit for hit in hits if not answering.of_another(hit, owners)] if owners else hits
        return kept if kept != hits and ctx.changed(OWNERS_RELATION) else hits

    def _answer(self, ctx: ModuleContext, question: str) -> Candidate:
        plan = ctx.contracts.call("retrieval_orchestrator", {"question": question, "config": {"k": RECALL_K}})
        value = plan.value or {}
        if plan.source == "llm" and value.get("decision") == "refuse":
            return self._nothing(ctx, question, "refused by the retrieval plan")
        expansions = [q for q in value.get("expansions") or [] if isinstance(q, str) and q.strip()][:2]
        recalled = self._own_if_asked(ctx, question, self._recall(ctx, [question, *expansions]))
        hits = self._rerank(ctx, question, self._owners_if_asked(ctx, question, recalled))
        if (held := self._current_fact(ctx, question)) is not None:
            return self._from_fact(ctx, question, *held, hits)
        hits = [h for h in hits if answering.holds_what_is_asked(question, h)]
        if not hits:
            return self._nothing(ctx, question, "no memory close enough")
        text, used, by_model = self._written(ctx, question, hits)
        claims = [
            Claim(hit["id"], sentence, f"{answering.label(hit)}: {sentence}", hit["id"]) for hit, sentence in used
        ]
        labels = [answering.label(hit) for hit, _ in used]
        self._count(ctx, "answered", {"question": question[:300], "answer": text[:300], "citations": labels})
        named = bool(used) and answering.names_what_is_asked(
            question, used[0][1], text=used[0][0]["text"], said_by=str(used[0][0].get("speaker") or "")
        )
        asker = ctx.input.speaker or ctx.input.source  # as long-term memory names who said an episode
        said = text if by_model else wording.sentence(question, text, used, asker, when=answering.is_when(question))
        if said != text and not ctx.changed(AS_SENTENCE):  # a journal from before: the span alone
            said = text
        return Candidate(answering.cited(said, labels), NAMED_ANSWER_SCORE if named else ANSWER_SCORE, claims=claims)

    def _current_fact(self, ctx: ModuleContext, question: str) -> tuple[str, Any, float, str | None] | None:
        """The fact the question asks about, if the agent holds one: its key, value, candidate score and whose it
        is as said ("Bob's sister", or None: as before). Its attribute's words (or the verb it is asked by:
        "live" for ``home``) and the entity's (or "my" for the asker; "Bob's sister" for
        ``user/relation/bob__sister``) are all in the question. A current fact outranks any episode; one about
        another speaker ("Bob's favorite color") answers in place of a rule's F1 too (the rules read "Bob's" as
        a thing's name)."""
        found, score, whose = _best_fact(ctx, question, owned=False), ANSWER_SCORE, None
        owned = _best_fact(ctx, question, owned=True)
        anothers = owned is not None and _another_speakers(owned, ctx.user_entity)
        if (owned != found or anothers) and ctx.changed(OWNED_FACTS):  # else as before (a journal from before)
            score = NAMED_ANSWER_SCORE if anothers else ANSWER_SCORE
            found, whose = owned, None if owned is None else _said_whose(owned, ctx.user_entity, question)
        if found is None:
            return None
        fact = ctx.memory.fact(found)  # read through the tick: the claim cites it
        if fact.exists and fact.value is None and ctx.changed(FORGOTTEN_UNSAID):  # forgotten: nothing to say
            return None
        return (found, fact.value, score, whose) if fact.exists else None

    def _from_fact(
        self,
        ctx: ModuleContext,
        question: str,
        key: str,
        value: Any,
        score: float,
        owner: str | None,
        hits: list[dict[str, Any]],
    ) -> Candidate:
        """The current value of ``key``, cited, with the memories that say the same value; a memory that
        names the attribute with another value is an older state of it and is not cited."""
        said = str(value)
        *_, entity, attribute = key.split("/")
        text = f"{attribute.replace('_', ' ')} of {'you' if entity == ctx.user_entity else entity}: {said}"
        mine = entity == ctx.user_entity and key.startswith("user/person/")
        whose = "Your" if mine else f"The {attribute.replace('_', ' ')} of"
        reply = (
            f"{whose} {attribute.replace('_', ' ')} is {said}."
            if mine
            else f"{whose} {_spelled(entity, question)} is {said}."
        )
        if owner is not None:  # another speaker's or a speaker's relation: "Bob's sister's home is Rome."
            text = f"{attribute.replace('_', ' ')} of {owner}: {said}"
            reply = f"{owner[0].upper()}{owner[1:]}'s {attribute.replace('_', ' ')} is {said}."
        claims = [Claim(key, value, text, ctx.evidence_for(key))]
        same = re.compile(rf"(?<!\w){re.escape(said)}(?!\w)", re.IGNORECASE)
        agreeing = [h for h in hits if same.search(h["text"])]
        for hit in agreeing[: MAX_CITATIONS - 1]:
            sentence = answering.best_sentence(question, hit["text"])
            claims.append(Claim(hit["id"], sentence, f"{answering.label(hit)}: {sentence}", hit["id"]))
        labels = [f"fact {key}", *(answering.label(h) for h in agreeing[: MAX_CITATIONS - 1])]
        self._count(ctx, "answered", {"question": question[:300], "answer": said[:300], "citations": labels})
        if not ctx.changed(AS_SENTENCE):  # a journal from before: the value alone
            reply = said
        return Candidate(answering.cited(reply, labels), score=score, claims=claims)

    def maintain(self, ctx: ModuleContext) -> Any:
        """Memory upkeep while the user is idle (:mod:`agi_plugin_retrieval.upkeep`)."""
        return upkeep.run(ctx)

    def _boosted(self, ctx: ModuleContext, question: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``memory_index_optimizer``: each hit's score relative to the best, plus its boost (in [-1, 1];
        the heuristic: 0.1 times the share of the question's keywords the memory holds), best first."""
        if not hits:
            return hits
        top = max(h["score"] for h in hits) or 1.0
        documents = [{"id": i, "title": f"{h.get('speaker') or ''} {h['text']}"[:4000]} for i, h in enumerate(hits)]
        asked = ctx.contracts.call(
            "memory_index_optimizer",
            {"query": question, "terms": sorted(answering.keywords(question)), "documents": documents},
        )
        boosts: dict[int, float] = {}
        for entry in (asked.value or {}).get("reranked") or []:
            ident, boost = entry.get("id"), entry.get("boost")
            if type(ident) is int and 0 <= ident < len(hits) and type(boost) in (int, float) and boost == boost:
                boosts[ident] = min(max(float(boost), -1.0), 1.0)
        scored = [{**h, "score": h["score"] / top + boosts.get(i, 0.0)} for i, h in enumerate(hits)]
        return sorted(scored, key=lambda h: (-h["score"], h["id"]))

    def _rerank(self, ctx: ModuleContext, question: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``memory_retrieval_ranking`` after the index boosts: the model's score weighs 35% when it
        answers (ids are positions)."""
        hits = self._boosted(ctx, question, hits)
        candidates = [{"id": i, "text": h["text"][:500], "score": round(h["score"], 6)} for i, h in enumerate(hits)]
        ranked = ctx.contracts.call("memory_retrieval_ranking", {"query": question, "candidates": candidates})
        if ranked.source != "llm" or not hits:
            return hits
        top = max(h["score"] for h in hits) or 1.0
        given = {
            r["id"]: float(r["score"])
            for r in (ranked.value or {}).get("rankings") or []
            if type(r.get("id")) is int and 0 <= r["id"] < len(hits) and type(r.get("score")) in (int, float)
        }
        mixed = {
            i: (1 - LLM_WEIGHT) * h["score"] / top + LLM_WEIGHT * min(max(given.get(i, 0.0), 0.0), 1.0)
            for i, h in enumerate(hits)
        }
        return [hits[i] for i in sorted(mixed, key=lambda i: (-mixed[i], i))]

    def _written(
        self, ctx: ModuleContext, question: str, hits: list[dict[str, Any]]
    ) -> tuple[str, list[tuple[dict[str, Any], str]], bool]:
        """The answer, the (memory, sentence) pairs it cites, and whether the model wrote it: the model's
        when it cites recalled memories only, else the span of the best memory and the next best ones as
        further sources."""
        shown = hits[:5]
        documents = [{"doc_id": answering.label(h), "text": h["text"][:800], "date": h.get("timestamp")} for h in shown]
        written = ctx.contracts.call("retrieval_answer", {"question": question, "documents": documents})
        value = written.value or {}
        by_label = {answering.label(h): h for h in shown}
        if written.source == "llm" and value.get("status") == "ok" and isinstance(value.get("answer"), str):
            named = [c.get("doc_id") for c in value.get("citations") or [] if isinstance(c, dict)]
            cited = [n for n in named if isinstance(n, str) and n in by_label]
            if named and len(cited) == len(named):
                chosen = list(dict.fromkeys(cited))[:MAX_CITATIONS]
                text = re.sub(r"\s*\[[^\]]*\]", "", value["answer"]).strip()[:400]
                used = [(by_label[n], answering.best_sentence(question, by_label[n]["text"])) for n in chosen]
                return text, used, True
        top = hits[:MAX_CITATIONS]
        answers = [answering.answer(question, hit) for hit in top]
        best = next((i for i, (text, sentence) in enumerate(answers) if text != sentence), 0)  # a span, if any
        order = [best, *(i for i in range(len(top)) if i != best)]
        return answers[best][0], [(top[i], answers[i][1]) for i in order], False

    def _nothing(self, ctx: ModuleContext, question: str, why: str) -> Candidate:
        self._count(ctx, "refused", {"question": question[:300], "answer": NOTHING, "citations": [], "why": why})
        return Candidate(NOTHING, score=0.2)

    def _remember(self, ctx: ModuleContext, what: str) -> Candidate:
        """The facts whose key names ``what`` and the memories about it, each with its source."""
        slug = "self" if what.lower().strip() in {"me", "myself", "my life"} else _slug(what)
        parts: list[str] = []
        claims: list[Claim] = []
        labels: list[str] = []
        keys = [e.key for e in ctx.memory.reason.store.facts("", limit=200) if slug in e.key.split("/")]
        for key in keys[:5]:
            fact = ctx.memory.fact(key)
            if fact.exists and fact.value is None and ctx.changed(FORGOTTEN_UNSAID):  # forgotten: nothing to list
                continue
            if fact.exists:
                *_, entity, attribute = key.split("/")
                said = (
                    f"{attribute.replace('_', ' ')} of {'you' if entity == ctx.user_entity else entity}: {fact.value}"
                )
                parts.append(f"{said} [fact {key}]")
                claims.append(Claim(key, fact.value, said, ctx.evidence_for(key)))
        for hit in self._recall(ctx, [what])[:MAX_CITATIONS]:
            sentence = answering.best_sentence(what, hit["text"])
            who = f"{hit['speaker']}: " if hit.get("speaker") else ""
            labels.append(answering.label(hit))
            parts.append(answering.cited(f"{who}{sentence}", labels[-1:]))
            claims.append(Claim(hit["id"], sentence, sentence, hit["id"]))
        if not parts:
            self._count(ctx, "refused", {"question": what[:300], "answer": "", "citations": [], "why": "nothing"})
            return Candidate(f"I remember nothing about {what}.", score=0.5)
        reply = f"About {what}, I remember: " + "; ".join(parts) + "."
        self._count(ctx, "summaries", {"question": what[:300], "answer": reply[:300], "citations": labels})
        return Candidate(reply, score=0.8, claims=claims)

    def _count(self, ctx: ModuleContext, kind: str, last: dict[str, Any]) -> None:
        ctx.own.put(kind, ctx.own.get(kind, 0) + 1)
        ctx.own.put("last", last)


def _best_fact(ctx: ModuleContext, question: str, *, owned: bool) -> str | None:
    """The key of the fact :meth:`RetrievalModule._current_fact` answers from, the most attribute words first.
    ``owned`` (before: neither): a relation is its speaker's (``bob__sister`` is Bob's sister, ``sister`` the
    user's: "my" or the owner's name says whose), a name is said possessive too ("Bob's"), and an attribute
    may be asked by its verb ("where does Bob's sister live?" asks ``home``)."""
    wanted, said = answering.keywords(question), set(answering.words(question))
    names = wanted | {answering._bare(word) for word in wanted} if owned else wanted
    mine = ctx.user_entity  # "my …" is the asker's: self, or a named speaker's own entity
    first = bool(said & answering.FIRST_PERSON)
    best: tuple[int, str] | None = None
    for entry in ctx.memory.reason.store.facts("", limit=FACTS_SCANNED):
        parts = entry.key.split("/")
        if len(parts) < 2:
            continue
        entity, attribute = parts[-2], parts[-1]
        named = set(attribute.split("_")) - answering.STOPWORDS
        asked = named <= wanted or (owned and bool(ASKED_BY.get(attribute, set()) & said))
        if owned and parts[:2] == ["user", "relation"]:
            owner, _, noun = entity.rpartition(RELATION_OWNER)
            owner = owner or SELF
            whose = first if owner == mine else set(owner.split("_")) <= names
            who = whose and set(noun.split("_")) <= names
        else:
            who = first if entity == mine else set(entity.split("_")) <= names
        if named and asked and who and (best is None or len(named) > best[0]):
            best = (len(named), entry.key)
    return None if best is None else best[1]


def _another_speakers(key: str, mine: str) -> bool:
    """Whether ``key`` is a fact about another speaker than the asker ``mine``, or one of theirs."""
    parts = key.split("/")
    if parts[:2] == ["user", "person"]:
        return parts[2] not in (mine, SELF)
    owner = parts[2].rpartition(RELATION_OWNER)[0] if parts[:2] == ["user", "relation"] else ""
    return bool(owner) and owner != mine


def _said_whose(key: str, mine: str, question: str) -> str | None:
    """Whose fact ``key`` is, as said to the asker ``mine``: another speaker ("Alice"), a relation ("Bob's sister",
    "your sister"); None for any other key (said as before)."""
    parts = key.split("/")
    if parts[:2] == ["user", "person"] and parts[2] not in (mine, SELF):
        return _spelled(parts[2], question)
    if parts[:2] != ["user", "relation"]:
        return None
    owner, _, noun = parts[2].rpartition(RELATION_OWNER)
    whose = "your" if (owner or SELF) == mine else f"{_spelled(owner or SELF, question)}'s"
    return f"{whose} {noun.replace('_', ' ')}"


def _spelled(entity: str, question: str) -> str:
    """``entity`` (a key's id, lower case: ``new_york``) as the question spells it ("New York"), else its words."""
    words = entity.replace("_", " ")
    found = re.search(rf"(?<!\w){re.escape(words)}(?!\w)", question, re.IGNORECASE)
    return found.group(0) if found else words
