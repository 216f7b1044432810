"""Issue 10: ``agi chat``'s slash commands (CliRunner, exact output) and its readline history (a real pty)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from agi_core.cli.chat import HELP, NO_GOALS, history_path
from agi_core.cli.main import make_cli


def _chat(tmp_path, lines):
    result = CliRunner().invoke(
        make_cli(), ["--db", str(tmp_path / "a.db"), "chat"], input="".join(line + "\n" for line in lines)
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_help_lists_the_slash_commands_and_phrasings(tmp_path):
    output = _chat(tmp_path, ["/help", "exit"])
    banner = f"agi chat ({tmp_path / 'a.db'}, seed 0); /help lists the commands, 'exit' quits."
    assert output == f"{banner}\nyou> /help\n{HELP}\nyou> exit\n"
    for command in ("/help", "/facts", "/goals", "/why", "/clock", "what do you remember?", "read file notes.txt"):
        assert command in HELP


def test_slash_commands_before_any_tick(tmp_path):
    output = _chat(tmp_path, ["/facts", "/goals", "/why", "exit"])
    assert output.splitlines()[1:] == [
        "you> /facts",
        "no facts stored yet; tell me one, e.g. 'my favorite color is green'",
        "you> /goals",
        NO_GOALS,
        "you> /why",
        "no tick yet; say something first",
        "you> exit",
    ]


def test_facts_goals_and_why_after_ticks(tmp_path):
    output = _chat(
        tmp_path,
        [
            "the capital of France is Paris",
            "my name is Ada",
            "what is the capital of France?",
            "/facts",
            "/goals",
            "/why",
            "exit",
        ],
    )
    assert output.splitlines()[7:] == [
        "you> /facts",
        'user/person/self/name = "Ada"',
        'world/entity/france/capital = "Paris"',
        "you> /goals",
        NO_GOALS,
        "you> /why",
        'tick 3: "what is the capital of France?"',
        "router: knowledge_agent (matched_R3_knowledge)",
        "selected agents: knowledge_agent",
        'evidence: ev-80b723c1150c: sem_read world/entity/france/capital = "Paris"',
        "council: evidence_check approve (every claim cites a SEM read); "
        "value_check approve (claimed values equal the SEM values)",
        "action: reply",
        "reply: The capital of France is Paris.",
        "you> exit",
    ]


def test_slash_views_run_no_tick(tmp_path):
    _chat(tmp_path, ["2+2", "/help", "/facts", "/goals", "/why", "exit"])
    output = _chat(tmp_path, ["/why", "exit"])
    assert 'tick 1: "2+2"' in output


def test_why_shows_a_tool_call_and_clock_says_it_is_deterministic(tmp_path):
    output = _chat(tmp_path, ["/clock", "/why", "exit"])
    lines = output.splitlines()
    assert lines[2].startswith(
        'agent> clock: {"clock":"deterministic: derived from the seed and a counter, not the wall clock"'
    )
    assert lines[4:8] == [
        'tick 1: "/clock"',
        "router: tool_agent (matched_tool_command)",
        "selected agents: tool_agent",
        "evidence: none (no stored fact read)",
    ]
    assert lines[9] == "action: tool clock {}, which succeeded"


def _read_until(fd, wanted, timeout=60.0):
    seen, deadline = b"", time.monotonic() + timeout
    while wanted not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"no {wanted!r} within {timeout} s; got {seen[-300:]!r}")
        try:
            seen += os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
    return seen


def _chat_on_a_terminal(tmp_path, keys_and_waits):
    """``agi chat`` with a real pseudo-terminal as stdin/stdout (readline is on)."""
    controller, terminal = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(tmp_path / "a.db"), "chat"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "AGI_LOAD_PLUGINS": "", "TERM": "xterm", "INPUTRC": os.devnull},
        close_fds=True,
    )
    os.close(terminal)
    try:
        _read_until(controller, b"you> ")
        seen = b""
        for keys, wait in keys_and_waits:
            os.write(controller, keys)
            seen += _read_until(controller, wait)
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
        os.close(controller)
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_a_terminal_gets_readline_history_kept_beside_the_database(tmp_path):
    _chat_on_a_terminal(tmp_path, [(b"6 * 7\r", b"agent> 6 * 7 = 42"), (b"exit\r", b"exit")])
    history = history_path(tmp_path / "a.db")
    assert history.read_text(encoding="utf-8").splitlines()[-2:] == ["6 * 7", "exit"]
    assert history.stat().st_mode & 0o777 == 0o600
    # a new session: Ctrl-P twice recalls "6 * 7" from the file; Ctrl-A, Ctrl-K edit the line
    seen = _chat_on_a_terminal(
        tmp_path,
        [(b"\x10\x10\r", b"agent> 6 * 7 = 42"), (b"2+2\x01\x0b1+1\r", b"agent> 1+1 = 2"), (b"exit\r", b"exit")],
    )
    assert b"agent> 6 * 7 = 42" in seen and b"2+2 = 4" not in seen


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_confirmation_answers_stay_out_of_the_history(tmp_path):
    _chat_on_a_terminal(
        tmp_path,
        [(b"/file_write a.txt hi\r", b"[y/N]"), (b"y\r", b"agent> file_write:"), (b"exit\r", b"exit")],
    )
    lines = history_path(tmp_path / "a.db").read_text(encoding="utf-8").splitlines()
    assert lines[-2:] == ["/file_write a.txt hi", "exit"]
    assert (tmp_path / "workspace" / "a.txt").read_text(encoding="utf-8") == "hi"
