"""An input says who said it where: speaker, channel, conversation and metadata, journaled and replayed."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from agi_core.cli.main import make_cli
from agi_core.errors import ValidationError
from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule, ModuleContext
from agi_core.replay import replay, replay_records
from agi_core.testing import builtin_plugins, open_kernel


class WhoSaid(CognitiveModule):
    name = "who_said"

    def perceive(self, ctx: ModuleContext) -> dict:
        seen = ctx.input
        return {"speaker": seen.speaker, "channel": seen.channel, "thread": seen.conversation, "meta": seen.metadata}


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(WhoSaid())


def test_speaker_channel_conversation_and_metadata_are_journaled_seen_by_modules_and_replayed(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as kernel:
        plain = kernel.tick("2 + 3")
        labelled = kernel.tick("hello", speaker="Ada", channel="room-1", conversation="t-7", metadata={"lang": "en"})
        rows = [json.loads(text) for _t, _i, text, _c in kernel.store.journal_rows()]
    assert "speaker" not in rows[0]["input"]  # unset labels leave the record as it was
    assert rows[1]["input"] == {
        "raw": "hello",
        "normalized": "hello",
        "source": "user",
        "speaker": "Ada",
        "channel": "room-1",
        "conversation": "t-7",
        "metadata": {"lang": "en"},
    }
    assert plain.modules["calls"][0]["output"] == {"speaker": None, "channel": None, "thread": None, "meta": {}}
    assert labelled.modules["calls"][0]["output"] == {
        "speaker": "Ada",
        "channel": "room-1",
        "thread": "t-7",
        "meta": {"lang": "en"},
    }
    assert replay(db, plugins=builtin_plugins(Plugin())).ok
    # replay serves the journaled labels: a module reading another speaker would differ
    texts = [
        json.dumps({**row, "input": {**row["input"], "speaker": "Bob"}}) if row["tick"] == 2 else json.dumps(row)
        for row in rows
    ]
    report = replay_records(texts, seed="test", plugins=builtin_plugins(Plugin()))
    assert (report.ok, report.mismatch.field) == (False, "modules")


def test_a_bad_label_is_one_line_and_runs_no_tick(tmp_path):
    with open_kernel(tmp_path / "a.db") as kernel:
        with pytest.raises(ValidationError, match="input speaker '' refused; use a non-empty text"):
            kernel.tick("hi", speaker="")
        with pytest.raises(ValidationError, match="input metadata is not JSON"):
            kernel.tick("hi", metadata={"x": object()})
        assert kernel.tick_count == 0


def test_agi_run_and_chat_speaker_name_the_speaker_of_every_line(tmp_path):
    db = tmp_path / "a.db"
    runner = CliRunner()
    result = runner.invoke(make_cli(), ["--db", str(db), "run", "--speaker", "Ada"], input="2 + 3\n")
    assert (result.exit_code, result.output) == (0, "2 + 3 = 5\n")
    result = runner.invoke(make_cli(), ["--db", str(db), "chat", "--speaker", "Bob"], input="2 + 2\nexit\n")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as conn:
        inputs = [json.loads(text)["input"] for (text,) in conn.execute("SELECT record FROM journal ORDER BY tick")]
    assert [(i["raw"], i["speaker"]) for i in inputs] == [("2 + 3", "Ada"), ("2 + 2", "Bob")]
    result = runner.invoke(make_cli(), ["--db", str(db), "run", "--speaker", "x" * 201], input="2 + 3\n")
    assert result.exit_code != 0 and "input speaker" in result.output and "Traceback" not in result.output
