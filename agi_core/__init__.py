"""agi-core: a small deterministic kernel for cognitive agents built from plugins."""

from agi_core.determinism import Determinism
from agi_core.errors import (
    AgiError,
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
    SemanticEntry,
    SemanticRead,
    TickState,
    ToolDefinition,
    WorkingMemory,
)
from agi_core.plugins import Plugins, load_plugins
from agi_core.tools import Tool, ToolContext, ToolPolicy

__all__ = [
    "Action",
    "AgiError",
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
