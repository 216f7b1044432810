"""Write/external tools follow intent → execute → receipt (agi_core.effects.intents).

The intent is committed before the side effect and the receipt after it; a kill between
the two leaves an intent that is reported and never silently run again.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from agi_core.errors import ToolError
from agi_core.model import ToolDefinition
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, installed_plugin, open_kernel, tools_plugin
from agi_core.tools import Tool, ToolPolicy

ALLOW_WRITES = ToolPolicy(allow_effects=frozenset({"read", "write", "external"}))


def _probe_plugin(db):
    """A write tool that looks at the database from a second connection while it runs."""

    def probe(context, args):
        with sqlite3.connect(db) as other:
            intents = [list(row) for row in other.execute("SELECT tick, tool, receipt_tick FROM intents")]
            ticks = [row[0] for row in other.execute("SELECT tick FROM journal ORDER BY tick")]
        return {"intents_seen": intents, "journal_seen": ticks}

    return tools_plugin("prober", Tool(ToolDefinition("probe", "Looks at the db.", {}, "write"), probe))


def test_the_intent_is_committed_before_the_side_effect_and_the_receipt_after(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, _probe_plugin(db), policy=ALLOW_WRITES) as kernel:
        receipt = kernel.tick("/probe")
        # while the tool ran, another connection already saw the intent and its tick, committed
        assert receipt.observation.payload == {
            "policy": "intent of tick 1",
            "intents_seen": [[1, "probe", None]],
            "journal_seen": [1],
        }
        assert (receipt.tick, receipt.router_decision.agent, receipt.input.source) == (2, "command:receipt", "event")
        intent = next(kernel.store.journal_rows())
        assert '"intent":"pending"' in intent[2]
        assert kernel.store.intents() == [(1, "probe", {}, 2)]
        assert kernel.pending_intents() == []


def _counting_plugin(calls, *, fail=False, idempotent=False, stamp=False, **order):
    def append(context, args):
        calls.append(dict(args))
        if fail:
            raise OSError("disk on fire")
        return {"appended": args["line"], **({"at": context.now()} if stamp else {})}

    params = {"line": "string", **({"key": "string"} if idempotent else {})}
    definition = ToolDefinition(
        "append_line", "Append a line.", params, "external", idempotency_key="key" if idempotent else None
    )
    return tools_plugin("appender", Tool(definition, append), **order)


def test_replay_serves_intent_and_receipt_and_never_runs_the_tool(tmp_path):
    """The tool reads the kernel's clock (a determinism draw) after the intent's commit: replay still equal."""
    db, calls = tmp_path / "a.db", []
    with open_kernel(db, _counting_plugin(calls, stamp=True), seed="r", policy=ALLOW_WRITES) as kernel:
        receipt = kernel.tick("/append_line one")
        assert receipt.final_output.startswith('append_line: {"appended":"one","at":"20')
        kernel.tick("2+2")
    assert calls == [{"line": "one"}]
    report = replay(db, seed="r", plugins=builtin_plugins(_counting_plugin(calls, stamp=True)))
    assert (report.ok, report.ticks) == (True, 3)
    assert calls == [{"line": "one"}]


def test_a_failing_write_tool_gets_a_failed_receipt_and_a_replan(tmp_path):
    calls = []
    with open_kernel(tmp_path / "a.db", _counting_plugin(calls, fail=True), policy=ALLOW_WRITES) as kernel:
        receipt = kernel.tick("/append_line one")
        error = "tool 'append_line' (plugin 'appender') raised OSError: disk on fire"
        assert (receipt.observation.success, receipt.observation.error) == (False, error)
        assert kernel.pending_intents() == []
        assert kernel.tick("1+1").plan.steps[0] == "replan:last_observation_failed"


def test_a_refused_write_records_no_intent(tmp_path):
    calls = []
    with open_kernel(tmp_path / "a.db", _counting_plugin(calls)) as kernel:
        record = kernel.tick("/append_line one")
        assert record.observation.error.startswith("refused: external tool 'append_line' needs an explicit policy")
        assert (record.tick, kernel.store.intents(), calls) == (1, [], [])


def test_the_kernel_fills_in_a_stable_idempotency_key(tmp_path):
    calls = []
    with open_kernel(tmp_path / "a.db", _counting_plugin(calls, idempotent=True), policy=ALLOW_WRITES) as kernel:
        kernel.tick("/append_line one")
        kernel.tick("/append_line one key=mine")
    assert calls[0]["key"].startswith("agi-") and len(calls[0]["key"]) == 36
    assert calls[1] == {"line": "one", "key": "mine"}


def test_an_idempotency_key_must_name_a_parameter(tmp_path):
    bad = Tool(ToolDefinition("send", "Send.", {"to": "string"}, "external", idempotency_key="msg_id"), lambda c, a: {})
    with open_kernel(tmp_path / "a.db", tools_plugin("mailer", bad)) as kernel:
        assert "send" not in kernel.tools
        assert kernel.plugins.failures[-1].cause == (
            "ToolError: tool 'send' names idempotency_key 'msg_id', which is not one of its parameters; declare it"
        )


# -- a real kill between the intent's commit and the receipt ---------------------------
SLOW_WRITER = """
import os
import time
from agi_core import Tool, ToolDefinition, hookimpl


def _append(context, args):
    context.workspace.mkdir(parents=True, exist_ok=True)
    with open(context.workspace / "effects.log", "a") as log:
        log.write(args["line"] + " " + args.get("key", "-") + "\\n")
        log.flush()
        os.fsync(log.fileno())
    time.sleep(float(os.environ.get("SLOW_WRITER_SLEEP", "0")))
    return {"appended": args["line"]}


@hookimpl
def agi_register_actuators(register):
    register(Tool(ToolDefinition("append_line", "Append a line.", {"line": "string"}, "write"), _append))
    register(
        Tool(
            ToolDefinition(
                "append_keyed", "Append a line once per key.", {"line": "string", "key": "string"}, "write",
                idempotency_key="key",
            ),
            _append,
        )
    )
"""


def _agi(env, db, *args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _written(log):
    """True once the tool's line is in the log (the file exists a moment before its line does)."""
    return log.exists() and log.read_text().endswith("\n")


def _kill_during(env, db, tool, log):
    """Start ``agi run``, SIGKILL it once ``tool`` has written its line (it then sleeps)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--allow-tool", tool, "--timeout", "300"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**env, "SLOW_WRITER_SLEEP": "60"},
    )
    proc.stdin.write(f"2+2\n/{tool} hello\n3+3\n")
    proc.stdin.close()
    deadline = time.monotonic() + 60
    while not _written(log) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL and _written(log)


def test_sigkill_between_intent_and_receipt_is_reported_and_never_rerun(tmp_path):
    env = installed_plugin(tmp_path / "site", "slow_writer", SLOW_WRITER)
    db, log = tmp_path / "a.db", tmp_path / "workspace" / "effects.log"
    _kill_during(env, db, "append_line", log)
    assert log.read_text() == "hello -\n"

    listed = _agi(env, db, "intents")
    assert (listed.returncode, listed.stdout) == (0, 'tick 2: append_line {"line":"hello"}\n')
    later = _agi(env, db, "run", "--allow-tool", "append_line", stdin="4+4\n")
    assert later.returncode == 0 and later.stdout == "4+4 = 8\n"
    assert later.stderr == (
        "agi: warning: 1 write/external call(s) without a receipt (intent at tick 2); "
        "they may or may not have taken effect and are not re-run; see agi intents\n"
    )
    assert log.read_text() == "hello -\n"  # not run again
    verified = _agi(env, db, "journal", "verify")
    assert (verified.returncode, verified.stdout.splitlines()[0]) == (0, "journal OK: 3 records, chain intact")
    assert _agi(env, db, "replay").stdout == "replay equal: 3 ticks (1..3), 16 fields each\n"

    retried = _agi(env, db, "intents", "--retry", "2")
    assert (retried.returncode, retried.stderr) == (
        1,
        "Error: tool 'append_line' declares no idempotency_key, so the intent of tick 2 may already have taken "
        "effect; check by hand, then close it with agi intents --abandon 2\n",
    )
    abandoned = _agi(env, db, "intents", "--abandon", "2")
    assert abandoned.stdout == (
        "append_line failed: abandoned: the intent of tick 2 was never confirmed; its effect is unknown\n"
    )
    assert _agi(env, db, "intents").stdout == "no pending intents\n"
    assert _agi(env, db, "replay").stdout == "replay equal: 4 ticks (1..4), 16 fields each\n"
    assert log.read_text() == "hello -\n"


def test_an_intent_running_in_another_process_is_not_reported_as_orphaned(tmp_path):
    env = installed_plugin(tmp_path / "site", "slow_writer", SLOW_WRITER)
    db, log = tmp_path / "a.db", tmp_path / "workspace" / "effects.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "run", "--allow-tool", "append_line", "--timeout", "300"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**env, "SLOW_WRITER_SLEEP": "60"},
    )
    try:
        proc.stdin.write("/append_line hello\n")
        proc.stdin.close()
        deadline = time.monotonic() + 60
        while not _written(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _written(log)  # the tool runs now, in the other process, after its intent committed
        other = _agi(env, db, "run", stdin="4+4\n")
        assert (other.returncode, other.stdout, other.stderr) == (0, "4+4 = 8\n", "")
        listed = _agi(env, db, "intents")
        assert listed.stdout == 'tick 1: append_line {"line":"hello"} (running in another process)\n'
        refused = _agi(env, db, "intents", "--abandon", "1")
        assert (refused.returncode, refused.stderr) == (
            1,
            "Error: the intent of tick 1 is running in another process; wait for its receipt\n",
        )
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    orphaned = _agi(env, db, "run", stdin="5+5\n")  # its process is gone: now it is reported
    assert orphaned.stderr.startswith("agi: warning: 1 write/external call(s) without a receipt (intent at tick 1)")
    assert _agi(env, db, "intents").stdout == 'tick 1: append_line {"line":"hello"}\n'


def test_an_idempotent_intent_can_be_retried_with_the_same_key(tmp_path):
    env = installed_plugin(tmp_path / "site", "slow_writer", SLOW_WRITER)
    db, log = tmp_path / "a.db", tmp_path / "workspace" / "effects.log"
    _kill_during(env, db, "append_keyed", log)
    (first,) = log.read_text().splitlines()
    retried = _agi(env, db, "intents", "--retry", "2")
    assert (retried.returncode, retried.stdout) == (0, 'append_keyed: {"appended":"hello"}\n')
    assert log.read_text().splitlines() == [first, first]  # same line, same key: the tool can deduplicate
    assert first.startswith("hello agi-")
    assert _agi(env, db, "intents", "--json").stdout == "[]\n"
    assert _agi(env, db, "journal", "verify").returncode == 0
    assert _agi(env, db, "replay").stdout == "replay equal: 3 ticks (1..3), 16 fields each\n"


def test_retry_and_abandon_refuse_an_unknown_intent(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        for close in (kernel.retry_intent, kernel.abandon_intent):
            with pytest.raises(ToolError, match=r"^no pending intent at tick 7; list them with agi intents$"):
                close(7)
