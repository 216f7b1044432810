"""``--json`` means one thing in every command: one JSON document on stdout, nothing else there."""

from __future__ import annotations

import json

import click
import pytest

from tests.cli.conftest import Agi
from tests.cli.test_hostile_walk import COMMANDS, command_at


def json_commands() -> list[tuple[str, ...]]:
    """Every command with a ``--json`` option, found by walking the ``agi`` group."""
    return [path for path in COMMANDS if any("--json" in getattr(p, "opts", ()) for p in command_at(path).params)]


def test_the_walk_finds_the_json_commands() -> None:
    assert {" ".join(path) for path in json_commands()} >= {
        "plugins",
        "memory facts",
        "memory search",
        "checkpoint list",
        "contracts list",
    }


NAMED_ARGUMENTS = {("modules", "show"): ["sem_council"]}  # arguments that must name something installed


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    from click.testing import CliRunner

    from agi_core.cli.main import make_cli

    path = str(tmp_path_factory.mktemp("json") / "a.db")
    notes = tmp_path_factory.mktemp("notes") / "notes.txt"
    notes.write_text("Ann likes tea.\nBob plays chess.\n", encoding="utf-8")
    runner = CliRunner()
    for args, given in (
        (["run"], "my name is Ann\n2+2\n"),
        (["checkpoint", "create", "c1"], None),
        (["ingest", str(notes), "--no-progress"], None),
        (["schedule", "add", "ping", "--every", "1h", "--say", "hi"], None),
        (["goals", "add", "learn French"], None),
    ):
        assert runner.invoke(make_cli(), ["--db", path, *args], input=given).exit_code == 0
    return path


@pytest.mark.parametrize("path", json_commands(), ids=" ".join)
def test_json_stdout_parses(agi: Agi, db: str, path: tuple[str, ...]) -> None:
    arguments = [p for p in command_at(path).params if isinstance(p, click.Argument)]
    given = NAMED_ARGUMENTS.get(path, ["Ann"] * len(arguments))
    result = agi("--db", db, *path, *given, "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert isinstance(document, list | dict)
    # this agent has no pending intent, and the built-in council module keeps no state: empty
    assert document or path in (("intents",), ("modules", "show"))
