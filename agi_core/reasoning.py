"""What a brain or router agent sees during one tick, and what it hands back.

Every semantic read and write goes through :class:`ReasonContext`, which records it
(``sem_reads``, ``sem_writes``) and mints evidence items for claims to cite. Evidence and
claim ids are derived from their content (:func:`content_id`), never from their position:
the same read gives the same id in any tick, in any order, on replay. A brain that
needs a ``read`` tool's result before it answers calls :meth:`ReasonContext.run_read_tool`:
the kernel runs it exactly as it acts (policy, isolation, timeout, recorded observation).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.errors import AgiError, StorageError
from agi_core.externals import Externals
from agi_core.memory.keys import SELF_ENTITY, make_key, speaker_entity
from agi_core.model import Action, Observation, Plan, RouterDecision, SemanticEntry, SemanticRead, TickState
from agi_core.serialization import dumps, from_data, to_data

if TYPE_CHECKING:
    from agi_core.determinism import Determinism
    from agi_core.memory.backend import MemoryBackend


CONTENT_ID_CHARS = 12
_SCALARS = frozenset({str, int, float, bool, type(None)})
WRITE_FAILURE = "sem_write_failure"  # the external kind of a fact write the backend failed (F5)


def content_id(prefix: str, payload: Any) -> str:
    """``prefix-`` and the first 12 hex digits of the sha256 of ``payload``'s canonical JSON."""
    return f"{prefix}-{hashlib.sha256(dumps(payload).encode()).hexdigest()[:CONTENT_ID_CHARS]}"


def recorded_write_failures(record: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``{WRITE_FAILURE: [...]}`` from a journal record's failed ``sem_writes``, for records journaled
    before those failures were recorded as externals; ``{}`` when the record has them or none failed."""
    if WRITE_FAILURE in record.get("externals", {}):
        return {}
    writes = enumerate(record.get("sem_writes") or [])
    failed = [{"write": i, "key": w["key"], "error": w.get("error")} for i, w in writes if w.get("ok") is False]
    return {WRITE_FAILURE: failed} if failed else {}


@attrs.define
class AgentReply:
    """A router agent's answer: the reply text, its claims, and optionally a tool action."""

    text: str
    claims: list[dict[str, Any]] = attrs.field(factory=list)
    action: Action | None = None
    focus: str | None = None


@attrs.frozen
class Decision:
    """The reason step's result; the kernel acts on ``action`` and journals the rest."""

    router_decision: RouterDecision
    selected_agents: list[str]
    agent_outputs: dict[str, Any]
    final_output: str
    council_votes: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    evidence_items: list[dict[str, Any]]
    action: Action
    plan: Plan
    degraded: list[str] = attrs.field(factory=list)
    focus: str | None = None
    #: the observation of ``action`` when the brain already ran it during reason
    #: (:meth:`ReasonContext.run_read_tool`); the kernel then does not run it again
    acted: Observation | None = None


def failed_decision(brain: str, exc: BaseException) -> Decision:
    """The decision of a brain that raised: the rulebook's F4 reply, the brain marked degraded."""
    from agi_core.effects.isolation import describe
    from agi_core.replies import F4_AGENT_FAILURE

    return Decision(
        router_decision=RouterDecision(agent=brain, why="brain_failed"),
        selected_agents=[brain],
        agent_outputs={brain: {"error": describe(exc)}},
        final_output=F4_AGENT_FAILURE,
        council_votes=[],
        claims=[],
        evidence_items=[],
        action=Action(type="response", name="respond", args={"text": F4_AGENT_FAILURE}),
        plan=Plan(steps=[f"brain_failed:{brain}"]),
        degraded=[brain],
    )


class ContextClosed(AgiError):
    """A timed-out agent tried to use its tick after the tick moved on."""


SPEAKER_ENTITY = "speaker_entity"
"""The external that records a named speaker's entity id (journals from before it kept ``self``)."""


def user_entity_of(speaker: str | None, externals: Externals) -> str:
    """The entity id of the tick's speaker (:func:`~agi_core.memory.keys.speaker_entity`): ``self`` for
    the user who names none. A named speaker's is recorded as the ``speaker_entity`` external; a
    journal from before that kept every speaker's facts under ``self``, so its replay does too."""
    if speaker is None:
        return SELF_ENTITY
    recorded = externals.recorded
    if recorded is not None and SPEAKER_ENTITY not in recorded:
        return SELF_ENTITY
    return str(externals.fetch(SPEAKER_ENTITY, lambda: speaker_entity(speaker)))


SPEAKER_RELATIONS = "speaker_relations"
"""The external that records a named speaker's relations as theirs (journals from before it kept them the user's)."""
RELATION_OWNER = "__"
"""Between a named speaker's entity and the noun in a relation's id: ``user/relation/bob__sister/home`` (neither
holds two underscores in a row, so the split is never ambiguous)."""


@attrs.define
class ReasonContext:
    state: TickState
    tick: int
    store: MemoryBackend
    determinism: Determinism
    synonyms: Mapping[str, str]
    externals: Externals = attrs.field(factory=Externals)
    long_term: Callable[[str, int], list[dict[str, Any]]] | None = None
    read_tool: Callable[[str, dict[str, Any]], Observation] | None = None
    sem_reads: list[dict[str, Any]] = attrs.field(factory=list)
    sem_writes: list[dict[str, Any]] = attrs.field(factory=list)
    evidence_items: list[dict[str, Any]] = attrs.field(factory=list)
    closed: bool = False
    _read_ids: dict[tuple[Any, ...], str] = attrs.field(factory=dict, repr=False, alias="read_ids")
    """The evidence ids of the fact reads with a scalar value, by (key, last_updated, type, value)."""
    _evidence_at: dict[str, int] = attrs.field(factory=dict, repr=False, alias="evidence_at")
    """Where :meth:`_add_evidence` placed each item in ``evidence_items``, by id (checked before it is trusted)."""
    proposals: list[Any] = attrs.field(factory=list)  # the modules' deliberations (agi_core.modules.proposals)
    council: Sequence[Any] | None = None  # council members (objects with vote); None: the Stage-0 voters
    council_settings: Callable[[], Mapping[str, Any]] | None = None  # the stage0 plugin's council_* settings
    settings: Callable[[str], Mapping[str, Any]] | None = None  # a loaded plugin's settings (messaging.allow_tools)
    council_failed: Callable[[Any, str], None] | None = None  # a member abstained for this failure: report it
    council_limit: Callable[[Any], float] | None = None  # a member's vote timeout in seconds (0, or None: none)
    contracts: Any = None  # the tick's ContractCaller when a contract provider is configured, else None
    goal_plan: Plan | None = None  # set when the tick runs a goal's plan step (agi_core.scheduling.plans)
    goal_writes: list[str] = attrs.field(factory=list)  # ids of the goals this tick wrote (agi_core.scheduling.goals)
    on_state_complete: Callable[[Any], None] | None = None  # an RLM state completed: the plugins' hook
    module_tick: Any = None  # the tick's modules (agi_core.modules.runner.ModuleTick): the maintain command runs them
    user_entity: str = SELF_ENTITY  # whose "my …" this tick's line speaks of: user/person/<this>/… (user_entity_of)

    @property
    def text(self) -> str:
        return self.state.input.normalized

    def key(self, scope: str, entity_type: str, entity_id: str, attribute: str) -> str:
        return make_key(scope, entity_type, entity_id, attribute, self.synonyms)

    def relation_owner(self) -> str | None:
        """The named speaker whose "my sister …" this tick's line speaks of (their relations are
        ``user/relation/<speaker>__<noun>/…``), recorded once a tick as the ``speaker_relations`` external; None for
        the user who names none, and in a journal from before, which kept every speaker's under the user's."""
        if self.user_entity == SELF_ENTITY:
            return None
        recorded = self.externals.recorded
        if recorded is not None and SPEAKER_RELATIONS not in recorded:
            return None
        if SPEAKER_RELATIONS not in self.externals.log:
            self.externals.fetch(SPEAKER_RELATIONS, lambda: self.user_entity)
        return self.user_entity

    def _check_open(self) -> None:
        if self.closed:
            raise ContextClosed("this tick has ended (the agent timed out); its reads and writes are refused")

    def sem_read(self, key: str) -> SemanticRead:
        """Read a fact (S7) and record the read; a hit also becomes an evidence item."""
        self._check_open()
        return self._recorded(key, self._shared_read(key) or self.store.sem_read(key))

    def listed_read(self, entry: SemanticEntry) -> SemanticRead:
        """:meth:`sem_read` of a fact the tick just listed from the store (``store.facts``): the same read,
        recorded alike, without asking the store again (a shared fact is still read as an external)."""
        self._check_open()
        listed = SemanticRead(exists=True, value=entry.value, last_updated=entry.updated_at)
        return self._recorded(entry.key, self._shared_read(entry.key) or listed)

    def listed_value(self, entry: SemanticEntry) -> Any:
        """``listed_read(entry).value``, recorded alike, without building the read (``ctx.memory.facts``)."""
        self._check_open()
        shared = self._shared_read(entry.key)
        if shared is not None:
            return self._recorded(entry.key, shared).value
        value = entry.value
        self._note(entry.key, True, value, entry.updated_at, None)
        return copy.deepcopy(value) if isinstance(value, dict | list) else value

    def _recorded(self, key: str, result: SemanticRead) -> SemanticRead:
        self._note(key, result.exists, result.value, result.last_updated, result.source)
        if isinstance(result.value, dict | list):  # the caller's own copy: changing it leaves the journaled read be
            return attrs.evolve(result, value=copy.deepcopy(result.value))
        return result

    def _note(self, key: str, exists: bool, value: Any, last_updated: str | None, source: str | None) -> None:
        """Record a read (``sem_reads``); a hit also becomes an evidence item."""
        read = {"key": key, "exists": exists, "value": value, "last_updated": last_updated}
        self.sem_reads.append(read if source is None else {**read, "source": source})
        if exists:
            item = {"source": "sem_read", "key": key, "value": value, "last_updated": last_updated}
            if type(value) in _SCALARS:  # a fact read again (each module its read): its evidence id is known
                seen = (key, last_updated, type(value), value)
                found = self._read_ids.get(seen)
                if found is None:
                    found = self._read_ids[seen] = content_id("ev", item)
                elif self._known_evidence(found):
                    return
                self._add_evidence({"id": found, **item})
            else:
                self._add_evidence({"id": content_id("ev", item), **item})

    def _known_evidence(self, found: str) -> bool:
        """Whether ``found`` is the id of an evidence item already in the tick, as :meth:`_add_evidence` last placed it
        (its index checked: an item added or changed elsewhere sends the caller to the scan)."""
        at = self._evidence_at.get(found)
        items = self.evidence_items
        return at is not None and at < len(items) and items[at]["id"] == found

    def _add_evidence(self, item: dict[str, Any]) -> str:
        found = item["id"]
        if isinstance(found, str) and self._known_evidence(found):
            return found
        if all(known["id"] != found for known in self.evidence_items):
            if isinstance(found, str):
                self._evidence_at[found] = len(self.evidence_items)
            self.evidence_items.append(item)
        return str(found)

    def add_evidence(self, source: str, key: str, value: Any) -> str:
        """Something the tick read (a tool's observation, a module's external read) as an evidence item a
        claim can cite; its id (``ev-`` …) derives from its content."""
        item = {"source": source, "key": key, "value": value}
        return self._add_evidence({"id": content_id("ev", item), **item})

    def _shared_read(self, key: str) -> SemanticRead | None:
        """A read of the backend's shared scope (other agents write it): an external, so replay serves it back."""
        if self.externals.recorded is None:  # live: only a key of the shared scope
            shares = getattr(self.store, "shares", None)
            if shares is None or not shares(key):
                return None
        elif not self.externals.next_matches("shared_read", lambda item: item.get("key") == key):
            return None
        served = self.externals.fetch("shared_read", lambda: {"key": key, "read": to_data(self.store.sem_read(key))})
        return from_data(served["read"], SemanticRead)

    def sem_write(self, key: str, value: Any, fact: str) -> bool:
        """Write a fact (last validated write wins); False if the backend failed (F5)."""
        self._check_open()
        entry = SemanticEntry(
            id=self.determinism.new_id("sem", key),
            key=key,
            value=value,
            fact=fact,
            relations=self._relations(key, value),
            updated_at=self.determinism.now(),
        )
        error = self._store_fact(entry)
        if error is not None:  # the backend's failure to store (F5)
            self.sem_writes.append({"key": key, "value": value, "ok": False, "error": error})
            return False
        self.sem_writes.append({"key": key, "value": value, "ok": True, "updated_at": entry.updated_at})
        return True

    def _relations(self, key: str, value: Any) -> list[str]:
        """The entities a fact links (:class:`~agi_core.model.SemanticEntry`): its own, the user's for one
        of theirs, and a stored ``world/entity/…`` its value names."""
        entity = key.rsplit("/", 1)[0]
        linked = [entity]
        if key.startswith("user/relation/"):  # the speaker's own relation, else the user's
            owner, named, _noun = key.split("/")[2].rpartition(RELATION_OWNER)
            linked.append(f"user/person/{owner if named else SELF_ENTITY}")
        if isinstance(value, str) and value.strip() and len(value) <= 100:
            try:
                named = make_key("world", "entity", value, "x", map_entity_id=False).rsplit("/", 1)[0]
            except AgiError:  # a value with no letters or digits names no entity
                return linked
            if named not in linked and self.store.facts(named + "/", limit=1):
                linked.append(named)
        return linked

    def _store_fact(self, entry: SemanticEntry) -> str | None:
        """Store ``entry``; the backend's error when it failed, else None.

        The failure comes from outside the tick (a full disk, a lost server), so it is an
        external (``sem_write_failure``): replay serves it back and writes nothing, as the
        live tick did, instead of storing the fact in its healthy scratch database.
        """
        write = len(self.sem_writes)  # this write's place in the tick: the failure names it
        if self.externals.next_matches(WRITE_FAILURE, lambda item: item.get("write") == write):
            return str(self.externals.fetch(WRITE_FAILURE, dict)["error"])
        try:
            with self.store.savepoint("sem_write"):
                self.store.sem_write(entry, self.tick)
        except StorageError as exc:
            failure = {"write": write, "key": entry.key, "error": str(exc)}
            return str(self.externals.fetch(WRITE_FAILURE, lambda: failure)["error"])
        return None

    def recall_long_term(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        """The top-``k`` long-term memories for ``query`` (recorded, so replay gets the same)."""
        self._check_open()
        hits = self.long_term(query, k) if self.long_term is not None else []
        for hit in hits:  # each hit is evidence a claim can cite by its own id (ltm-…)
            self._add_evidence({"id": hit["id"], "source": "ltm", "key": hit["id"], "value": hit["text"]})
        return hits

    def claim(self, key: str, value: Any, text: str) -> dict[str, Any]:
        """A claim about ``key``, citing this tick's evidence for it; its id derives from its content."""
        body = {"key": key, "value": value, "text": text, "evidence": self.evidence_for(key)}
        return {"id": content_id("cl", body), **body}

    def convene(self, reply: str, claims: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
        """The council's verdict on ``reply``: ``(final_output, council_votes)``."""
        from agi_core.council import DEFAULT_MEMBERS, VOTE_REFUSED, bounded_vote, convene

        def refuse() -> bool:  # a member's misshapen votes: refused (recorded), or kept as a journal from before did
            recorded = self.externals.recorded
            if recorded is not None and VOTE_REFUSED not in recorded:
                return False
            self.externals.fetch(VOTE_REFUSED, lambda: True)
            return True

        members = DEFAULT_MEMBERS if self.council is None else self.council
        weights = self.council_settings() if (claims and self.council_settings is not None) else None
        limit = self.council_limit

        def vote(member: Any, claims: list[dict[str, Any]], evidence_items: list[dict[str, Any]]) -> Any:
            return bounded_vote(member, claims, evidence_items, 0 if limit is None else limit(member), self.externals)

        return convene(reply, claims, self.evidence_items, members, weights, refuse, self.council_failed, vote)

    def run_read_tool(self, name: str, args: dict[str, Any]) -> Observation:
        """Run the ``read`` tool ``name`` now, through the kernel (recorded; replay serves it).

        Only ``read`` tools: a write/external call must go through its intent, after the
        commit, so it is refused here (a failed observation, nothing runs).
        """
        self._check_open()
        if self.read_tool is None:
            return Observation(success=False, error="this tick cannot run tools during reason")
        observation = self.read_tool(name, args)
        if observation.success:  # what the tool observed is evidence a claim can cite
            self.add_evidence("tool", name, observation.payload)
        return observation

    def evidence_for(self, key: str) -> str | None:
        """The id of the evidence item a claim about ``key`` can cite, if any (a fact's key, a tool's name,
        a long-term memory's id)."""
        for item in self.evidence_items:
            if item["key"] == key:
                return str(item["id"])
        return None
