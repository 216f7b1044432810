"""``agi --help`` and completion import no command module and nothing heavy; lazy summaries stay true."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from agi_core.cli.lazy import LazyGroup
from agi_core.cli.main import make_cli

HEAVY = (
    "torch",
    "sentence_transformers",
    "faiss",
    "numpy",
    "openai",
    "jsonschema",
    "sqlite_utils",
    "cattrs",
    "tqdm",
    "opentelemetry",  # imported only when tracing is on (agi --otel, docs/tracing.md)
    "agi_core.kernel",
    "agi_core.memory.sqlite_store",
    "agi_core.cli.commands",
    "agi_core.cli.history",
    "agi_core.state.cli",
    "agi_core.contracts.cli",
    # start-up (benchmarks/startup.py): listing commands needs none of these
    "attr",
    "attrs",
    "importlib.metadata",
    "sqlite3",
    "agi_core.model",
    "agi_core.tools",
    "agi_core.memory.backend",
    "agi_core.opening",
    "logging",  # only when tracing starts
    "packaging",  # only for a plugin that pins agi-core (requires_agi_core)
    # agi serve (agi-plugin-inspector): its web stack loads when the command runs
    "starlette",
    "uvicorn",
    "jinja2",
    "sse_starlette",
    "agi_plugin_inspector.app",
    "agi_plugin_inspector.cli",
)

PROBE = """
import json, sys
from agi_core.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = json.loads(sys.stdin.read())
print(json.dumps(sorted(m for m in sys.modules if m in heavy or m.split(".")[0] in heavy)), file=sys.stderr)
"""


# Listing the commands does without these too: the installed plugins' manifests are checked before a command
# runs (Plugins.check_manifests), tracing is looked at by the group's callback, agi_core.effects is needed when a
# hook fails, the clocks and the synonym table when a kernel opens.
LISTING_HEAVY = (
    *HEAVY,
    "jsonschema_rs",
    "agi_core.schemas",
    "agi_core.settings",
    "agi_core.tracing",
    "agi_core.effects",
    "agi_core.scheduling.clock",
    "agi_core.default_plugins.synonym_groups",
)
# agi --help exits before agi's other options are parsed (it is eager), so no --db path: no pathlib (nor urllib.parse)
TOP_LEVEL_HEAVY = (*LISTING_HEAVY, "pathlib", "urllib")


def imported_by(*args: str, heavy: tuple[str, ...] = HEAVY, **env: str) -> list[str]:
    """The ``heavy`` modules a real ``agi ARGS`` process imported (the installed plugins loaded too)."""
    environment = {k: v for k, v in os.environ.items() if k != "AGI_LOAD_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=json.dumps(heavy),
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, **env},
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_help_imports_nothing_heavy() -> None:
    assert imported_by("--help", heavy=TOP_LEVEL_HEAVY) == []
    assert imported_by("memory", "--help") == []


def test_completion_imports_nothing_heavy() -> None:
    assert imported_by(_AGI_COMPLETE="bash_complete", COMP_WORDS="agi ", COMP_CWORD="1", heavy=LISTING_HEAVY) == []
    assert (
        imported_by(_AGI_COMPLETE="bash_complete", COMP_WORDS="agi memory ", COMP_CWORD="2", heavy=LISTING_HEAVY) == []
    )


def test_a_tick_on_an_up_to_date_database_imports_neither_sqlite_utils_nor_numpy(tmp_path) -> None:
    """sqlite-utils (and the numpy it brings, about 0.1 s a start) is for the schema's steps, Python jsonschema
    (about 35 ms) for naming what jsonschema-rs refused or for a module's state schema: an agent started again
    on its database (agi run --follow after a kill, every agi command) migrates nothing."""
    db = str(tmp_path / "a.db")
    built = imported_by("--db", db, "init", "--name", "alice", heavy=("sqlite_utils",))
    assert "sqlite_utils" in built  # a new database: its schema is built
    put = ("--db", db, "memory", "put", "user/person/self/name", "Ada")
    assert imported_by(*put, heavy=("sqlite_utils", "numpy")) == []  # the installed plugins loaded
    assert imported_by(*put, heavy=("sqlite_utils", "numpy", "jsonschema"), AGI_LOAD_PLUGINS="") == []


def test_a_command_is_imported_when_it_runs() -> None:
    assert "agi_core.cli.history" in imported_by("replay", "--help")


@pytest.mark.parametrize("installed", [False, True], ids=["builtins", "installed plugins"])
def test_lazy_summaries_match_the_commands(monkeypatch, installed) -> None:
    """The --help listing from summaries equals the listing with every command imported (the installed
    plugins' commands too: mcp's and improve's summaries had drifted from their help)."""
    if installed:
        monkeypatch.delenv("AGI_LOAD_PLUGINS", raising=False)
    runner = CliRunner()
    lazy = make_cli()
    groups = [(lazy, ["--help"]), (lazy.get_command(None, "memory"), ["memory", "--help"])]
    before = [runner.invoke(lazy, args, terminal_width=100).output for _, args in groups]
    for group, _ in groups:
        assert isinstance(group, LazyGroup) and group.lazy_commands
        for name in group.list_commands(None):
            group.get_command(None, name)
        assert group.lazy_commands == {}
    after = [runner.invoke(lazy, args, terminal_width=100).output for _, args in groups]
    assert before == after


def test_completion_lists_lazy_commands(monkeypatch) -> None:
    monkeypatch.setenv("_AGI_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "agi ch")
    monkeypatch.setenv("COMP_CWORD", "1")
    result = CliRunner().invoke(make_cli(), [], prog_name="agi")
    assert result.output == "plain,chat\nplain,checkpoint\n"


def test_add_command_replaces_a_lazy_one() -> None:
    group = LazyGroup("g")
    group.add_lazy_command("x", "agi_core.cli.history:replay_command", "Lazy.")

    @click.command("x")
    def eager() -> None:
        """Eager."""

    group.add_command(eager)
    assert group.get_command(None, "x") is eager and group.lazy_commands == {}
    assert group.summary_of("x") == "Eager."
