"""Open an agent's store with the memory backend registered under a name (``sqlite`` by default)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agi_core.errors import ConfigError
from agi_core.memory.backend import MemoryBackend
from agi_core.memory.locking import DEFAULT_LOCK_TIMEOUT_S
from agi_core.plugins import Plugins, load_plugins


def open_backend(
    path: str | Path,
    backend: str = "sqlite",
    *,
    plugins: Plugins | None = None,
    synchronous: str = "FULL",
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
) -> MemoryBackend:
    """The store of the agent at ``path`` on ``backend``; an unknown name is a one-line :class:`ConfigError`."""
    backends: dict[str, Any] = (plugins or load_plugins()).registry("agi_register_memory_backends")
    if backend not in backends:
        raise ConfigError(f"no memory backend named {backend!r}; installed: {', '.join(sorted(backends)) or 'none'}")
    store: MemoryBackend = backends[backend](path, synchronous=synchronous, lock_timeout_s=lock_timeout_s)
    return store
