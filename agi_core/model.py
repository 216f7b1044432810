"""The shapes the kernel keeps and exchanges, as attrs classes (seed 000 of B.L.A.S.T.).

Each class has a JSON Schema in ``schemas/`` generated from it by
``python -m agi_core.schemagen``; field metadata under ``"schema"`` adds constraints the
type alone does not say (patterns, bounds).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

JSON = Any

RECENT_TURNS_MAX = 10
PLAN_STEPS_MAX = 20
CANONICAL_KEY_PATTERN = r"^[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+/[a-z0-9_]+$"
TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$"
INPUT_SOURCE_PATTERN = (
    r"^(user|env|event|clock|maintain|schedule:[a-z0-9][a-z0-9_-]{0,63}|goal:[a-z0-9][a-z0-9_-]{0,63}"
    r"|message:[a-z][a-z0-9_]{0,62}|mcp:[a-z0-9][a-z0-9_-]{0,63})$"
)
"""Why a tick ran: a user line, the environment, a kernel event, the clock sensor, maintenance, a scheduled
job, a step of the active goal's plan that ``agi run --follow`` took on its own, a message from another agent,
or a call from an MCP client (``agi mcp serve``)."""
TOOL_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,63}(\.[a-z][a-z0-9_]{0,63})?$"
"""A tool's name: ``file_read``, or ``server.tool`` for a tool another program serves (agi-plugin-mcp)."""


def _schema(**constraints: Any) -> dict[str, Any]:
    return {"schema": constraints}


# -- tick state ------------------------------------------------------------------------
INPUT_LABEL_CHARS = 200
"""Longest ``speaker``, ``channel`` or ``conversation`` of an input."""


@attrs.frozen
class Input:
    """One input: its text, why the tick ran (``source``), and who said it where.

    ``speaker`` (who said it), ``channel`` (where: a terminal, a room, an inbox) and
    ``conversation`` (which thread) are short labels; ``metadata`` any JSON object the sensor
    adds. All four are journaled (left out of the record when unset) and served back on replay.
    """

    raw: str
    normalized: str
    source: str = attrs.field(default="user", metadata=_schema(pattern=INPUT_SOURCE_PATTERN))
    speaker: str | None = attrs.field(default=None, metadata=_schema(maxLength=INPUT_LABEL_CHARS))
    channel: str | None = attrs.field(default=None, metadata=_schema(maxLength=INPUT_LABEL_CHARS))
    conversation: str | None = attrs.field(default=None, metadata=_schema(maxLength=INPUT_LABEL_CHARS))
    metadata: dict[str, JSON] = attrs.field(factory=dict)


@attrs.frozen
class Percept:
    """What a sensor's ``poll`` may return instead of a bare :class:`Input`: the input and the
    sensor's cursor after it (any JSON value). The kernel stores the cursor in the tick that takes
    the input (``Kernel.sensor_cursor(name)`` reads it back), so a restarted agent goes on from there."""

    input: Input
    cursor: JSON


@attrs.frozen
class Recalled:
    semantic: list[dict[str, JSON]] = attrs.field(factory=list)
    episodic: list[dict[str, JSON]] = attrs.field(factory=list)
    working: dict[str, JSON] = attrs.field(factory=dict)


@attrs.frozen
class Beliefs:
    facts: list[dict[str, JSON]] = attrs.field(factory=list)
    uncertainties: list[str] = attrs.field(factory=list)


GoalStatus = Literal["open", "active", "done", "failed", "blocked", "abandoned"]
"""``abandoned``: the user gave the goal up ("I give up on …", ``agi goals abandon ID``), as B.L.A.S.T. has it."""


@attrs.frozen
class PlanStep:
    """One step of a goal's plan: what it does and the assumption it relies on.

    ``do`` is a line the agent runs as the step (a tool command, a question, a sentence);
    ``expect`` is the assumption in checkable form: ``{"fact": KEY, "value": V}`` (the fact
    holds that value) or ``{}`` (the step's action succeeds).
    """

    do: str
    assumes: str = ""
    expect: dict[str, JSON] = attrs.field(factory=dict)
    status: Literal["todo", "done", "failed"] = "todo"


@attrs.frozen
class Goal:
    """A goal of the store (agi_core.scheduling.goals); ``description`` is its title."""

    id: str
    description: str
    status: GoalStatus = "active"
    parent: str | None = None
    priority: float = attrs.field(default=0.5, metadata=_schema(minimum=0, maximum=1))
    progress: float = attrs.field(default=0.0, metadata=_schema(minimum=0, maximum=1))
    plan: list[PlanStep] = attrs.field(factory=list, metadata=_schema(maxItems=PLAN_STEPS_MAX))
    assumptions: list[str] = attrs.field(factory=list)
    created_tick: int = 0
    updated_tick: int = 0
    replans: int = 0


@attrs.frozen
class Plan:
    """The tick's plan. For a goal's step: ``goal``, the step's ``assumption``, and ``replan``
    (the reason) when an observation contradicted it and the goal's plan was revised."""

    steps: list[str] = attrs.field(factory=list, metadata=_schema(maxItems=PLAN_STEPS_MAX))
    current_index: int = attrs.field(default=0, metadata=_schema(minimum=0))
    goal: str | None = None
    assumption: str | None = None
    replan: str | None = None


@attrs.frozen
class Action:
    type: Literal["tool", "response"]
    name: str
    args: dict[str, JSON] = attrs.field(factory=dict)


@attrs.frozen
class Observation:
    success: bool
    payload: dict[str, JSON] = attrs.field(factory=dict)
    error: str | None = None


@attrs.frozen
class TickState:
    """One pass of perceive → recall → reason → plan → act → store."""

    input: Input
    recalled: Recalled = attrs.field(factory=Recalled)
    beliefs: Beliefs = attrs.field(factory=Beliefs)
    goal: Goal | None = None
    plan: Plan = attrs.field(factory=Plan)
    action: Action | None = None
    observation: Observation | None = None


# -- memory entries --------------------------------------------------------------------
@attrs.frozen
class SemanticEntry:
    """A fact under its canonical key; ``fact`` is a readable rendering of it.

    ``relations`` (B.L.A.S.T.'s semantic entry) are the entities the fact links: its own
    entity (``user/relation/sister``), the user for a fact about one of theirs, and the stored
    entity its value names (``world/entity/paris`` for "the capital of France is Paris").
    """

    id: str
    key: str = attrs.field(metadata=_schema(pattern=CANONICAL_KEY_PATTERN, maxLength=200))
    value: JSON
    fact: str
    relations: list[str] = attrs.field(factory=list)
    updated_at: str = attrs.field(default="", metadata=_schema(pattern=TIMESTAMP_PATTERN))


@attrs.frozen
class SemanticRead:
    """The read contract of rule S7: ``exists``, ``value``, ``last_updated``.

    ``source`` names the agent that wrote a shared (``world/``) fact when it is another agent.
    """

    exists: bool
    value: JSON = None
    last_updated: str | None = None
    source: str | None = None


@attrs.frozen
class EpisodicEntry:
    id: str
    event: str
    context: dict[str, JSON] = attrs.field(factory=dict)
    timestamp: str = attrs.field(default="", metadata=_schema(pattern=TIMESTAMP_PATTERN))


@attrs.frozen
class WorkingMemory:
    """Bounded: 10 recent turns, 1 active goal, 1 focus entity."""

    recent_turns: list[str] = attrs.field(factory=list, metadata=_schema(maxItems=RECENT_TURNS_MAX))
    active_goal: Goal | None = None
    focus: str | None = None


# -- tools -----------------------------------------------------------------------------
@attrs.frozen
class ToolDefinition:
    """A tool's declaration: parameters as JSON type names, its effect, optional timeout and idempotency key.

    ``timeout_s`` overrides the kernel's timeout for this tool; ``idempotency_key`` names
    the parameter that makes a repeated call harmless (the kernel fills it in when the
    caller does not), which lets an interrupted write/external call be retried.
    """

    name: str = attrs.field(metadata=_schema(pattern=TOOL_NAME_PATTERN))
    description: str
    parameters: dict[str, str] = attrs.field(factory=dict)
    effect: Literal["read", "write", "external"] = "read"
    timeout_s: float | None = attrs.field(default=None, metadata=_schema(exclusiveMinimum=0))
    idempotency_key: str | None = None


# -- journal ---------------------------------------------------------------------------
@attrs.frozen
class RouterDecision:
    agent: str
    why: str


@attrs.frozen
class JournalRecord:
    """Everything one tick did, stored in the tick's own transaction.

    The eleven fields of rulebook §5 are compared exactly by replay; ``externals`` holds
    what came from outside the kernel so replay can serve it back. ``hook_order`` lists,
    per hook that ran in the tick, its plugins in call order (compared by replay too).
    """

    tick: int = attrs.field(metadata=_schema(minimum=1))
    id: str
    timestamp: str = attrs.field(metadata=_schema(pattern=TIMESTAMP_PATTERN))
    input: Input
    router_decision: RouterDecision
    selected_agents: list[str]
    agent_outputs: dict[str, JSON]
    sem_reads: list[dict[str, JSON]]
    sem_writes: list[dict[str, JSON]]
    final_output: str
    council_votes: list[dict[str, JSON]]
    claims: list[dict[str, JSON]]
    evidence_items: list[dict[str, JSON]]
    brainstate_before: dict[str, JSON]
    brainstate_after: dict[str, JSON]
    action: Action
    observation: Observation
    plan: Plan = attrs.field(factory=Plan)
    externals: dict[str, JSON] = attrs.field(factory=dict)
    degraded: list[str] = attrs.field(factory=list)
    brain: str = ""
    modules: dict[str, JSON] = attrs.field(factory=dict)
    """The cognitive modules of the tick: ``order`` (run order) and ``calls`` (per module and phase:
    ``output`` and ``state`` writes, or ``skipped`` with the reason); empty when no module is loaded."""
    hook_order: dict[str, list[str]] = attrs.field(factory=dict)
    goal: Goal | None = None
    beliefs: Beliefs = attrs.field(factory=Beliefs)


REPLAY_FIELDS: tuple[str, ...] = (
    "router_decision",
    "selected_agents",
    "agent_outputs",
    "sem_reads",
    "sem_writes",
    "final_output",
    "council_votes",
    "claims",
    "evidence_items",
    "brainstate_before",
    "brainstate_after",
)
TICK_STATE_FIELDS: tuple[str, ...] = ("plan", "goal", "beliefs")
"""Also compared by replay (after the eleven): the tick's plan, its active goal and its beliefs."""
