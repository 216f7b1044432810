"""The LLM brain's first step: the Stage-0 rules, exactly as ``--brain stage0`` runs them.

:func:`rule_decision` routes the line over the kernel's router agents (R1 arithmetic,
goals, R2 profile facts, R3 world facts, files, recall …, in the rulebook's priority
order). A matching rule's decision is the tick's decision, unchanged but for the brain's
own output entry (``{"mode": "rule", ...}``), unless:

* no rule matched, or the one that matched has no answer (F3): the model's turn;
* an R3 lookup missed (F1): the model's turn — it may know the capital of Germany;
* another lookup missed (F1, e.g. R2 "what is my dog called?"): the answer path with a
  fact picked from long-term memory, if one fits ("my dog is called Rex"); with none it
  stays F1 — no model knows the user's name;
* the line is a ``/tool`` command naming one of the brain's tools (:func:`tool_command`):
  the brain runs it (``/clock`` reads the recorded clock, not the seed-derived one).

Another agent's reply to this agent's message, and "what did bob say?" where bob's reply is kept, are decided as
Stage-0 decides them even where no rule matched (:func:`heard_decision`): the reply is noted for the user, never
answered by the model nor acted on (a ``/recall`` in it is no command). Before, the model answered such a reply as
the user's line; a journal from before replays that (``llm_heard_reply``).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.brain import llm_tools
from agi_core.brain.stage0 import heard
from agi_core.brain.stage0.brain import FALLBACK, Stage0Brain
from agi_core.messaging.inbox import reply_of
from agi_core.reasoning import Decision, ReasonContext
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

#: The rule whose misses go to the model (world knowledge).
WORLD_RULE = "matched_R3_knowledge"
#: The brain's own entry in a rule decision's ``agent_outputs``.
OUTPUT = "llm_brain"
LLM_HEARD = "llm_heard_reply"
"""Another agent's reply decided as Stage-0 decides it where no rule matched (before: the model's turn), recorded
where it is (:meth:`agi_core.externals.Externals.changed`)."""


def tool_command(raw: str) -> tuple[str, dict[str, Any]] | None:
    """``/clock`` → ``("clock", {})``; ``/calculate 2 + 3`` → ``("calculate", {"expression": "2 + 3"})``;
    None when the line is not a command for a brain tool (bare words go to the first parameters)."""
    text = raw.strip()
    if not text.startswith("/") or len(text) < 2:
        return None
    name, _, rest = text[1:].partition(" ")
    tool = llm_tools.TOOLS.get(name)
    if tool is None:
        return None
    if name == "calculate":
        return name, {"expression": rest.strip()}
    if name == "recall" and "=" not in rest:
        return name, {"query": rest.strip()} if rest.strip() else {}
    try:
        parts = shlex.split(rest)
    except ValueError:
        parts = rest.split()
    args: dict[str, Any] = {}
    bare: list[str] = []
    for part in parts:
        key, eq, value = part.partition("=")
        if eq and key in tool.parameters:
            args[key] = value
        else:
            bare.append(part)
    names = [n for n in tool.parameters if n not in args]
    for index, part in enumerate(bare):
        if index < len(names) - 1:
            args[names[index]] = part
        elif names:
            args[names[-1]] = " ".join(bare[index:])
            break
    return name, args


def missed(decision: Decision) -> str | None:
    """``"world"`` for an R3 lookup that missed (F1), ``"fact"`` for any other miss, else None."""
    if decision.final_output != F1_SEM_MISS:
        return None
    return "world" if decision.router_decision.why == WORLD_RULE else "fact"


def rule_decision(kernel: Kernel, ctx: ReasonContext) -> Decision | None:
    """The Stage-0 decision when a rule matched and answered (F1 included: see :func:`missed`);
    None when no rule did."""
    if tool_command(ctx.state.input.raw) is not None:
        return None
    rules = Stage0Brain(kernel.router_agents.values(), timeout_s=kernel.config.timeout_s)
    agent = rules.route(ctx.text)
    if agent is None or agent.name == FALLBACK:
        return None
    decision = rules.reason(ctx)
    if decision.final_output == F3_NO_AGENT:
        return None
    output = {"mode": "rule", "rule": decision.router_decision.why, "agent": decision.router_decision.agent}
    return attrs.evolve(decision, agent_outputs={**decision.agent_outputs, OUTPUT: output})


def heard_decision(kernel: Kernel, ctx: ReasonContext) -> Decision | None:
    """Stage-0's decision for another agent's reply to this agent's message, or for "what did bob say?" where bob's
    reply is kept (:mod:`agi_core.brain.stage0.heard`): asked where no rule decided (:func:`rule_decision` gave
    None), so the model neither answers a reply as the user's line nor runs a command in it; None for any other
    line, and in a journal from before (``llm_heard_reply``)."""
    if reply_of(ctx.state.input) is None and heard.kept_request(ctx) is None:
        return None
    if not ctx.externals.changed(LLM_HEARD):
        return None
    decision = Stage0Brain(kernel.router_agents.values(), timeout_s=kernel.config.timeout_s).reason(ctx)
    output = {"mode": "rule", "rule": decision.router_decision.why, "agent": decision.router_decision.agent}
    return attrs.evolve(decision, agent_outputs={**decision.agent_outputs, OUTPUT: output})
