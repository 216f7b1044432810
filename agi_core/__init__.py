"""agi-core: a small deterministic kernel for cognitive agents built from plugins.

The public names below are imported on first use (PEP 562), so ``import agi_core`` and
``agi --help`` stay fast: nothing heavy loads until something needs it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agi_core.determinism import Determinism
    from agi_core.errors import (
        AgiError,
        BackendUnavailable,
        ConfigError,
        DatabaseLocked,
        MemoryKeyError,
        PluginError,
        RegistrationError,
        ReplayMismatch,
        StorageError,
        ToolError,
        ValidationError,
    )
    from agi_core.hookspecs import hookimpl
    from agi_core.kernel import Kernel, KernelConfig
    from agi_core.model import (
        Action,
        EpisodicEntry,
        Input,
        JournalRecord,
        Observation,
        Percept,
        SemanticEntry,
        SemanticRead,
        TickState,
        ToolDefinition,
        WorkingMemory,
    )
    from agi_core.plugins import Plugins, load_plugins
    from agi_core.tools import Tool, ToolContext, ToolPolicy

_ERRORS = (
    "AgiError",
    "BackendUnavailable",
    "ConfigError",
    "DatabaseLocked",
    "MemoryKeyError",
    "PluginError",
    "RegistrationError",
    "ReplayMismatch",
    "StorageError",
    "ToolError",
    "ValidationError",
)
_MODEL = (
    "Action",
    "EpisodicEntry",
    "Input",
    "JournalRecord",
    "Observation",
    "Percept",
    "SemanticEntry",
    "SemanticRead",
    "TickState",
    "ToolDefinition",
    "WorkingMemory",
)
#: public name -> the module that defines it
_SOURCES: dict[str, str] = {
    **dict.fromkeys(_ERRORS, "agi_core.errors"),
    **dict.fromkeys(_MODEL, "agi_core.model"),
    "Determinism": "agi_core.determinism",
    "hookimpl": "agi_core.hookspecs",
    "Kernel": "agi_core.kernel",
    "KernelConfig": "agi_core.kernel",
    "Plugins": "agi_core.plugins",
    "load_plugins": "agi_core.plugins",
    "Tool": "agi_core.tools",
    "ToolContext": "agi_core.tools",
    "ToolPolicy": "agi_core.tools",
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'agi_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Action",
    "AgiError",
    "BackendUnavailable",
    "ConfigError",
    "DatabaseLocked",
    "Determinism",
    "EpisodicEntry",
    "Input",
    "JournalRecord",
    "Kernel",
    "KernelConfig",
    "MemoryKeyError",
    "Observation",
    "Percept",
    "PluginError",
    "Plugins",
    "RegistrationError",
    "ReplayMismatch",
    "SemanticEntry",
    "SemanticRead",
    "StorageError",
    "TickState",
    "Tool",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolPolicy",
    "ValidationError",
    "WorkingMemory",
    "hookimpl",
    "load_plugins",
]
