"""The Stage-0 brain: route (R1-R4), run one agent with a timeout, let the council vote."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterable
from typing import Any

from agi_core.brain.context import AgentReply, Decision, ReasonContext
from agi_core.brain.messages import F3_NO_AGENT, F4_AGENT_FAILURE
from agi_core.brain.stage0.council import deliberate
from agi_core.errors import MemoryKeyError
from agi_core.model import Action, Plan, RouterDecision

FALLBACK = "generic_agent"


class Stage0Brain:
    """Deterministic rule routing over the registered router agents."""

    name = "stage0"

    def __init__(self, agents: Iterable[Any], *, timeout_s: float = 30.0) -> None:
        self.agents = sorted(agents, key=lambda agent: (agent.priority, agent.name))
        self.timeout_s = timeout_s
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None

    def route(self, text: str) -> Any | None:
        """The first agent (by priority) whose rule matches ``text``."""
        return next((agent for agent in self.agents if agent.matches(text)), None)

    def _run(self, agent: Any, ctx: ReasonContext) -> AgentReply:
        """Run ``agent`` under the timeout; agents marked ``inline = True`` (pure rules) run directly."""
        if self.timeout_s <= 0 or getattr(agent, "inline", False):
            return agent.handle(ctx)
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agi-agent")
        future = self._executor.submit(agent.handle, ctx)
        try:
            return future.result(timeout=self.timeout_s)
        except concurrent.futures.TimeoutError:
            ctx.closed = True
            self._executor.shutdown(wait=False)
            self._executor = None
            raise TimeoutError(f"{agent.name} took longer than {self.timeout_s} s") from None

    def reason(self, ctx: ReasonContext) -> Decision:
        agent = self.route(ctx.text)
        fallback = next((a for a in self.agents if a.name == FALLBACK), None)
        degraded: list[str] = []
        if agent is None:
            chosen = fallback.name if fallback else FALLBACK
            decision = RouterDecision(agent=chosen, why="matched_R4_fallback")
            reply = AgentReply(F3_NO_AGENT)
            outputs: dict[str, Any] = {chosen: reply.text}
            selected = [chosen]
        else:
            decision = RouterDecision(agent=agent.name, why=agent.rule)
            selected = [agent.name]
            try:
                reply = self._run(agent, ctx)
                outputs = {agent.name: reply.text}
            except MemoryKeyError as exc:
                reply = AgentReply(str(exc))
                outputs = {agent.name: reply.text}
            except Exception as exc:  # noqa: BLE001 - F4: an agent's failure degrades, never crashes
                degraded.append(agent.name)
                outputs = {agent.name: {"error": f"{type(exc).__name__}: {exc}"}}
                if fallback is not None and fallback is not agent:
                    selected.append(fallback.name)
                    outputs[fallback.name] = F4_AGENT_FAILURE
                reply = AgentReply(F4_AGENT_FAILURE)
        final, votes = deliberate(reply.text, reply.claims, ctx.evidence_items)
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
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None
