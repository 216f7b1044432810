"""The built-in CLI commands, added through the same hook third-party commands use.

Each is named by import path and summary, so ``agi --help`` imports none of them
(:mod:`agi_core.cli.lazy`); ``tests/test_cli_lazy.py`` checks the summaries against the commands.
"""

from __future__ import annotations

import click

from agi_core.cli.lazy import LazyCommand, LazyGroup
from agi_core.hookspecs import hookimpl

CORE_COMMANDS: dict[str, tuple[str, str]] = {
    "run": (
        "agi_core.cli.commands:run",
        "Run one tick per line of standard input, then per sensor percept, and print the replies.",
    ),
    "chat": (
        "agi_core.cli.commands:chat",
        "Talk to the agent; write/external tools ask for confirmation. Ctrl-D or 'exit' quits.",
    ),
    "plugins": (
        "agi_core.cli.commands:plugins",
        "List the plugins, what each registers (runs every registration hook) and their errors.",
    ),
    "modules": (
        "agi_core.modules.cli:modules",
        "List the cognitive modules in run order: plugin, priority, phases, contracts, state size.",
    ),
    "intents": (
        "agi_core.effects.cli:intents",
        "List write/external tool calls committed as intents but never receipted.",
    ),
    "schedule": (
        "agi_core.scheduling.cli:schedule",
        "Scheduled jobs: each says its text as a tick (source schedule:NAME) when due, under agi run --follow.",
    ),
    "goals": (
        "agi_core.scheduling.goals_cli:goals_group",
        "Goals: a DAG with one active goal, each with a plan of at most 20 steps; each change is a journaled tick.",
    ),
    "replay": (
        "agi_core.cli.history:replay_command",
        "Re-run the recorded ticks from the same seed and compare them, field by field (docs/replay.md).",
    ),
    "journal": ("agi_core.cli.history:journal_group", "Verify, export and import the tamper-evident journal."),
    "config": (
        "agi_core.settings.cli:config_group",
        "List and change plugin settings (PLUGIN.KEY); AGI_PLUGIN_<PLUGIN>_<KEY> overrides.",
    ),
    "checkpoint": (
        "agi_core.cli.history:checkpoint_group",
        "Snapshot the whole agent (facts, episodes, working memory, variables, indexes).",
    ),
    "rollback": (
        "agi_core.cli.history:rollback_command",
        "Restore the whole agent to checkpoint NAME; undone ticks are archived, not destroyed.",
    ),
    "init": (
        "agi_core.messaging.cli:init_command",
        "Create the agent in --db, named NAME (its address agent.NAME for other agents).",
    ),
    "status": (
        "agi_core.cli.status:status_command",
        "Print the agent's ticks, facts, goals, jobs, modules, last tick and the versions that wrote its ticks "
        "(agi-core and plugins; runs no tick).",
    ),
    "whoami": ("agi_core.messaging.cli:whoami_command", "Print the agent's name and address."),
    "send": (
        "agi_core.messaging.cli:send_command",
        "Send TEXT to the agent NAME, as this database's agent (a journaled tick; AGI_MESSAGING_URL publishes it).",
    ),
    "export": (
        "agi_core.cli.transfer:export_command",
        "Write the whole agent (every table) as versioned JSON Lines, for agi import on any backend.",
    ),
    "import": (
        "agi_core.cli.transfer:import_command",
        "Create the agent in --db (a new database or agent name) from an agi export file.",
    ),
}

MEMORY_COMMANDS: dict[str, tuple[str, str]] = {
    "get": ("agi_core.cli.commands:memory_get", "Print the read contract {exists, value, last_updated} of KEY."),
    "put": ("agi_core.cli.commands:memory_put", "Store VALUE (JSON, or a plain string) under the canonical KEY."),
    "facts": ("agi_core.cli.commands:memory_facts", "List stored facts."),
    "forget": (
        "agi_core.cli.commands:memory_forget",
        "Forget the fact under KEY (a journaled tick that overwrites it with null; it reads as a miss).",
    ),
}


def add_lazy(group: click.Group, table: dict[str, tuple[str, str]]) -> None:
    """Add ``table``'s commands to ``group``: lazily when it can, imported at once otherwise."""
    for name, (target, summary) in table.items():
        if isinstance(group, LazyGroup):
            group.add_lazy_command(name, target, summary)
        else:
            group.add_command(LazyCommand(target, summary).load(), name)


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    add_lazy(cli, CORE_COMMANDS)
    memory = LazyGroup("memory", help="Read and write the agent's semantic memory.")
    add_lazy(memory, MEMORY_COMMANDS)
    cli.add_command(memory)
