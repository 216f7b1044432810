"""The store-level contract: each protocol method's semantics, on the backend directly."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Any

import pytest

from agi_core.errors import MemoryKeyError, StorageError, ValidationError
from agi_core.memory.backend import MemoryBackend
from agi_core.memory.blobs import BLOB_THRESHOLD
from agi_core.memory.keys import MAX_KEY_CHARS
from agi_core.model import Goal, WorkingMemory
from agi_core.serialization import dumps
from agi_core.testing.conformance.harness import Harness, episode, fact, goal, job

Opener = Callable[..., MemoryBackend]
KEY = "user/person/self/favorite_color"


class StoreContract(Harness):
    # -- transactions -------------------------------------------------------------------
    def test_a_failed_transaction_leaves_nothing_in_any_store(self, open_store: Opener) -> None:
        store = open_store()
        with pytest.raises(RuntimeError), store.tick_transaction():
            store.sem_write(fact(KEY, "blue"), 1)
            store.add_episodes([episode(1), episode(2, "x" * BLOB_THRESHOLD)], 1)
            store.set_working(WorkingMemory(recent_turns=["user: hi"], focus="user/person/self"))
            store.append_journal(1, "r1", '{"tick":1}', "c1")
            store.meta_update({"tick": "1"})
            store.intent_add(1, "shell", "{}")
            store.put_job(job("daily", 5))
            if self.has(store, "module state"):
                store.module_state_put("notes", "seen", 1, 1)
            if self.has(store, "goals"):
                store.put_goal(goal("g-a", "open"))
            if self.has(store, "tick timings"):
                store.tick_timing_put(1, 1500)
            raise RuntimeError("the tick failed")
        assert store.sem_read(KEY).exists is False
        assert (store.episodes(), store.last_episode_seq(), store.episode_ticks()) == ([], 0, [])
        assert store.working() == WorkingMemory()
        assert (list(store.journal_rows()), store.last_chain(), store.journal_extent()) == ([], "", (0, 0))
        assert (store.meta_get("tick"), store.intents(), store.all_jobs(), list(store.blob_items())) == (
            None,
            [],
            [],
            [],
        )
        assert (store.module_state_sizes() if self.has(store, "module state") else {}) == {}
        assert (store.goals() if self.has(store, "goals") else []) == []
        assert (store.tick_timings(0, 10) if self.has(store, "tick timings") else {}) == {}

    def test_a_committed_transaction_is_read_back_after_reopening(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.sem_write(fact(KEY, "blue"), 1)
            store.meta_update({"tick": "1", "counter": "7"})
        store.close()
        again = open_store()
        assert (again.sem_read(KEY).value, again.meta_get("tick"), again.meta_get("counter")) == ("blue", "1", "7")

    def test_a_savepoint_undoes_only_its_own_block(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.sem_write(fact(KEY, "blue"), 1)
            with pytest.raises(ValueError), store.savepoint("step"):
                store.sem_write(fact("user/person/self/mood", "calm"), 1)
                raise ValueError("this step failed")
            store.meta_set("after", "yes")
        assert (store.sem_read(KEY).value, store.sem_read("user/person/self/mood").exists) == ("blue", False)
        assert store.meta_get("after") == "yes"

    def test_data_version_changes_only_when_another_connection_commits(self, open_store: Opener) -> None:
        mine, other = open_store(), open_store()
        seen = mine.data_version()
        with mine.tick_transaction():
            mine.meta_set("mine", "1")
        assert mine.data_version() == seen
        with other.tick_transaction():
            other.meta_set("theirs", "1")
        assert mine.data_version() != seen
        assert mine.meta_get("theirs") == "1"

    # -- facts ---------------------------------------------------------------------------
    @pytest.mark.parametrize(
        "value",
        ["blue", 42, 2**63 - 1, 2.5, True, None, ["a", 1, None], {"b": {"c": [1.25, "é"]}}, "漢字 🎉", "x" * 10_000],
        ids=["text", "int", "int64_max", "float", "bool", "null", "list", "object", "unicode", "long_text"],
    )
    def test_a_fact_reads_back_exactly(self, open_store: Opener, value: Any) -> None:
        store = open_store()
        with store.tick_transaction():
            assert store.sem_write(fact(KEY, value), 1) is True
        read = store.sem_read(KEY)
        assert (read.exists, dumps(read.value), read.last_updated) == (True, dumps(value), STAMP_1)  # types too
        assert [dumps(entry.value) for entry in store.facts()] == [dumps(value)]

    def test_a_missing_fact_is_only_a_miss(self, open_store: Opener) -> None:
        read = open_store().sem_read(KEY)
        assert (read.exists, read.value, read.last_updated) == (False, None, None)

    def test_the_newest_write_wins_and_an_equal_time_overwrites(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            assert store.sem_write(fact(KEY, "new", 5), 1) is True
            assert store.sem_write(fact(KEY, "older", 3), 2) is False
        assert store.sem_read(KEY).value == "new"
        with store.tick_transaction():
            assert store.sem_write(fact(KEY, "same time", 5), 3) is True
            assert store.sem_write(fact(KEY, "newest", 6), 3) is True
        assert (store.sem_read(KEY).value, store.sem_read(KEY).last_updated) == ("newest", "2026-01-01T00:00:06Z")

    def test_facts_come_in_key_order_under_a_prefix_up_to_a_limit(self, open_store: Opener) -> None:
        store = open_store()
        keys = ["user/person/b/name", "user/person/a/name", "world/city/paris/country", "user/person/a/age"]
        with store.tick_transaction():
            for n, key in enumerate(keys, start=1):
                store.sem_write(fact(key, n, n), n)
        assert [e.key for e in store.facts()] == sorted(keys)
        assert [e.key for e in store.facts("user/person/a/")] == ["user/person/a/age", "user/person/a/name"]
        assert [e.key for e in store.facts("user/", limit=2)] == ["user/person/a/age", "user/person/a/name"]
        assert store.facts("nobody/") == []

    # -- episodes, working, meta ----------------------------------------------------------
    def test_episodes_keep_their_insertion_order(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.add_episodes([episode(3), episode(1)], 1)
        with store.tick_transaction():
            store.add_episodes([episode(2)], 2)
        assert [e.id for e in store.episodes()] == ["e3", "e1", "e2"]
        assert [e.id for e in store.episodes(2, newest_first=True)] == ["e2", "e1"]
        rows = store.episode_rows()
        assert [(seq - rows[0][0], tick) for seq, tick, *_ in rows] == [(0, 1), (1, 1), (2, 2)]
        assert [row[1] for row in store.episode_rows(rows[1][0])] == [2]
        assert [row[0] for row in store.episode_rows(rows[0][0], limit=1)] == [rows[1][0]]  # a keyset page
        assert store.episode_rows(limit=0) == [] and len(store.episode_rows(limit=5)) == 3
        assert (store.last_episode_seq(), store.episode_ticks()) == (rows[-1][0], [(1, 2), (2, 1)])

    def test_working_memory_is_replaced_whole(self, open_store: Opener) -> None:
        store = open_store()
        first = WorkingMemory(recent_turns=["user: a", "agent: b"], focus="user/person/self")
        second = WorkingMemory(recent_turns=["user: c"], active_goal=Goal(id="g", description="answer"))
        with store.tick_transaction():
            store.set_working(first)
            store.set_working(second)
        assert store.working() == second

    def test_meta_keeps_the_last_value_per_key(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.meta_update({"b": "1", "a": "1"})
            store.meta_update({"b": "2"})
        assert (store.meta_get("b"), store.meta_get("zzz", "default")) == ("2", "default")
        assert [item for item in store.meta_items() if item[0] in ("a", "b")] == [("a", "1"), ("b", "2")]

    # -- journal ----------------------------------------------------------------------
    def test_journal_rows_come_back_byte_for_byte_in_tick_order(self, open_store: Opener) -> None:
        store = open_store()
        texts = ['{"z":1,"a":  2}', '{"tick":2,"text":"é\\u00e9 🎉"}', '{"b":1.0,"a":1e2}']
        with store.tick_transaction():
            for tick, text in enumerate(texts, start=1):
                store.append_journal(tick, f"r{tick}", text, f"chain{tick}")
        assert list(store.journal_rows()) == [(t, f"r{t}", text, f"chain{t}") for t, text in enumerate(texts, 1)]
        assert [row[0] for row in store.journal_rows(since=2)] == [3]
        assert (store.last_chain(), store.journal_extent()) == ("chain3", (3, 3))

    def test_a_journaled_tick_is_never_overwritten(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.append_journal(1, "r1", "{}", "c1")
        with pytest.raises(Exception), store.tick_transaction():  # noqa: B017  # whichever error the backend raises
            store.append_journal(1, "r1-again", "{}", "c1-again")
        assert list(store.journal_rows()) == [(1, "r1", "{}", "c1")]

    # -- blobs, intents, jobs -------------------------------------------------------------
    def test_blobs_are_content_addressed_and_a_missing_one_is_named(self, open_store: Opener) -> None:
        store = open_store()
        big = "long text é " * 1000
        digest = hashlib.sha256(big.encode("utf-8")).hexdigest()
        with store.tick_transaction():
            ref = store.store_text(big)
            assert store.store_text(big) == ref != big
            assert store.store_json({"k": big}) != ""
        assert store.load_text(ref) == big and store.get_blob(digest) == big
        assert list(store.blob_items()) == [(digest, big.encode("utf-8"))]
        with pytest.raises(StorageError, match="blob sha256:" + "0" * 64):
            store.get_blob("0" * 64)

    def test_intents_come_in_tick_order_and_lose_pending_with_a_receipt(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.intent_add(5, "write_file", '{"path":"b"}')
            store.intent_add(2, "shell", '{"cmd":"ls"}')
            store.intent_receipt(2, 3)
        assert store.intents() == [(2, "shell", {"cmd": "ls"}, 3), (5, "write_file", {"path": "b"}, None)]
        assert store.intents(pending_only=True) == [(5, "write_file", {"path": "b"}, None)]

    def test_jobs_come_in_name_order_and_the_earliest_due_first(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            for name, due in [("b", 10), ("a", 10), ("c", None), ("d", 5)]:
                store.put_job(job(name, due))
            store.put_job({**job("d", 50), "runs": 1})
        assert [j["name"] for j in store.all_jobs()] == ["a", "b", "c", "d"]
        assert store.get_job("d") == {**job("d", 50), "runs": 1}
        assert store.earliest_due(10) == job("a", 10) and store.earliest_due(4) is None
        with store.tick_transaction():
            assert (store.delete_job("a"), store.delete_job("a")) == (True, False)
        assert store.get_job("a") is None

    def test_tick_timings_are_kept_per_tick_last_write_wins_and_read_by_range(self, open_store: Opener) -> None:
        store = open_store()
        self.require(store, "tick timings")
        with store.tick_transaction():
            store.tick_timing_put(1, 1500)
            store.tick_timing_put(2, 7)
            store.tick_timing_put(3, 2**40)
            store.tick_timing_put(2, 8)
        with pytest.raises(RuntimeError), store.tick_transaction():
            store.tick_timing_put(4, 9)
            raise RuntimeError("the tick failed")
        for bad in (-1, 1.5, "3", True, None):
            with pytest.raises(ValidationError, match="duration of tick 5"), store.tick_transaction():
                store.tick_timing_put(5, bad)  # type: ignore[arg-type]
        assert store.tick_timings(1, 10) == {1: 1500, 2: 8, 3: 2**40}
        assert (store.tick_timings(2, 2), store.tick_timings(4, 9), store.tick_timings(3, 1)) == ({2: 8}, {}, {})

    def test_module_state_is_namespaced_last_write_wins_and_undone_with_its_savepoint(self, open_store: Opener) -> None:
        store = open_store()
        self.require(store, "module state")
        with store.tick_transaction():
            store.module_state_put("notes", "b", {"n": [1, 2]}, 1)
            store.module_state_put("notes", "a", "x", 1)
            store.module_state_put("other", "a", 3, 1)
            store.module_state_put("notes", "a", "y", 2)
            with pytest.raises(RuntimeError), store.savepoint("agi_module"):
                store.module_state_put("notes", "c", True, 2)
                raise RuntimeError("undo")
        assert store.module_state_items("notes") == [("a", "y"), ("b", {"n": [1, 2]})]
        assert (store.module_state_get("other", "a"), store.module_state_get("notes", "c")) == (3, None)
        with store.tick_transaction():
            store.module_state_put("notes", "null", None, 3)
        missing = object()  # a stored null is None; a key never stored (or undone) is the default
        assert store.module_state_get("notes", "null", default=missing) is None
        assert store.module_state_get("notes", "c", default=missing) is missing
        with store.tick_transaction():
            assert store.module_state_delete("notes", "null")
        assert store.module_state_sizes() == {"notes": (2, len('"y"') + len('{"n":[1,2]}')), "other": (1, 1)}
        with store.tick_transaction():
            assert (store.module_state_delete("notes", "a"), store.module_state_delete("notes", "a")) == (True, False)
        assert store.module_state_items("notes") == [("b", {"n": [1, 2]})]

    def test_goals_keep_the_order_they_were_first_put_in(self, open_store: Opener) -> None:
        store = open_store()
        self.require(store, "goals")
        with store.tick_transaction():
            for goal_id in ("g-b", "g-a", "g-c"):
                store.put_goal(goal(goal_id, "open"))
            store.put_goal(goal("g-b", "done"))  # an update keeps its place
        assert [(g["id"], g["status"]) for g in store.goals()] == [("g-b", "done"), ("g-a", "open"), ("g-c", "open")]
        assert store.goals()[0] == goal("g-b", "done")
        with store.tick_transaction():
            assert (store.delete_goal("g-a"), store.delete_goal("g-a")) == (True, False)
        assert [g["id"] for g in store.goals()] == ["g-b", "g-c"]

    def test_goals_are_read_by_id_parent_rank_and_ancestors(self, open_store: Opener) -> None:
        store = open_store()
        self.require(store, "goals")

        def put(goal_id: str, parent: str | None, status: str = "open", priority: float = 0.5, progress=0.0) -> None:
            store.put_goal(goal(goal_id, status) | {"parent": parent, "priority": priority, "progress": progress})

        with store.tick_transaction():
            put("g-top", None, "active")
            put("g-low", "g-top", priority=0.2)
            put("g-mid", "g-top", priority=0.9, progress=0.5)
            put("g-leaf", "g-mid", "done", progress=1.0)
            put("g-side", "g-mid", "failed", priority=0.9)
            put("g-loop1", "g-loop2", "blocked")  # a cycle put directly: reads still end
            put("g-loop2", "g-loop1", "blocked")
        assert store.goal("g-mid") == goal("g-mid", "open") | {"parent": "g-top", "priority": 0.9, "progress": 0.5}
        assert store.goal("g-none") is None
        assert store.goal_child_progress("g-mid") == [("done", 1.0), ("failed", 0.0)]
        assert store.goal_child_progress("g-leaf") == []
        assert [g["id"] for g in store.goal_ancestors("g-leaf")] == ["g-mid", "g-top"]
        assert store.goal_ancestors("g-leaf")[0] == store.goal("g-mid")
        assert store.goal_ancestors("g-top") == [] and store.goal_ancestors("g-none") == []
        assert [g["id"] for g in store.goal_ancestors("g-loop1")] == ["g-loop2", "g-loop1"]
        assert [g["id"] for g in store.goals_ranked("open")] == ["g-mid", "g-low"]  # highest priority, not oldest
        assert [g["id"] for g in store.goals_ranked("open", 1)] == ["g-mid"]
        assert [g["id"] for g in store.goals_ranked("blocked")] == ["g-loop1", "g-loop2"]  # equal: oldest first
        assert store.goal_counts() == {"active": 1, "open": 2, "done": 1, "failed": 1, "blocked": 2}
        assert store.goal_titles(("open", "active")) == [
            ("g-top", "reach g-top"),
            ("g-low", "reach g-low"),
            ("g-mid", "reach g-mid"),
        ]

    # -- limits and bad input -------------------------------------------------------------
    def test_a_key_at_the_length_limit_is_kept_and_one_past_it_refused(self, open_store: Opener) -> None:
        store = open_store()
        longest = "user/person/self/" + "a" * (MAX_KEY_CHARS - 17)
        with store.tick_transaction():
            assert store.sem_write(fact(longest, 1), 1) is True
            with pytest.raises(MemoryKeyError, match=f"at most {MAX_KEY_CHARS}"):
                store.sem_write(fact(longest + "a", 1), 1)
        assert [e.key for e in store.facts()] == [longest]
        with pytest.raises(MemoryKeyError):
            store.sem_read(longest + "a")

    @pytest.mark.parametrize(
        "key",
        ["User/person/self/name", "user person", "", "../etc/passwd", "user/person/self/naïve", "a\x00b"],
        ids=["upper_case", "space", "empty", "dot_dot", "non_ascii", "nul"],
    )
    def test_an_invalid_key_is_refused_and_nothing_stored(self, open_store: Opener, key: str) -> None:
        store = open_store()
        with store.tick_transaction():
            with pytest.raises(MemoryKeyError):
                store.sem_write(fact(key, 1), 1)
            with pytest.raises(MemoryKeyError):
                store.sem_read(key)
        assert store.facts() == []

    @pytest.mark.parametrize(
        "value", [math.nan, math.inf, -math.inf, {"a": [1, math.nan]}], ids=["nan", "inf", "minus_inf", "nested_nan"]
    )
    def test_nan_and_infinity_are_refused_and_nothing_stored(self, open_store: Opener, value: Any) -> None:
        store = open_store()
        with store.tick_transaction():
            with pytest.raises(ValidationError):
                store.sem_write(fact(KEY, value), 1)
        assert store.sem_read(KEY).exists is False

    def test_a_value_that_is_not_json_is_refused(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            with pytest.raises(StorageError, match=KEY):
                store.sem_write(fact(KEY, {1, 2}), 1)
        assert store.sem_read(KEY).exists is False

    def test_lone_surrogates_are_stored_as_replacement_characters(self, open_store: Opener) -> None:
        store = open_store()
        with store.tick_transaction():
            store.add_episodes([episode(1, "bad \udcff end"), episode(2, "\ud800" + "y" * BLOB_THRESHOLD)], 1)
            store.sem_write(fact(KEY, "x\udcffy"), 1)
        assert [e.event for e in store.episodes()] == ["bad \ufffd end", "\ufffd" + "y" * BLOB_THRESHOLD]
        assert store.sem_read(KEY).value == "x\ufffdy"

    def test_a_nul_in_any_text_is_stored_and_found_again(self, open_store: Opener) -> None:
        """PostgreSQL TEXT holds no NUL: every such write failed its tick there. A goal's description and a
        job's texts come back whole; any other text may come back with U+FFFD, and is found by what was written."""
        store = open_store()
        parts = [part for part in ("module state", "goals") if self.has(store, part)]
        with store.tick_transaction():
            store.meta_set("note", "a\x00b")
            assert store.inbox_add("m\x001", 1, "bo\x00b", "c\x00")
            store.intent_add(1, "to\x00ol", "{}")
            store.put_job({**job("j\x00", 5), "say": "wa\x00ter"})
            if "module state" in parts:
                store.module_state_put("no\x00tes", "k\x00", "v\x00", 1)
            if "goals" in parts:
                store.put_goal({**goal("g-1", "open"), "description": "learn Sp\x00anish"})
        either = {"a\x00b", "a\ufffdb"}
        assert store.meta_get("note") in either and store.inbox_has("m\x001")
        assert store.intents()[0][1] in {"to\x00ol", "to\ufffdol"}
        assert store.get_job("j\x00") == {**job("j\x00", 5), "say": "wa\x00ter"} == store.all_jobs()[0]
        if "module state" in parts:
            assert store.module_state_get("no\x00tes", "k\x00") == "v\x00"  # JSON text: \u0000
        if "goals" in parts:
            assert store.goal("g-1") == {**goal("g-1", "open"), "description": "learn Sp\x00anish"}
            assert store.goal_titles(("open",)) == [("g-1", "learn Sp\x00anish")]
        with store.tick_transaction():
            assert store.delete_job("j\x00")


STAMP_1 = "2026-01-01T00:00:01Z"
