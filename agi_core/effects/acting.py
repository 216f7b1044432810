"""Acting on a decision: the tick's one tool call, gated by its effect, isolated, timed and recorded.

:func:`act` runs the decision's action in the tick (a response, a ``read`` tool, or the
intent of a ``write``/``external`` one, which :meth:`Kernel.tick` runs after the commit);
:func:`read_tool` is the same path for a ``read`` tool a brain runs while it reasons.
Every observation is the ``tool_observation`` external, so replay never runs a tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.effects import calls, intents
from agi_core.errors import ToolError
from agi_core.externals import Externals
from agi_core.model import Action, Observation
from agi_core.serialization import dumps, from_data, to_data
from agi_core.tools import Tool, ToolContext

if TYPE_CHECKING:
    from agi_core.kernel import Kernel


def act(
    kernel: Kernel, action: Action, reply: str, externals: Externals, receipt: dict[str, Any] | None = None
) -> tuple[Observation, str, intents.Intent | None]:
    """Exactly one action: a response, or one tool call gated by its effect; ``(observation, reply, due)``.

    A tool's observation is an external: replay serves the recorded one and never runs
    the tool again, whatever its effect. A ``write``/``external`` call only records its
    intent here and returns it as ``due`` (None otherwise, and in replay): the kernel runs
    it after the commit (:mod:`agi_core.effects.intents`). ``receipt``: the observation a
    receipt tick serves.
    """
    if action.type == "response":
        return Observation(success=True, payload={"delivered": True}), reply, None
    tool = kernel.tools.get(action.name)
    if tool is None:
        text = f"There is no tool named {action.name!r}; available tools: {', '.join(sorted(kernel.tools))}."
        return Observation(success=False, error=text), text, None
    try:
        args = resolve_positional(tool, action.args)
    except ToolError as exc:
        return Observation(success=False, error=str(exc)), f"{tool.name} failed: {exc}", None
    tick = kernel.tick_count + 1
    observation = observe(kernel, tool, args, externals, receipt)
    if observation.payload.get("intent") == "pending":
        due: intents.Intent | None = intents.record(kernel, tick, tool.name, observation.payload["args"])
        if externals.replaying:
            due = None  # replay never runs a tool
        else:
            kernel.inflight.hold(tick)  # before the commit: other processes see it running, not orphaned
        return observation, f"{tool.name}: intent recorded at tick {tick}; it runs once the tick is stored", due
    if observation.success:
        shown = {k: v for k, v in observation.payload.items() if k != "policy"}
        return observation, f"{tool.name}: {dumps(shown)}", None
    return observation, f"{tool.name} failed: {observation.error}", None


def read_tool(
    kernel: Kernel, name: str, args: dict[str, Any], externals: Externals, receipt: dict[str, Any] | None = None
) -> Observation:
    """A ``read`` tool run during reason (:meth:`ReasonContext.run_read_tool`), as :func:`act` runs it."""
    tool = kernel.tools.get(name)
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
    return observe(kernel, tool, resolved, externals, receipt)


def observe(
    kernel: Kernel, tool: Tool, args: dict[str, Any], externals: Externals, receipt: dict[str, Any] | None = None
) -> Observation:
    """The observation of calling ``tool``: gated by effect, isolated, timed, recorded as ``tool_observation``
    (``receipt``: in a receipt tick, the observation of the call that ran after its intent's commit)."""
    context = ToolContext(
        workspace=kernel.workspace, determinism=kernel.determinism, live=kernel.config.live, externals=externals
    )
    tick = kernel.tick_count + 1

    def run_tool() -> dict[str, Any]:
        if receipt is not None:  # the receipt tick: the call already ran, after its intent's commit
            return receipt
        before = kernel.determinism.counter
        observed = calls.decide(
            tool,
            args,
            context,
            kernel.config.policy,
            timeout_s=kernel.config.timeout_s,
            plugin=kernel.tool_plugins.get(tool.name, "?"),
            report=kernel.plugins.report_failure,
            idempotency_value=lambda: intents.idempotency_value(kernel, tick, tool.name),
        )
        return {**to_data(observed), "draws": kernel.determinism.counter - before}

    served = externals.fetch("tool_observation", run_tool)
    if externals.replaying or receipt is not None:
        kernel.determinism.counter += served["draws"]
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
