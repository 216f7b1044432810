"""Real third-party MCP servers from PyPI (mcp-server-time, mcp-server-git) as agent tools, through policy.

The done-when of issue 23 item 1: an agent calls a tool of each, the write goes intent → commit →
execute → receipt, and the run replays equal with both servers gone.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agi_core import ToolPolicy
from agi_core.replay import replay

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "agent",
    "GIT_AUTHOR_EMAIL": "agent@example.org",
    "GIT_COMMITTER_NAME": "agent",
    "GIT_COMMITTER_EMAIL": "agent@example.org",
}


def servers(mcp: Any, repo: Path) -> dict[str, dict[str, object]]:
    return {
        "time": mcp.module_server("mcp_server_time", "--local-timezone", "UTC"),
        "git": mcp.module_server("mcp_server_git", "--repository", str(repo), env=GIT_IDENTITY),
    }


def test_time_and_git_tools_run_through_policy_and_replay_without_the_servers(
    tmp_path: Path, git_repo: Path, mcp: Any
) -> None:
    pytest.importorskip("mcp_server_time", reason="pip install mcp-server-time (agi-plugin-mcp[test])")
    pytest.importorskip("mcp_server_git", reason="pip install mcp-server-git (agi-plugin-mcp[test])")
    db = tmp_path / "agent.db"
    policy = ToolPolicy(allow_tools=frozenset({"git.git_add", "git.git_commit"}))
    with mcp.open_agent(db, servers(mcp, git_repo), policy=policy) as kernel:
        effects = {name: kernel.tools[name].effect for name in kernel.tools if name.startswith(("time.", "git."))}
        assert effects["time.get_current_time"] == "read"  # readOnlyHint
        assert effects["git.git_status"] == "read"
        assert effects["git.git_reset"] == "write"  # destructiveHint
        assert effects["git.git_commit"] == "write"  # not read-only, closed world
        now = kernel.tick("/time.get_current_time Europe/Paris")
        assert now.agent_outputs  # the Stage-0 tool agent asked for it
        observed = json.loads(now.final_output.removeprefix("time.get_current_time: "))
        assert observed["structured"]["timezone"] == "Europe/Paris"
        assert observed["structured"]["datetime"][:4].isdigit()
        refused = kernel.tick(f"/git.git_reset {git_repo}")
        assert refused.final_output == (
            "git.git_reset failed: refused: write tool 'git.git_reset' needs an explicit policy; "
            "allow it with --allow-tool git.git_reset or confirm it in agi chat"
        )
        added = kernel.tick(f"/git.git_add {git_repo} 'files=[\"notes.txt\"]'")
        assert "Files staged successfully" in added.final_output, added.final_output
        committed = kernel.tick(f"/git.git_commit {git_repo} 'add the notes'")
        assert "Changes committed successfully" in committed.final_output, committed.final_output
        intents = kernel.store.intents()
        assert [(tool, receipt is not None) for _tick, tool, _args, receipt in intents] == [
            ("git.git_add", True),
            ("git.git_commit", True),
        ]
        ticks = kernel.tick_count
    log = subprocess.run(["git", "log", "--format=%s"], cwd=git_repo, capture_output=True, text=True, check=True)
    assert log.stdout.splitlines() == ["add the notes", "first"]
    # Both servers gone: none configured, and the repository removed. Replay serves the recorded results.
    subprocess.run(["rm", "-rf", str(git_repo)], check=True)
    report = replay(db, plugins=mcp.plugins())
    assert report.ok, report.mismatch
    assert report.ticks == ticks


def test_a_configured_server_that_is_gone_leaves_its_tools_replayable_and_failing_in_one_line(
    tmp_path: Path, mcp: Any
) -> None:
    pytest.importorskip("mcp_server_time", reason="pip install mcp-server-time (agi-plugin-mcp[test])")
    db = tmp_path / "agent.db"
    with mcp.open_agent(db, {"time": mcp.module_server("mcp_server_time")}) as kernel:
        kernel.tick("/time.get_current_time UTC")
    gone = {"time": mcp.module_server("no_such_module_for_mcp")}
    with mcp.open_agent(db, gone, timeout_s=30) as kernel:
        assert kernel.tools["time.get_current_time"].effect == "read"  # from the last listing
        parameters = list(kernel.tools["time.convert_time"].definition.parameters)
        assert parameters == ["source_timezone", "time", "target_timezone"]  # in order: /tool fills them so
        reply = kernel.tick("/time.get_current_time UTC").final_output
        assert reply == (
            "time.get_current_time failed: time.get_current_time: mcp server 'time' is not connected "
            "(not configured, or it failed to start); configure it in the mcp setting servers and restart the agent"
        )
        assert kernel.tick("2+2").final_output == "2+2 = 4"  # the agent goes on
    assert replay(db, plugins=mcp.plugins()).ok


def test_an_agent_moved_or_exported_and_imported_replays_its_mcp_ticks_and_replay_starts_no_server(
    tmp_path: Path, mcp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, starts = tmp_path / "agent.db", tmp_path / "starts.txt"
    with mcp.open_agent(db, {"fault": mcp.fault_server(env={"FAULT_STARTS": str(starts)})}) as kernel:
        assert kernel.tick("/fault.echo hello").final_output == 'fault.echo: {"text":"hello"}'
    assert starts.read_text() == "start\n"
    # Moved without its <db>.state folder (the database and its key only): the listing moved with it.
    moved = tmp_path / "moved"
    moved.mkdir()
    for name in ("agent.db", "agent.db.key"):
        (moved / name).write_bytes((tmp_path / name).read_bytes())
    report = replay(moved / "agent.db", plugins=mcp.plugins())
    assert report.ok, report.mismatch
    assert report.ticks == 1
    # Exported and imported: the listing is in the export.
    exported = mcp.agi(db, "export")
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "agent.json").write_text(exported.stdout)
    imported = tmp_path / "imported.db"
    done = mcp.agi(imported, "import", "--key-file", str(db) + ".key", str(tmp_path / "agent.json"))
    assert done.returncode == 0, done.stderr
    replayed = mcp.agi(imported, "replay")
    assert (replayed.returncode, replayed.stdout.strip()) == (0, "replay equal: 1 ticks (1..1), 16 fields each")
    # A server configured now that has no listing kept is not started by replay.
    other = {"other": mcp.fault_server(env={"FAULT_STARTS": str(starts)})}
    monkeypatch.setenv("AGI_PLUGIN_MCP_SERVERS", json.dumps(other))
    assert replay(moved / "agent.db", plugins=mcp.plugins()).ok
    assert starts.read_text() == "start\n"
