"""An agent's name and address: set once at creation (``agi init --name``), stored in meta."""

from __future__ import annotations

import re
from typing import Any

from agi_core.errors import ValidationError

NAME_META = "agent_name"
NAME_MAX = 63
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


def check_name(name: str) -> str:
    """``name`` when it is a valid agent name (a NATS subject token and a PostgreSQL schema name)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValidationError(
            f"agent name {name!r} is not valid; use 1 to {NAME_MAX} lower-case letters, digits and _, "
            "starting with a letter (e.g. alice)"
        )
    return name


def address(name: str) -> str:
    """The address other agents send to: ``agent.<name>``."""
    return f"agent.{name}"


def default_name(store: Any) -> str:
    """The name of an agent created without one: a PostgreSQL agent's ``?agent=``, else the file's stem."""
    agent = getattr(store, "agent", None)
    if isinstance(agent, str) and _NAME.match(agent):
        return agent
    stem = re.sub(r"[^a-z0-9_]", "_", store.path.stem.lower())[:NAME_MAX] or "agent"
    return stem if stem[0].isalpha() else ("a" + stem)[:NAME_MAX]


def agent_name(store: Any) -> str:
    """The agent's stored name, else :func:`default_name`."""
    return store.meta_get(NAME_META) or default_name(store)


def ensure_named(kernel: Any) -> str:
    """The agent's name, stored first (a ``set_name`` tick) when it has none: the first run that
    talks to other agents names it for good, so its messages and their replay carry one name."""
    stored = kernel.store.meta_get(NAME_META)
    if stored is None:
        stored = default_name(kernel.store)
        kernel.command("set_name", {"name": stored})
    return str(stored)


def name_command(kernel: Any, ctx: Any, args: dict[str, Any]) -> tuple[str, Any]:
    """Kernel command ``set_name``: store the agent's name in meta, in the tick (once; a different name is refused)."""
    name = check_name(args["name"])
    stored = kernel.store.meta_get(NAME_META)
    if stored is not None and stored != name:
        raise ValidationError(f"this agent is named {stored!r} already; an agent keeps its name (its address)")
    kernel.store.meta_update({NAME_META: name})
    return f"named {name} ({address(name)})", {"name": name}
