"""``agi mcp serve``: the agent answers MCP clients in another process, over stdio and streamable HTTP;
every tool call is a journaled tick from source ``mcp:<client>`` and replays equal."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agi_core.replay import replay


def learn(mcp: Any, db: Path) -> None:
    """The agent learns a fact in a process of its own (``agi run``)."""
    done = mcp.agi(db, "run", stdin="my name is Ada\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Got it: your name is Ada."


def sources(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT record FROM journal ORDER BY tick").fetchall()
    return [(json.loads(row)["input"]["source"], json.loads(row)["input"]["raw"]) for (row,) in rows]


async def session(server: Any, work: Any) -> Any:
    from mcp import Client
    from mcp_types import Implementation

    async with Client(server, client_info=Implementation(name="Test Host", version="1")) as client:
        return await work(client)


async def text(client: Any, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result
    return str(result.content[0].text)


def test_stdio_serve_answers_ask_with_a_learned_fact_and_every_call_is_a_replayable_tick(
    tmp_path: Path, mcp: Any
) -> None:
    pytest.importorskip("mcp", reason="pip install -e plugins/agi-plugin-mcp (requirements-test.txt)")
    from mcp.client.stdio import StdioServerParameters, stdio_client

    db = tmp_path / "agent.db"
    learn(mcp, db)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agi_core", "--db", str(db), "mcp", "serve"], env=mcp.child_env()
    )

    async def work(client: Any) -> dict[str, Any]:
        listed = sorted(tool.name for tool in (await client.list_tools()).tools)
        resources = sorted(str(resource.uri) for resource in (await client.list_resources()).resources)
        return {
            "tools": listed,
            "resources": resources,
            "ask": await text(client, "ask", {"question": "what is my name?"}),
            "tell": await text(client, "tell", {"text": "my city is Paris"}),
            "where": await text(client, "ask", {"question": "what is my city?"}),
            "search": json.loads(await text(client, "search_memory", {"query": "my name", "k": 2})),
            "goals": json.loads(await text(client, "goals", {})),
            "facts": json.loads((await client.read_resource("agi://facts")).contents[0].text),
            "recent": json.loads((await client.read_resource("agi://ticks/recent")).contents[0].text),
        }

    seen = asyncio.run(session(stdio_client(params), work))
    assert seen["tools"] == ["ask", "goals", "search_memory", "tell"]
    assert seen["resources"] == ["agi://facts", "agi://ticks/recent"]
    assert seen["ask"] == "Your name is Ada."
    assert seen["tell"] == "Got it: your city is Paris."
    assert seen["where"] == "Your city is Paris."
    assert "my name is Ada" in [hit["text"] for hit in seen["search"]["hits"]]
    assert seen["goals"] == {"goals": []}
    assert {fact["value"] for fact in seen["facts"]} >= {"Ada", "Paris"}
    assert [tick["source"] for tick in seen["recent"]] == ["user", *["mcp:test-host"] * 5]
    assert sources(db) == [
        ("user", "my name is Ada"),
        ("mcp:test-host", "what is my name?"),
        ("mcp:test-host", "my city is Paris"),
        ("mcp:test-host", "what is my city?"),
        ("mcp:test-host", "/search_memory 'my name' k=2"),
        ("mcp:test-host", "/goals"),
    ]
    report = replay(db, plugins=mcp.plugins())
    assert report.ok, report.mismatch
    assert report.ticks == 6


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_streamable_http_serve_on_localhost_answers_ask(tmp_path: Path, mcp: Any) -> None:
    pytest.importorskip("mcp", reason="pip install -e plugins/agi-plugin-mcp (requirements-test.txt)")
    db = tmp_path / "agent.db"
    learn(mcp, db)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "mcp", "serve", "--http", str(port)],
        env=mcp.child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "agi mcp serve --http did not listen within 60 s"
                time.sleep(0.2)

        async def work(client: Any) -> str:
            return await text(client, "ask", {"question": "what is my name?"})

        assert asyncio.run(session(f"http://127.0.0.1:{port}/mcp", work)) == "Your name is Ada."
    finally:
        server.terminate()
        _out, err = server.communicate(timeout=60)
    assert f"agi: serving MCP on http://127.0.0.1:{port}/mcp" in err
    assert sources(db)[-1] == ("mcp:test-host", "what is my name?")


def test_an_agent_that_cannot_open_answers_each_call_with_one_line(tmp_path: Path, mcp: Any) -> None:
    pytest.importorskip("mcp", reason="pip install -e plugins/agi-plugin-mcp (requirements-test.txt)")
    from mcp.client.stdio import StdioServerParameters, stdio_client

    (tmp_path / "plain.txt").write_text("not a folder")
    db = tmp_path / "plain.txt" / "agent.db"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agi_core", "--db", str(db), "mcp", "serve"], env=mcp.child_env()
    )

    async def work(client: Any) -> list[Any]:
        return [await client.call_tool("ask", {"question": "hello?"}) for _ in range(2)]

    for result in asyncio.run(session(stdio_client(params), work)):
        assert result.is_error
        message = result.content[0].text
        assert "\n" not in message and "plain.txt" in message, message
