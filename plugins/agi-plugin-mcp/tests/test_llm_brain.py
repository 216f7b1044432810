"""The LLM brain calls an MCP tool like any tool: offered under an OpenAI-valid function name
(``f__echo``: function names allow no dot), run through the kernel, replayed without the server.

The model is ``agi_core.llm.testing.FakeOpenAIServer``, a scripted fake (the tool call is what is
tested, not a model's choice); the MCP server is a real process (``fault_server.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agi_core.llm.testing import FakeOpenAIServer, chat_reply, free_port
from agi_core.replay import replay

pytestmark = pytest.mark.slow  # starts an MCP server process (through the mcp fixture's spec)


def test_the_llm_brain_calls_an_mcp_tool_by_its_function_name_and_replays_without_it(
    tmp_path: Path, mcp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGI_LLM_PROVIDER", "openai")
    monkeypatch.setenv("AGI_LLM_MODE", "reason")
    monkeypatch.setenv("AGI_OPENAI_MODEL", "fake")
    call = {"id": "call_1", "type": "function", "function": {"name": "f__echo", "arguments": '{"text": "hi"}'}}
    script = [chat_reply(None, [call], "tool_calls"), chat_reply("The server said hi.")]
    db = tmp_path / "a.db"
    with FakeOpenAIServer(lambda path, body: script.pop(0)) as model:
        monkeypatch.setenv("AGI_OPENAI_BASE_URL", model.url)
        with mcp.open_agent(db, {"f": mcp.fault_server()}, brain="llm") as kernel:
            record = kernel.tick("say hi through the echo tool")
        offered = [tool["function"]["name"] for tool in model.requests[0][1]["tools"]]
    assert "f__echo" in offered and not [name for name in offered if "." in name]
    assert record.action.name == "f.echo"
    assert record.observation.payload == {"policy": "effect read allowed", "text": "hi"}
    assert record.final_output == "The server said hi."
    monkeypatch.setenv("AGI_OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")  # no model, no MCP server
    report = replay(db, plugins=mcp.plugins())
    assert report.ok and report.ticks == 1, report.summary()
    assert json.loads(json.dumps(record.agent_outputs["llm_brain"]["tool"])) == {
        "name": "f.echo",
        "args": {"text": "hi"},
        "effect": "read",
        "from": "tool_call",
    }
