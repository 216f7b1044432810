"""Plugin settings stored in the ``meta`` table, one row per value: ``plugin_setting:PLUGIN:KEY`` -> JSON;
and the data a plugin keeps about the agent (``plugin_data:PLUGIN:KEY`` -> JSON, an MCP server's tool
listing say), which export, checkpoints and replay's scratch copy carry with the agent.

Meta rows are written in the tick's transaction (the ``config_set``/``config_unset`` kernel
commands) and sealed, checkpointed, rolled back and replayed with the rest of the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from agi_core.memory.backend import MetaStore

PREFIX = "plugin_setting:"
DATA_PREFIX = "plugin_data:"


def stored_settings(store: MetaStore) -> dict[str, dict[str, Any]]:
    """``{plugin: {key: value}}`` of every stored setting."""
    found: dict[str, dict[str, Any]] = {}
    for name, value in store.meta_items(PREFIX):
        plugin, _, key = name[len(PREFIX) :].partition(":")
        found.setdefault(plugin, {})[key] = orjson.loads(value)
    return found


def put_setting(store: MetaStore, plugin: str, key: str, value: Any) -> None:
    store.meta_set(f"{PREFIX}{plugin}:{key}", orjson.dumps(value).decode())


def delete_setting(store: MetaStore, plugin: str, key: str) -> bool:
    return store.meta_delete(f"{PREFIX}{plugin}:{key}")


def stored_data(store: MetaStore, plugin: str) -> dict[str, Any]:
    """``{key: value}`` of what ``plugin`` keeps (:func:`put_data`)."""
    prefix = f"{DATA_PREFIX}{plugin}:"
    return {name[len(prefix) :]: orjson.loads(value) for name, value in store.meta_items(prefix)}


def put_data(store: MetaStore, plugin: str, key: str, value: Any) -> None:
    """Keep ``value`` (JSON) for ``plugin`` under ``key``; call inside a write transaction, then seal."""
    store.meta_set(f"{DATA_PREFIX}{plugin}:{key}", orjson.dumps(value).decode())
