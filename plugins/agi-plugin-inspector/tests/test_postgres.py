"""The inspector on a PostgreSQL agent: the same pages, through the backend protocol."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient


def test_every_page_reads_a_postgres_agent(
    postgres_dsn: str, tmp_path: Path, make_agent: Callable[..., Any], inspector_app: Callable[..., Any], hostile: Any
) -> None:
    import agi_plugin_postgres.plugin as postgres

    url = make_agent(f"{postgres_dsn}&agent=inspect_{uuid.uuid4().hex[:8]}&home={tmp_path}", postgres)
    web = TestClient(inspector_app(url, postgres, embed_wait_s=120), base_url="http://127.0.0.1")
    timeline = web.get("/").text
    assert re.findall(r'<tr id="tick-(\d+)"', timeline) == [str(tick) for tick in range(12, 0, -1)]
    assert "agent=inspect_" in timeline  # the header names the agent's URL
    durations = re.findall(r'<td class="muted duration">([\d,.]+) ms</td>', timeline)
    assert len(durations) == 12 and all(float(ms.replace(",", "")) > 0 for ms in durations)  # every tick's time
    assert "Your name is Bob." in web.get("/ticks/2").text
    assert web.get("/goals").text.count('<g class="node') == 2
    assert re.search(r"<td>after-goals</td><td><a href=\"/ticks/11\">11</a>", web.get("/checkpoints").text)
    memory = web.get("/memory").text
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in memory and hostile.script not in memory
    hits = web.get("/memory?q=what is my name&k=3").text  # embedded by the background pass, on PostgreSQL's rows
    assert len(re.findall(r'<td class="score">([0-9.]+)</td>', hits)) == 3 and 'id="embedding"' not in hits
    assert re.findall(r'<section class="module" id="module-(\w+)">', web.get("/modules").text) == ["sem_council"]
    assert "replay equal: 12 ticks (1..12)" in web.get("/replay?run=1").text
    assert web.post("/chat", data={"text": "7 + 5"}).status_code == 403  # read-only here too
