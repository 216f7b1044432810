"""The stored form of journal records (agi_core.journal_form): idle ticks repeat less, and journals written
before in the older form still verify and replay equal."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import orjson
from click.testing import CliRunner

from agi_core import Kernel, Plugins, journal, journal_form
from agi_core.cli.main import make_cli
from agi_core.hookspecs import hookimpl
from agi_core.journal_key import JournalKey
from agi_core.replay import compare, replay, replay_records
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.serialization import to_data

MODULES = ("autonomy", "beliefs", "learning", "retrieval", "self_improver", "social")
START_MS = 1_795_000_000_000
# written by agi-core at 0d8cf16 (before the stored form): 6 conversation ticks, then 2 minutes of idle follow
OLD = Path(__file__).parent / "fixtures" / "idle_follower_form1.jsonl"


def six_modules() -> Plugins:
    found = Plugins.builtins()
    for name in MODULES:
        found.add_module(importlib.import_module(f"agi_plugin_{name}.plugin"), name=name)
    return found


def idle_follower(db: Path, minutes: int = 2) -> list:
    """The journal's in-memory records (what each tick returned) of a conversation then idle follow."""
    sim = SimulatedClock(START_MS)
    with Kernel.open(db, seed="growth", plugins=six_modules(), clock=PinnedClock(sim)) as kernel:
        made = [kernel.tick("my goal is to learn French and visit Paris"), kernel.tick("the capital of Peru is Lima")]
        loop = Follow(kernel, clock_every_ms=30_000, maintain_every_ms=60_000, idle_sleep_s=1.0)
        end = sim.ms + minutes * 60_000
        made += list(loop.run(until=lambda: sim.ms >= end))
    return made


def stored(db: Path) -> list[dict]:
    """The records as stored, blob references resolved."""
    with Kernel.open(db, seed="growth", plugins=six_modules()) as kernel:
        return [kernel.store.load_json(text) for _t, _i, text, _c in kernel.store.journal_rows()]


def stored_texts(db: Path) -> list[str]:
    with Kernel.open(db, seed="growth", plugins=six_modules()) as kernel:
        return [text for _t, _i, text, _c in kernel.store.journal_rows()]


def without_modules(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "modules"}


def test_an_idle_tick_is_stored_without_what_it_repeats_and_expands_back_to_what_the_tick_returned(tmp_path):
    db = tmp_path / "a.db"
    made = idle_follower(db)
    records = stored(db)
    idle = [r for r in records if r["input"]["source"] in ("clock", "maintain")]
    assert {r["input"]["source"] for r in idle} == {"clock", "maintain"}
    texts = stored_texts(db)
    references = {orjson.loads(text)["brainstate_before"]["working"] for text in texts[2:]}
    assert len(references) == 1 and next(iter(references)).startswith("agi:blob:sha256:")  # stored once
    for record in idle:
        assert record["form"] == journal_form.FORM
        assert record["brainstate_before"]["working"].startswith("agi:json:")  # its blob's text
        assert "working" not in record["brainstate_after"] and "goal" not in record  # unchanged: the before's
        assert "plugins" not in record["modules"]  # each module's plugin has its name
        assert not any(journal_form.quiet(call) for call in record["modules"]["calls"])
    clock = next(r for r in idle if r["input"]["source"] == "clock")
    assert clock["modules"]["calls"] == []  # 13 calls live, none did anything
    maintain = next(r for r in idle if r["input"]["source"] == "maintain")
    assert {"contract": "learning_self_assessment", "errors": "no_provider", "source": "none"} in maintain["externals"][
        "contract_call"
    ]
    # everything but the quiet calls comes back as the tick made it (working memory, goal, contract errors)
    for returned, record in zip(made, records, strict=True):
        assert without_modules(journal_form.expand(record)) == without_modules(to_data(returned))
    full = to_data(made[-1])
    assert len(full["modules"]["calls"]) > len(records[-1]["modules"]["calls"])
    assert replay(db, plugins=six_modules()).ok
    # records handed over as stored, their references unresolved, still replay equal on all 16 fields
    report = replay_records([orjson.loads(text) for text in texts], seed="growth", plugins=six_modules())
    assert (report.ok, report.fields) == (True, 16), report.mismatch and report.mismatch.diff()


def test_a_journal_of_the_older_form_verifies_replays_equal_and_imports(tmp_path, monkeypatch):
    found: dict[str, bytes] = {}
    rows = list(journal.read_jsonl(OLD, found))
    key = JournalKey(Path(f"{OLD}.key").read_text(encoding="ascii").strip().encode("ascii"), "fixture")
    assert journal.verify_rows(rows, key).ok  # the records as written before stay readable and chained
    records = [text for _t, _i, text, _c in rows]
    assert all('"form"' not in text for text in records)
    report = replay_records(records, seed="growth", plugins=six_modules())
    assert report.ok, report.mismatch and report.mismatch.diff()
    assert (report.ticks, report.fields) == (10, 16)
    db = tmp_path / "imported.db"
    monkeypatch.setenv("AGI_LOAD_PLUGINS", ",".join(MODULES))  # the six, from their entry points
    result = CliRunner().invoke(
        make_cli(), ["--db", str(db), "--seed", "growth", "journal", "import", str(OLD), "--key-file", f"{OLD}.key"]
    )
    assert result.exit_code == 0, result.output
    assert replay(db, plugins=six_modules()).ok  # rebuilt by this version: its records in the stored form
    assert all(record.get("form") == journal_form.FORM for record in stored(db))


def test_a_call_that_did_nothing_live_and_something_in_replay_is_still_a_difference(tmp_path):
    db = tmp_path / "a.db"
    made = idle_follower(db, minutes=1)
    recorded = stored(db)[-1]
    actual = to_data(made[-1])
    assert compare(recorded, actual) is None
    quiet = next(call for call in actual["modules"]["calls"] if journal_form.quiet(call))
    changed = json.loads(json.dumps(actual))
    changed["modules"]["calls"][actual["modules"]["calls"].index(quiet)]["output"] = {"noted": 1}
    mismatch = compare(recorded, changed)
    assert mismatch is not None and mismatch.field == "modules"
    moved = json.loads(json.dumps(actual))  # working memory changed where the record says it did not
    moved["brainstate_after"]["working"]["focus"] = "world/entity/lima"
    assert compare(recorded, moved).field == "brainstate_after"


class Watcher:
    """Quiet (no output, no state) except on ticks that mention Lima; ``loud`` makes it speak on every tick,
    ``writes`` makes it write its state on every tick instead."""

    name = "watcher"
    loud = False
    writes = False

    def observe(self, ctx):
        if self.writes:
            ctx.own.put("ticks", ctx.own.get("ticks", 0) + 1)
        if "Lima" in ctx.text or self.loud:
            return {"lima": "Lima" in ctx.text}
        return None


class WatcherPlugin:
    def __init__(self, **changed: bool) -> None:
        self.watcher = Watcher()
        for name, value in changed.items():
            setattr(self.watcher, name, value)

    @hookimpl
    def agi_register_modules(self, register):
        register(self.watcher)


def test_a_module_quiet_live_that_does_something_in_replay_is_a_mismatch_on_that_tick(tmp_path):
    """End to end, a real database replayed with a module changed: a call left out of the stored record
    (it did nothing) and made in replay is a difference on its tick, and the reverse too."""
    db = tmp_path / "a.db"
    with Kernel.open(db, seed="quiet", plugins=Plugins.builtins(WatcherPlugin())) as kernel:
        for text in ("the capital of Peru is Lima", "my name is Ada", "what is my name?"):
            kernel.tick(text)
        stored_calls = [
            [call["module"] for call in (json.loads(text).get("modules") or {}).get("calls", [])]
            for _t, _i, text, _c in kernel.store.journal_rows()
        ]
    assert ["watcher" in calls for calls in stored_calls] == [True, False, False]  # quiet: left out of the record
    assert replay(db, plugins=Plugins.builtins(WatcherPlugin())).ok
    for changed in ({"loud": True}, {"writes": True}):  # now speaks / writes its state where it was quiet
        report = replay(db, plugins=Plugins.builtins(WatcherPlugin(**changed)))
        first = 2 if changed == {"loud": True} else 1
        assert (report.ok, report.mismatch.tick, report.mismatch.field) == (False, first, "modules"), changed
    silent = WatcherPlugin()
    silent.watcher.observe = lambda ctx: None  # quiet where it spoke live
    report = replay(db, plugins=Plugins.builtins(silent))
    assert (report.ok, report.mismatch.tick, report.mismatch.field) == (False, 1, "modules")
