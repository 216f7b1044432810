"""The LLM brain's ``answer`` mode: short replies from recalled facts, with the embedded SmolLM2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agi_core.brain import answer
from agi_core.brain.llm import ANSWER_TOKENS, LLMBrain, default_mode
from agi_core.cli.main import make_cli
from agi_core.errors import ConfigError
from agi_core.llm.testing import FakeOpenAIServer, chat_reply
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

FACTS = ["the capital of France is Paris", "my dog is called Rex", "I live in Lyon", "my favorite color is teal"]
QUESTIONS = {
    "what is the capital of France?": "Paris",
    "what is my dog called?": "Rex",
    "where do I live?": "Lyon",
    "which color do I like?": "teal",
}


def _agi(db: Path, *args: str, stdin: str) -> list[str]:
    result = CliRunner().invoke(make_cli(), ["--db", str(db), "--seed", "answer", *args], input=stdin)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _outputs(db: Path) -> list[dict]:
    with open_kernel(db, seed="answer") as kernel:
        records = [json.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    return [r for r in records if r["brain"] == "llm"]


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults a newcomer gets: the llama-cpp provider with the packaged SmolLM2."""
    for name in ("AGI_LLM_PROVIDER", "AGI_LLAMA_CPP_MODEL", "AGI_LLM_MODE", "AGI_LLAMA_CPP_THREADS"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.llm
def test_embedded_smollm2_answers_from_the_recalled_fact(tmp_path: Path, embedded: None, monkeypatch) -> None:
    db = tmp_path / "a.db"
    _agi(db, "run", stdin="\n".join(FACTS) + "\n")
    replies = _agi(db, "--brain", "llm", "run", stdin="\n".join(QUESTIONS) + "\n")
    assert len(replies) == len(QUESTIONS)
    for reply, expected in zip(replies, QUESTIONS.values(), strict=True):
        assert expected in reply
    outputs = [r["agent_outputs"]["llm_brain"] for r in _outputs(db)]
    # R2 and R3 answer what Stage-0 parses; the model phrases the fact no rule reads ("which color do I like?")
    assert [o["mode"] for o in outputs] == ["rule", "rule", "rule", "answer"]
    assert all(o["path"] in ("model", "extractive") and o["fact"] for o in outputs[3:])
    monkeypatch.setenv("AGI_LLAMA_CPP_MODEL", str(tmp_path / "gone.gguf"))  # replay must not load a model
    report = replay(db, seed="answer", plugins=builtin_plugins())
    assert report.ok and report.ticks == len(FACTS) + len(QUESTIONS), report.summary()


@pytest.mark.llm
def test_without_a_fact_the_model_replies_briefly_from_a_small_prompt(tmp_path: Path, embedded: None) -> None:
    db = tmp_path / "a.db"
    (reply,) = _agi(db, "--brain", "llm", "run", stdin="Why is the sky blue?\n")
    assert reply.strip()
    (record,) = _outputs(db)
    assert record["agent_outputs"]["llm_brain"]["path"] == "model"
    (completion,) = record["externals"]["llm_completion"]
    assert completion["completion"]["prompt_tokens"] < 90  # the time and the gap since the last line included
    assert completion["completion"]["completion_tokens"] <= ANSWER_TOKENS


def _fake_brain_run(db: Path, server: FakeOpenAIServer, monkeypatch, questions: list[str]) -> list[str]:
    monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
    monkeypatch.setenv("AGI_LLM_MODE", "answer")
    _agi(db, "run", stdin="\n".join(FACTS) + "\n")
    return _agi(db, "--brain", "llm", "run", stdin="\n".join(questions) + "\n")


def test_a_reply_that_adds_content_is_replaced_by_the_fact(tmp_path: Path, monkeypatch) -> None:
    # A scripted server stands in for a model that gets the fact wrong: SmolLM2 does so on
    # some questions, but not on demand.
    with FakeOpenAIServer(lambda path, body: chat_reply("You live in Paris, the capital of France.")) as server:
        # a phrasing no Stage-0 rule answers, so the model is asked (rules answer "where do I live?" and
        # "where do I live, do you remember?" first)
        replies = _fake_brain_run(tmp_path / "a.db", server, monkeypatch, ["do you recall where I live?"])
        (_path, body) = next(r for r in server.requests if r[0].endswith("/chat/completions"))
    assert replies == ["You live in Lyon."]
    assert "tools" not in body and "response_format" not in body
    assert body["max_tokens"] == ANSWER_TOKENS and body["temperature"] == 0.0
    system, user = body["messages"]
    assert user == {"role": "user", "content": "do you recall where I live?"}
    assert system["role"] == "system"
    assert re.fullmatch(  # the instruction, the recorded time and the gap since the previous line, the fact
        r"Reply in one short sentence\. It is \d\d:\d\d \(UTC[+-]\d\d:\d\d\) on \w+ \d+ \w+ \d{4}\. "
        r"The user's previous message came \d+ seconds? ago\. Use only this fact: You live in Lyon\.",
        system["content"],
    ), system["content"]
    (record,) = _outputs(tmp_path / "a.db")
    assert record["agent_outputs"]["llm_brain"]["path"] == "extractive"


def test_a_faithful_phrasing_is_kept(tmp_path: Path, monkeypatch) -> None:
    with FakeOpenAIServer(lambda path, body: chat_reply("Yes: your dog is named Rex. Woof")) as server:
        replies = _fake_brain_run(tmp_path / "a.db", server, monkeypatch, ["what do you know about my dog?"])
    assert replies == ["Yes: your dog is named Rex."]


def test_a_failing_provider_still_answers_from_the_fact(tmp_path: Path, monkeypatch) -> None:
    with FakeOpenAIServer(lambda path, body: (500, "application/json", b'{"error": {"message": "down"}}')) as server:
        replies = _fake_brain_run(tmp_path / "a.db", server, monkeypatch, ["what is the capital of France?"])
    assert replies == ["The capital of France is Paris."]


def test_pick_fact_prefers_the_memory_that_answers() -> None:
    hits = [
        {"id": "a", "text": "what is the capital of France?", "speaker": "user", "kind": "message"},
        {"id": "b", "text": "Noted: the capital of France is Paris.", "speaker": "agent", "kind": "action"},
        {"id": "c", "text": "I visited France last year", "speaker": "user", "kind": "message"},
        {"id": "d", "text": "the capital of France is Paris", "speaker": "user", "kind": "message"},
    ]
    fact = answer.pick_fact("What is the capital of France?", answer.candidates(hits, []))
    assert fact == answer.Fact("the capital of France is Paris", "memory:d", ("capital", "france"))
    assert answer.pick_fact("Hello! Who are you?", answer.candidates(hits, [])) is None


def test_facts_are_turned_to_the_user() -> None:
    found = answer.candidates(
        [{"id": "x", "text": "I went to a support group", "speaker": "Caroline", "kind": "message"}],
        [{"key": "user/person/self/name", "fact": "the user's name is Alice"}],
    )
    assert found == [
        ("Caroline said: “I went to a support group”", "memory:x"),
        ("your name is Alice", "fact:user/person/self/name"),
    ]
    assert (
        answer.second_person("I'm sure my dog likes me. I live here") == "You're sure your dog likes you. You live here"
    )


def test_grounded_refuses_added_content_and_negation() -> None:
    fact = answer.Fact("you live in Lyon", "memory:x", ("live",))
    assert answer.grounded("You live in Lyon.", fact, "where do I live?")
    assert not answer.grounded("You don't live in Lyon.", fact, "where do I live?")
    assert not answer.grounded("You live in Lyon, France.", fact, "where do I live?")
    assert not answer.grounded("You live somewhere.", fact, "where do I live?")


def test_mode_defaults_to_answer_only_for_the_embedded_model(monkeypatch) -> None:
    for name in ("AGI_LLM_MODE", "AGI_LLAMA_CPP_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert (default_mode("llama-cpp"), default_mode("openai")) == ("answer", "reason")
    monkeypatch.setenv("AGI_LLAMA_CPP_MODEL", "/models/big.gguf")
    assert default_mode("llama-cpp") == "reason"
    monkeypatch.setenv("AGI_LLM_MODE", "chat")
    with pytest.raises(
        ConfigError, match=r"^AGI_LLM_MODE='chat' is not a mode of the LLM brain; use one of answer, reason$"
    ):
        default_mode("openai")
    monkeypatch.delenv("AGI_LLM_MODE")
    with pytest.raises(ConfigError, match=r"^unknown LLM brain mode 'chat'; use one of answer, reason$"):
        LLMBrain(None, lambda: None, mode="chat")  # type: ignore[arg-type]


def test_closing_the_kernel_closes_the_brains_provider(tmp_path: Path, monkeypatch) -> None:
    with FakeOpenAIServer(lambda path, body: chat_reply("Hello.")) as server:
        monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("AGI_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("AGI_LLM_MODE", "answer")
        kernel = open_kernel(tmp_path / "a.db", seed="answer", brain="llm")
        assert kernel.tick("hello").final_output == "Hello."
        provider = kernel.brain.build.provider
        assert provider._client_obj is not None
        kernel.close()
    assert kernel.brain.build.provider is None and provider._client_obj is None
