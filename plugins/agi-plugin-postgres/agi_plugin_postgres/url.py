"""The ``--db`` URL of a PostgreSQL agent: the server, the agent's name and its local folder.

``postgresql://USER@HOST:PORT/DB?agent=NAME[&home=DIR]`` (or ``postgresql:///DB?host=/socket/dir&agent=NAME``).
``agent`` names the agent; its tables live in the schema ``agent_NAME``. ``home`` is a local
folder (default: the current directory) for what stays beside a database file: the tool
workspace, and the journal key ``NAME.key`` when ``home`` is given. Without ``home`` the key
lives in the user's data folder, keyed by server and agent (:meth:`AgentUrl.journal_key_file`),
so the agent opens from any folder. Every other query parameter goes to libpq unchanged.
"""

from __future__ import annotations

import hashlib
import urllib.parse
from pathlib import Path

import attrs

from agi_core.errors import ConfigError

SCHEMES = ("postgresql", "postgres")
WORLD_SCHEMA = "agi_world"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
NAME_MAX = 40


@attrs.frozen
class AgentUrl:
    dsn: str  # for psycopg: the URL without agent= and home=
    agent: str
    home: Path
    shown: str  # the URL without its password, for messages
    home_given: bool = True  # home= was in the URL (else home is the current directory)

    def journal_key_file(self) -> Path:
        """``<home>/NAME.key`` when ``home=`` is given; else ``<user data>/journal-keys/<server>/NAME.key``
        (platformdirs), or a ``NAME.key`` in the current directory written there before that default."""
        if self.home_given:
            return self.home / f"{self.agent}.key"
        import platformdirs  # here: only opening a PostgreSQL agent needs it

        folder = Path(platformdirs.user_data_dir("agi-core", appauthor=False)) / "journal-keys"
        default = folder / server_label(self.dsn) / f"{self.agent}.key"
        legacy = self.home / f"{self.agent}.key"
        return legacy if legacy.is_file() and not default.exists() else default

    @property
    def schema(self) -> str:
        return f"agent_{self.agent}"

    @property
    def lock_key(self) -> int:
        """The advisory lock that serializes this agent's ticks across processes (signed 64-bit)."""
        return int.from_bytes(hashlib.sha256(self.schema.encode()).digest()[:8], "big", signed=True)


def parse(url: str) -> AgentUrl:
    """Split ``url``; a one-line :class:`ConfigError` names what is wrong with it."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise ConfigError(
            f"--db {shown_url(url)} is not a valid URL ({exc}); write postgresql://HOST[:PORT]/DB?agent=NAME "
            "(an IPv6 host in brackets: postgresql://[::1]/DB?agent=NAME)"
        ) from None
    if parts.scheme not in SCHEMES:
        raise ConfigError(f"{url!r} is not a PostgreSQL URL; write postgresql://HOST/DB?agent=NAME")
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    shown = _without_password(parts)
    names = [key for key, _value in query]
    repeated = next((key for key in names if names.count(key) > 1), None)
    if repeated is not None:
        raise ConfigError(f"{shown} gives {repeated}= {names.count(repeated)} times; give each parameter once")
    agent = next((value for key, value in query if key == "agent"), "")
    home = next((value for key, value in query if key == "home"), "")
    check_agent_name(agent, shown)
    rest = urllib.parse.urlencode([(k, v) for k, v in query if k not in ("agent", "home")])
    dsn = _unsplit(parts.scheme, parts.netloc, parts.path, rest)
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        conninfo_to_dict(dsn)  # libpq's own parse: an unknown parameter was an internal error later
    except psycopg.Error as exc:
        raise ConfigError(
            f"{shown} is not a URL libpq accepts ({' '.join(str(exc).split())}); agent= and home= are agi's, "
            "the other parameters libpq's"
        ) from None
    return AgentUrl(dsn=dsn, agent=agent, home=Path(home or ".").resolve(), shown=shown, home_given=bool(home))


def server_label(dsn: str) -> str:
    """A folder name for the server of ``dsn``: host, port and database, readable, plus a hash of them."""
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(dsn)
    parts = [str(info.get(k) or d) for k, d in (("host", "localhost"), ("port", "5432"), ("dbname", "-"))]
    digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:10]
    readable = "".join(c if c.isalnum() or c in "._-" else "_" for c in "_".join(parts)).strip("_")[:60]
    return f"{readable}-{digest}"


def from_path(path: Path) -> str:
    """A file path given to the backend (the conformance suite does that): an agent on the server
    named by ``AGI_POSTGRES_DSN``, named after the path, its local files beside it."""
    import os

    dsn = os.environ.get("AGI_POSTGRES_DSN")
    if not dsn:
        raise ConfigError(f"the postgres backend needs a postgresql:// URL, not {path}; or set AGI_POSTGRES_DSN")
    stem = "".join(c if c in _NAME_CHARS else "_" for c in path.stem.lower())[:20]
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    joiner = "&" if "?" in dsn else "?"
    return f"{dsn}{joiner}agent=p{digest}_{stem}&home={path.resolve().parent}"


def check_agent_name(agent: str, shown: str = "the --db URL") -> None:
    if not agent:
        raise ConfigError(f"{shown} names no agent; add ?agent=NAME (lower-case letters, digits, _)")
    if len(agent) > NAME_MAX or not set(agent) <= _NAME_CHARS or not agent[0].isalpha():
        raise ConfigError(
            f"agent name {agent!r} in {shown} is not usable as a schema name; use up to {NAME_MAX} "
            "lower-case letters, digits and _, starting with a letter"
        )


def shown_url(url: str) -> str:
    """``url`` for messages when it cannot be split: its ``USER:PASSWORD@`` as ``USER:***@``."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.partition("@")
    if not sep or not at or ":" not in userinfo or "/" in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}"


def _without_password(parts: urllib.parse.SplitResult) -> str:
    netloc = parts.netloc
    if "@" in netloc and ":" in netloc.split("@", 1)[0]:
        user = netloc.split("@", 1)[0].split(":", 1)[0]
        netloc = f"{user}:***@{netloc.split('@', 1)[1]}"
    return _unsplit(parts.scheme, netloc, parts.path, parts.query)


def _unsplit(scheme: str, netloc: str, path: str, query: str) -> str:
    """Like ``urlunsplit``, but keeps ``//`` when there is no host (``postgresql:///db?host=/socket``)."""
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")
