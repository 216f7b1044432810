"""Every hook agi-core calls. Specs only: the manager lives in :mod:`agi_core.plugins`.

Registration hooks receive a ``register(obj, *, name=None)`` callback, so the callback can
gain keyword arguments later without breaking plugins. Registering a name twice is an
error that names both plugins. Hooks evolve only by adding arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

    from agi_core.kernel import Kernel
    from agi_core.model import JournalRecord, TickState

hookspec = pluggy.HookspecMarker("agi")
hookimpl = pluggy.HookimplMarker("agi")

Register = Callable[..., None]


@hookspec
def agi_register_sensors(register: Register) -> None:
    """Register sensors: objects with ``name`` and ``poll(kernel) -> Percept | None``.

    ``Kernel.tick()`` without text polls them in registration order; the first percept
    becomes the tick's input. ``agi run`` and ``agi chat`` drain them after each line, and
    ``agi run --follow`` polls them while the agent waits (docs/autonomy.md).

    :param register: call ``register(sensor, name=None)`` once per sensor.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_actuators(register: Register) -> None:
    """Register tools: :class:`agi_core.tools.Tool` objects with a declared effect.

    The tool's definition (name, description, parameters, effect) is validated against
    ``schemas/tool_definition.json`` when it registers.

    :param register: call ``register(tool, name=None)`` once per tool.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_router_agents(register: Register) -> None:
    """Register router agents: objects with ``name``, ``rule`` and ``handle(ctx)``.

    The Stage-0 router tries agents in ascending ``priority``; the first whose
    ``matches(text)`` is true handles the tick.

    :param register: call ``register(agent, name=None)`` once per agent.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_brains(register: Register) -> None:
    """Register brains: objects with ``name`` and ``reason(ctx) -> Decision``.

    The kernel uses the brain named in its config (``stage0`` by default).

    :param register: call ``register(brain, name=None)`` once per brain.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_contracts(register: Register) -> None:
    """Register LLM output contracts: a path to a contract file or a contract object.

    Contract files are validated against ``schemas/contract.json`` when they load; a
    malformed one is refused with its path and the JSON path of the problem.

    :param register: call ``register(path_or_contract, name=None)`` once per contract.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_memory_backends(register: Register) -> None:
    """Register memory backends: factories ``(path, **options) -> MemoryBackend``.

    :param register: call ``register(factory, name=...)``; ``sqlite`` is built in.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_llm_providers(register: Register) -> None:
    """Register LLM providers: factories ``(**options) -> Provider``.

    :param register: call ``register(factory, name=...)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_embedders(register: Register) -> None:
    """Register text embedders: factories ``(**options) -> Embedder``.

    An embedder must import its heavy dependencies lazily, on first ``encode``.

    :param register: call ``register(factory, name=...)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_synonyms(register: Register) -> None:
    """Register canonical-key synonyms (rule S4): ``register({"favourite": "favorite"})``.

    Each mapping sends a word to its canonical spelling; a word mapped to two different
    spellings by two plugins is an error naming both.

    :param register: call ``register(mapping, name=None)``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_register_modules(register: Register) -> None:
    """Register cognitive modules: objects with ``name`` and any of ``perceive``, ``recall``,
    ``deliberate``, ``observe``, ``maintain`` (each called with a ``ModuleContext``).

    Optional attributes: ``priority`` (lower runs first; ties by name), ``state_schema``
    (JSON Schema of the module's state object), ``contracts`` (the contracts it calls) and
    ``vote(claims, evidence_items)`` (a seat on the council). See ``docs/modules.md``.

    :param register: call ``register(module, name=None)`` once per module.

    .. versionadded:: 0.2
    """


@hookspec
def agi_register_commands(cli: click.Group) -> None:
    """Add commands to the ``agi`` command-line group.

    :param cli: the root :class:`click.Group`; use ``@cli.command()``.

    .. versionadded:: 0.1
    """


@hookspec
def agi_before_tick(kernel: Kernel, state: TickState) -> None:
    """Called after perceive, before recall. Return value ignored.

    An exception is reported with the plugin's name and the tick goes on.

    :param kernel: the running kernel.
    :param state: the tick state, with ``input`` filled in.

    .. versionadded:: 0.1
    """


@hookspec
def agi_after_tick(kernel: Kernel, record: JournalRecord, replaying: bool) -> None:
    """Called after the tick's transaction committed, also for ticks re-run by replay. Return value ignored.

    An exception is reported with the plugin's name; the tick is already stored.
    A plugin with side effects outside the agent (a notification, a file) skips them when
    ``replaying`` is true: the tick already happened once.

    :param kernel: the running kernel.
    :param record: the journal record that was stored.
    :param replaying: true when the tick is re-run from its journal record (``agi replay``,
        ``agi journal import``), false for a live tick. Implementations may leave it out.

    .. versionadded:: 0.1
    """


@hookspec
def agi_restore_checkpoint(kernel: Kernel, tick: int) -> None:
    """Called when the agent is rolled back to the state after ``tick``.

    Derived state a plugin keeps outside SQLite (a vector index, a cache) must be brought
    back to that tick here. Return value ignored.

    :param kernel: the kernel, whose stores already hold the restored state.
    :param tick: the tick whose end state was restored.

    .. versionadded:: 0.1
    """


HOOK_NAMES: tuple[str, ...] = tuple(
    name for name, value in dict(globals()).items() if name.startswith("agi_") and callable(value)
)

__all__ = ["HOOK_NAMES", "Register", "hookimpl", "hookspec"]
