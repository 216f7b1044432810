"""Cognitive modules' own state on PostgreSQL (the ``module_state`` table of the agent's schema), real server.

The module is tests/modules/notebook_plugin.py: it counts inputs, remembers the last reply and
tidies up when maintained, all in its own state.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import psycopg

from agi_core import checkpoints
from agi_core.integrity import verify_agent
from agi_core.kernel import Kernel
from agi_core.modules.state import dump_state
from agi_core.plugins import Plugins
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT
from agi_core.serialization import dumps
from agi_core.testing import installed_plugin

NOTEBOOK = Path(__file__).resolve().parents[3] / "tests" / "modules" / "notebook_plugin.py"


def notebook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("notebook_plugin", NOTEBOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_module_state_survives_checkpoint_more_ticks_rollback_and_replays_equal(agent_url, postgres_dsn):
    url, plugin = agent_url("notes"), notebook()

    def plugins() -> Plugins:
        return Plugins.builtins("agi_plugin_postgres.plugin", plugin)

    with Kernel.open(url, seed="test", plugins=plugins()) as kernel:
        for line in ("hello", "notebook?", "2 + 3"):
            kernel.tick(line)
        checkpoints.create(kernel, "three")
        kernel.tick("more")
        kernel.maintain()
        assert dump_state(kernel.store, "notebook") == {"seen": 4, "last": F3_NO_AGENT[:40], "tidied": 1}
        last_bytes = len(dumps(F3_NO_AGENT[:40]).encode("utf-8"))  # sizes count the UTF-8 bytes of canonical JSON
        assert kernel.store.module_state_sizes() == {"notebook": (3, len("4") + last_bytes + len("1"))}
        checkpoints.rollback(kernel, "three")
        assert dump_state(kernel.store, "notebook") == {"seen": 3, "last": "2 + 3 = 5"}
        assert kernel.tick("notebook?").final_output == "I have seen 4 inputs."
        kernel.maintain()
        schema = kernel.store.s
    report = replay(url, plugins=plugins())
    assert (report.ok, report.ticks, report.mismatch) == (True, 5, None)
    with Kernel.open(url, plugins=plugins()) as kernel:
        assert verify_agent(kernel.store, kernel.journal_key).problems() == []
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # an edit no tick made
            conn.execute(f"UPDATE {schema}.module_state SET value = '99' WHERE key = 'seen'")
        assert verify_agent(kernel.store, kernel.journal_key).problems() == [
            "STATE_CHANGED module_state key 'notebook/seen': changed outside the journal"
        ]


def test_a_checkpoint_taken_before_module_state_existed_rolls_back_to_none(agent_url):
    """A snapshot schema made by an older plugin has no module_state table: rollback empties the live one."""
    url, plugin = agent_url("old_ck"), notebook()
    with Kernel.open(url, seed="test", plugins=Plugins.builtins("agi_plugin_postgres.plugin")) as kernel:
        kernel.tick("hello")  # no module yet: no state
        snapshot = checkpoints.create(kernel, "before").file
        with kernel.store.pool.connection() as conn:
            conn.execute(f"DROP TABLE {snapshot}.module_state")
    with Kernel.open(url, plugins=Plugins.builtins("agi_plugin_postgres.plugin", plugin)) as kernel:
        kernel.tick("hello again")
        assert dump_state(kernel.store, "notebook") == {"seen": 1, "last": F3_NO_AGENT[:40]}
        assert checkpoints.rollback(kernel, "before").tick == 1
        assert dump_state(kernel.store, "notebook") == {}
        assert verify_agent(kernel.store, kernel.journal_key).ok


def test_agi_modules_show_on_the_url_and_export_import_through_sqlite(agent_url, child_env, tmp_path):
    installed_plugin(tmp_path / "site", "notebook", NOTEBOOK.read_text(encoding="utf-8"))  # an entry-point plugin
    path = os.pathsep.join([str(tmp_path / "site"), child_env["PYTHONPATH"]])
    env = {**child_env, "PYTHONPATH": path, "AGI_LOAD_PLUGINS": "postgres,notebook"}

    def agi(db: str, *args: str, stdin: str = "") -> str:
        done = subprocess.run(
            [sys.executable, "-m", "agi_core", "--db", db, *args],
            input=stdin,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    pg, back = agent_url("shown"), str(tmp_path / "back.db")
    assert agi(pg, "run", stdin="hello\nnotebook?\n").splitlines()[-1] == "I have seen 2 inputs."
    assert json.loads(agi(pg, "modules", "show", "notebook", "--json")) == {"seen": 2, "last": "I have seen 2 inputs."}
    size = len("2") + len(json.dumps("I have seen 2 inputs."))
    assert agi(pg, "modules").splitlines()[-1].endswith(f"state=2 keys, {size} bytes")
    agi(pg, "checkpoint", "create", "two")
    agi(pg, "run", stdin="more\n")
    assert json.loads(agi(pg, "modules", "show", "notebook", "--json"))["seen"] == 3
    agi(pg, "rollback", "two")
    assert agi(pg, "modules", "show", "notebook") == 'last = "I have seen 2 inputs."\nseen = 2\n'
    assert agi(pg, "replay").startswith("replay equal: 2 ticks (1..2)")
    assert "state OK: every row matches the seal at tick 2" in agi(pg, "journal", "verify")
    # PostgreSQL -> SQLite -> identical rows, the module state included
    agi(pg, "export", "-o", str(tmp_path / "pg.jsonl"))
    key = tmp_path / (pg.split("agent=")[1].split("&")[0] + ".key")
    agi(back, "import", str(tmp_path / "pg.jsonl"), "--key-file", str(key))
    agi(back, "export", "-o", str(tmp_path / "back.jsonl"))
    lines = {name: (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() for name in ("pg", "back")}
    assert lines["pg"][1:] == lines["back"][1:]
    start = lines["pg"].index('{"table":"module_state","columns":["module","key","value","tick"],"rows":2}')
    rows = [json.loads(line)[:-1] for line in lines["pg"][start + 1 : start + 3]]  # each row's MAC comes last
    assert rows == [["notebook", "last", '"I have seen 2 inputs."', 2], ["notebook", "seen", "2", 2]]
    assert agi(back, "run", stdin="notebook?\n") == "I have seen 3 inputs.\n"
