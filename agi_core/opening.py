"""Opening an agent's store: by backend name (:func:`open_backend`, ``sqlite`` by default), or by
what ``--db`` says (:func:`open_store`): a file is the configured backend, a URL picks the
backend registered for its scheme (``postgresql://`` → ``postgres``)."""

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
    backends = _backends(plugins or load_plugins())
    return _open(backends, path, backend, synchronous=synchronous, lock_timeout_s=lock_timeout_s)


def _backends(plugins: Plugins) -> dict[str, Any]:
    """The memory backend factories, by name: ``agi_register_memory_backends`` runs once per opening."""
    return {name: registration.obj for name, registration in plugins.register_memory_backends().items()}


def _open(backends: dict[str, Any], path: str | Path, backend: str, **options: Any) -> MemoryBackend:
    if backend not in backends:
        raise ConfigError(f"no memory backend named {backend!r}; installed: {', '.join(sorted(backends)) or 'none'}")
    store: MemoryBackend = backends[backend](path, **options)
    return store


URL_SCHEMES = {"postgresql": "postgres", "postgres": "postgres"}


def is_url(db: str | Path) -> bool:
    return isinstance(db, str) and "://" in db


def shown(db: str | Path) -> str:
    """``db`` for messages: a URL without its password."""
    text = str(db)
    if not is_url(db) or "@" not in text.split("://", 1)[1].split("/", 1)[0]:
        return text
    scheme, rest = text.split("://", 1)
    userinfo, host = rest.split("@", 1)
    return f"{scheme}://{userinfo.split(':', 1)[0]}{':***' if ':' in userinfo else ''}@{host}"


def backend_for(db: str | Path, configured: str) -> str:
    """The backend name for ``db``: the URL scheme's, else ``configured``."""
    if not is_url(db):
        return configured
    scheme = str(db).split("://", 1)[0].lower()
    return URL_SCHEMES.get(scheme, scheme)


def open_store(
    db: str | Path,
    configured: str = "sqlite",
    *,
    plugins: Plugins | None = None,
    synchronous: str = "FULL",
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
) -> MemoryBackend:
    """The store for ``db`` (:func:`open_backend` on the backend a URL names);
    a one-line error when a URL's backend is missing."""
    backends = _backends(plugins or load_plugins())
    name = backend_for(db, configured)
    if is_url(db):
        _url_backend(db, backends)
    path = db if is_url(db) else Path(db)
    return _open(backends, path, name, synchronous=synchronous, lock_timeout_s=lock_timeout_s)


def url_agent_exists(db: str, *, plugins: Plugins | None = None) -> bool | None:
    """Whether the agent a backend URL names was created, asked of the backend's ``agent_exists(url)``
    without opening (so without creating) it; None when the backend has no such check."""
    exists = getattr(_url_backend(db, _backends(plugins or load_plugins())), "agent_exists", None)
    return None if exists is None else bool(exists(db))


def _url_backend(db: str | Path, backends: dict[str, Any]) -> Any:
    """The factory of the backend registered for ``db``'s scheme; a one-line error when it is missing."""
    name = backend_for(db, "sqlite")
    if name not in backends:
        installed = ", ".join(sorted(backends)) or "none"
        scheme = str(db).split("://", 1)[0]
        raise ConfigError(
            f"--db {scheme}://… needs the memory backend {name!r}, which is not installed "
            f"(installed: {installed}); pip install agi-plugin-{name}, "
            f"and list {name} in AGI_LOAD_PLUGINS when that is set"
        )
    return backends[name]
