"""What each plugin really registers, and what fails when it does (``agi plugins``).

Listing a plugin runs every one of its registration hooks, with the same checks the kernel
applies (tool definitions, contract files), and its commands hook on a scratch command
group; so a plugin whose hook raises, or whose tool is invalid, is shown with the error
instead of looking healthy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import attrs
import click

from agi_core.hookspecs import HOOK_NAMES
from agi_core.plugins import PluginFailure, Plugins

REGISTER_PREFIX = "agi_register_"
# Registration hooks whose objects the kernel checks when it collects them, and the check.
VALIDATORS = {
    "agi_register_actuators": "agi_core.tools:validate_tool",
    "agi_register_contracts": "agi_core.contracts.registry:as_contract",
}
# What each registration hook registers, as ``agi plugins`` names it.
KINDS = {
    "agi_register_actuators": "tools",
    "agi_register_commands": "commands",
}


def kind_of(hook: str) -> str:
    """``agi_register_router_agents`` -> ``router_agents``; tools and commands by their usual names."""
    return KINDS.get(hook, hook.removeprefix(REGISTER_PREFIX))


@attrs.frozen
class PluginReport:
    """One plugin as ``agi plugins`` shows it: what it registered, by kind, and its errors."""

    name: str
    version: str
    builtin: bool
    loaded: bool
    hooks: list[str]
    registered: dict[str, list[str]]
    errors: list[str]

    @property
    def ok(self) -> bool:
        return not self.errors


def _validator(hook: str) -> Callable[[str, Any], Any] | None:
    target = VALIDATORS.get(hook)
    if target is None:
        return None
    module, function = target.split(":")
    validate: Callable[[str, Any], Any] = getattr(importlib.import_module(module), function)
    return validate


def _registrations(plugins: Plugins) -> dict[str, dict[str, list[str]]]:
    """``{plugin: {kind: [names]}}`` from running every registration hook once."""
    found: dict[str, dict[str, list[str]]] = {}
    for hook in HOOK_NAMES:
        if not hook.startswith(REGISTER_PREFIX) or hook == "agi_register_commands":
            continue
        register = getattr(plugins, hook.removeprefix("agi_"))  # the facade method of each registration hook
        for name, registration in register(validate=_validator(hook)).items():
            found.setdefault(registration.plugin, {}).setdefault(kind_of(hook), []).append(name)
    added: dict[str, set[str]] = {}

    class Attributing(click.Group):
        """Notes which plugin's hook implementation added each command."""

        def add_command(self, cmd: click.Command, name: str | None = None) -> None:
            super().add_command(cmd, name)
            added.setdefault(plugins.current_plugin, set()).add(name or cmd.name or "")

        def add_lazy_command(self, name: str, target: str, summary: str) -> None:
            """The CLI's group has it too (docs/hooks.md): a command imported only when it runs."""
            added.setdefault(plugins.current_plugin, set()).add(name)

    plugins.register_commands(cli=Attributing("agi"))
    for plugin, commands in added.items():
        found.setdefault(plugin, {})["commands"] = sorted(commands)
    return found


def inventory(plugins: Plugins) -> list[PluginReport]:
    """Every loaded plugin with what it registers and its errors, then the plugins that failed to load.

    Errors found while listing are also added to ``plugins.failures``, as any hook failure is.
    """
    registered = _registrations(plugins)
    errors: dict[str, list[str]] = {}
    seen: set[PluginFailure] = set()
    for failure in plugins.failures:
        if failure not in seen:
            seen.add(failure)
            errors.setdefault(failure.plugin, []).append(f"{failure.stage}: {failure.cause}")
    reports = [
        PluginReport(
            name=info.name,
            version=info.version,
            builtin=info.builtin,
            loaded=True,
            hooks=info.hooks,
            registered={kind: sorted(names) for kind, names in sorted(registered.get(info.name, {}).items())},
            errors=errors.pop(info.name, []),
        )
        for info in plugins.info()
    ]
    reports += [PluginReport(name, "unknown", False, False, [], {}, causes) for name, causes in sorted(errors.items())]
    return reports


def render_text(reports: list[PluginReport], *, most: int = 8) -> list[str]:
    """Lines for ``agi plugins``: a heading per plugin, then a line per kind and per error."""
    lines = []
    for report in reports:
        status = "" if report.ok else (" FAILED" if report.loaded else " FAILED (not loaded)")
        lines.append(f"{report.name} {report.version}{' (built-in)' if report.builtin else ''}{status}")
        for kind, names in report.registered.items():
            shown = ", ".join(names[:most]) + (f", … ({len(names)} in all)" if len(names) > most else "")
            lines.append(f"  {kind.replace('_', ' ')}: {shown}")
        other = [hook for hook in report.hooks if not hook.startswith(REGISTER_PREFIX)]
        if other:
            lines.append(f"  hooks: {', '.join(other)}")
        lines += [f"  error in {error}" for error in report.errors]
    return lines


__all__ = ["PluginReport", "inventory", "kind_of", "render_text"]
