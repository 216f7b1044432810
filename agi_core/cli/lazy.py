"""A click group whose commands are imported only when they run.

A plugin names a command by import path and a one-line summary
(``cli.add_lazy_command("replay", "agi_core.cli.history:replay_command", "Re-run …")``);
``agi --help`` and shell completion print the summary and import nothing, so listing the
commands never loads torch, numpy or jsonschema. Running the command (or asking for its
own ``--help``) imports it. Commands added with ``add_command`` work as in click.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem


# dataclasses, not attrs: this module loads for agi --help, which must not import attrs (benchmarks/startup.py)
@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command known by name, import path (``package.module:attribute``) and summary."""

    target: str
    summary: str

    def load(self) -> click.Command:
        module, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is a {type(command).__name__}, not a click command")
        return command


class LazyGroup(click.Group):
    """A :class:`click.Group` that also holds lazy commands (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, LazyCommand] = {}

    def add_lazy_command(self, name: str, target: str, summary: str) -> None:
        """Add the command at ``target`` as ``name``; ``summary`` is its line in ``--help``."""
        self.commands.pop(name, None)
        self.lazy_commands[name] = LazyCommand(target, summary)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        self.lazy_commands.pop(name or cmd.name or "", None)

    def list_commands(self, ctx: click.Context | None) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        lazy = self.lazy_commands.get(cmd_name)
        if lazy is not None and cmd_name not in self.commands:
            self.add_command(lazy.load(), cmd_name)
        return self.commands.get(cmd_name)

    def summary_of(self, name: str, limit: int = 45) -> str | None:
        """The ``--help`` line of command ``name`` (None when hidden), importing nothing lazy."""
        if name in self.commands:
            command = self.commands[name]
            return None if command.hidden else command.get_short_help_str(limit)
        return click.Command(name, help=self.lazy_commands[name].summary).get_short_help_str(limit)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = [name for name in self.list_commands(ctx) if self.summary_of(name) is not None]
        if names:
            limit = formatter.width - 6 - max(len(name) for name in names)
            with formatter.section("Commands"):
                formatter.write_dl([(name, self.summary_of(name, limit) or "") for name in names])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem  # completing only: agi --help does without

        found = [
            CompletionItem(name, help=help_text)
            for name in self.list_commands(ctx)
            if name.startswith(incomplete) and (help_text := self.summary_of(name)) is not None
        ]
        return found + click.Command.shell_complete(self, ctx, incomplete)
