"""The LLM brain's ``reason`` mode inside one tick: one decide request with the tools, a
``read`` tool run through the kernel, a follow-up turn whose answer is the reply; the
write path through intent → receipt; F4 on a timeout or bad output; replay offline.

The first test runs the real llama.cpp server (SmolLM2, ``chatml-function-calling`` so the
model sees the tools). The others use ``FakeOpenAIServer``, a scripted fake, for what the
real server cannot be made to do on demand: hang in the middle of a tick, answer garbage,
or pick a given write tool.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import openai  # noqa: F401 - imported now, so its import time is not counted in a request's timeout
import pytest
from click.testing import CliRunner

from agi_core.brain.llm import LLMBrain
from agi_core.brain.llm_reason import FOLLOW_UP_ASK
from agi_core.cli.main import make_cli
from agi_core.contracts import Budget
from agi_core.effects import acting
from agi_core.externals import Externals
from agi_core.llm import OpenAIProvider
from agi_core.llm.testing import FakeOpenAIServer, chat_reply, free_port
from agi_core.model import Action
from agi_core.replay import replay
from agi_core.replies import F4_AGENT_FAILURE
from agi_core.testing import builtin_plugins, open_kernel
from agi_core.tools import ToolPolicy

SEED = "follow"
SUMMARY = '{"summary": "Fine.", "final_confidence": 0.5, "hypothesis": {}}'


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
    monkeypatch.setenv("AGI_LLM_MODE", "reason")
    monkeypatch.setenv("AGI_OPENAI_MODEL", "smollm2")
    return monkeypatch


def _replays_offline(db: Path, monkeypatch: pytest.MonkeyPatch, ticks: int) -> None:
    """The server address now points where nothing listens: replay must not need it."""
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    report = replay(db, seed=SEED, plugins=builtin_plugins())
    assert report.ok and report.ticks == ticks, report.summary()


# 37 s alone on two cores, over a minute beside other jobs: two real model turns with a 4k context.
@pytest.mark.llm
def test_a_read_tool_call_is_answered_in_a_follow_up_turn_by_the_real_model(
    tmp_path: Path, openai_env: pytest.MonkeyPatch, llama_tool_server: str
) -> None:
    openai_env.setenv("AGI_OPENAI_BASE_URL", llama_tool_server)
    db = tmp_path / "a.db"
    with open_kernel(db, seed=SEED, brain="llm") as kernel:
        brain = kernel.get_brain("llm")
        # The request names the tool (OpenAI tool_choice), so the 135M model's pick is not
        # left to chance; the call itself is still the model's, through the real server.
        provider = OpenAIProvider(
            base_url=llama_tool_server, timeout=300, tool_choice={"type": "function", "function": {"name": "clock"}}
        )
        brain.build = lambda: provider
        brain.budget = Budget(attempts=3, tokens=6000, max_tokens=32)  # small answers: 2 shared cores
        brain.rules_first = False  # the brain answers a time question from the clock without the model
        record = kernel.tick("What time is it?")
    decide, follow_up = record.externals["llm_completion"]
    assert [call["name"] for call in decide["completion"]["tool_calls"]] == ["clock"]
    assert follow_up["completion"]["tool_calls"] == []
    output = record.agent_outputs["llm_brain"]
    assert (output["outcome"], output["requests"]) == ("tool_call", 2)
    # the brain's clock tool (its name wins over the kernel's): the tick's recorded wall clock, run in the tick
    tool = output["tool"]
    assert (tool["name"], tool["args"], tool["effect"], tool["from"]) == ("clock", {}, "read", "tool_call")
    (clock_ms,) = record.externals["wall_clock"]  # the tick's one wall-clock read (the kernel has no clock)
    assert tool["result"]["now_ms"] == clock_ms and tool["result"]["text"].startswith("It is ")
    assert record.action == Action(type="response", name="respond", args={"text": record.final_output})
    assert "tool_observation" not in record.externals
    assert record.plan.steps[:3] == ["reasoning_episode", "tool:clock", "follow_up"]
    said = follow_up["completion"]["text"].strip().split("\n", 1)[0].strip()
    if said and not said.startswith("{"):
        assert output["follow_up"]["outcome"] == "answered" and record.degraded == []
        assert record.final_output and said.startswith(record.final_output)
    else:
        assert (record.final_output, record.degraded) == (F4_AGENT_FAILURE, ["llm_brain"])
    _replays_offline(db, openai_env, 1)


def _tool_call(name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]


class ScriptedFakeServer(FakeOpenAIServer):
    """A fake: answers the chat requests from ``script`` in order (``None``: hang until the test ends)."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.release = threading.Event()
        super().__init__(self._answer)

    def _answer(self, path: str, body: dict[str, Any]) -> Any:
        reply = self.script.pop(0)
        if reply is None:
            self.release.wait(30)
            return chat_reply("too late")
        return reply

    def chats(self) -> list[dict[str, Any]]:
        return [body for path, body in self.requests if path.endswith("/chat/completions")]

    def stop(self) -> None:
        self.release.set()
        super().stop()


def _fake_kernel(db: Path, server: FakeOpenAIServer, env: pytest.MonkeyPatch, **options: Any) -> Any:
    env.setenv("AGI_OPENAI_BASE_URL", server.url)
    return open_kernel(db, seed=SEED, brain="llm", **options)


def test_a_follow_up_that_times_out_gives_f4_and_the_tick_completes(
    tmp_path: Path, openai_env: pytest.MonkeyPatch
) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "notes.txt").write_text("buy milk\n")
    db = tmp_path / "a.db"
    script = [chat_reply(None, _tool_call("file_read", {"path": "notes.txt"}), "tool_calls"), None]
    with ScriptedFakeServer(script) as server, _fake_kernel(db, server, openai_env, llm_timeout_s=2.0) as kernel:
        record = kernel.tick("what is in notes.txt?")
        decide, follow_up = server.chats()
    assert (record.final_output, record.degraded) == (F4_AGENT_FAILURE, ["llm_brain"])
    assert record.action == Action(type="tool", name="file_read", args={"path": "notes.txt"})
    assert record.observation.payload == {
        "policy": "effect read allowed",
        "path": "notes.txt",
        "text": "buy milk\n",
        "truncated": False,
    }
    output = record.agent_outputs["llm_brain"]
    assert output["requests"] == 2
    assert output["follow_up"] == {
        "outcome": "error",
        "error": "TimedOut: the openai request took longer than 2 s and was abandoned; "
        "raise --llm-timeout (AGI_LLM_TIMEOUT)",
    }
    # The decide request carries the tools; the follow-up carries none, and the result.
    assert [tool["function"]["name"] for tool in decide["tools"]] == [
        "calculate",
        "clock",
        "file_list",
        "file_read",
        "file_write",
        "goals",
        "recall",
        "remember",
        "send_message",
    ]
    assert "tools" not in follow_up and "response_format" not in follow_up
    assert follow_up["messages"][:2] == decide["messages"]
    assert follow_up["messages"][2:] == [
        {"role": "assistant", "content": '{"args":{"path":"notes.txt"},"tool":"file_read"}'},
        {
            "role": "user",
            "content": 'Result of file_read: {"path":"notes.txt","text":"buy milk\\n","truncated":false}\n'
            + FOLLOW_UP_ASK,
        },
    ]
    with open_kernel(db, seed=SEED) as kernel:
        assert kernel.tick_count == 1
    _replays_offline(db, openai_env, 1)


def test_the_follow_up_answer_is_the_reply(tmp_path: Path, openai_env: pytest.MonkeyPatch) -> None:
    db = tmp_path / "a.db"
    script = [
        chat_reply(None, _tool_call("file_list", {"path": "."}), "tool_calls"),
        chat_reply("The workspace is empty. Nothing to list.\nignored line"),
    ]
    with ScriptedFakeServer(script) as server, _fake_kernel(db, server, openai_env) as kernel:
        record = kernel.tick("which files do I have?")
    assert (record.final_output, record.degraded) == ("The workspace is empty. Nothing to list.", [])
    assert record.observation.payload == {"policy": "effect read allowed", "entries": []}
    assert record.agent_outputs["llm_brain"]["follow_up"] == {"outcome": "answered", "error": None}
    _replays_offline(db, openai_env, 1)


@pytest.mark.parametrize(
    ("script", "requests", "outcome"),
    [
        ([chat_reply("<html>no JSON here</html>")] * 3, 3, "violation:parse"),
        ([chat_reply(None, _tool_call("clock", {}), "tool_calls"), chat_reply('{"oops": ')], 2, "tool_call"),
    ],
    ids=["garbage decide", "garbage follow-up"],
)
def test_garbage_from_the_model_gives_f4(
    tmp_path: Path, openai_env: pytest.MonkeyPatch, script: list[Any], requests: int, outcome: str
) -> None:
    db = tmp_path / "a.db"
    with ScriptedFakeServer(script) as server, _fake_kernel(db, server, openai_env) as kernel:
        record = kernel.tick("hello?")
    assert (record.final_output, record.degraded) == (F4_AGENT_FAILURE, ["llm_brain"])
    output = record.agent_outputs["llm_brain"]
    assert (output["requests"], output["outcome"]) == (requests, outcome)
    _replays_offline(db, openai_env, 1)


def test_a_write_tool_goes_through_its_intent_without_a_follow_up(
    tmp_path: Path, openai_env: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "a.db"
    script = [chat_reply(None, _tool_call("file_write", {"path": "a.txt", "text": "hi"}), "tool_calls")]
    policy = ToolPolicy(allow_tools=frozenset({"file_write"}))
    with ScriptedFakeServer(script) as server, _fake_kernel(db, server, openai_env, policy=policy) as kernel:
        receipt = kernel.tick("write hi to a.txt")
        assert len(server.chats()) == 1  # no follow-up turn before the commit
        (record,) = [
            json.loads(text) for _t, _i, text, _c in kernel.store.journal_rows() if json.loads(text)["tick"] == 1
        ]
    assert record["final_output"] == "file_write: intent recorded at tick 1; it runs once the tick is stored"
    assert record["observation"]["payload"]["intent"] == "pending"
    assert record["agent_outputs"]["llm_brain"]["follow_up"] is None
    assert receipt.tick == 2 and receipt.observation.success
    assert (tmp_path / "workspace" / "a.txt").read_text() == "hi"
    _replays_offline(db, openai_env, 2)


def test_the_brain_takes_its_timeout_from_the_kernel(tmp_path: Path, openai_env: pytest.MonkeyPatch) -> None:
    openai_env.setenv("AGI_OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    with open_kernel(tmp_path / "a.db", seed=SEED, brain="llm", llm_timeout_s=7.5) as kernel:
        brain = kernel.get_brain("llm")
        assert isinstance(brain, LLMBrain) and brain.timeout_s == 7.5
        assert brain.build().timeout == 7.5  # the openai client gives up at the same time


def test_llm_timeout_flag_bounds_a_request_and_the_run_goes_on(tmp_path: Path, openai_env: pytest.MonkeyPatch) -> None:
    db = tmp_path / "a.db"
    with ScriptedFakeServer([None, chat_reply(SUMMARY)]) as server:  # the first request hangs
        openai_env.setenv("AGI_OPENAI_BASE_URL", server.url)
        result = CliRunner().invoke(
            make_cli(),
            ["--db", str(db), "--seed", SEED, "--brain", "llm", "--llm-timeout", "2", "run"],
            input="hello?\nand now?\n",
        )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [F4_AGENT_FAILURE, "Fine."]
    bad = CliRunner().invoke(make_cli(), ["--db", str(db), "--llm-timeout", "0", "run"], input="")
    assert bad.exit_code == 2 and "'--llm-timeout': '0' seconds is out of range; give greater than 0" in bad.output
    _replays_offline(db, openai_env, 2)


def test_during_reason_only_read_tools_run(tmp_path: Path) -> None:
    policy = ToolPolicy(allow_tools=frozenset({"file_write"}))  # even an allowed write waits for its intent
    with open_kernel(tmp_path / "a.db", seed=SEED, policy=policy) as kernel:
        externals = Externals()
        scope = kernel.tick_scope(externals)
        refused = acting.read_tool(scope, "file_write", {"path": "a.txt", "text": "hi"})
        listed = acting.read_tool(scope, "file_list", {"$0": "."})
    assert (refused.success, refused.error) == (
        False,
        "write tool 'file_write' runs only through its intent, after the tick commits",
    )
    assert not (tmp_path / "workspace" / "a.txt").exists()
    assert (listed.success, listed.payload) == (True, {"policy": "effect read allowed", "entries": []})
    assert [entry["payload"] for entry in externals.log["tool_observation"]] == [listed.payload]


def test_with_no_request_left_the_reply_is_the_tools_result(tmp_path: Path, openai_env: pytest.MonkeyPatch) -> None:
    db = tmp_path / "a.db"
    script = [chat_reply(None, _tool_call("file_list", {"path": "."}), "tool_calls")]
    with ScriptedFakeServer(script) as server, _fake_kernel(db, server, openai_env) as kernel:
        kernel.get_brain("llm").budget = Budget(attempts=1, tokens=6000, max_tokens=64)
        record = kernel.tick("which files do I have?")
        assert len(server.chats()) == 1
    assert (record.final_output, record.degraded) == ('file_list: {"entries":[]}', [])
    assert record.agent_outputs["llm_brain"]["follow_up"] == {"outcome": "skipped:budget"}
    assert record.plan.steps == ["reasoning_episode", "tool:file_list"]
    _replays_offline(db, openai_env, 1)
