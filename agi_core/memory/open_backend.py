"""Which memory backend a ``--db`` names: a file is the configured backend (SQLite by default);
a URL picks the backend registered for its scheme (``postgresql://`` → ``postgres``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agi_core.errors import ConfigError

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


def open_store(db: str | Path, backends: Mapping[str, Callable[..., Any]], configured: str, **options: Any) -> Any:
    """The store for ``db`` from the registered ``backends``; a one-line error when its backend is missing."""
    name = backend_for(db, configured)
    if name not in backends:
        installed = ", ".join(sorted(backends)) or "none"
        if is_url(db):
            scheme = str(db).split("://", 1)[0]
            raise ConfigError(
                f"--db {scheme}://… needs the memory backend {name!r}, which is not installed "
                f"(installed: {installed}); pip install agi-plugin-{name}, "
                f"and list {name} in AGI_LOAD_PLUGINS when that is set"
            )
        raise ConfigError(f"no memory backend named {name!r}; installed: {installed}")
    return backends[name](db if is_url(db) else Path(db), **options)
