"""The kernel-level contract: a real kernel ticking on the backend.

Atomic ticks, checkpoint and rollback, replay equality, two processes ticking on one agent,
tamper detection, and the input limits, all through the public kernel API.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from agi_core import checkpoints
from agi_core.integrity import verify_agent
from agi_core.kernel import Kernel
from agi_core.memory.backend import GoalStore, ModuleStateStore, TickTimingStore
from agi_core.model import JournalRecord
from agi_core.replay import replay_records
from agi_core.replies import F4_AGENT_FAILURE
from agi_core.serialization import to_data
from agi_core.testing.conformance import brains
from agi_core.testing.conformance.harness import SEED, Harness, fact, goal, job

Opener = Callable[..., Kernel]
TICKS_PER_PROCESS = 15

_CHILD = """
import sys
from agi_core import Kernel, Plugins
path, backend, who, count, *modules = sys.argv[1:]
plugins = Plugins.builtins(*modules) if modules else Plugins.from_environment()
with Kernel.open(path, plugins=plugins, backend=backend) as kernel:
    print("ready", flush=True)
    sys.stdin.readline()  # both processes are open before either ticks: each one's caches go stale
    for i in range(int(count)):
        kernel.tick(f"note from {who} {i}")
"""


def stored_state(kernel: Kernel) -> dict[str, Any]:
    store = kernel.store
    modules = store.module_state_sizes() if isinstance(store, ModuleStateStore) else {}
    return {
        "facts": [to_data(e) for e in store.facts()],
        "episodes": [to_data(e) for e in store.episodes()],
        "working": to_data(store.working()),
        "journal": list(store.journal_rows()),
        "meta": {k: v for k, v in store.meta_items() if k not in ("state_seal",)},
        "jobs": store.all_jobs(),
        "goals": store.goals() if isinstance(store, GoalStore) else [],
        "module_state": {module: store.module_state_items(module) for module in sorted(modules)},
        "intents": store.intents(),
        "tick_timings": store.tick_timings(0, 2**62) if isinstance(store, TickTimingStore) else {},
    }


def tick(kernel: Kernel, text: str) -> JournalRecord:
    record = kernel.tick(text)
    assert record is not None
    return record


class KernelContract(Harness):
    def _agent(self, open_agent: Opener, name: str = "agent", **options: Any) -> Kernel:
        return open_agent(name, brains.PLUGIN, brain=brains.NAME, **options)

    def test_an_interrupted_tick_stores_nothing(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        before = stored_state(kernel)
        with pytest.raises(KeyboardInterrupt):
            kernel.tick("interrupt red")
        assert stored_state(kernel) == before
        assert tick(kernel, "remember green").tick == 2  # numbered from what is stored
        assert kernel.get_fact(brains.NOTE).value == "green"

    def test_a_tick_that_fails_while_storing_stores_nothing(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        tick(kernel, "remember blue")
        with kernel.store.tick_transaction():  # tick 2's journal row, taken: storing tick 2 will fail
            kernel.store.append_journal(2, "squatter", "{}", "0" * 64)
        before = stored_state(kernel)
        with pytest.raises(Exception):  # noqa: B017  # whichever error the backend raises for a taken tick
            kernel.tick("remember red")
        assert stored_state(kernel) == before

    def test_a_failing_step_is_undone_alone_and_the_tick_is_stored(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        record = tick(kernel, "fail red")
        assert (record.tick, record.final_output, record.sem_writes) == (2, F4_AGENT_FAILURE, [])
        assert kernel.get_fact(brains.NOTE).value == "blue"
        assert [row[0] for row in kernel.store.journal_rows()] == [1, 2]

    def test_rollback_restores_every_store_and_archives_the_undone_ticks(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        kernel.command("state", {"op": "create_state", "args": {"prompt": "plan the trip"}})
        store, modules, goals = kernel.store, self.has(kernel.store, "module state"), self.has(kernel.store, "goals")
        with store.tick_transaction():
            store.put_job(job("daily", 100))
            if modules:
                store.module_state_put("notes", "seen", 2, 2)
            if goals:
                store.put_goal(goal("g-a", "open"))
            store.inbox_add("m-kept", 1, "bob", "c-1")
            store.outbox_add("o-kept", 1, "bob", '{"id": "o-kept"}')
        checkpoints.create(kernel, "two")
        saved = stored_state(kernel)
        states = kernel.store.rlm_rows().state_ids()
        kernel.tick("remember red")
        kernel.command("put_fact", {"key": "world/city/paris/country", "value": "france"})
        with store.tick_transaction():
            store.put_job(job("hourly", 5))
            store.delete_job("daily")
            if modules:
                store.module_state_put("notes", "seen", 4, 4)
                store.module_state_put("tally", "n", 1, 4)
            if goals:
                store.put_goal(goal("g-a", "done"))
                store.put_goal(goal("g-b", "open"))
            store.inbox_add("m-undone", 3, "bob", "c-1")
            store.outbox_published("o-kept")
            store.outbox_add("o-undone", 3, "bob", '{"id": "o-undone"}')
        undone = list(kernel.store.journal_rows(since=2))
        report = checkpoints.rollback(kernel, "two")
        assert (report.tick, report.archived_ticks, kernel.tick_count) == (2, 2, 2)
        assert stored_state(kernel) == saved
        assert kernel.store.rlm_rows().state_ids() == states
        # messages too: an undone tick's received id is gone, its send and publication undone
        assert (store.inbox_has("m-kept"), store.inbox_has("m-undone")) == (True, False)
        assert store.inbox_known(["m-undone", "m-kept", "m-never"]) == {"m-kept"}
        assert store.outbox_unpublished() == ['{"id": "o-kept"}']
        assert (store.outbox_unpublished(through_tick=1), store.outbox_unpublished(through_tick=0)) == (
            ['{"id": "o-kept"}'],
            [],
        )
        assert [row[1:] for row in kernel.store.archived_rows()] == undone
        assert [info.name for info in checkpoints.list_checkpoints(kernel.store)] == ["two"]
        assert tick(kernel, "remember green").tick == 3
        assert verify_agent(kernel.store, kernel.journal_key).ok

    def test_removing_a_checkpoint_leaves_the_agent_and_the_other_checkpoints_whole(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        checkpoints.create(kernel, "one")
        kernel.tick("remember red")
        checkpoints.create(kernel, "two")
        kernel.tick("remember green")
        checkpoints.create(kernel, "three")
        saved = stored_state(kernel)
        assert checkpoints.remove(kernel.store, "two").tick == 2
        assert [info.name for info in checkpoints.list_checkpoints(kernel.store)] == ["one", "three"]
        unknown = "no checkpoint named 'two'; existing checkpoints: one, three"
        with pytest.raises(checkpoints.CheckpointError, match=unknown):
            checkpoints.remove(kernel.store, "two")
        assert stored_state(kernel) == saved
        for name in ("one", "three"):
            assert kernel.store.checkpoint_problems(name, kernel.journal_key) == []
        assert checkpoints.rollback(kernel, "one").tick == 1
        assert kernel.get_fact(brains.NOTE).value == "blue"
        assert checkpoints.rollback(kernel, "three").tick == 3
        assert kernel.get_fact(brains.NOTE).value == "green"
        assert verify_agent(kernel.store, kernel.journal_key).ok

    def test_each_tick_stores_how_long_it_took_beside_its_record(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        self.require(kernel.store, "tick timings")
        for text in ["remember blue", "fail x"]:
            kernel.tick(text)
        kernel.command("put_fact", {"key": "world/city/paris/country", "value": "france"})
        timings = kernel.store.tick_timings(1, 10)
        assert sorted(timings) == [1, 2, 3] and all(type(us) is int and us > 0 for us in timings.values())
        assert all("duration" not in text for _tick, _id, text, _chain in kernel.store.journal_rows())

    def test_replay_of_the_stored_journal_is_equal(self, open_agent: Opener, backend: str) -> None:
        kernel = self._agent(open_agent)
        for text in ["remember blue", "fail x", "remember a long note " + "é" * 5000]:
            kernel.tick(text)
        kernel.command("put_fact", {"key": "world/city/paris/country", "value": "france"})
        self.close_agent(kernel)
        kernel = self._agent(open_agent)  # reopened: everything it reads next comes from the store
        kernel.tick("remember green")
        records = [text for _tick, _id, text, _chain in kernel.store.journal_rows()]
        plugins = self.plugins()
        plugins.add_module(brains.PLUGIN)
        report = replay_records(
            records, seed=SEED, plugins=plugins, resolve=lambda data: _resolve(kernel, data), backend=backend
        )
        assert (report.ok, report.ticks, report.mismatch) == (True, 5, None)

    def test_two_processes_ticking_on_one_agent_lose_and_repeat_no_tick(
        self, open_agent: Opener, backend: str, tmp_path: Any
    ) -> None:
        kernel = open_agent()
        kernel.tick("note from nobody")
        self.close_agent(kernel)
        db, count = str(tmp_path / "agent.db"), str(TICKS_PER_PROCESS)
        children = [
            subprocess.Popen(
                [sys.executable, "-c", _CHILD, db, backend, who, count, *self.plugin_modules],
                env=self.child_environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for who in ("ann", "bob")
        ]
        for child in children:
            assert child.stdout is not None and child.stdout.readline() == "ready\n", child.communicate()[1]
        for child in children:  # both start at once
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        errors = [child.communicate(timeout=300)[1] for child in children]
        assert [child.returncode for child in children] == [0, 0], errors
        kernel = open_agent()
        rows = list(kernel.store.journal_rows())
        assert [row[0] for row in rows] == list(range(1, 2 * TICKS_PER_PROCESS + 2))
        inputs = sorted(kernel.store.episodes()[i].event for i in range(0, len(rows) * 2, 2))
        sent = [f"note from {who} {i}" for who in ("ann", "bob") for i in range(TICKS_PER_PROCESS)]
        expected = sorted(["note from nobody", *sent])
        assert inputs == expected
        assert verify_agent(kernel.store, kernel.journal_key).ok

    def test_the_versions_that_wrote_the_ticks_are_stored_once_per_change_and_sealed(
        self, backend: str, tmp_path: Any
    ) -> None:
        from agi_core.memory import versions_meta

        def opened(version: str) -> Kernel:
            plugins = self.plugins()
            plugins.add_module(brains.PLUGIN, name="brain_pack", version=version)
            workspace = tmp_path / "workspace"
            return Kernel.open(
                tmp_path / "versions.db",
                seed=SEED,
                plugins=plugins,
                backend=backend,
                brain=brains.NAME,
                workspace=workspace,
            )

        with opened("1.0") as kernel:
            first = kernel.plugins.versions()
            assert first["plugins"]["brain_pack"] == "1.0"
            kernel.tick("remember blue")
            with pytest.raises(KeyboardInterrupt):
                kernel.tick("interrupt red")
            kernel.tick("remember red")
            assert versions_meta.history(kernel.store) == [{"tick": 1, **first}]
        with opened("1.0") as kernel:  # a run with the same versions adds nothing
            kernel.tick("remember green")
            assert versions_meta.history(kernel.store) == [{"tick": 1, **first}]
        with opened("2.0") as kernel:
            second = kernel.plugins.versions()
            kernel.tick("remember gold")
            kernel.tick("remember grey")
            records = [text for _tick, _id, text, _chain in kernel.store.journal_rows()]
        assert second["plugins"]["brain_pack"] == "2.0"
        with opened("2.0") as kernel:
            entries = versions_meta.history(kernel.store)
            assert entries == [{"tick": 1, **first}, {"tick": 4, **second}]
            assert versions_meta.difference(entries, 3, second) == (
                f"tick 3 was written by {versions_meta.describe(first)}; this is {versions_meta.describe(second)}"
            )
            assert verify_agent(kernel.store, kernel.journal_key).problems() == []  # sealed at each close
            plugins = self.plugins()
            plugins.add_module(brains.PLUGIN, name="brain_pack", version="1.0")
            report = replay_records(records, seed=SEED, plugins=plugins, backend=backend, written_by=entries)
            assert (report.ok, report.ticks) == (True, 5)  # the records hold no versions: replay compares as before
            with kernel.store.tick_transaction():  # a history rewritten outside any tick
                kernel.store.meta_set(versions_meta.KEY, "[]")
            problems = verify_agent(kernel.store, kernel.journal_key).problems()
            assert problems == ["STATE_CHANGED meta key 'versions': changed outside the journal"]

    def test_tampering_outside_the_journal_is_detected(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        kernel.tick("remember red")
        kernel.seal()
        assert verify_agent(kernel.store, kernel.journal_key).problems() == []
        with kernel.store.tick_transaction():  # a write that no tick made
            kernel.store.sem_write(fact("user/person/self/mood", "forged", 9), 2)
        problems = verify_agent(kernel.store, kernel.journal_key).problems()
        assert problems == ["STATE_CHANGED facts key 'user/person/self/mood': added outside the journal"]

    def test_module_state_changed_outside_the_journal_is_named(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        self.require(kernel.store, "module state")
        kernel.tick("remember blue")
        with kernel.store.tick_transaction():
            kernel.store.module_state_put("notes", "seen", 1, 1)
        kernel.seal()  # sealed as it is now: the rows above are part of the sealed state
        assert verify_agent(kernel.store, kernel.journal_key).problems() == []
        with kernel.store.tick_transaction():  # writes that no tick made
            kernel.store.module_state_put("notes", "seen", 99, 1)
            kernel.store.module_state_put("notes", "forged", True, 1)
        assert sorted(verify_agent(kernel.store, kernel.journal_key).problems()) == [
            "STATE_CHANGED module_state key 'notes/forged': added outside the journal",
            "STATE_CHANGED module_state key 'notes/seen': changed outside the journal",
        ]

    def test_a_forged_journal_record_is_detected_at_its_tick(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        kernel.tick("remember blue")
        with kernel.store.tick_transaction():
            kernel.store.append_journal(2, "forged", '{"id":"forged","tick":2}', "0" * 64)
        report = verify_agent(kernel.store, kernel.journal_key)
        assert (report.chain.ok, report.chain.tick) == (False, 2)
        assert "chain mismatch" in str(report.chain)

    def test_an_input_over_the_limit_is_refused_and_stored_as_its_head(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent, max_input_bytes=1000)
        record = tick(kernel, "remember " + "x" * 5000)
        assert record.router_decision.agent == "command:refuse_input"
        ((_tick, _id, text, _chain),) = kernel.store.journal_rows()
        assert "x" * 1000 not in text and kernel.get_fact(brains.NOTE).exists is False
        assert kernel.store.episodes()[0].event == record.input.raw

    def test_invalid_utf8_input_and_output_are_stored_with_replacement_characters(self, open_agent: Opener) -> None:
        kernel = self._agent(open_agent)
        tick(kernel, "remember bad\udcffbyte")
        assert kernel.get_fact(brains.NOTE).value == "bad\ufffdbyte"
        assert tick(kernel, "garble x").tick == 2  # a plugin's answer with a lone surrogate
        events = [entry.event for entry in kernel.store.episodes()]
        assert events[0] == "remember bad\ufffdbyte"
        assert events[3] == "noted x (before: bad\ufffdbyte) \ufffd"
        assert verify_agent(kernel.store, kernel.journal_key).ok

    def test_a_nul_in_any_stored_text_never_fails_a_tick(self, open_agent: Opener, backend: str) -> None:
        """PostgreSQL TEXT holds no NUL: a goal or a reminder with one failed its tick there (SQLite keeps it).
        The texts that come back (a goal listed, a reminder's words) come back whole; replay stays equal."""
        kernel = open_agent("nul")  # the built-in brain: goals, reminders, names
        lines = ["my goal is to learn Sp\x00anish", "remind me to wa\x00ter in 5 minutes", "what are my goals?"]
        said = [tick(kernel, line).action.args["text"] for line in [*lines, "my name is A\x00da"]]
        assert "learn Sp\x00anish" in said[2] and "wa\x00ter" in said[2] and "A\x00da" in said[3]
        self.close_agent(kernel)
        kernel = open_agent("nul")  # reopened: what it reads next comes from the store
        assert "learn Sp\x00anish" in tick(kernel, "what are my goals?").action.args["text"]
        store = kernel.store
        assert [g["description"] for g in store.goals()] == ["learn Sp\x00anish", "wa\x00ter"]  # type: ignore[attr-defined]
        assert [job["say"][:16] for job in store.all_jobs()] == ["reminder: wa\x00ter"]
        assert verify_agent(store, kernel.journal_key).ok
        records = [text for _tick, _id, text, _chain in store.journal_rows()]
        report = replay_records(
            records, seed=SEED, plugins=self.plugins(), resolve=lambda data: _resolve(kernel, data), backend=backend
        )
        assert (report.ok, report.ticks, report.mismatch) == (True, 5, None)


def _resolve(kernel: Kernel, data: Any) -> Any:
    from agi_core.memory import blobs

    return blobs.resolve(data, kernel.store.get_blob)
