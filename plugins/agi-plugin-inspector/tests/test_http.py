"""Fast checks over HTTP (starlette's TestClient): every page, read-only by default, the token, inert content."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agi_plugin_inspector.access import check_bind
from agi_plugin_inspector.views import Filters, shown_ms
from starlette.testclient import TestClient

from agi_core.errors import ConfigError
from agi_core.testing import open_kernel

TOKEN = "s3cret-token-of-24-chars"
LOCAL = "http://127.0.0.1"  # a loopback inspector answers only to its own names


@pytest.fixture
def client(inspector_app: Callable[..., Any]) -> Callable[..., TestClient]:
    """``client(db, *plugins, **options)``: a test client of the inspector of ``db``."""
    return lambda db, *extra, **options: TestClient(inspector_app(db, *extra, **options), base_url=LOCAL)


def journal_state(db: Path) -> tuple[int, str]:
    with open_kernel(db, seed="insp") as kernel:
        return kernel.tick_count, kernel.store.last_chain()


def ticks_shown(html: str) -> list[int]:
    return [int(tick) for tick in re.findall(r'<tr id="tick-(\d+)"', html)]


def test_timeline_lists_ticks_newest_first_with_decision_and_f_codes(
    agent_db: Path, client: Callable[..., TestClient]
) -> None:
    html = client(agent_db).get("/").text
    assert ticks_shown(html) == list(range(12, 0, -1))
    row = html.split('<tr id="tick-4"')[1].split("</tr>")[0]
    assert "what is my favourite colour?" in row and "F1" in row and "profile_agent" in row
    assert '<span class="code">' not in html.split('<tr id="tick-3"')[1].split("</tr>")[0]  # 12 + 30 = 42: no F-code


def durations_shown(html: str) -> dict[int, str]:
    """``{tick: its duration cell's text}`` of a timeline page."""
    cells = re.findall(r'<tr id="tick-(\d+)".*?<td class="muted duration">(.*?)</td>', html, re.S)
    return {int(tick): cell for tick, cell in cells}


def test_timeline_and_tick_page_show_each_tick_s_measured_duration(
    agent_db: Path, client: Callable[..., TestClient]
) -> None:
    with open_kernel(agent_db, seed="insp") as kernel:
        stored = kernel.store.tick_timings(1, 12)
        with kernel.store.tick_transaction():  # a tick from before timings were kept: none stored
            kernel.conn.execute("DELETE FROM tick_timings WHERE tick = 5")
    assert sorted(stored) == list(range(1, 13)) and all(us > 0 for us in stored.values())
    web = client(agent_db)
    shown = durations_shown(web.get("/").text)
    assert sorted(shown) == list(range(1, 13))
    assert shown[2] == shown_ms(stored[2]) and re.fullmatch(r"[\d,]+(\.\d+)? ms", shown[2])
    assert "–" in shown[5] and all(re.fullmatch(r"[\d,.]+ ms", shown[t]) for t in shown if t != 5)
    assert f"ran for {shown_ms(stored[2])}" in web.get("/ticks/2").text
    assert "no timing stored for this tick" in web.get("/ticks/5").text


def test_durations_are_shown_in_milliseconds() -> None:
    assert [shown_ms(us) for us in (None, 420, 3_140, 12_600, 1_250_000)] == [
        None,
        "0.42 ms",
        "3.1 ms",
        "13 ms",
        "1,250 ms",
    ]


def test_timeline_filters_by_f_code_agent_source_and_text(agent_db: Path, client: Callable[..., TestClient]) -> None:
    web = client(agent_db)
    assert ticks_shown(web.get("/?code=F1").text) == [4]
    assert ticks_shown(web.get("/?q=12 %2B 30").text) == [3]
    assert ticks_shown(web.get("/?source=event").text) == [11, 10, 6, 5]  # two facts stored, two goals added
    assert ticks_shown(web.get("/?code=F3").text) == [9, 8, 7]
    assert ticks_shown(web.get("/?agent=math_agent").text) == [12, 3]
    assert ticks_shown(web.get("/?before=3").text) == [2, 1]


def test_a_filtered_page_reads_the_journal_backwards_only_until_it_is_full(
    agent_db: Path, client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter that matches often reads only the newest ticks; one that matches rarely stops after
    ``SCAN_TICKS`` ticks and says which it searched, its "older ticks" link searching on: a page never
    reads a journal of months under the inspector's lock."""
    from agi_plugin_inspector import views

    read: list[int] = []
    records = views.JournalView.records

    def counted(self: Any, since: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        found = records(self, since, limit)
        read.extend(record["tick"] for record in found)
        return found

    monkeypatch.setattr(views.JournalView, "records", counted)
    monkeypatch.setattr(views, "SCAN_WINDOW", 3)  # records read at once
    with open_kernel(agent_db, seed="insp") as kernel:
        page = views.timeline(kernel.store, views.Filters(source="event"), limit=2)
        assert [row["tick"] for row in page.rows] == [11, 10] and page.older == 10 and page.searched is None
        assert min(read) >= 10  # ticks 1 to 9 were never read
    monkeypatch.setattr(views, "SCAN_TICKS", 4)
    web = client(agent_db)
    first = web.get("/?code=F1").text  # tick 4 only: ticks 12 to 9 hold no F1
    assert ticks_shown(first) == [] and "Searched ticks 9–12: 0 matches." in first
    assert 'href="/?before=9&source=&agent=&code=F1&q="' in first
    second = web.get("/?before=9&code=F1").text
    assert ticks_shown(second) == [] and "Searched ticks 5–8: 0 matches." in second
    third = web.get("/?before=5&code=F1").text  # down to tick 1: no bound met, no "older ticks"
    assert ticks_shown(third) == [4] and "Searched" not in third and 'id="older"' not in third


def test_tick_page_shows_input_decision_modules_evidence_votes_and_what_replay_compares(
    agent_db: Path, client: Callable[..., TestClient]
) -> None:
    html = client(agent_db).get("/ticks/2").text
    assert "what is my name?" in html and "Your name is Bob." in html
    assert 'id="why"' in html and "profile_agent" in html
    assert "evidence_check" in html and "approve" in html  # council votes
    assert "user/person/self/name" in html  # the claim's key and its evidence
    for field in ("router_decision", "council_votes", "brainstate_after"):
        assert f'id="field-{field}"' in html


def test_the_live_stream_resumes_after_a_reconnect_and_goes_on_after_a_rollback(
    agent_db: Path, inspector_app: Callable[..., Any]
) -> None:
    """A browser reconnecting sends Last-Event-ID: it got the rows since page load a second time (the
    stream started again from ?after=). After a rollback the journal is shorter than the last tick sent:
    the ticks that replaced the undone ones were never sent (it waited for the old count)."""
    app = inspector_app(agent_db)
    web, inspector = TestClient(app, base_url=LOCAL), app.state.inspector
    assert inspector._rows_after(12) == (12, [])
    after, rows = inspector._rows_after(10)
    assert (after, [row["tick"] for row in rows]) == (12, [11, 12])  # the last tick read
    after, rows = inspector._rows_after(40)  # the stream's last tick is past the journal's end: a rollback
    assert (after, rows) == (12, [])
    with web.stream("GET", "/events?after=3", headers={"Last-Event-ID": "11"}) as events:
        for line in events.iter_lines():
            if line.startswith("id:"):
                assert line == "id: 12"  # from the reconnect's last id, not from ?after=3
                break


def test_a_filtered_timeline_is_live_with_the_ticks_that_pass_its_filters(
    agent_db: Path, inspector_app: Callable[..., Any]
) -> None:
    """A filtered timeline said "live: new ticks appear as they are journaled" but never subscribed: no new
    tick came. It subscribes with its filters, and the stream sends the new ticks that pass them."""
    app = inspector_app(agent_db)
    web, inspector = TestClient(app, base_url=LOCAL), app.state.inspector
    page = web.get("/?agent=math_agent&q=%2B&code=").text
    assert "live: new ticks that pass the filters appear as they are journaled" in page
    assert '<script src="/static/live.js" data-after="12" data-filters="agent=math_agent&amp;q=%2B">' in page
    assert "live: new ticks appear as they are journaled" in web.get("/").text
    older = web.get("/?before=3&agent=math_agent").text
    assert 'id="live-status"></p>' in older and "live.js" not in older  # an older page is not live
    after, rows = inspector._rows_after(2, Filters(agent="math_agent", text="+"))
    assert (after, [row["tick"] for row in rows]) == (12, [3, 12])  # read to tick 12, two passed
    assert inspector._rows_after(4, Filters(code="F1")) == (12, [])
    with web.stream("GET", "/events?after=1&code=F1") as events:
        event: list[str] = []
        for line in events.iter_lines():
            if not line and any(part.startswith("data:") for part in event):
                break
            event.append(line)
    assert "id: 12" in event and ticks_shown("\n".join(event)) == [4]  # the F1 tick only


def test_a_stream_from_far_behind_is_sent_a_page_at_a_time_with_the_lock_free_between(
    tmp_path: Path, inspector_app: Callable[..., Any]
) -> None:
    """``/events?after=0`` read the whole journal under the lock every page takes (the chat box's ticks too),
    in one event. Each event now reads at most EVENT_TICKS records, and the lock is taken once for each."""
    from agi_plugin_inspector.app import EVENT_TICKS

    db = tmp_path / "long.db"
    with open_kernel(db, seed="insp") as kernel:
        for n in range(2 * EVENT_TICKS + 50):
            kernel.tick(f"{n} + 1")
    app = inspector_app(db)
    web, inspector = TestClient(app, base_url=LOCAL), app.state.inspector
    taken = []

    class Counting:
        """The inspector's own lock, counting its takings."""

        def __init__(self, lock: Any) -> None:
            self.lock = lock

        def __enter__(self) -> None:
            self.lock.__enter__()
            taken.append(0)

        def __exit__(self, *exc: Any) -> None:
            self.lock.__exit__(*exc)

    inspector.lock = Counting(inspector.lock)
    pages = [inspector._rows_after(after) for after in (0, EVENT_TICKS, 2 * EVENT_TICKS)]
    assert [(last, len(rows)) for last, rows in pages] == [
        (EVENT_TICKS, EVENT_TICKS),
        (2 * EVENT_TICKS, EVENT_TICKS),
        (2 * EVENT_TICKS + 50, 50),
    ]
    assert len(taken) == 3
    ids = []
    with web.stream("GET", "/events?after=0") as events:
        for line in events.iter_lines():
            if line.startswith("id:"):
                ids.append(int(line.split(":")[1]))
                if len(ids) == 3:
                    break
    assert ids == [EVENT_TICKS, 2 * EVENT_TICKS, 2 * EVENT_TICKS + 50]


def test_an_unknown_tick_is_a_404_page(agent_db: Path, client: Callable[..., TestClient]) -> None:
    answer = client(agent_db).get("/ticks/999")
    assert answer.status_code == 404 and "no tick 999 in this agent&#39;s journal" in answer.text
    huge = 10**20  # past SQLite's integers: it was a 500 (OverflowError)
    answer = client(agent_db).get(f"/ticks/{huge}")
    assert answer.status_code == 404 and f"no tick {huge} in this agent&#39;s journal" in answer.text
    assert client(agent_db).get(f"/?before={huge}").status_code == 200  # taken as no bound, like a non-number


def test_goal_page_draws_the_dag_with_plan_steps(agent_db: Path, client: Callable[..., TestClient]) -> None:
    html = client(agent_db).get("/goals").text
    assert html.count('<g class="node') == 2 and html.count('<line class="edge"') == 1
    assert "read a book" in html and "practice daily" in html and "conjugate être" in html
    assert "status-active" in html


def test_modules_page_shows_each_module_and_its_stored_state(tmp_path: Path, client: Callable[..., TestClient]) -> None:
    import agi_plugin_social.plugin as social  # a real module plugin with state (requirements-test.txt)

    with open_kernel(tmp_path / "s.db", social, seed="insp") as kernel:
        kernel.tick("hi there, my name is Bob")
    html = client(tmp_path / "s.db", social).get("/modules").text
    assert re.findall(r'<section class="module" id="module-(\w+)">', html) == ["sem_council", "social"]
    assert "phases: perceive, revise, maintain" in html and "state: 3 keys" in html
    assert "<code>profile/user</code>" in html and "&#34;name&#34;:&#34;Bob&#34;" in html
    tick = client(tmp_path / "s.db", social).get("/ticks/1").text
    assert "order: sem_council → social" in tick
    assert re.search(r"<tr><td>social</td><td>perceive</td>.*?<code>profile/user</code>", tick, re.S)


def test_modules_page_shows_the_agent_s_modules_whose_plugin_is_not_loaded(
    tmp_path: Path, client: Callable[..., TestClient]
) -> None:
    """An agent run with a module plugin, inspected without it (AGI_LOAD_PLUGINS=inspector): the page listed
    sem_council alone, as if the agent had no other module, and hid the other one's stored state."""
    import agi_plugin_social.plugin as social

    with open_kernel(tmp_path / "s.db", social, seed="insp") as kernel:
        kernel.tick("hi there, my name is Bob")
    html = client(tmp_path / "s.db").get("/modules").text
    assert re.findall(r'<section class="module" id="module-(\w+)">', html) == ["sem_council"]
    assert re.findall(r'<section class="module absent" id="absent-(\w+)">', html) == ["social"]
    assert "list it in AGI_LOAD_PLUGINS beside inspector" in html
    assert "ran in the newest tick; state: 3 keys" in html and "&#34;name&#34;:&#34;Bob&#34;" in html
    assert 'id="absent"' not in client(tmp_path / "s.db", social).get("/modules").text  # loaded: nothing absent


def test_a_tool_intent_links_its_receipt(tmp_path: Path, client: Callable[..., TestClient]) -> None:
    from agi_core.tools import ToolPolicy

    policy = ToolPolicy(allow_tools=frozenset({"file_write"}))
    with open_kernel(tmp_path / "t.db", seed="insp", policy=policy, workspace=tmp_path / "ws") as kernel:
        kernel.tick("/file_write a.txt one")
    web = client(tmp_path / "t.db")
    intent = web.get("/ticks/1").text
    assert '<a href="/ticks/2">tick 2</a>' in intent.split('id="intent"')[1].split("</p>")[0]
    assert "<code>file_write</code>" in intent
    listed = web.get("/checkpoints").text.split('id="intents"')[1]
    assert re.search(r'<a href="/ticks/1">1</a></td><td><code>file_write</code>.*?tick 2</a>', listed, re.S)


def test_memory_and_checkpoints_pages(agent_db: Path, client: Callable[..., TestClient]) -> None:
    web = client(agent_db)
    facts = web.get("/memory").text
    assert "user/person/self/name" in facts and "user/note/n1/text" in facts
    assert re.search(r'<td>after-goals</td><td><a href="/ticks/11">11</a>', web.get("/checkpoints").text)


@pytest.mark.slow  # loads the MiniLM model to embed the memories
def test_memory_search_shows_hits_with_scores(agent_db: Path, client: Callable[..., TestClient]) -> None:
    html = client(agent_db, embed_wait_s=120).get("/memory?q=what is my name&k=3").text  # the search, not progress
    scores = [float(score) for score in re.findall(r'<td class="score">([0-9.]+)</td>', html)]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    assert "dense" in html and "bm25" in html


def test_replay_page_reports_equal_and_the_first_divergence(
    agent_db: Path, dice_db: Path, dice_plugin: Any, client: Callable[..., TestClient]
) -> None:
    assert "replay equal: 12 ticks (1..12)" in client(agent_db).get("/replay?run=1").text
    html = client(dice_db, dice_plugin).get("/replay?run=1").text
    assert "REPLAY_MISMATCH tick=4 field=agent_outputs" in html
    assert '<tr id="field-agent_outputs" class="mismatch">' in html
    assert '<tr id="field-router_decision" class="equal">' in html


def test_a_replay_that_cannot_run_is_one_line_on_the_page(agent_db: Path, client: Callable[..., TestClient]) -> None:
    """An edited journal (changed behind the journal's back with sqlite3) is refused by replay, in one line."""
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(agent_db)) as conn, conn:
        conn.execute("UPDATE journal SET record = replace(record, '42', '43') WHERE tick = 3")
    answer = client(agent_db).get("/replay?run=1")
    message = answer.text.split('<p class="error" id="error">')[1].split("</p>")[0]
    assert answer.status_code == 400 and "\n" not in message
    assert message.startswith("the journal of ") and "does not verify (JOURNAL_BROKEN tick=3" in message


def test_read_only_by_default_chat_posts_are_refused_and_nothing_is_written(
    agent_db: Path, client: Callable[..., TestClient]
) -> None:
    before = journal_state(agent_db)
    web = client(agent_db)
    for path in ("/", "/ticks/1", "/replay?run=1", "/goals", "/modules", "/memory", "/checkpoints", "/chat"):
        assert web.get(path).status_code == 200, path
    assert 'id="chat-form"' not in web.get("/chat").text
    refused = web.post("/chat", data={"text": "my name is Eve", "form_key": "x"})
    assert refused.status_code == 403 and "agi serve --allow-chat" in refused.text
    assert journal_state(agent_db) == before


def test_chat_runs_a_tick_with_allow_chat_and_only_from_its_own_form(
    agent_db: Path, inspector_app: Callable[..., Any]
) -> None:
    app = inspector_app(agent_db, allow_chat=True)
    web = TestClient(app, base_url=LOCAL)
    key = app.state.inspector.form_key
    assert web.post("/chat", data={"text": "7 + 5", "form_key": "forged"}).status_code == 403
    assert journal_state(agent_db)[0] == 12
    answer = web.post("/chat", data={"text": "7 + 5", "form_key": key}, follow_redirects=True)
    assert answer.status_code == 200 and "7 + 5 = 12" in answer.text
    assert journal_state(agent_db)[0] == 13


def test_hostile_memory_renders_inert(agent_db: Path, hostile: Any, client: Callable[..., TestClient]) -> None:
    web = client(agent_db)
    pages = [web.get(path).text for path in ("/", "/ticks/7", "/memory", "/goals", "/chat")]
    for html in pages:
        assert hostile.script not in html and hostile.img not in html and hostile.svg not in html
        assert "window.__xss" not in html or "&lt;" in html
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in pages[2]  # the stored fact, as text
    assert "&lt;svg onload=&#34;window.__xss = 3&#34;&gt;" in pages[3]  # the goal title in the SVG
    assert hostile.replaced in web.get("/ticks/9").text
    assert "more characters)" in pages[0]  # the 60,000-character line is cut in the timeline


def test_a_token_is_required_when_set(agent_db: Path, client: Callable[..., TestClient]) -> None:
    web = client(agent_db, token=TOKEN)
    assert web.get("/").status_code == 401
    assert web.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert web.get("/", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    opened = web.get(f"/goals?token={TOKEN}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"].endswith("/goals")
    assert web.get("/goals").status_code == 200  # the cookie set by the redirect


def test_another_host_name_is_refused_on_loopback(agent_db: Path, client: Callable[..., TestClient]) -> None:
    """A page of another site cannot reach the inspector through DNS rebinding (Host: evil.example)."""
    web = client(agent_db)
    assert web.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert web.get("/", headers={"Host": "127.0.0.1:8377"}).status_code == 200
    other = client(agent_db, host="127.0.0.2")  # another loopback address: started, then refused every request
    assert other.get("/", headers={"Host": "127.0.0.2:8377"}).status_code == 200
    assert other.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_binding_beyond_loopback_needs_a_long_enough_token() -> None:
    check_bind("127.0.0.1", None)
    check_bind("::1", None)
    check_bind("0.0.0.0", TOKEN)
    with pytest.raises(ConfigError, match=r"^agi serve --host 0.0.0.0 would show the agent to the network; give"):
        check_bind("0.0.0.0", None)
    with pytest.raises(ConfigError, match="at least 16"):
        check_bind("127.0.0.1", "short")


def test_a_tick_shows_its_recorded_wall_clock_else_its_deterministic_timestamp(
    tmp_path: Path, client: Callable[..., TestClient]
) -> None:
    db = tmp_path / "clocked.db"
    with open_kernel(db, seed="insp") as kernel:
        unclocked = kernel.tick("2 + 2")
    with open_kernel(db, seed="insp", clock=lambda: 1_795_771_200_000) as kernel:  # 2026-11-27 09:20:00 UTC
        kernel.tick("3 + 3")
    web = client(db)
    html = web.get("/").text
    rows = {tick: html.split(f'<tr id="tick-{tick}"')[1].split("</tr>")[0] for tick in (1, 2)}
    assert ">2026-11-27 09:20:00 UTC<" in rows[2]
    assert f">{unclocked.timestamp}<" in rows[1]
    assert "2026-11-27 09:20:00 UTC" in web.get("/ticks/2").text


def test_a_tick_page_shows_json_values_as_a_person_reads_them_and_inert(
    tmp_path: Path, client: Callable[..., TestClient]
) -> None:
    db = tmp_path / "said.db"
    with open_kernel(db, seed="insp") as kernel:
        kernel.tick("my favorite band is Tom's <b>Jam</b> & Café")
    page = client(db).get("/ticks/1").text
    action = page.split("<dt>action</dt>", 1)[1].split("</dd>", 1)[0]
    assert "Tom&#39;s &lt;b&gt;Jam&lt;/b&gt; &amp; Café" in action  # the page escapes it, as any stored text
    assert "\\u0027" not in page and "\\u003c" not in page and "\\u0026" not in page and "\\u00e9" not in page
