"""A server that dies, hangs, writes garbage, reports errors or lists 500 tools is contained: one
line, and the agent goes on. The server is written in this folder (fault_server.py), a real process."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from agi_plugin_mcp.actuators import relist

from agi_core import ToolPolicy
from agi_core.replay import replay


def test_effects_come_from_the_annotations_and_the_policy_gates_them(tmp_path: Path, mcp: Any) -> None:
    with mcp.open_agent(tmp_path / "a.db", {"f": mcp.fault_server()}) as kernel:
        effects = {name: tool.effect for name, tool in kernel.tools.items() if name.startswith("f.")}
        assert effects == {
            "f.crash": "read",
            "f.echo": "read",
            "f.fail": "read",
            "f.fetch": "external",  # no annotations
            "f.garbage": "read",
            "f.hang": "read",
            "f.note": "write",  # not read-only, closed world
            "f.wipe": "write",  # destructiveHint
        }
        assert kernel.tick("/f.fetch http://example.org").final_output == (
            "f.fetch failed: refused: external tool 'f.fetch' needs an explicit policy; "
            "allow it with --allow-tool f.fetch or confirm it in agi chat"
        )
    allowed = ToolPolicy(allow_tools=frozenset({"f.fetch", "f.note"}))
    with mcp.open_agent(tmp_path / "a.db", {"f": mcp.fault_server()}, policy=allowed) as kernel:
        assert kernel.tick("/f.fetch http://example.org").final_output == (
            'f.fetch: {"text":"fetched http://example.org"}'
        )
        assert kernel.tick("/f.note milk").final_output == 'f.note: {"text":"noted milk"}'
        assert [(tool, receipt is not None) for _t, tool, _a, receipt in kernel.store.intents()] == [
            ("f.fetch", True),
            ("f.note", True),
        ]
    assert replay(tmp_path / "a.db", plugins=mcp.plugins()).ok


def test_arguments_are_checked_against_the_input_schema_before_the_server_is_called(tmp_path: Path, mcp: Any) -> None:
    count = tmp_path / "calls.txt"
    server = mcp.fault_server(env={"FAULT_COUNT": str(count)})
    with mcp.open_agent(tmp_path / "a.db", {"f": server}) as kernel:
        assert kernel.tick("/f.echo").final_output == (
            "f.echo failed: f.echo: invalid arguments: 'text' is a required property @ $; see its schema: agi mcp tools"
        )
        assert kernel.tick("/f.echo hi times=many").final_output.startswith(
            "f.echo failed: tool 'f.echo' parameter 'times' must be an integer"
        )
        assert not count.exists()  # neither call reached the server
        assert kernel.tick("/f.echo hi times=2").final_output == 'f.echo: {"text":"hi hi"}'
        assert count.read_text() == "call\n"


def test_a_server_that_dies_hangs_or_writes_garbage_fails_the_call_in_one_line_and_the_agent_goes_on(
    tmp_path: Path, mcp: Any
) -> None:
    server = mcp.fault_server(timeout_s=2)
    server["command"].append(str(tmp_path))  # a mark to find its processes by (the server ignores it)
    with mcp.open_agent(tmp_path / "a.db", {"f": server}) as kernel:
        died = kernel.tick("/f.crash").final_output
        assert died == "f.crash failed: mcp server 'f' failed to answer 'crash': MCPError: Connection closed"
        assert "\n" not in died
        assert kernel.tick("/f.echo again").final_output == 'f.echo: {"text":"again"}'  # restarted
        hung = kernel.tick("/f.hang").final_output
        assert hung == (
            "f.hang failed: mcp server 'f' did not answer 'hang' within 2 s; it was stopped "
            "(raise the agent's --timeout, the mcp setting timeout_s or the server's own timeout_s)"
        )
        assert kernel.tick("/f.garbage").final_output == 'f.garbage: {"text":"after garbage"}'
        assert kernel.tick("/f.fail").final_output == (
            "f.fail failed: f.fail reported an error: Error executing tool fail: the disk is full"
        )
        assert kernel.tick("2+2").final_output == "2+2 = 4"
    assert running(str(tmp_path)) == []  # every server it started has stopped, the hung one included
    assert replay(tmp_path / "a.db", plugins=mcp.plugins()).ok


def running(mark: str) -> list[str]:
    """The command lines of live processes that contain ``mark``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if mark in text and "fault_server.py" in text:
            found.append(text)
    return found


def test_a_server_listing_500_tools_or_failing_to_start_is_refused_in_one_line_and_the_others_serve(
    tmp_path: Path, mcp: Any, capsys: Any
) -> None:
    servers = {"big": mcp.fault_server("many"), "dead": mcp.fault_server("dead"), "ok": mcp.fault_server()}
    with mcp.open_agent(tmp_path / "a.db", servers) as kernel:
        assert not [name for name in kernel.tools if name.startswith(("big.", "dead."))]
        assert kernel.tick("/ok.echo fine").final_output == 'ok.echo: {"text":"fine"}'
    warnings = capsys.readouterr().err.splitlines()
    assert (
        "agi: warning: plugin 'mcp' failed in server big: mcp server 'big' lists more than 100 tools; "
        "none of them is registered (raise the mcp setting max_tools, or configure a smaller server)"
    ) in warnings
    dead = [line for line in warnings if "server dead" in line]
    assert len(dead) == 1 and "mcp server 'dead' failed to start (" in dead[0], warnings


def test_nonsense_answers_and_a_bad_input_schema_are_contained_in_one_line(
    tmp_path: Path, mcp: Any, capsys: Any
) -> None:
    raw = {"command": [sys.executable, str(Path(__file__).with_name("raw_server.py"))]}
    with mcp.open_agent(tmp_path / "a.db", {"raw": raw}) as kernel:
        assert sorted(name for name in kernel.tools if name.startswith("raw.")) == ["raw.fine_tool", "raw.nonsense"]
        reply = kernel.tick("/raw.nonsense").final_output
        assert reply.startswith("raw.nonsense failed: mcp server 'raw' failed to answer 'nonsense': ValidationError: ")
        assert "\n" not in reply
        assert kernel.tick("/raw.fine_tool").final_output == 'raw.fine_tool: {"text":"fine"}'  # reconnected
    warnings = [line for line in capsys.readouterr().err.splitlines() if "bad_schema" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("agi: warning: plugin 'mcp' failed in server raw: tool 'bad_schema' skipped: ")


def test_the_llm_brain_offers_the_mcp_tools_it_finds_when_the_agent_opens(tmp_path: Path, mcp: Any) -> None:
    with mcp.open_agent(tmp_path / "a.db", {"f": mcp.fault_server()}, brain="llm") as kernel:
        offered = {spec["function"]["name"]: spec for spec in kernel.brain.tools}
        assert (
            offered["f__note"]["function"]["description"]
            == "[effect: write] An additive, closed-world tool (effect write). (MCP server f)"
        )
        assert list(offered["f__echo"]["function"]["parameters"]["properties"]) == ["text", "times"]


def test_a_streamable_http_server_serves_tools_and_one_that_is_down_costs_one_line(
    tmp_path: Path, mcp: Any, capsys: Any
) -> None:
    import socket
    import subprocess
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        down = probe.getsockname()[1]  # nothing listens there
    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fault_server.py")), "http", str(port)])
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the HTTP fault server did not listen"
                time.sleep(0.2)
        servers = {"web": {"url": f"http://127.0.0.1:{port}/mcp"}, "gone": {"url": f"http://127.0.0.1:{down}/mcp"}}
        with mcp.open_agent(tmp_path / "a.db", servers) as kernel:
            assert kernel.tick("/web.echo over-http").final_output == 'web.echo: {"text":"over-http"}'
            assert not [name for name in kernel.tools if name.startswith("gone.")]
    finally:
        server.terminate()
        server.wait(30)
    gone = [line for line in capsys.readouterr().err.splitlines() if "server gone" in line]
    assert len(gone) == 1 and "mcp server 'gone' failed to start (" in gone[0], gone
    assert f"check that `http://127.0.0.1:{down}/mcp` runs" in gone[0]


def test_a_server_listed_under_its_configuration_starts_at_its_first_call_not_when_the_agent_opens(
    tmp_path: Path, mcp: Any
) -> None:
    starts = tmp_path / "starts"
    spec = mcp.fault_server(env={"FAULT_STARTS": str(starts), "API_TOKEN": "s3cr3t"})

    def started() -> int:
        return len(starts.read_text().splitlines()) if starts.exists() else 0

    db = tmp_path / "agent.db"
    with mcp.open_agent(db, {"f": spec}) as kernel:  # no listing kept yet: the server is asked
        assert started() == 1 and "f.echo" in kernel.tools
    with mcp.open_agent(db, {"f": spec}) as kernel:  # the same configuration: its kept listing serves
        assert started() == 1 and kernel.tools["f.echo"].effect == "read"
        assert kernel.tick("/f.echo hi").final_output == 'f.echo: {"text":"hi"}'
        assert started() == 2  # started by the call
    with mcp.open_agent(db, {"f": spec}) as kernel:
        assert started() == 2
        relist(kernel)  # agi mcp tools: every server asked again, its tools registered anew
        assert started() == 3 and "f.echo" in kernel.tools
        assert kernel.tick("/f.echo again").final_output == 'f.echo: {"text":"again"}'
    with mcp.open_agent(db, {"f": {**spec, "timeout_s": 5}}):  # configured otherwise: asked when it opens
        assert started() == 4
    kept = sqlite3.connect(db).execute("SELECT value FROM meta WHERE key = 'plugin_data:mcp:listing:f'").fetchone()
    assert '"configuration"' in kept[0] and "s3cr3t" not in kept[0]  # a digest, not the env


def test_a_timeout_past_a_day_is_refused_in_one_line_and_nothing_is_stored(tmp_path: Path, mcp: Any) -> None:
    db = tmp_path / "agent.db"
    refused = mcp.agi(db, "config", "set", "mcp.timeout_s", "1e12")
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (
        "Error: invalid value for mcp.timeout_s: 1000000000000.0 is greater than the maximum of 86400; "
        'give a value matching {"type":"number","exclusiveMinimum":0,"maximum":86400}\n'
    )
    server = json.dumps({"a": {"url": "http://127.0.0.1:9/mcp", "timeout_s": 1e300}})
    refused = mcp.agi(db, "config", "set", "mcp.servers", server)
    assert refused.returncode == 1
    assert refused.stderr.startswith("Error: invalid value for mcp.servers: 1e+300 is greater than the maximum of 864")
    listed = mcp.agi(db, "config", "list")
    assert "mcp.timeout_s = 10" in listed.stdout and '"timeout_s":1e+300' not in listed.stdout


def test_a_call_is_bounded_by_the_agents_timeout_and_a_cold_start_by_connect_timeout(tmp_path: Path, mcp: Any) -> None:
    # the mcp setting timeout_s is 10 s; the agent's --timeout (KernelConfig.timeout_s) is 1 s: 1 s wins
    with mcp.open_agent(tmp_path / "a.db", {"f": mcp.fault_server()}, timeout_s=1) as kernel:
        assert kernel.tools["f.hang"].definition.timeout_s == 1 + 20 + 1  # the call, a cold start, a margin
        hung = kernel.tick("/f.hang").final_output
        assert hung == (
            "f.hang failed: mcp server 'f' did not answer 'hang' within 1 s; it was stopped "
            "(raise the agent's --timeout, the mcp setting timeout_s or the server's own timeout_s)"
        )
        assert kernel.tick("/f.echo cold").final_output == 'f.echo: {"text":"cold"}'  # restarted, under 1 s + connect


def test_a_server_that_died_while_the_agent_was_idle_is_restarted_by_the_next_call_and_no_call_is_sent_twice(
    tmp_path: Path, mcp: Any
) -> None:
    import os
    import signal
    import time

    starts, calls = tmp_path / "starts", tmp_path / "calls"
    server = mcp.fault_server(env={**os.environ, "FAULT_STARTS": str(starts), "FAULT_COUNT": str(calls)})
    server["command"].append(str(tmp_path))  # a mark to find its process by (the server ignores it)
    with mcp.open_agent(tmp_path / "a.db", {"f": server}) as kernel:
        assert kernel.tick("/f.echo first").final_output == 'f.echo: {"text":"first"}'
        (pid,) = server_pids(str(tmp_path))
        os.kill(pid, signal.SIGKILL)  # the agent is idle: no request is in flight
        deadline = time.monotonic() + 30
        while server_pids(str(tmp_path)) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # the link reads the end of the server's output
        assert kernel.tick("/f.echo second").final_output == 'f.echo: {"text":"second"}'  # restarted, not failed
        assert (starts.read_text(), calls.read_text()) == ("start\n" * 2, "call\n" * 2)  # one start before, one after
        died = kernel.tick("/f.crash").final_output  # it dies during the call: the call may have run, never again
        assert died == "f.crash failed: mcp server 'f' failed to answer 'crash': MCPError: Connection closed"
        assert starts.read_text() == "start\n" * 2
    assert replay(tmp_path / "a.db", plugins=mcp.plugins()).ok


def server_pids(mark: str) -> list[int]:
    """The pids of the live (not zombie) fault servers whose command line contains ``mark``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = cmdline.with_name("stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if mark in text and "fault_server.py" in text and state != "Z":
            found.append(int(cmdline.parent.name))
    return found


def test_a_server_that_never_answers_is_not_reached_by_read_only_commands_or_agi_config_and_costs_one_line(
    tmp_path: Path, mcp: Any
) -> None:
    import socket
    import threading

    mute = socket.socket()  # accepts connections and never answers (an HTTP endpoint that hangs)
    mute.bind(("127.0.0.1", 0))
    mute.listen(50)
    accepted: list[socket.socket] = []

    def hold() -> None:
        while True:
            try:
                accepted.append(mute.accept()[0])
            except OSError:
                return

    threading.Thread(target=hold, daemon=True).start()
    db = tmp_path / "agent.db"
    try:
        assert mcp.agi(db, "run", stdin="hello\n").returncode == 0
        server = json.dumps({"mute": {"url": f"http://127.0.0.1:{mute.getsockname()[1]}/mcp"}})
        assert mcp.agi(db, "config", "set", "mcp.servers", server).returncode == 0
        for command in (
            ["status"],
            ["goals", "list"],
            ["config", "list"],
            ["config", "set", "mcp.connect_timeout_s", "1"],
        ):
            done = mcp.agi(db, *command)
            assert (done.returncode, done.stderr, len(accepted)) == (0, "", 0), command  # no server reached
        ran = mcp.agi(db, "run", stdin="2+2\n")  # an agent that acts opens: the new server is asked, within 1 s
        assert (ran.returncode, ran.stdout.strip().splitlines()[-1]) == (0, "2+2 = 4")
        assert ran.stderr == (
            "agi: warning: plugin 'mcp' failed in server mute: mcp server 'mute' did not start and connect "
            "within 1 s; it was stopped (raise the mcp setting connect_timeout_s)\n"
        )  # one line: no "Future exception was never retrieved" traceback
        assert len(accepted) >= 1
    finally:
        mute.close()
        for held in accepted:
            held.close()
