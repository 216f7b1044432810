"""The Stage-0 brain: route (R1-R4), run one agent with a timeout, let the council vote.

Another agent's reply to this agent's message, and "what did bob say?", go to their agents ahead of the
rules (:func:`.heard.ahead_of_rules`).

The modules' candidate replies (``ctx.proposals``) are considered only when no rule
matched (R4): the best-scored candidate (score > 0; ties to the module that runs first)
answers instead of F3. A rule's answer stands, so Stage-0 behaves as before, with one
exception: a rule's F1 miss (the fact it looked for is not stored) gives way to a candidate
that cites its sources (claims) and is scored at least :data:`ANSWERS_A_MISS`, the module's
word that its sources hold what the question asks (retrieval's answer from long-term memory).
A miss because the user asked to forget the fact (the rule read it as ``null``) stands: nothing
answers a forgotten fact until it is told again (the ``forgotten_stays`` external, :mod:`.changes`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agi_core.brain.stage0 import changes, facts, heard
from agi_core.effects import TimedOut, call_with_timeout, describe, must_propagate
from agi_core.errors import MemoryKeyError
from agi_core.model import Action, Plan, RouterDecision
from agi_core.modules.proposals import claim_dict
from agi_core.reasoning import AgentReply, Decision, ReasonContext
from agi_core.replies import F1_SEM_MISS, F3_NO_AGENT, F4_AGENT_FAILURE
from agi_core.serialization import from_data

FALLBACK = "generic_agent"
#: the least score of a sourced candidate that answers in place of a rule's F1 miss
ANSWERS_A_MISS = 0.75


class Stage0Brain:
    """Deterministic rule routing over the registered router agents."""

    name = "stage0"

    def __init__(self, agents: Iterable[Any], *, timeout_s: float = 30.0) -> None:
        self.agents = sorted(agents, key=lambda agent: (agent.priority, agent.name))
        self.timeout_s = timeout_s

    def route(self, text: str, failures: dict[str, Any] | None = None) -> Any | None:
        """The first agent (by priority) whose rule matches ``text``.

        An agent whose ``matches`` raises is skipped; its error goes into ``failures``.
        """
        for agent in self.agents:
            try:
                if agent.matches(text):
                    return agent
            except BaseException as exc:
                if must_propagate(exc):
                    raise
                if failures is not None:
                    failures[agent.name] = {"error": describe(exc)}
        return None

    def _run(self, agent: Any, ctx: ReasonContext) -> AgentReply:
        """Run ``agent`` under the timeout; agents marked ``inline = True`` (pure rules) run directly."""
        if self.timeout_s <= 0 or getattr(agent, "inline", False):
            reply = agent.handle(ctx)
        else:
            try:
                reply = call_with_timeout(agent.handle, (ctx,), self.timeout_s)
            except TimedOut:
                ctx.closed = True
                raise TimeoutError(f"{agent.name} took longer than {self.timeout_s} s") from None
        if not isinstance(reply, AgentReply):
            raise TypeError(f"{agent.name}.handle returned {type(reply).__name__}, not an AgentReply")
        return reply

    def reason(self, ctx: ReasonContext) -> Decision:
        token = facts.OLD_RULES.set(changes.old_rules(ctx))
        try:
            return self._reason(ctx)
        finally:
            facts.OLD_RULES.reset(token)

    def _reason(self, ctx: ReasonContext) -> Decision:
        failed_rules: dict[str, Any] = {}
        agent = heard.ahead_of_rules(ctx) or self.route(ctx.text, failed_rules)  # another agent's reply, or about one
        fallback = next((a for a in self.agents if a.name == FALLBACK), None)
        degraded: list[str] = list(failed_rules)
        reads_before = len(ctx.sem_reads)  # the modules' reads came before: the rule's come after
        if agent is None:
            chosen = fallback.name if fallback else FALLBACK
            decision = RouterDecision(agent=chosen, why="matched_R4_fallback")
            reply = AgentReply(F3_NO_AGENT)
            outputs: dict[str, Any] = {**failed_rules, chosen: reply.text}
            selected = [chosen]
        else:
            decision = RouterDecision(agent=agent.name, why=agent.rule)
            selected = [agent.name]
            try:
                reply = self._run(agent, ctx)
                outputs = {**failed_rules, agent.name: reply.text}
            except MemoryKeyError as exc:
                reply = AgentReply(str(exc))
                outputs = {**failed_rules, agent.name: reply.text}
            except BaseException as exc:  # F4: an agent's failure (SystemExit included) degrades, never crashes
                if must_propagate(exc):
                    raise
                degraded.append(agent.name)
                outputs = {**failed_rules, agent.name: {"error": f"{type(exc).__name__}: {exc}"}}
                if fallback is not None and fallback is not agent:
                    selected.append(fallback.name)
                    outputs[fallback.name] = F4_AGENT_FAILURE
                reply = AgentReply(F4_AGENT_FAILURE)
        # no rule answered: none matched, or the one that matched could not answer (F3)
        no_rule = agent is None or agent.name == FALLBACK or reply.text == F3_NO_AGENT
        if no_rule:
            picked = best_candidate(ctx.proposals)
        elif reply.text == F1_SEM_MISS:
            picked = best_candidate(ctx.proposals, least=ANSWERS_A_MISS, sourced=True)
            if picked is not None and read_forgotten(ctx.sem_reads[reads_before:]):
                picked = None if ctx.externals.changed(changes.FORGOTTEN_STAYS) else picked
        else:
            picked = None
        if picked is not None:
            module, candidate = picked
            name = f"module:{module}"
            decision = RouterDecision(agent=name, why="module_candidate" if no_rule else "module_candidate_after_f1")
            # a rule's F1 stays in the record beside the answer that replaced it
            selected, outputs = ([name], failed_rules) if no_rule else ([*selected, name], outputs)
            reply = AgentReply(candidate.reply, claims=[claim_dict(claim) for claim in candidate.claims])
            if candidate.action is not None:
                reply.action = from_data(candidate.action, Action)
            outputs = {**outputs, name: reply.text}
        final, votes = ctx.convene(reply.text, reply.claims)
        action = reply.action or Action(type="response", name="respond", args={"text": final})
        steps = [f"route:{decision.agent}", f"{action.type}:{action.name}"]
        return Decision(
            router_decision=decision,
            selected_agents=selected,
            agent_outputs=outputs,
            final_output=final,
            council_votes=votes,
            claims=reply.claims,
            evidence_items=list(ctx.evidence_items),
            action=action,
            plan=Plan(steps=steps, current_index=0),
            degraded=degraded,
            focus=reply.focus,
        )

    def close(self) -> None:
        """Nothing to release: agents run on the shared daemon workers of :mod:`agi_core.effects`."""


def read_forgotten(reads: Iterable[dict[str, Any]]) -> bool:
    """Whether one of ``reads`` (a tick's ``sem_reads``) found a fact the user asked to forget: stored as ``null``."""
    return any(read["exists"] and read["value"] is None for read in reads)


def best_candidate(proposals: Iterable[Any], *, least: float = 0.0, sourced: bool = False) -> tuple[str, Any] | None:
    """``(module, candidate)`` with the highest score above 0 and at least ``least`` (``sourced``: only
    candidates with claims); the earlier module wins a tie."""
    best: tuple[str, Any] | None = None
    for proposal in proposals:
        for candidate in proposal.candidates:
            if sourced and not candidate.claims:
                continue
            if candidate.score > 0 and candidate.score >= least and (best is None or candidate.score > best[1].score):
                best = (proposal.module, candidate)
    return best
