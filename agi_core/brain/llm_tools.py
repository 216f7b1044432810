"""The kernel tools the LLM brain offers its model: remember, recall, calculate, clock, goals.

Each runs inside the tick, through the same :class:`ReasonContext` the Stage-0 rules use,
so it is gated and journaled as they are: ``remember`` is a SEM write under the S-rules
(canonical key from the synonyms, ``sem_writes`` in the record, F5 on a backend failure),
``recall`` reads facts (``sem_reads``, evidence) and the long-term memory (the recorded
``ltm_recall``), ``calculate`` is the Stage-0 ``ast`` evaluator (exact fractions, a
division by zero refused in words), ``clock`` is the tick's recorded wall-clock reading (the
kernel's, else the wall clock read once and recorded: :mod:`agi_core.scheduling.wall_time`),
worded as the Stage-0 time rule words it,
``goals`` adds, finishes and lists goals through the goal rule's own code. What a call
does depends only on its arguments and recorded externals: replay re-runs it, offline.

Each call passes the kernel's tool policy first (:func:`gate`): reads run; ``remember`` and
``goals`` add/done are writes, which run only with ``--allow-tool NAME`` (or
``allow_effects={"write"}``) or, in ``agi chat``, the user's confirmation; the decision is
recorded. Another agent's message runs only ``clock`` and ``calculate`` and what ``messaging.allow_tools`` allows
its sender (:func:`message_refusal`, :mod:`agi_core.effects.senders`). Every call is logged
(:attr:`BrainToolLog.calls`, with the policy's word); the
brain journals the log in its output and counts it for AgentOne's tool-call importance bonus.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from agi_core.brain.stage0.mathparse import MathError, evaluate, render
from agi_core.effects import senders
from agi_core.errors import AgiError
from agi_core.reasoning import ReasonContext
from agi_core.scheduling import wall_time
from agi_core.scheduling.clock import iso_ms

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

#: The brain tools any message may run: they read nothing of this agent's and change nothing.
FREE_BRAIN_TOOLS = frozenset({"clock", "calculate"})
MESSAGE_TOOLS = "message_tools"
"""A brain tool refused for another agent's message (before: run), recorded where it is
(:meth:`agi_core.externals.Externals.changed`)."""
#: Long-term memories ``recall`` returns at most.
RECALL_K = 5
_SELF = frozenset({"me", "i", "my", "myself", "user", "the user", "self", "you"})


@attrs.frozen
class BrainTool:
    """A tool the brain runs in the tick: ``run(ctx, kernel, args) -> payload``; raise AgiError to fail."""

    name: str
    description: str
    parameters: dict[str, str]
    effect: str
    run: Callable[[ReasonContext, Kernel, dict[str, Any]], dict[str, Any]]


def now_ms(ctx: ReasonContext, kernel: Kernel) -> int:
    """The tick's recorded wall-clock reading (:func:`agi_core.scheduling.wall_time.tick_wall_ms`)."""
    return wall_time.tick_wall_ms(ctx.externals)


def clock_text(ctx: ReasonContext, ms: int) -> str:
    """``It is 16:05 (UTC+01:00) on Wednesday 25 November 2026.``: the Stage-0 time rule's words."""
    return wall_time.time_text(ms, wall_time.utc_offset_s(ctx.externals, ms))


def _clock(ctx: ReasonContext, kernel: Kernel, args: dict[str, Any]) -> dict[str, Any]:
    ms = now_ms(ctx, kernel)
    if _utc_only(ctx):
        return _utc_clock(ms)
    return {"now": iso_ms(ms), "now_ms": ms, "text": clock_text(ctx, ms)}


def _utc_only(ctx: ReasonContext) -> bool:
    """Replaying a journal whose clock tool said UTC time (it recorded no ``utc_offset``)."""
    recorded = ctx.externals.recorded
    return recorded is not None and wall_time.OFFSET_EXTERNAL not in recorded


def _utc_clock(ms: int) -> dict[str, Any]:
    """The clock tool's result as journals from before one wording of the time recorded it."""
    now = iso_ms(ms)
    moment = wall_time.local(ms, 0)
    text = f"It is {moment:%H:%M} UTC on {wall_time.day_text(moment)}."
    return {"now": now[:19] + "Z", "now_ms": ms, "text": text}


def _calculate(ctx: ReasonContext, kernel: Kernel, args: dict[str, Any]) -> dict[str, Any]:
    expression = str(args.get("expression", "")).strip()
    if not expression:
        raise AgiError("calculate needs an expression, such as 12 * 7")
    try:
        value = render(evaluate(expression))
    except MathError as exc:
        return {"expression": expression, "error": str(exc), "text": str(exc)}
    return {"expression": expression, "value": value, "text": f"{expression} = {value}"}


def fact_key(ctx: ReasonContext, subject: str, attribute: str) -> tuple[str, str]:
    """``(key, fact template)`` of ``attribute`` of ``subject`` (the user, or a named entity)."""
    attr = attribute.strip().lower()
    if subject.strip().lower() in _SELF or not subject.strip():
        return ctx.key("user", "person", "self", attr), f"the user's {attr} is {{value}}"
    entity = subject.strip()
    return ctx.key("world", "entity", entity, attr), f"the {attr} of {entity} is {{value}}"


def _remember(ctx: ReasonContext, kernel: Kernel, args: dict[str, Any]) -> dict[str, Any]:
    attribute, value = str(args.get("attribute", "")).strip(), str(args.get("value", "")).strip()
    if not attribute or not value:
        raise AgiError("remember needs an attribute and a value, such as attribute=color value=blue")
    key, template = fact_key(ctx, str(args.get("subject", "me")), attribute)
    fact = template.format(value=value)
    if not ctx.sem_write(key, value, fact):
        raise AgiError(f"the memory backend failed to store {key}")
    return {"key": key, "value": value, "stored": True, "text": f"Noted: {fact}."}


def _recall(ctx: ReasonContext, kernel: Kernel, args: dict[str, Any]) -> dict[str, Any]:
    query = str(args.get("query", "")).strip() or ctx.text
    facts = []
    if attribute := str(args.get("attribute", "")).strip():
        key, template = fact_key(ctx, str(args.get("subject", "me")), attribute)
        read = ctx.sem_read(key)
        if read.exists:
            facts.append({"key": key, "value": read.value, "fact": template.format(value=read.value)})
    memories = [hit["text"] for hit in ctx.recall_long_term(query, RECALL_K)]
    return {"facts": facts, "memories": memories}


def _goals(ctx: ReasonContext, kernel: Kernel, args: dict[str, Any]) -> dict[str, Any]:
    from agi_core.scheduling.conversation import handle

    kinds = {"add": "set", "done": "finish", "list": "list"}
    op = str(args.get("op", "list")).strip().lower()
    if op not in kinds:
        raise AgiError(f"goals op {op!r} is not one of add, done, list")
    text, _action = handle(ctx, kinds[op], str(args.get("text", "")).strip())
    return {"op": op, "text": text}


TOOLS: dict[str, BrainTool] = {
    tool.name: tool
    for tool in (
        BrainTool(
            "remember",
            "Store a fact: subject (me, or a thing's name), attribute, value.",
            {"subject": "string", "attribute": "string", "value": "string"},
            "write",
            _remember,
        ),
        BrainTool(
            "recall",
            "Look up stored facts (subject, attribute) and long-term memories (query).",
            {"query": "string", "subject": "string", "attribute": "string"},
            "read",
            _recall,
        ),
        BrainTool(
            "calculate", "Exact arithmetic: + - * / ** % and parentheses.", {"expression": "string"}, "read", _calculate
        ),
        BrainTool("clock", "The current date and time (the recorded clock).", {}, "read", _clock),
        BrainTool(
            "goals",
            "Goals: op is add, done or list; text names the goal.",
            {"op": "string", "text": "string"},
            "write",
            _goals,
        ),
    )
}


@attrs.define
class BrainToolLog:
    """The tick's brain-tool calls, in order: name, args, payload or error."""

    calls: list[dict[str, Any]] = attrs.field(factory=list)


def effect_of(tool: BrainTool, args: dict[str, Any]) -> str:
    """The call's effect: ``goals`` with ``op=list`` only reads."""
    if tool.name == "goals" and str(args.get("op", "list")).strip().lower() == "list":
        return "read"
    return tool.effect


def gate(ctx: ReasonContext, kernel: Kernel, tool: BrainTool, args: dict[str, Any]) -> tuple[bool, str]:
    """The kernel's tool policy on the call (``--allow-tool``, or ``agi chat``'s confirmation): a
    ``read`` call runs; a ``write`` call runs only if allowed. The decision is the recorded
    ``brain_tool_policy`` external, so replay neither asks again nor decides otherwise."""
    effect = effect_of(tool, args)
    if effect == "read":
        return True, "effect read allowed"
    from agi_core.model import ToolDefinition
    from agi_core.tools import Tool

    def decide() -> dict[str, Any]:
        definition = ToolDefinition(tool.name, tool.description, dict(tool.parameters), "write")
        allowed, how = kernel.config.policy.decide(Tool(definition, lambda context, given: {}), args)
        return {"tool": tool.name, "allowed": allowed, "how": how}

    decision = ctx.externals.fetch("brain_tool_policy", decide)
    return bool(decision["allowed"]), str(decision["how"])


def message_refusal(ctx: ReasonContext, kernel: Kernel, name: str) -> str | None:
    """Why the tick's input, another agent's message, may not run brain tool ``name``
    (:mod:`agi_core.effects.senders`: ``recall`` would send this agent's memories back to it, ``remember`` and
    ``goals`` would act on its say-so); None where it may, and in a journal from before (``message_tools``)."""
    sender = senders.sender_of(ctx.state.input.source)
    if sender is None:
        return None
    refused = senders.refusal(sender, name, senders.allowed_tools(kernel.settings), FREE_BRAIN_TOOLS)
    return refused if refused is not None and ctx.externals.changed(MESSAGE_TOOLS) else None


def call(ctx: ReasonContext, kernel: Kernel, name: str, args: dict[str, Any], log: BrainToolLog) -> dict[str, Any]:
    """Run brain tool ``name`` if the kernel's policy allows it; its payload, or ``{"error": ...}``
    (a refusal included). The call is logged either way, with the policy's word."""
    tool = TOOLS[name]
    clean = {key: str(value) for key, value in args.items() if key in tool.parameters}
    allowed, how = gate(ctx, kernel, tool, clean)
    refused = message_refusal(ctx, kernel, name) if allowed else None
    if refused is not None:
        how = refused
        payload: dict[str, Any] = {"error": f"refused: {how}", "text": f"{name} failed: refused: {how}"}
        payload["sender"] = senders.sender_of(ctx.state.input.source)
    elif not allowed:
        payload = {"error": f"refused: {how}", "text": f"{name} refused: {how}"}
    else:
        try:
            payload = tool.run(ctx, kernel, clean)
        except AgiError as exc:
            payload = {"error": str(exc)}
    log.calls.append({"name": name, "args": clean, "effect": effect_of(tool, clean), "policy": how, "result": payload})
    return payload


def specs() -> list[dict[str, Any]]:
    """The brain tools in OpenAI function format."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": f"[effect: {tool.effect}] {tool.description}",
                "parameters": {
                    "type": "object",
                    "properties": {name: {"type": "string"} for name in tool.parameters},
                    "required": [],
                },
            },
        }
        for tool in TOOLS.values()
    ]
