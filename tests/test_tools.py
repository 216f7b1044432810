"""Tool effects and policy (rule 5), workspace confinement."""

from __future__ import annotations

import pytest

from agi_core.testing import open_kernel
from agi_core.tools import ToolPolicy


def test_write_tool_is_refused_without_policy_and_never_runs(agi_kernel, tmp_path):
    record = agi_kernel.tick("/file_write out.txt data")
    assert record.observation.success is False
    assert record.observation.payload["refused"] is True
    assert record.externals["tool_observation"][0]["error"].startswith(
        "refused: write tool 'file_write' needs an explicit policy"
    )
    assert not (tmp_path / "workspace" / "out.txt").exists()


def test_write_tool_runs_when_allowed_by_name(tmp_path):
    with open_kernel(
        tmp_path / "a.db", policy=ToolPolicy(allow_tools=frozenset({"file_write"})), workspace=tmp_path / "ws"
    ) as kernel:
        record = kernel.tick("/file_write out.txt data")
        assert record.observation.success and (tmp_path / "ws" / "out.txt").read_text() == "data"
        assert kernel.tick("/file_read out.txt").observation.payload["text"] == "data"
        assert kernel.tick("/file_list").observation.payload["entries"] == ["out.txt"]


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "a/../../x", "link/passwd"])
def test_path_traversal_is_refused(tmp_path, path):
    (tmp_path / "secret.txt").write_text("s")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link").symlink_to("/etc")
    with open_kernel(tmp_path / "a.db", workspace=tmp_path / "ws") as kernel:
        record = kernel.tick(f"/file_read {path}")
    assert record.observation.success is False
    assert "workspace" in record.observation.error


def test_unknown_argument_and_unknown_tool(agi_kernel):
    record = agi_kernel.tick("/clock zone=utc")
    assert record.final_output == "clock failed: tool 'clock' has no parameter 'zone'; its parameters are: none"
    assert agi_kernel.tick("/launch_rockets").final_output.startswith("There is no tool named 'launch_rockets'")


def test_failed_observation_triggers_a_replan_marker_next_tick(agi_kernel):
    agi_kernel.tick("/file_read missing.txt")
    assert agi_kernel.tick("1+1").plan.steps[0] == "replan:last_observation_failed"
    assert agi_kernel.tick("1+1").plan.steps == ["route:math_agent", "response:respond"]
