"""The LLM brain against a real llama.cpp server with SmolLM2, and its exact offline replay."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.contracts import Budget, ContractViolation, call_contract, registry_from_plugins
from agi_core.llm import OpenAIProvider
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

pytestmark = pytest.mark.llm

TURNS = ["Hello! Who are you?", "Why is the sky blue?", "List the files in the workspace."]


@pytest.fixture
def llm_env(monkeypatch, llama_server):
    monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", llama_server)
    return llama_server


def _records(db):
    with open_kernel(db, seed="llm", brain="llm") as kernel:
        return [json.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]


def _replays_offline(db, monkeypatch):
    """The server address now points nowhere: replay must not need it."""
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    return replay(db, seed="llm", plugins=builtin_plugins())


# 31 s alone on two cores, over two minutes beside other jobs (3 real model turns of up to a few hundred tokens):
# the guarantee is that a real multi-turn LLM run replays offline, which a shorter run would not show.
def test_an_llm_run_replays_equal_offline(tmp_path, llm_env, monkeypatch):
    db = tmp_path / "llm.db"
    result = CliRunner().invoke(
        make_cli(), ["--db", str(db), "--seed", "llm", "--brain", "llm", "run"], input="\n".join(TURNS) + "\n"
    )
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == len(TURNS) and all(result.stdout.splitlines())
    records = _records(db)
    assert [r["brain"] for r in records] == ["llm"] * len(TURNS)
    # the file rule answers the 3rd line as Stage-0 does; the model gets the others (no rule reads them)
    assert records[2]["agent_outputs"]["llm_brain"]["mode"] == "rule"
    assert all(r["externals"]["llm_completion"] for r in records[:2])
    assert {r["agent_outputs"]["llm_brain"]["outcome"] for r in records[:2]} <= {
        "valid",
        "violation:schema",
        "violation:parse",
        "violation:truncated",
        "violation:budget",
    }
    report = _replays_offline(db, monkeypatch)
    assert report.ok and report.ticks == len(TURNS), report.summary()


def test_an_agi_chat_session_with_the_llm_brain_replays_equal_offline(tmp_path, llm_env, monkeypatch):
    db = tmp_path / "chat.db"
    # One turn; if the model asks for a write tool, "exit" declines the confirmation.
    result = CliRunner().invoke(
        make_cli(),
        ["--db", str(db), "--seed", "llm", "--brain", "llm", "chat"],
        input="Hello! What can you do?\nexit\n",
    )
    assert result.exit_code == 0, result.output
    assert len([line for line in result.output.splitlines() if line.startswith("agent> ")]) == 1
    assert len(_records(db)) == 1
    report = _replays_offline(db, monkeypatch)
    assert report.ok and report.ticks == 1, report.summary()


def test_a_contract_call_returns_a_valid_object_or_a_violation_with_fallback(llama_server):
    registry = registry_from_plugins(builtin_plugins())
    provider = OpenAIProvider(base_url=llama_server, timeout=120)
    try:
        result = call_contract(
            registry["intent_ingestion"],
            provider,
            {"text": "Please book a table for two."},
            budget=Budget(attempts=2, tokens=3000, max_tokens=160),
        )
    except ContractViolation as violation:
        assert violation.fallback is not None
        assert violation.fallback["intent"]["label"].isupper()
    else:
        assert result.value["intent"]["label"] == result.value["intent"]["label"].upper()
        assert 0.0 <= result.value["intent"]["confidence"] <= 1.0
