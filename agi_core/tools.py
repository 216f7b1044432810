"""Tools (actuators) with a declared effect, and the policy that gates them (rule 5).

``read`` tools may run automatically; ``write`` and ``external`` tools run only when the
policy allows them by name or effect, or a confirmation callback says yes. A refused call
is recorded as a failed observation and never executed. How a call runs (timeout,
isolation, result checks, intent → receipt) is :mod:`agi_core.effects`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import attrs

from agi_core.determinism import Determinism
from agi_core.errors import ToolError
from agi_core.externals import Externals
from agi_core.model import ToolDefinition


@attrs.frozen
class ToolContext:
    """What a tool may use: the confined workspace, the kernel's clock, the message box's recipients.

    ``cancelled`` is set when the call timed out and was abandoned; the clock then refuses
    to be read, so a left-behind call cannot draw from the kernel's determinism counter.
    """

    workspace: Path
    determinism: Determinism
    live: bool = False
    externals: Externals = attrs.field(factory=Externals)
    cancelled: threading.Event = attrs.field(factory=threading.Event, eq=False)
    # the message box's recipient check (raises ToolError for no such agent); None without messaging
    check_recipient: Callable[[str], None] | None = attrs.field(default=None, eq=False)

    def now(self) -> str:
        """The time: deterministic, or in live mode the wall clock, recorded as an external."""
        if self.cancelled.is_set():
            raise ToolError("this tool call timed out and was abandoned; it may not read the clock any more")
        if not self.live:
            return self.determinism.now()
        return str(self.externals.fetch("clock", _wall_clock))


def _wall_clock() -> str:
    from datetime import datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@attrs.frozen
class Tool:
    """A callable tool: ``run(context, args) -> payload dict``; raise ToolError to fail.

    ``run`` may be ``async def``: it is awaited. It runs under a timeout (the definition's
    ``timeout_s``, else the kernel's) and must return a JSON object of JSON values.
    """

    definition: ToolDefinition
    run: Callable[[ToolContext, dict[str, Any]], Any]

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def effect(self) -> str:
        return self.definition.effect


def validate_tool(name: str, obj: Any) -> Tool:
    """Registration check: a :class:`Tool` whose definition matches its schema."""
    from agi_core.schemas import is_valid, validate  # here: they load when a kernel opens, not for --help
    from agi_core.serialization import to_data

    if not isinstance(obj, Tool):
        raise ToolError(
            f"tool {name!r} is a {type(obj).__name__}, not agi_core.Tool; wrap it with Tool(definition, run)"
        )
    definition = to_data(obj.definition)
    if not is_valid("tool_definition", definition):  # jsonschema-rs; Python jsonschema only to name the problem
        validate("tool_definition", definition, what=f"tool definition {name!r}")
    if obj.name != name:
        raise ToolError(f"tool registered as {name!r} but its definition says {obj.name!r}; make them equal")
    from agi_core.effects.params import check_declared_types

    check_declared_types(name, obj.definition.parameters)
    key = obj.definition.idempotency_key
    if key is not None and key not in obj.definition.parameters:
        raise ToolError(f"tool {name!r} names idempotency_key {key!r}, which is not one of its parameters; declare it")
    return obj


Confirm = Callable[[ToolDefinition, dict[str, Any]], bool]


@attrs.frozen
class ToolPolicy:
    """Which non-read tools may run: by name, by effect, or by asking ``confirm``."""

    allow_tools: frozenset[str] = frozenset()
    allow_effects: frozenset[str] = frozenset({"read"})
    confirm: Confirm | None = attrs.field(default=None, eq=False)

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[bool, str]:
        """``(allowed, how)``; ``how`` is recorded in the journal."""
        if tool.effect == "read" or tool.effect in self.allow_effects:
            return True, f"effect {tool.effect} allowed"
        if tool.name in self.allow_tools:
            return True, "tool allowed by policy"
        if self.confirm is not None:
            return (True, "confirmed by user") if self.confirm(tool.definition, args) else (False, "declined by user")
        return False, (
            f"{tool.effect} tool {tool.name!r} needs an explicit policy; "
            f"allow it with --allow-tool {tool.name} or confirm it in agi chat"
        )


def confined_path(workspace: Path, relative: str) -> Path:
    """``relative`` inside ``workspace``; refuses absolute paths, ``..`` and escaping links."""
    if not isinstance(relative, str) or not relative or Path(relative).is_absolute():
        raise ToolError(f"path {relative!r} must be relative to the workspace {workspace}")
    root = workspace.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(root):
        raise ToolError(f"path {relative!r} leaves the workspace {workspace}; use a path inside it")
    return target
