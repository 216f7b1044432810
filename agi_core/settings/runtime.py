"""One kernel's plugin settings: effective values, their sources, the journaled commands that change them.

Environment values are outside input: a tick reads them as an external (kind
``plugin_settings_env``, recorded only when some are set), so ``agi replay`` sees the values
the live tick saw, whatever its own environment holds. A counterfactual replay's ``settings``
overrides are pinned (:attr:`PluginSettings.pinned`): they win over the recorded environment
and over the ``config set`` commands the journal replays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.errors import ValidationError
from agi_core.externals import Externals
from agi_core.memory import settings_meta
from agi_core.settings import schema

if TYPE_CHECKING:
    from agi_core.memory.backend import MemoryBackend
    from agi_core.plugins import Plugins

ENV_EXTERNAL = "plugin_settings_env"


class PluginSettings:
    """Declared settings of a kernel's plugins (stored in ``store``), with the environment's values read at open."""

    def __init__(self, plugins: Plugins, store: MemoryBackend) -> None:
        self.plugins, self.store = plugins, store
        self.declared = schema.declared(plugins)
        self.env = schema.from_environment(self.declared, plugins.report_failure)
        self.tick_env: dict[str, dict[str, Any]] | None = None  # the environment values of the tick under way
        self._reported: set[tuple[str, str]] = set()
        self._stored: dict[str, dict[str, Any]] = {}  # values() of plugins with no environment value, until forget()
        self.pinned: dict[str, dict[str, Any]] = {}  # a counterfactual replay's overrides: they win over everything

    def begin_tick(self, externals: Externals) -> None:
        """Fix this tick's environment values: read live (recorded when any), served back in replay."""
        recorded = externals.recorded
        if recorded is not None:
            self.tick_env = externals.fetch(ENV_EXTERNAL, dict) if ENV_EXTERNAL in recorded else {}
        else:
            self.tick_env = externals.fetch(ENV_EXTERNAL, lambda: self.env) if self.env else {}

    def end_tick(self) -> None:
        self.tick_env = None

    def rows(self) -> list[dict[str, Any]]:
        """Every declared setting: plugin, key, value, source (environment, database, default), default, description."""
        stored = settings_meta.stored_settings(self.store)
        env = self.env if self.tick_env is None else self.tick_env
        rows = []
        for plugin, keys in self.declared.items():
            for key, prop in keys.items():
                value, source = prop["default"], "default"
                if key in stored.get(plugin, {}) and self._still_valid(plugin, key, prop, stored[plugin][key]):
                    value, source = stored[plugin][key], "database"
                if key in env.get(plugin, {}):
                    value, source = env[plugin][key], "environment"
                if key in self.pinned.get(plugin, {}):
                    value, source = self.pinned[plugin][key], "override"
                rows.append(
                    {
                        "plugin": plugin,
                        "key": key,
                        "value": value,
                        "source": source,
                        "default": prop["default"],
                        "env": schema.env_name(plugin, key),
                        "description": prop.get("description", ""),
                    }
                )
        return rows

    def _still_valid(self, plugin: str, key: str, prop: dict[str, Any], value: Any) -> bool:
        """A stored value the plugin's schema no longer accepts (a new version) is reported; the default applies."""
        try:
            schema.check_value(plugin, key, prop, value)
        except ValidationError as exc:
            if (plugin, key) not in self._reported:  # once per kernel, not on every read
                self._reported.add((plugin, key))
                self.plugins.report_failure(plugin, "settings", f"stored value ignored: {exc}")
            return False
        return True

    def values(self, plugin: str) -> dict[str, Any]:
        """``{key: value}`` of ``plugin``'s settings ({} for a plugin that declares none).

        Without environment values for the plugin they come from the database and defaults only,
        so they are kept until :meth:`forget` (a config command, a reload): the council asks every tick.
        """
        env = self.env if self.tick_env is None else self.tick_env
        if plugin in self._stored and plugin not in env:
            return dict(self._stored[plugin])
        found = {row["key"]: row["value"] for row in self.rows() if row["plugin"] == plugin}
        if plugin not in env:
            self._stored[plugin] = found
        return dict(found)

    def forget(self) -> None:
        """Stored settings may have changed (a config command, another process, a rollback): read them again."""
        self._stored.clear()


def config_set(settings: PluginSettings, args: dict[str, Any]) -> tuple[str, Any]:
    """Kernel command: store ``args["value"]`` as ``plugin.key`` once it matches the declared schema."""
    plugin, key, value = args["plugin"], args["key"], args["value"]
    schema.check_value(plugin, key, schema.schema_for(settings.declared, plugin, key), value)
    settings_meta.put_setting(settings.store, plugin, key, value)
    settings.forget()
    return f"{plugin}.{key} = {_shown(value)}", {"plugin": plugin, "key": key, "value": value}


def config_unset(settings: PluginSettings, args: dict[str, Any]) -> tuple[str, Any]:
    """Kernel command: forget the stored ``plugin.key`` (its default applies again)."""
    plugin, key = args["plugin"], args["key"]
    default = schema.schema_for(settings.declared, plugin, key)["default"]
    removed = settings_meta.delete_setting(settings.store, plugin, key)
    settings.forget()
    return f"{plugin}.{key} = {_shown(default)} (default)", {"plugin": plugin, "key": key, "removed": removed}


def _shown(value: Any) -> str:
    from agi_core.serialization import dumps

    return dumps(value)
