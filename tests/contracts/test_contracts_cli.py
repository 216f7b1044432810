"""`agi contracts list` and `agi contracts validate`, through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from click.testing import CliRunner
from contracts_support import all_plugins

from agi_core import plugins as plugins_module
from agi_core.default_plugins import contracts as contracts_plugin


@pytest.fixture(scope="module")
def agi():
    group = click.Group(name="agi")
    contracts_plugin.agi_register_commands(group)
    return group


@pytest.fixture(scope="module")
def obj():
    return SimpleNamespace(plugins=all_plugins())


def run(agi, obj, *args, stdin=None):
    return CliRunner().invoke(agi, ["contracts", *args], obj=obj, input=stdin)


def test_list_table(agi, obj):
    result = run(agi, obj, "list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "FAMILY", "PLUGIN", "REQUIRED"]
    assert len(lines) == 72 and lines[-1] == "70 contracts"
    row = next(line for line in lines if line.startswith("intent_ingestion "))
    assert row.split() == ["intent_ingestion", "ingestion", "contracts", "3"]
    assert next(line for line in lines if line.startswith("social_interaction_miner ")).split() == [
        "social_interaction_miner",
        "social",
        "social",
        "4",
    ]


def test_list_json(agi, obj):
    result = run(agi, obj, "list", "--json")
    rows = json.loads(result.output)
    assert len(rows) == 70
    assert rows[0] == {
        "name": "action_interface",
        "family": "action",
        "plugin": "contracts",
        "required_fields": 3,
        "owner_module": "AGI_Evolutive/io/action_interface.py",
        "fallback": True,
        "used_by": ["autonomy"],  # it weighs the tool call the brain chose before it runs
    }
    used = {row["name"]: row["used_by"] for row in rows if row["used_by"]}
    assert used["social_conversation_rewrite"] == ["social"]  # the social module calls it in its revise phase


def test_list_uses_the_default_plugins_without_ctx_obj(agi, monkeypatch):
    monkeypatch.setattr(plugins_module, "load_plugins", all_plugins)
    result = CliRunner().invoke(agi, ["contracts", "list", "--json"])
    assert result.exit_code == 0 and len(json.loads(result.output)) == 70


def test_validate_prints_the_normalized_json(agi, obj, tmp_path):
    path = tmp_path / "out.txt"
    path.write_text('Here: {"intent": {"label": "greet", "confidence": 2},}', encoding="utf-8")
    result = run(agi, obj, "validate", "intent_ingestion", str(path))
    assert result.exit_code == 0
    assert result.stdout == '{\n  "intent": {\n    "label": "GREET",\n    "confidence": 1.0\n  }\n}\n'


def test_validate_reads_stdin(agi, obj):
    result = run(agi, obj, "validate", "social_conversation_rewrite", "-", stdin='{"rewritten": "Hi!"}')
    assert result.exit_code == 0 and json.loads(result.stdout) == {"rewritten": "Hi!"}


def test_validate_reports_errors_with_paths(agi, obj):
    result = run(agi, obj, "validate", "intent_ingestion", "-", stdin='{"intent": {"confidence": "x"}}')
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "Error: the output violates contract 'intent_ingestion' (schema):\n"
        "  $.intent.confidence: expected number, got string\n"
        "  $.intent.label: required field is missing\n"
    )


def test_validate_truncated(agi, obj):
    result = run(agi, obj, "validate", "intent_ingestion", "-", stdin='{"intent": {"label": "gr')
    assert result.exit_code == 1 and "(truncated)" in result.stderr


def test_unknown_contract_is_one_line(agi, obj):
    result = run(agi, obj, "validate", "nope", "-", stdin="{}")
    assert result.exit_code == 1
    assert result.stderr == "Error: no contract named 'nope'; `agi contracts list` shows the 70 registered ones\n"


def test_missing_file_is_a_usage_error(agi, obj, tmp_path):
    result = run(agi, obj, "validate", "intent_ingestion", str(tmp_path / "missing.json"))
    assert result.exit_code == 2 and result.stderr.endswith(": No such file or directory\n")


def test_raise_errors_reraises(agi, obj, monkeypatch):
    monkeypatch.setenv("AGI_RAISE_ERRORS", "1")
    result = run(agi, obj, "validate", "nope", "-", stdin="{}")
    assert type(result.exception).__name__ == "UnknownContract"


def test_the_docs_table_is_fresh(agi, obj):
    """docs/contracts.md holds the output of `agi contracts list --markdown`."""
    table = run(agi, obj, "list", "--markdown").output
    docs = (Path(__file__).resolve().parents[2] / "docs" / "contracts.md").read_text(encoding="utf-8")
    assert table.count("\n") == 72
    assert table in docs, (
        "docs/contracts.md is stale; paste the output of `agi contracts list --markdown` into its catalogue section"
    )


def test_through_the_agi_entry_point(monkeypatch, tmp_path, capsys):
    """`agi contracts validate` exits 1 on a violation through the real console entry point."""
    from agi_core.cli.main import main

    if "agi_core.default_plugins.contracts" not in plugins_module.DEFAULT_PLUGINS:
        monkeypatch.setattr(
            plugins_module, "DEFAULT_PLUGINS", (*plugins_module.DEFAULT_PLUGINS, "agi_core.default_plugins.contracts")
        )
    plugins_module.reset_plugins()
    bad = tmp_path / "bad.json"
    bad.write_text('{"intent": {"label": 3, "confidence": 0.5}}', encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["--db", str(tmp_path / "a.db"), "contracts", "validate", "intent_ingestion", str(bad)])
    assert info.value.code == 1
    assert capsys.readouterr().err.endswith("  $.intent.label: expected string, got integer\n")
