"""Replay proves a run identical; tampering and non-determinism are caught at the right tick."""

from __future__ import annotations

import json
import random

import orjson
import pytest
from click.testing import CliRunner

from agi_core import journal
from agi_core.cli.main import make_cli
from agi_core.errors import ValidationError
from agi_core.hookspecs import hookimpl
from agi_core.reasoning import AgentReply
from agi_core.replay import replay, replay_records
from agi_core.testing import builtin_plugins, open_kernel

MIXED = [
    "12 + 30",
    "my favorite color is blue",
    "what is my favorite color?",
    "the capital of France is Paris",
    "what is the capital of France?",
    "tell me a joke",
    "7 ^ 3",
    "/clock",
    "/file_list",
    "what is my name?",
    "/file_write x.txt hi",
    "my favourite food is ramen",
]


def _record(path, ticks, *extra, seed="r"):
    with open_kernel(path, *extra, seed=seed) as kernel:
        for i in range(ticks):
            kernel.tick(MIXED[i % len(MIXED)])
        kernel.put_fact("world/entity/moon/distance_km", 384400)


def test_a_thousand_mixed_ticks_replay_equal(tmp_path):
    _record(tmp_path / "a.db", 1000)
    report = replay(tmp_path / "a.db", seed="r", plugins=builtin_plugins())
    assert report.ok and report.ticks == 1001
    assert report.summary() == "replay equal: 1001 ticks (1..1001), 16 fields each"


def test_an_edited_journal_value_is_named_by_replay_and_verify(tmp_path):
    db = tmp_path / "a.db"
    _record(db, 30)
    with open_kernel(db, seed="r") as kernel:
        kernel.store.conn.execute(
            "UPDATE journal SET record = replace(record, 'Your favorite color is blue.', "
            "'Your favorite color is red.') WHERE tick = 15"
        )
        assert str(journal.verify(kernel.store, kernel.journal_key)) == (
            "JOURNAL_BROKEN tick=15: chain mismatch: the record was edited, or one before it was"
        )
    with pytest.raises(ValidationError, match=r"does not verify \(JOURNAL_BROKEN tick=15: chain mismatch"):
        replay(db, seed="r", plugins=builtin_plugins())  # an edited journal proves nothing: refused
    with open_kernel(db, seed="r") as kernel:  # fed the records directly, the comparison names the field
        records = [text for _tick, _id, text, _chain in kernel.store.journal_rows()]
    report = replay_records(records, seed="r", plugins=builtin_plugins())
    assert (report.mismatch.tick, report.mismatch.field) == (15, "agent_outputs")
    assert '-  "profile_agent": "Your favorite color is red."' in report.mismatch.diff()


def test_verify_names_a_deleted_and_a_reordered_record(tmp_path):
    db = tmp_path / "a.db"
    _record(db, 10)
    with open_kernel(db, seed="r") as kernel:
        conn = kernel.store.conn
        rows = {tick: (record, chain) for tick, _id, record, chain in kernel.store.journal_rows()}
        conn.execute("UPDATE journal SET record = ?, chain = ? WHERE tick = 4", rows[5])
        conn.execute("UPDATE journal SET record = ?, chain = ? WHERE tick = 5", rows[4])
        assert journal.verify(kernel.store, kernel.journal_key).tick == 4
        conn.execute("UPDATE journal SET record = ?, chain = ? WHERE tick = 4", rows[4])
        conn.execute("UPDATE journal SET record = ?, chain = ? WHERE tick = 5", rows[5])
        conn.execute("DELETE FROM journal WHERE tick = 7")
        assert str(journal.verify(kernel.store, kernel.journal_key)) == (
            "JOURNAL_BROKEN tick=7: record of tick 7 is missing (next stored is 8)"
        )


class _DiceAgent:
    """Deliberately non-deterministic: reads global randomness."""

    name, rule, priority = "dice_agent", "matched_dice", 1

    def matches(self, text):
        return text == "roll"

    def handle(self, ctx):
        return AgentReply(f"you rolled {random.SystemRandom().randint(1, 10**12)}")


class _DicePlugin:
    @hookimpl
    def agi_register_router_agents(self, register):
        register(_DiceAgent())


def test_a_non_deterministic_plugin_is_caught_at_its_tick_and_field(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, _DicePlugin(), seed="r") as kernel:
        for text in ["1+1", "2+2", "3+3", "roll", "4+4"]:
            kernel.tick(text)
    report = replay(db, seed="r", plugins=builtin_plugins(_DicePlugin()))
    assert report.mismatch.headline() == "REPLAY_MISMATCH tick=4 field=agent_outputs"


class _Asker:
    """A module that asks one contract a tick; which one is the version's choice (``asks``)."""

    name, priority = "asker", 50

    def __init__(self, asks: str) -> None:
        self.asks = asks

    def deliberate(self, ctx):
        ctx.contracts.call(self.asks, {"text": ctx.text})


def _asker_plugin(asks: str):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            register(_Asker(asks))

    return Plugin()


def test_a_journal_from_other_code_says_why_replay_stopped_not_a_diff(tmp_path):
    """A module of another version asks another contract: replay cannot serve it. The report showed that
    message as the journal's value ("--- expected (journal)" then the message, "+null") and said nothing
    of versions."""
    db = tmp_path / "a.db"
    with open_kernel(db, _asker_plugin("dialogue_state"), seed="r") as kernel:
        kernel.tick("hello there")
    report = replay(db, seed="r", plugins=builtin_plugins(_asker_plugin("intent_ingestion")))
    assert report.mismatch.headline() == "REPLAY_MISMATCH tick=1 field=externals"
    said = report.mismatch.diff()
    assert said.startswith("replay stopped: replay asked for contract 'intent_ingestion' but the journal")
    assert "another version of agi or of a plugin" in said and "expected (journal)" not in said


def test_replay_serves_tool_observations_and_never_reruns_tools(tmp_path):
    from agi_core.tools import ToolPolicy

    db = tmp_path / "a.db"
    with open_kernel(
        db, seed="r", policy=ToolPolicy(allow_tools=frozenset({"file_write"})), workspace=tmp_path / "ws"
    ) as kernel:
        kernel.tick("/file_write a.txt one")
        kernel.tick("/file_read a.txt")
    (tmp_path / "ws" / "a.txt").write_text("changed on disk since")
    report = replay(db, seed="r", plugins=builtin_plugins())
    assert report.ok and report.ticks == 3  # the write is two ticks: its intent, then its receipt


def test_cli_replay_exit_codes_and_output(tmp_path):
    db = tmp_path / "a.db"
    _record(db, 12)
    cli = make_cli()
    ok = CliRunner().invoke(cli, ["--db", str(db), "--seed", "r", "replay"])
    assert (ok.exit_code, ok.output) == (0, "replay equal: 13 ticks (1..13), 16 fields each\n")
    exported = CliRunner().invoke(cli, ["--db", str(db), "journal", "export", "-o", str(tmp_path / "j.jsonl")])
    assert exported.exit_code == 0
    edited = (tmp_path / "j.jsonl").read_text(encoding="utf-8").replace("12 + 30 = 42", "12 + 30 = 43")
    (tmp_path / "j.jsonl").write_text(edited, encoding="utf-8")
    bad = CliRunner().invoke(cli, ["--seed", "r", "replay", "--journal", str(tmp_path / "j.jsonl")])
    assert bad.exit_code == 1
    assert bad.output.splitlines()[0] == "REPLAY_MISMATCH tick=1 field=agent_outputs"
    assert '+  "math_agent": "12 + 30 = 42"' in bad.output
    with open_kernel(db, seed="r") as kernel:
        kernel.store.conn.execute("UPDATE journal SET record = replace(record, '12 + 30 = 42', '12 + 30 = 43')")
    refused = CliRunner().invoke(cli, ["--db", str(db), "--seed", "r", "replay"])
    assert refused.exit_code == 1
    assert "does not verify (JOURNAL_BROKEN tick=1: chain mismatch" in refused.output


def test_export_then_import_rebuilds_the_agent(tmp_path):
    db = tmp_path / "a.db"
    _record(db, 12)
    cli = make_cli()
    exported = CliRunner().invoke(
        cli, ["--db", str(db), "--seed", "r", "journal", "export", "-o", str(tmp_path / "j.jsonl")]
    )
    assert exported.exit_code == 0
    assert len((tmp_path / "j.jsonl").read_text().splitlines()) == 13
    key = ["--key-file", str(tmp_path / "a.db.key")]  # the exporting database's journal key
    imported = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "b.db"), "--seed", "r", "journal", "import", str(tmp_path / "j.jsonl"), *key]
    )
    assert imported.output == f"imported 13 ticks into {tmp_path / 'b.db'}\n"
    facts = CliRunner().invoke(cli, ["--db", str(tmp_path / "b.db"), "--seed", "r", "memory", "facts", "--json"])
    assert [f["key"] for f in json.loads(facts.output)] == [
        "user/person/self/favorite_color",
        "user/person/self/favorite_food",
        "world/entity/france/capital",
        "world/entity/moon/distance_km",
    ]
    from_file = CliRunner().invoke(cli, ["--seed", "r", "replay", "--journal", str(tmp_path / "j.jsonl")])
    assert from_file.output == "replay equal: 13 ticks (1..13), 16 fields each\n"


def test_replay_with_the_wrong_seed_is_one_line(tmp_path):
    _record(tmp_path / "a.db", 3)
    result = CliRunner().invoke(make_cli(), ["--db", str(tmp_path / "a.db"), "--seed", "other", "replay"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {tmp_path / 'a.db'} was created with seed 'r', not 'other'; "
        "leave out --seed (a database keeps the seed it was created with)\n"
    )


FAIL_FACTS = "CREATE TRIGGER fail_facts BEFORE INSERT ON facts BEGIN SELECT RAISE(ABORT, 'disk is full'); END"


def _record_a_failed_fact_write(db):
    """Four ticks; the second's fact write fails in the backend (a real SQLite error), so it replies F5."""
    from agi_core.replies import F5_SEM_WRITE_FAILURE

    with open_kernel(db, seed="r") as kernel:
        kernel.tick("1+1")
        kernel.store.conn.execute(FAIL_FACTS)
        assert kernel.tick("my favorite color is red").final_output == F5_SEM_WRITE_FAILURE
        kernel.store.conn.execute("DROP TRIGGER fail_facts")
        kernel.tick("my favorite color is blue")
        assert kernel.tick("what is my favorite color?").final_output == "Your favorite color is blue."


def test_a_tick_whose_fact_write_failed_replays_equal(tmp_path):
    """The backend's failure came from outside the tick: replay serves it back (F5 again, nothing
    written), although the scratch database it replays into would have stored the fact."""
    db = tmp_path / "a.db"
    _record_a_failed_fact_write(db)
    result = CliRunner().invoke(make_cli(), ["--db", str(db), "--seed", "r", "replay"])
    assert (result.exit_code, result.output) == (0, "replay equal: 4 ticks (1..4), 16 fields each\n")


def test_an_f5_tick_journaled_without_its_recorded_failure_replays_equal(tmp_path):
    """Journals written before the failure was recorded as an external: replay takes it from sem_writes."""
    from agi_core.replay import replay_records

    db = tmp_path / "a.db"
    _record_a_failed_fact_write(db)
    with open_kernel(db, seed="r") as kernel:
        records = [json.loads(text) for _tick, _id, text, _chain in kernel.store.journal_rows()]
    failed = records[1]["externals"].pop("sem_write_failure")
    assert failed == [{"write": 0, "key": "user/person/self/favorite_color", "error": "disk is full"}]
    report = replay_records(records, seed="r", plugins=builtin_plugins())
    assert report.ok, report.mismatch and report.mismatch.diff()
    assert report.ticks == 4


def test_the_input_is_journaled_once_and_journals_that_held_it_twice_replay_equal(tmp_path):
    # A maintenance tick with no work journaled its input twice (the record's input and externals.input):
    # 1,931 bytes a record, one 4 KB page of the journal each; 1,860 now, two records a page.
    with open_kernel(tmp_path / "a.db") as kernel:
        kernel.tick("my favorite color is red", speaker="alice")
        kernel.maintain()
        kernel.command("put_fact", {"key": "user/person/self/city", "value": "Lyon"})
        records = [orjson.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert [sorted(r["externals"]) for r in records] == [
        ["speaker_entity"],
        ["command", "turn_skipped"],
        ["command", "turn_skipped"],
    ]
    assert records[0]["input"]["speaker"] == "alice"
    assert replay(tmp_path / "a.db", plugins=builtin_plugins()).ok
    # the journal as older versions wrote it: replay still serves externals.input first
    older = [{**r, "externals": {"input": r["input"], **r["externals"]}} for r in records]
    report = replay_records([json.dumps(r) for r in older], seed="test", plugins=builtin_plugins())
    assert (report.ok, report.ticks) == (True, 3)
