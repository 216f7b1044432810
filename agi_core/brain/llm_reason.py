"""The LLM brain's ``reason`` mode: a decide turn, at most one tool, and a follow-up turn.

1. **Decide.** One ``reasoning_episode`` request with the bounded context
   (:mod:`agi_core.brain.llm_context`) and the tools, offered natively and in the prompt.
   A native tool call ends the turn at once (no retry: the contract's JSON is not expected
   then); otherwise the JSON answer is validated and retried within the budget, and an
   action whose ``tool`` names a tool is a call too. The model picks one call; the first
   known tool wins.
2. **A brain tool** (:mod:`agi_core.brain.llm_tools`: remember, recall, calculate, clock,
   goals; its name wins over a kernel tool's) runs now, in the tick, through the context;
   its result goes to the follow-up turn. **A ``read`` tool** runs now, through the kernel
   (:meth:`ReasonContext.run_read_tool`: policy, isolation, timeout, the ``tool_observation``
   external). **A ``write`` or
   ``external`` tool** is the tick's action: the kernel records its intent and runs it
   after the commit; there is no follow-up turn, the reply says the intent was recorded.
3. **Follow-up.** The decide turn's messages, then the call (assistant) and its result with
   the question to answer in plain sentences (user); no tools, no schema. Its answer is the
   reply. A call refused because the tick is another agent's message (:mod:`agi_core.effects.senders`) has no
   follow-up: the refusal's one line is the reply, so the sender reads what to ask for. Plain roles only:
   llama-cpp-python's ``chatml-function-calling`` template drops
   ``tool`` messages. It shares the decide turn's prompt prefix, so a server that caches
   the prompt evaluates only the tail again.

The tick's budget (:attr:`LLMBrain.budget`) covers both turns: requests and tokens. A
provider error, a timeout, an answer that stays invalid or an empty (or JSON) follow-up
answer gives F4, the brain marked degraded, and the tick completes. Every request is the recorded ``llm_completion``
external, the tool's observation the recorded ``tool_observation``: replay runs neither.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.brain import answer, llm_context, llm_tools
from agi_core.contracts import Budget, ContractViolation, call_contract, thaw
from agi_core.contracts.prompt import build_messages, estimate_tokens
from agi_core.errors import AgiError
from agi_core.llm.journaled import JournaledProvider
from agi_core.model import Action, Observation
from agi_core.reasoning import ReasonContext
from agi_core.replies import F4_AGENT_FAILURE
from agi_core.serialization import dumps

if TYPE_CHECKING:
    from agi_core.brain.llm import LLMBrain

AGENT = "llm_brain"
CONTRACT = "reasoning_episode"
#: Characters of a tool's result the follow-up turn gets.
RESULT_CHARS = 2000
#: Tokens the follow-up answer may take (less if the tick's budget has less left).
FOLLOW_UP_TOKENS = 128
#: Fewer completion tokens than this left in the budget: no follow-up turn.
MIN_FOLLOW_UP_TOKENS = 16
FOLLOW_UP_ASK = "The tool has run. Now answer my question in one or two plain sentences from this result: no JSON."


@attrs.frozen
class Outcome:
    """What the turns decided: the reply, the tick's action, and what ran already."""

    text: str
    action: Action
    output: dict[str, Any]
    steps: list[str]
    acted: Observation | None = None
    degraded: list[str] = attrs.field(factory=list)


def _respond(text: str) -> Action:
    return Action(type="response", name="respond", args={"text": text})


def run(brain: LLMBrain, ctx: ReasonContext) -> Outcome:
    """The decide turn, the tool and the follow-up turn of one tick."""
    read = llm_context.sem_facts(ctx)
    context, report = llm_context.bounded(llm_context.sections(ctx, read))
    if (note := llm_context.time_note(ctx)) is not None:
        context["time"] = note  # the recorded wall clock, and how long since the user's previous line
    context["tools"] = [
        {"name": s["function"]["name"], "description": s["function"]["description"]} for s in brain.tools
    ]
    context["how_to_use_a_tool"] = 'call it, or add an action {"tool": NAME, "args": {...}}'
    variables = {"question": ctx.text, "context": context}
    decide = JournaledProvider(
        brain.build, ctx.externals, name=brain.provider_name, tools=brain.tools, timeout_s=brain.timeout_s
    )
    budget = _recorded_budget(brain, ctx)
    first = _turn(brain, decide, variables, budget, tool_calls_end=True)
    output: dict[str, Any] = {**first.pop("summary"), "context": report, "tool": None, "follow_up": None}

    def finish(outcome: Outcome) -> Outcome:
        outcome.output["requests"] = len(ctx.externals.log.get("llm_completion", []))
        return outcome

    value, calls = first["value"], first["tool_calls"]
    pick = _pick(brain, calls, value)
    if pick is None:
        summary = str((value or {}).get("summary") or "").strip() if first["valid"] else ""
        if not summary:
            return finish(Outcome(F4_AGENT_FAILURE, _respond(F4_AGENT_FAILURE), output, [CONTRACT], degraded=[AGENT]))
        return finish(Outcome(summary, _respond(summary), output, [CONTRACT]))
    name, args, source = pick
    if name in llm_tools.TOOLS:
        log = llm_tools.BrainToolLog()
        payload = llm_tools.call(ctx, brain.kernel, name, args, log)
        output["tool"] = {**log.calls[0], "from": source, "brain_tool": True}
        if payload.get("sender"):  # refused for another agent's message: the refusal is the reply, as said
            return finish(Outcome(payload["text"], _respond(payload["text"]), output, [CONTRACT, f"brain_tool:{name}"]))
        error = payload.get("error")
        observation = Observation(success=error is None, payload=payload, error=None if error is None else str(error))
        answered = _follow_up(
            brain, ctx, variables, budget, first, Action(type="tool", name=name, args=args), observation, output
        )
        return finish(attrs.evolve(answered, action=_respond(answered.text), acted=None))
    effect = brain.kernel.tools[name].effect
    output["tool"] = {"name": name, "args": args, "effect": effect, "from": source}
    action = Action(type="tool", name=name, args=args)
    if effect != "read":  # the intent → receipt path: the kernel records the intent, no follow-up
        return finish(Outcome(f"calling {name}", action, output, [CONTRACT]))
    observation = ctx.run_read_tool(name, args)
    if observation.payload.get("sender"):  # refused for another agent's message: the refusal is the reply, as said
        return finish(Outcome(_shown(name, observation), action, output, [CONTRACT, f"tool:{name}"], observation))
    return finish(_follow_up(brain, ctx, variables, budget, first, action, observation, output))


def _recorded_budget(brain: LLMBrain, ctx: ReasonContext) -> Budget:
    """The tick's budget, recorded as the ``llm_budget`` external: whether a follow-up turn
    fits is decided by it, so replay follows the recorded run whatever the brain's is now."""
    recorded = ctx.externals.recorded
    if recorded is not None and "llm_budget" not in recorded:
        return brain.budget
    return Budget(**ctx.externals.fetch("llm_budget", lambda: attrs.asdict(brain.budget)))


def _follow_up(
    brain: LLMBrain,
    ctx: ReasonContext,
    variables: dict[str, Any],
    budget: Budget,
    first: dict[str, Any],
    action: Action,
    observation: Observation,
    output: dict[str, Any],
) -> Outcome:
    """The follow-up turn on the read tool's result, within what the decide turn left of the budget."""
    name = action.name
    steps = [CONTRACT, f"tool:{name}", "follow_up"]
    messages = [
        *build_messages(brain.contract, variables),
        {"role": "assistant", "content": dumps({"tool": name, "args": action.args})},
        {"role": "user", "content": f"Result of {name}: {_result(observation)}\n{FOLLOW_UP_ASK}"},
    ]
    room = budget.tokens - first["tokens"] - estimate_tokens(messages)
    max_tokens = min(FOLLOW_UP_TOKENS, budget.max_tokens or FOLLOW_UP_TOKENS, room)
    if budget.attempts - first["attempts"] < 1 or max_tokens < MIN_FOLLOW_UP_TOKENS:
        output["follow_up"] = {"outcome": "skipped:budget"}
        return Outcome(_shown(name, observation), action, output, steps[:2], observation)
    follow = JournaledProvider(brain.build, ctx.externals, name=brain.provider_name, timeout_s=brain.timeout_s)
    said, error = "", None
    try:
        said = follow.complete(messages, max_tokens=max_tokens, temperature=0.0).text
    except AgiError as exc:
        error = str(exc)
    reply = _plain_answer(said)
    output["follow_up"] = {"outcome": "answered" if reply else "error" if error else "bad_output", "error": error}
    if not reply:
        return Outcome(F4_AGENT_FAILURE, action, output, steps, observation, degraded=[AGENT])
    return Outcome(reply, action, output, steps, observation)


def _turn(
    brain: LLMBrain, provider: JournaledProvider, variables: dict[str, Any], budget: Budget, *, tool_calls_end: bool
) -> dict[str, Any]:
    """One contract call: its value (or None), native tool calls, cost, and what the journal keeps."""
    attempts: list[dict[str, Any]] = []
    try:
        call = call_contract(
            brain.contract,
            provider,
            variables,
            budget=budget,
            journal=lambda record: attempts.append(_attempt_summary(record)),
            tool_calls_end=tool_calls_end,
        )
    except ContractViolation as violation:
        outcome = f"violation:{violation.reason}"
        fallback = thaw(violation.fallback) if violation.fallback is not None else None
        summary = {"outcome": outcome, "attempts": attempts, "value": fallback}
        return {"summary": summary, "value": None, "valid": False, "tool_calls": (), "attempts": 0, "tokens": 0}
    outcome = "tool_call" if call.tool_calls else "valid"
    value = thaw(call.value)
    summary = {"outcome": outcome, "attempts": attempts, "value": value}
    return {
        "summary": summary,
        "value": value,
        "valid": not call.tool_calls,
        "tool_calls": call.tool_calls,
        "attempts": call.attempts,
        "tokens": call.tokens,
    }


def function_name(tool: str) -> str:
    """A tool's name as an OpenAI function name, which allows no dot: ``server.tool`` → ``server__tool``."""
    return tool.replace(".", "__")


def _pick(brain: LLMBrain, calls: Any, value: Mapping[str, Any] | None) -> tuple[str, dict[str, Any], str] | None:
    """The one tool call of the tick: the first native call to a known tool, else the first
    action naming one (``respond`` is not a call: the summary is the reply). A tool is named as
    the model was shown it (``server__tool``) or by its own name (``server.tool``); the brain's own
    tools (``llm_tools``) count too."""
    known = [*brain.kernel.tools, *llm_tools.TOOLS]
    names = {function_name(name): name for name in known} | {name: name for name in known}
    names.pop("respond", None)
    for call in calls:
        asked = call.get("name") if isinstance(call, Mapping) else None
        name = names.get(asked) if isinstance(asked, str) else None
        if name is not None:
            arguments = call.get("arguments")
            return name, dict(arguments) if isinstance(arguments, Mapping) else {}, "tool_call"
    for item in (value or {}).get("actions") or ():
        tool = item.get("tool") if isinstance(item, Mapping) else None
        if isinstance(tool, str) and tool in names:
            args = item.get("args") if isinstance(item.get("args"), Mapping) else {}
            return names[tool], {k: str(v) for k, v in thaw(args).items()}, "actions"
    return None


def _result(observation: Observation) -> str:
    """The tool's result for the follow-up turn: its payload (or error) as JSON, cut to RESULT_CHARS."""
    if observation.success:
        shown: dict[str, Any] = {k: v for k, v in observation.payload.items() if k != "policy"}
    else:
        shown = {"error": observation.error}
    text = dumps(shown)
    return text if len(text) <= RESULT_CHARS else text[: RESULT_CHARS - 1] + "…"


def _plain_answer(text: str) -> str:
    """The follow-up's reply: its first line, at most three sentences; a JSON object's
    ``summary`` (a model that keeps to the decide turn's format); "" for anything else JSON."""
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return ""
        summary = value.get("summary") if isinstance(value, dict) else None
        return summary.strip() if isinstance(summary, str) else ""
    return answer.first_sentences(text, limit=3)


def _shown(name: str, observation: Observation) -> str:
    """The reply without a follow-up turn: the tool's result, as the kernel shows it."""
    if not observation.success:
        return f"{name} failed: {observation.error}"
    return f"{name}: {dumps({k: v for k, v in observation.payload.items() if k != 'policy'})}"


def _attempt_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the journal keeps of one contract attempt: outcome, repairs, first error."""
    errors = record.get("errors") or []
    return {
        "kind": record.get("kind"),
        "attempt": record.get("attempt"),
        "outcome": record.get("outcome"),
        "repairs": list(record.get("repairs") or []),
        "first_error": errors[0] if errors else None,
    }
