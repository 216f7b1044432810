"""Replay reads the journal one record at a time: its memory does not grow with the journal."""

from __future__ import annotations

import tracemalloc

import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel

TICKS = 700
LINE = "lorem ipsum dolor sit amet " * 110  # 2,970 characters: below the blob threshold, kept in the record


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    db = tmp_path_factory.mktemp("memory") / "a.db"
    with open_kernel(db, seed="mem") as kernel:
        for i in range(TICKS):
            kernel.tick(f"note {i}: {LINE}")
        size = sum(len(text) for _t, _i, text, _c in kernel.store.journal_rows())
    assert size > 5_000_000
    return db, size


def _peak(run):
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_replaying_a_database_holds_one_record_at_a_time(agent):
    """It read every record's text into one list first (the journal's size and more: 19 MB here)."""
    db, size = agent
    report, peak = _peak(lambda: replay(db, seed="mem", plugins=builtin_plugins()))
    assert report.ok and report.ticks == TICKS
    assert peak < size / 4, f"peak {peak:,} bytes for a journal of {size:,} characters"


def test_replaying_an_exported_journal_holds_one_record_at_a_time(agent, tmp_path, monkeypatch):
    """It read the file's rows, then every record as data, into lists first."""
    db, size = agent
    monkeypatch.setenv("AGI_LOAD_PLUGINS", "")
    cli, exported = make_cli(), tmp_path / "journal.jsonl"
    exporting = ["--db", str(db), "journal", "export", "--jsonl", "-o", str(exported)]
    assert CliRunner().invoke(cli, exporting).exit_code == 0
    args = ["--db", str(tmp_path / "other.db"), "--seed", "mem", "replay", "--journal", str(exported)]
    result, peak = _peak(lambda: CliRunner().invoke(cli, args))
    assert (result.exit_code, result.output) == (0, f"replay equal: {TICKS} ticks (1..{TICKS}), 16 fields each\n")
    assert peak < size / 4, f"peak {peak:,} bytes for a journal of {size:,} characters"


def test_a_malformed_line_is_refused_before_any_tick_replays(tmp_path, monkeypatch):
    """As when the file was read whole first: the line is named, not the mismatch of an earlier tick."""
    monkeypatch.setenv("AGI_LOAD_PLUGINS", "")
    cli, db, exported = make_cli(), tmp_path / "a.db", tmp_path / "journal.jsonl"
    CliRunner().invoke(cli, ["--db", str(db), "run"], input="2+2\n3+3\n")
    CliRunner().invoke(cli, ["--db", str(db), "journal", "export", "--jsonl", "-o", str(exported)])
    lines = exported.read_text(encoding="utf-8").splitlines()
    edited = lines[0].replace('"final_output":"2+2 = 4"', '"final_output":"2+2 = 5"')
    assert edited != lines[0]
    exported.write_text("\n".join([edited, lines[1], "not json"]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "b.db"), "replay", "--journal", str(exported)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {exported}:3 is not an exported journal line (")


def test_the_scratch_agent_a_replay_deletes_is_not_sealed(tmp_path, monkeypatch):
    """Its close sealed every row the replay wrote (20,000 ticks: 10 MB more, only for the file to be deleted)."""
    from agi_core.memory.sqlite_store import SqliteStore

    with open_kernel(tmp_path / "a.db", seed="mem") as kernel:
        kernel.tick("2+2")
    sealed = []
    real = SqliteStore.seal
    at = lambda store: (store.path.name, int(store.meta_get("tick", "0") or 0))  # noqa: E731
    monkeypatch.setattr(SqliteStore, "seal", lambda self, key: sealed.append(at(self)) or real(self, key))
    assert replay(tmp_path / "a.db", seed="mem", plugins=builtin_plugins()).ok
    assert sealed == [("replay.db", 0)]  # the new scratch database's first seal, when it opens, only
    with open_kernel(tmp_path / "a.db", seed="mem") as kernel:
        kernel.tick("3+3")
    assert sealed[1:] == [("a.db", 2)]  # the agent's own kernel still seals at close
