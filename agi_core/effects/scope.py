"""The tick scope: what one tick's acting, intents and modules use, instead of the whole ``Kernel``.

The kernel builds one :class:`TickScope` per tick (and one for the receipt tick an intent
is settled into); the parts it conducts take it and return what they produce (an intent
due after the commit, a receipt), never writing kernel fields. It holds data and callables
only, so every floor at or above ``effects`` can take it without importing the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from agi_core.determinism import Determinism
from agi_core.effects.inflight import InFlight
from agi_core.externals import Externals
from agi_core.memory.backend import MAX_STATE_VALUE_BYTES, MemoryBackend
from agi_core.memory.state_cache import StateCache
from agi_core.tools import Tool, ToolPolicy

Report = Callable[[str, str, BaseException | str], None]


@attrs.frozen
class TickScope:
    """One tick's number, store, determinism, externals, tools and their policy, settings and modules."""

    tick: int  # the number of the tick under way
    store: MemoryBackend
    determinism: Determinism
    externals: Externals
    tools: Mapping[str, Tool]
    tool_plugins: Mapping[str, str]  # the plugin that registered each tool
    policy: ToolPolicy
    timeout_s: float  # a tool call's limit (--timeout)
    workspace: Path  # the folder tools are confined to
    live: bool
    inflight: InFlight  # which intents this process is executing
    report: Report  # reports a plugin's failure (plugin, where, error)
    settings: Callable[[str], Mapping[str, Any]]  # a loaded plugin's validated settings
    modules: Sequence[Any] = ()  # the cognitive modules (agi_core.modules.protocol.LoadedModule), in run order
    module_timeout_s: float = 2.0  # a module phase call's limit, unless the module sets its own
    module_state_max_bytes: int = MAX_STATE_VALUE_BYTES  # the largest value a module may store under one key
    module_state_cache: StateCache | None = None  # the kernel's copy of module state (read once, not once a tick)
    now_ms: int | None = None  # the tick's recorded clock reading (None without a clock)
    receipt: dict[str, Any] | None = None  # in a receipt tick: the observation of the call that ran
    check_recipient: Callable[[str], None] | None = None  # the message box's recipient check (None: no messaging)
    sender: str | None = None  # the agent whose message the tick's input is: it runs no tool on its say-so
    intent_salt: Callable[[], str] | None = None
    """This database and its rollbacks (:func:`agi_core.messaging.outbox.message_salt`), in an intent's default
    idempotency key: a tick number repeated by a rollback, or by another database with the seed, gets a new key. Read
    live only; the key is in the recorded tool observation, so replay serves it (a journal from before: unsalted)."""


__all__ = ["Report", "TickScope"]
