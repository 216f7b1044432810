"""Acting on a decision: the tick's one tool call, gated by its effect, isolated, timed and recorded.

:func:`act` runs the decision's action in the tick (a response, a ``read`` tool, or the
intent of a ``write``/``external`` one, returned so the kernel runs it after the commit);
:func:`read_tool` is the same path for a ``read`` tool a brain runs while it reasons.
Every observation is the ``tool_observation`` external, so replay never runs a tool.
Both take the :class:`~agi_core.effects.scope.TickScope`, not the kernel.
"""

from __future__ import annotations

from typing import Any

from agi_core.effects import calls, intents, senders
from agi_core.effects.scope import TickScope
from agi_core.errors import ToolError
from agi_core.model import Action, Observation
from agi_core.serialization import dumps, from_data, to_data
from agi_core.tools import Tool, ToolContext


def act(scope: TickScope, action: Action, reply: str) -> tuple[Observation, str, intents.Intent | None]:
    """Exactly one action: a response, or one tool call gated by its effect; ``(observation, reply, due)``.

    A tool's observation is an external: replay serves the recorded one and never runs
    the tool again, whatever its effect. A ``write``/``external`` call only records its
    intent here and returns it as ``due`` (None otherwise, and in replay): the kernel runs
    it after the commit (:mod:`agi_core.effects.intents`).
    """
    if action.type == "response":
        return Observation(success=True, payload={"delivered": True}), reply, None
    tool = scope.tools.get(action.name)
    if tool is None:
        text = f"There is no tool named {action.name!r}; available tools: {', '.join(sorted(scope.tools))}."
        return Observation(success=False, error=text), text, None
    try:
        args = resolve_positional(tool, action.args)
    except ToolError as exc:
        return Observation(success=False, error=str(exc)), f"{tool.name} failed: {exc}", None
    tick = scope.tick
    observation = observe(scope, tool, args)
    if observation.payload.get("intent") == "pending":
        due: intents.Intent | None = intents.record(scope.store, tick, tool.name, observation.payload["args"])
        if scope.externals.replaying:
            due = None  # replay never runs a tool
        else:
            scope.inflight.hold(tick)  # before the commit: other processes see it running, not orphaned
        return observation, f"{tool.name}: intent recorded at tick {tick}; it runs once the tick is stored", due
    if observation.success:
        shown = {k: v for k, v in observation.payload.items() if k != "policy"}
        return observation, f"{tool.name}: {dumps(shown)}", None
    return observation, f"{tool.name} failed: {observation.error}", None


def read_tool(scope: TickScope, name: str, args: dict[str, Any]) -> Observation:
    """A ``read`` tool run during reason (:meth:`ReasonContext.run_read_tool`), as :func:`act` runs it."""
    tool = scope.tools.get(name)
    if tool is None:
        return Observation(success=False, error=f"there is no tool named {name!r}")
    if tool.effect != "read":
        return Observation(
            success=False, error=f"{tool.effect} tool {name!r} runs only through its intent, after the tick commits"
        )
    try:
        resolved = resolve_positional(tool, args)
    except ToolError as exc:
        return Observation(success=False, error=str(exc))
    return observe(scope, tool, resolved)


def observe(scope: TickScope, tool: Tool, args: dict[str, Any]) -> Observation:
    """The observation of calling ``tool``: gated by its sender (another agent's message: :mod:`.senders`) and its
    effect, isolated, timed, recorded as ``tool_observation`` (in a receipt tick, ``scope.receipt``: the observation
    of the call that ran after its intent's commit)."""
    externals, determinism, receipt = scope.externals, scope.determinism, scope.receipt
    context = ToolContext(
        workspace=scope.workspace,
        determinism=determinism,
        live=scope.live,
        externals=externals,
        check_recipient=scope.check_recipient,
    )
    tick = scope.tick
    salt = scope.intent_salt or str

    def run_tool() -> dict[str, Any]:
        if receipt is not None:  # the receipt tick: the call already ran, after its intent's commit
            return receipt
        if scope.sender is not None:  # another agent's message: only what this agent's user allowed it
            refused = senders.refusal(scope.sender, tool.name, senders.allowed_tools(scope.settings))
            if refused is not None:
                return {**to_data(calls.refused(refused, scope.sender)), "draws": 0}
        before = determinism.counter
        observed = calls.decide(
            tool,
            args,
            context,
            scope.policy,
            timeout_s=scope.timeout_s,
            plugin=scope.tool_plugins.get(tool.name, "?"),
            report=scope.report,
            idempotency_value=lambda: intents.idempotency_value(determinism, tick, tool.name, salt()),
        )
        return {**to_data(observed), "draws": determinism.counter - before}

    served = externals.fetch("tool_observation", run_tool)
    if externals.replaying or receipt is not None:
        determinism.counter += served["draws"]
    return from_data({k: v for k, v in served.items() if k != "draws"}, Observation)


def resolve_positional(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """Map ``$0, $1 …`` (bare command arguments) onto the tool's parameters in order."""
    names = list(tool.definition.parameters)
    resolved: dict[str, Any] = {}
    for key, value in args.items():
        if key.startswith("$"):
            index = int(key[1:])
            if index >= len(names):
                raise ToolError(f"tool {tool.name!r} takes {len(names)} argument(s); remove the extra ones")
            resolved[names[index]] = value
        else:
            resolved[key] = value
    return resolved
