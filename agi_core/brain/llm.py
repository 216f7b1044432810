"""The LLM brain: the model asked within each tick, in one of two modes.

``answer`` (the default with the embedded SmolLM2-135M): a short reply from recalled
memories. The fact is picked deterministically and the model only phrases it; a reply
that brings content of its own is replaced by the fact (:mod:`agi_core.brain.answer`).
No tools, no schema, a prompt of a few dozen tokens.

``reason`` (the default with any other model; AgentOne's design), for models that can
follow a JSON schema and call tools, i.e. a larger model behind an OpenAI-compatible
server: a decide turn through the ``reasoning_episode`` contract with the tick's context
(goal, facts, proposals, beliefs, memories, turns: :mod:`agi_core.brain.llm_context`) and
the tools; a ``read`` tool's result fed back in a follow-up turn whose summary is the
reply (:mod:`agi_core.brain.llm_reason`). Every completion is a recorded external, so a
replay of an LLM run is exact and offline. A provider error, a timeout or an answer that
stays invalid gives F4, and the tick completes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.brain import answer, llm_context, llm_reason
from agi_core.brain.llm_reason import AGENT, CONTRACT, function_name
from agi_core.contracts import Budget
from agi_core.contracts.provider import Provider
from agi_core.errors import AgiError, ConfigError
from agi_core.llm.journaled import JournaledProvider
from agi_core.llm.lazy import LazyProvider
from agi_core.model import Action, Observation, Plan, RouterDecision
from agi_core.reasoning import Decision, ReasonContext
from agi_core.replies import F4_AGENT_FAILURE

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

MODES = ("answer", "reason")
#: Tokens a reply may take in ``answer`` mode: one short sentence.
ANSWER_TOKENS = 40


def tool_specs(kernel: Kernel) -> list[dict[str, Any]]:
    """The kernel's tools in OpenAI function format (names by :func:`function_name`); the effect is
    stated in the description."""
    specs = []
    for tool in sorted(kernel.tools.values(), key=lambda t: t.name):
        if tool.name == "respond":
            continue
        properties = {
            name: {"type": "string", "description": kind} for name, kind in tool.definition.parameters.items()
        }
        specs.append(
            {
                "type": "function",
                "function": {
                    "name": function_name(tool.name),
                    "description": f"[effect: {tool.effect}] {tool.definition.description}",
                    "parameters": {"type": "object", "properties": properties, "required": list(properties)},
                },
            }
        )
    return specs


def provider_factory(kernel: Kernel) -> tuple[str, Callable[[], Provider]]:
    """``(name, build)`` for the provider named by ``AGI_LLM_PROVIDER`` (default: llama-cpp)."""
    name = os.environ.get("AGI_LLM_PROVIDER", "llama-cpp")
    registered = kernel.llm_providers
    if name not in registered:
        raise ConfigError(
            f"no LLM provider named {name!r} (AGI_LLM_PROVIDER); installed: {', '.join(sorted(registered)) or 'none'}"
        )
    return name, LazyProvider(name, registered[name], timeout_s=kernel.config.llm_timeout_s)


def default_mode(provider_name: str) -> str:
    """``$AGI_LLM_MODE``, else ``answer`` for the embedded SmolLM2 (llama-cpp, no
    ``AGI_LLAMA_CPP_MODEL``), else ``reason``."""
    mode = os.environ.get("AGI_LLM_MODE")
    if mode:
        if mode not in MODES:
            raise ConfigError(f"AGI_LLM_MODE={mode!r} is not a mode of the LLM brain; use one of {', '.join(MODES)}")
        return mode
    return "answer" if provider_name == "llama-cpp" and not os.environ.get("AGI_LLAMA_CPP_MODEL") else "reason"


class LLMBrain:
    """Answers (``mode="answer"``) or reasons through the ``reasoning_episode`` contract (``"reason"``).

    :param build: builds the provider on first use; the one ``AGI_LLM_PROVIDER`` names by default.
    :param mode: ``answer`` or ``reason``; default :func:`default_mode`.
    :param timeout_s: a model request running longer is abandoned and the reply is F4;
        default the kernel's ``llm_timeout_s`` (``--llm-timeout``), else the provider's own.
    """

    name = "llm"

    def __init__(
        self,
        kernel: Kernel,
        build: Callable[[], Provider] | None = None,
        *,
        provider_name: str = "",
        budget: Budget | None = None,
        mode: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.kernel = kernel
        if build is None:
            provider_name, build = provider_factory(kernel)
        self.provider_name = provider_name or "custom"
        self.mode = mode or default_mode(self.provider_name)
        if self.mode not in MODES:
            raise ConfigError(f"unknown LLM brain mode {self.mode!r}; use one of {', '.join(MODES)}")
        self.build = build
        self.timeout_s = timeout_s if timeout_s is not None else kernel.config.llm_timeout_s
        self.budget = budget or Budget(attempts=3, tokens=6000, max_tokens=256)
        self.contract = kernel.contracts[CONTRACT]

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The kernel's tools now: a plugin may add some when it starts (agi-plugin-mcp's servers' tools)."""
        return tool_specs(self.kernel)

    def close(self) -> None:
        """Close the provider if it was built (the kernel calls this when it closes)."""
        closer = getattr(self.build, "close", None)
        if closer is not None:
            closer()

    def reason(self, ctx: ReasonContext) -> Decision:
        if self._recorded_mode(ctx) == "answer":
            return self._answer(ctx)
        outcome = llm_reason.run(self, ctx)
        return _decision(
            ctx,
            "llm_reasoning_episode",
            outcome.output,
            outcome.text,
            outcome.action,
            outcome.steps,
            outcome.degraded,
            acted=outcome.acted,
        )

    def _recorded_mode(self, ctx: ReasonContext) -> str:
        """The mode, recorded as the ``llm_mode`` external: replay follows the recorded run
        whatever the environment says now (journals without it are from ``reason``-only days)."""
        recorded = ctx.externals.recorded
        if recorded is not None and "llm_mode" not in recorded:
            return "reason"
        return str(ctx.externals.fetch("llm_mode", lambda: self.mode))

    def _answer(self, ctx: ReasonContext) -> Decision:
        """One short reply: the model phrases the picked fact, or answers alone when there is none."""
        fact = None
        if answer.is_question(ctx.text):
            hits = ctx.recall_long_term(ctx.text, 8)
            facts = [*llm_context.sem_facts(ctx), *ctx.state.recalled.semantic]
            fact = answer.pick_fact(ctx.text, answer.candidates(hits, facts))
        provider = JournaledProvider(self.build, ctx.externals, name=self.provider_name, timeout_s=self.timeout_s)
        said, error = "", None
        try:
            completion = provider.complete(answer.prompt(ctx.text, fact), max_tokens=ANSWER_TOKENS, temperature=0.0)
            said = answer.first_sentences(completion.text)
        except AgiError as exc:
            error = str(exc)
        if fact is not None and not answer.grounded(said, fact, ctx.text):
            text, path = answer.extractive_reply(fact), "extractive"
        else:
            text, path = said, "model"
        degraded = [] if text else [AGENT]
        text = text or F4_AGENT_FAILURE
        output = {
            "mode": "answer",
            "path": path,
            "fact": attrs.asdict(fact) if fact is not None else None,
            "model_reply": said,
            "error": error,
        }
        action = Action(type="response", name="respond", args={"text": text})
        return _decision(ctx, "llm_short_answer", output, text, action, ["short_answer"], degraded)


def llm_brain(kernel: Kernel) -> LLMBrain:
    return LLMBrain(kernel)


def _decision(
    ctx: ReasonContext,
    why: str,
    output: dict[str, Any],
    text: str,
    action: Action,
    steps: list[str],
    degraded: list[str],
    *,
    acted: Observation | None = None,
) -> Decision:
    """The brain's decision: its output recorded under the agent's name, the plan ending in the action
    (``acted``: the action already ran during reason, so its step is among ``steps``)."""
    return Decision(
        router_decision=RouterDecision(agent=AGENT, why=why),
        selected_agents=[AGENT],
        agent_outputs={AGENT: output},
        final_output=text,
        council_votes=[],
        claims=[],
        evidence_items=list(ctx.evidence_items),
        action=action,
        plan=Plan(steps=steps if acted is not None else [*steps, f"{action.type}:{action.name}"]),
        degraded=degraded,
        acted=acted,
    )
