"""One tool call, from the policy check to a checked observation; every outcome is an Observation.

Order: policy (rule 5) → parameter names and types → either the intent (a ``write`` or
``external`` tool, run only after the tick commits; see :mod:`agi_core.effects.intents`)
or the call itself (``read`` tools), under the tool's timeout, isolated, result checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agi_core import tracing
from agi_core.effects.isolation import describe, must_propagate
from agi_core.effects.params import check_param_types
from agi_core.effects.results import BadResult, check_result
from agi_core.effects.timeouts import TimedOut, call_with_timeout
from agi_core.errors import ToolError
from agi_core.model import Observation
from agi_core.tools import Tool, ToolContext, ToolPolicy

DEFERRED_EFFECTS = frozenset({"write", "external"})
RESERVED_KEYS = frozenset({"policy", "intent"})  # the kernel's own keys in an observation's payload
Report = Callable[[str, str, BaseException | str], None]


def check_args(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """Known parameter names and declared types; the arguments as the tool will get them."""
    unknown = sorted(set(args) - set(tool.definition.parameters))
    if unknown:
        raise ToolError(
            f"tool {tool.name!r} has no parameter {unknown[0]!r}; "
            f"its parameters are: {', '.join(tool.definition.parameters) or 'none'}"
        )
    return check_param_types(tool.name, tool.definition.parameters, args)


def decide(
    tool: Tool,
    args: dict[str, Any],
    context: ToolContext,
    policy: ToolPolicy,
    *,
    timeout_s: float,
    plugin: str,
    report: Report,
    idempotency_value: Callable[[], str] = str,
) -> Observation:
    """The observation of asking for ``tool(args)`` in a tick.

    A refused or malformed call fails here. A ``write``/``external`` tool is not run: the
    observation is its intent, ``{"intent": "pending", "args": …}``, and the kernel runs it
    after the tick commits. A ``read`` tool runs now.
    """
    allowed, how = policy.decide(tool, args)
    if not allowed:
        return refused(how)
    try:
        checked = check_args(tool, args)
    except ToolError as exc:
        return Observation(success=False, payload={"policy": how}, error=str(exc))
    if tool.effect in DEFERRED_EFFECTS:
        key = tool.definition.idempotency_key
        if key and key not in checked:
            checked[key] = idempotency_value()
        return Observation(success=True, payload={"policy": how, "intent": "pending", "args": checked})
    observation = run(tool, checked, context, timeout_s=timeout_s, plugin=plugin, report=report)
    return Observation(observation.success, {"policy": how, **observation.payload}, observation.error)


def refused(how: str, sender: str | None = None) -> Observation:
    """The observation of a call the policy refused (``sender``: for that agent's message): never run, ``how``
    recorded."""
    payload: dict[str, Any] = {"refused": True, "policy": how}
    if sender is not None:
        payload["sender"] = sender
    return Observation(success=False, payload=payload, error=f"refused: {how}")


def run(
    tool: Tool, args: dict[str, Any], context: ToolContext, *, timeout_s: float, plugin: str, report: Report
) -> Observation:
    """Run the tool under its timeout; a raise, an overrun or a bad result is a failed observation.

    Traced as an ``execute_tool`` span (docs/tracing.md)."""
    if not tracing.enabled():
        return _run(tool, args, context, timeout_s=timeout_s, plugin=plugin, report=report)
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool.name,
        "gen_ai.tool.type": "function",
        "agi.tool.effect": tool.effect,
        "agi.plugin": plugin,
    }
    with tracing.span(f"execute_tool {tool.name}", attributes) as traced:
        observation = _run(tool, args, context, timeout_s=timeout_s, plugin=plugin, report=report)
        if not observation.success:
            traced.fail("tool_error", observation.error or "")
        return observation


def _run(
    tool: Tool, args: dict[str, Any], context: ToolContext, *, timeout_s: float, plugin: str, report: Report
) -> Observation:
    limit = tool.definition.timeout_s or timeout_s
    try:
        value = call_with_timeout(tool.run, (context, args), limit)
        payload = check_result(tool.name, value)
        reserved = sorted(RESERVED_KEYS & set(payload))
        if reserved:
            raise BadResult(f"tool {tool.name!r} returned the reserved key {reserved[0]!r}; rename it")
        return Observation(success=True, payload=payload)
    except TimedOut:
        context.cancelled.set()
        error = f"tool {tool.name!r} timed out after {limit:g} s and was abandoned; raise its timeout_s or --timeout"
    except BadResult as exc:
        error = str(exc)
    except ToolError as exc:
        return Observation(success=False, error=str(exc))
    except BaseException as exc:
        if must_propagate(exc):
            raise
        error = f"tool {tool.name!r} (plugin {plugin!r}) raised {describe(exc)}"
    report(plugin, f"tool {tool.name}", error)
    return Observation(success=False, error=error)
