"""Group commit in the message box: the ticks of one fetched batch are one transaction, committed by the
last (durably, unless the next batch is in hand: then its sync runs beside the next batch's ticks); no
delivery is acknowledged, no reply published and no tool run before a durable point. A tick that raises
inside a batch undoes the batch's earlier ticks too: their messages are ticked again, once.
``Kernel.group_commit`` does the same for a host's list of inputs (a sender's batch of messages).

The agents are real kernels on SQLite files and the memory:// hub. What the database does is read
from its own statement trace (``PRAGMA synchronous=NORMAL`` … ``COMMIT``: a lazy commit); the
store's ``sync`` and the transport's acks and recipient checks are wrapped to log when they happen.
"""

from __future__ import annotations

import itertools

import pytest

from agi_core import Kernel
from agi_core.errors import StorageError, ValidationError
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.scheduling.follow import Follow
from agi_core.tools import ToolPolicy

_hubs = itertools.count()


@pytest.fixture
def hub():
    return f"memory://group{next(_hubs)}"


def _agent(tmp_path, name, hub, **options):
    kernel = Kernel.open(tmp_path / f"{name}.db", messaging=hub, **options)
    kernel.command("set_name", {"name": name})
    return kernel


def _watch(kernel, *, publishes: bool = False) -> list[str]:
    """The kernel's commits (``lazy``, ``durable`` or ``mark``: marking outbox rows published), syncs, acks
    and recipient checks (a tool running), in order; with ``publishes``, the hand-overs to the broker too."""
    events: list[str] = []
    relaxed = kernel.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL stays set after a lazy commit
    state = {"lazy": relaxed, "mark": False}

    def trace(sql: str) -> None:
        if sql.startswith("PRAGMA synchronous="):
            state["lazy"] = sql.endswith("NORMAL")
        elif sql.startswith("UPDATE messages_out SET published"):
            state["mark"] = True
        elif sql == "COMMIT":
            events.append("mark" if state["mark"] else "lazy" if state["lazy"] else "durable")
            state["mark"] = False

    kernel.conn.set_trace_callback(trace)
    store, transport = kernel.store, kernel.mailbox.transport
    sync, ack_all, agents = store.sync, transport.ack_all, transport.agents
    store.sync = lambda: (sync(), events.append("sync"))[0]  # logged once done: a held transaction commits in it
    sync_log = store.sync_log  # a batch's sync on another thread, beside the next batch's ticks: logged once done
    store.sync_log = lambda: (sync_log(), events.append("background sync"))[0]
    transport.ack_all = lambda deliveries: (events.append(f"ack {len(deliveries)}"), ack_all(deliveries))[1]
    transport.agents = lambda: (events.append("tool"), agents())[1]
    if publishes:
        publish_async = transport.publish_async
        transport.publish_async = lambda rows: (events.append(f"publish {len(rows)}"), publish_async(rows))[1]
    return events


def _exposed(events: list[str]) -> list[int]:
    """Where an ack or a tool came while the last tick commit was lazy (no durable commit or sync since)."""
    lazy, wrong = False, []
    for at, event in enumerate(events):
        if event == "lazy":
            lazy = True
        elif event in ("durable", "sync"):
            lazy = False
        elif (event.startswith(("ack", "publish")) or event == "tool") and lazy:
            wrong.append(at)
    return wrong


def _unacked(kernel) -> int:
    transport = kernel.mailbox.transport
    return len(transport.hub.queues.get(transport.agent, {}))


def test_a_batch_is_one_transaction_its_last_tick_commits_then_all_are_acknowledged_and_answered(
    tmp_path, hub, committed_ticks
):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    for n in range(3):
        alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
    events, before = _watch(bob), committed_ticks(tmp_path / "bob.db")
    with bob.held_batches():  # ticked back to back, as agi run does
        assert bob.tick().final_output == "0+1 = 1"
        assert bob.tick().final_output == "1+1 = 2"
        assert events == [] and bob.holding and _unacked(bob) == 3  # nothing committed, acknowledged or published
        assert committed_ticks(tmp_path / "bob.db") == before
        assert alice.tick() is None
        assert bob.tick().final_output == "2+1 = 3"
    # one commit for the three ticks, made durable (it began without waiting for the disk: a sync follows)
    assert events == ["lazy", "sync", "ack 3", "mark"] and _unacked(bob) == 0 and not bob.holding
    assert committed_ticks(tmp_path / "bob.db") == before + 3
    assert [alice.tick().input.raw for _ in range(3)] == ["0+1 = 1", "1+1 = 2", "2+1 = 3"]
    alice.close(), bob.close()


def test_a_host_that_ticks_a_batch_at_its_own_pace_commits_each_tick(tmp_path, hub, committed_ticks):
    """Outside ``held_batches`` (a host that may pause between ticks) each tick of a batch commits, lazily but
    the last: another process's write never waits for the rest of the batch."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    for n in range(3):
        alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
    events, before = _watch(bob), committed_ticks(tmp_path / "bob.db")
    assert [bob.tick().final_output for _ in range(2)] == ["0+1 = 1", "1+1 = 2"]
    assert events == ["lazy", "lazy"] and not bob.holding and committed_ticks(tmp_path / "bob.db") == before + 2
    with Kernel.open(tmp_path / "bob.db", lock_timeout_s=0.5) as other:  # (no messaging: another process's write)
        other.tick("hello")
    assert bob.tick().final_output == "2+1 = 3"
    assert events[2:] == ["durable", "ack 3", "mark"] and _unacked(bob) == 0
    alice.close(), bob.close()


def test_a_tick_that_raises_inside_a_batch_undoes_the_batch_and_its_messages_are_ticked_again_once(
    tmp_path, hub, committed_ticks
):
    """A real disk-full (SQLite's ``max_page_count``) fails a tick inside a batch: the batch's earlier ticks
    are undone with it and ticked again first, in order; none is acknowledged before its tick is stored. The
    message whose tick raised is not acknowledged either: it comes again after the ack wait."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    for n in range(6):
        alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
    before, taken = committed_ticks(tmp_path / "bob.db"), []
    with bob.held_batches():
        assert [bob.tick().final_output for _ in range(2)] == ["0+1 = 1", "1+1 = 2"] and bob.holding
        pages = bob.conn.execute("PRAGMA page_count").fetchone()[0]
        bob.conn.execute(f"PRAGMA max_page_count={pages}")  # the database is full: the tick that needs a page fails
        ticked = 2  # the messages ticked so far in this batch: the next one's tick fails
        with pytest.raises(StorageError, match="disk full"):
            while bob.tick() is not None:
                ticked += 1
        failed = ticked
        assert not bob.holding and bob.store.lost == 1 and committed_ticks(tmp_path / "bob.db") == before
        bob.conn.execute("PRAGMA max_page_count=1073741823")
        while (record := bob.tick()) is not None:
            taken.append(record.final_output)
    assert taken == [f"{n}+1 = {n + 1}" for n in range(6) if n != failed]
    assert committed_ticks(tmp_path / "bob.db") == before + 5 and _unacked(bob) == 1  # the one that raised
    assert sorted(alice.tick().input.raw for _ in range(5)) == sorted(taken) and alice.tick() is None
    alice.close(), bob.close()


def test_the_follow_loop_shows_a_batch_s_ticks_once_they_are_committed(tmp_path, hub, committed_ticks):
    """``agi run --follow``'s loop yields (prints) a message tick only once its batch's transaction has
    committed: a kill before that undoes ticks nobody was shown."""
    alice = _agent(tmp_path, "alice", hub)
    bob = _agent(tmp_path, "bob", hub, clock=PinnedClock(SimulatedClock(1_795_000_000_000)))
    for n in range(3):
        alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
    before, shown = committed_ticks(tmp_path / "bob.db"), []
    for record in Follow(bob, idle_sleep_s=0.01).run(until=lambda: len(shown) == 3):
        shown.append((record.final_output, bob.holding, committed_ticks(tmp_path / "bob.db")))
    assert shown == [(f"{n}+1 = {n + 1}", False, before + 3) for n in range(3)]
    alice.close(), bob.close()


def test_a_batch_with_the_next_in_hand_is_synced_beside_the_next_and_answered_after_its_sync(tmp_path, hub):
    """40 messages: batches of 16, 16 and 8. A batch whose next one is in hand ends lazily and is synced on
    another thread while the next is ticked; it is acknowledged and answered at the next batch's end (only
    its own replies: the next batch's rows are not durable yet); the last batch ends with a durable tick."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    for n in range(40):
        alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
    events = _watch(bob, publishes=True)
    with bob.held_batches():
        assert [bob.tick().final_output for _ in range(40)] == [f"{n}+1 = {n + 1}" for n in range(40)]
    commits = [event for event in events if event in ("lazy", "durable", "sync")]
    assert commits == ["lazy", "lazy", "lazy", "sync"]  # a transaction a batch; the last made durable at once
    handed = [event for event in events if event.startswith(("ack", "publish"))]
    assert handed == ["ack 16", "publish 16", "ack 24", "publish 24"]  # batch 1, then batches 2 and 3
    assert events.count("background sync") == 2  # batches 1 and 2
    assert events.index("background sync") < events.index("ack 16")  # batch 1 synced before it is acknowledged
    batch_commits = [at for at, event in enumerate(events) if event == "lazy"]
    assert events.index("ack 16") > batch_commits[1]  # … at the end of batch 2 (after its commit)
    assert [alice.tick().input.raw for _ in range(40)] == [f"{n}+1 = {n + 1}" for n in range(40)]
    assert _unacked(bob) == 0
    alice.close(), bob.close()


def test_a_duplicate_that_ends_a_batch_is_acknowledged_after_a_sync(tmp_path, hub, take_one):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    first, _ = take_one(alice, bob, "hello")
    alice.command("send_message", {"to": "bob", "text": "again"})
    events = _watch(bob)
    bob.mailbox._ready.extend([*bob.mailbox.transport.fetch(0), first])  # "again", then a redelivery of "hello"
    assert bob.tick().input.raw == "again"  # a lazy commit: the redelivery follows in the batch
    assert bob.tick() is None  # the redelivery: no tick; the batch ends with no durable commit of its own
    assert events == ["lazy", "sync", "ack 2", "mark"] and not _exposed(events)
    alice.close(), bob.close()


def test_a_tick_that_records_an_intent_is_durable_before_its_tool_runs(tmp_path, hub):
    alice = _agent(tmp_path, "alice", hub)
    carol = _agent(tmp_path, "carol", hub)
    bob = _agent(tmp_path, "bob", hub, policy=ToolPolicy(allow_tools=frozenset({"send_message"})))
    bob.command("config_set", {"plugin": "messaging", "key": "allow_tools", "value": {"alice": ["send_message"]}})
    alice.command("send_message", {"to": "bob", "text": "tell carol that the meeting moved"})
    alice.command("send_message", {"to": "bob", "text": "2+2"})
    events = _watch(bob)
    receipt = bob.tick()  # the intent's tick (lazy: "2+2" is in hand), its tool, then its receipt tick
    assert receipt.observation.payload["to"] == "carol" and receipt.input.source == "event"
    assert bob.tick().final_output == "2+2 = 4"
    # the intent's tick, synced and acknowledged (its reply to alice published), the tool, the receipt tick
    # (its message to carol published), then "2+2": the batch's last tick, durable
    assert events == ["lazy", "sync", "ack 1", "mark", "tool", "durable", "mark", "durable", "ack 1", "mark"]
    assert not _exposed(events)
    assert carol.tick().input.raw == "the meeting moved"
    alice.close(), bob.close(), carol.close()


def test_a_lazy_commit_is_one_transaction_even_when_it_fails(tmp_path):
    from agi_core.memory.sqlite_store import SqliteStore

    store = SqliteStore(tmp_path / "lazy.db")
    synchronous = "PRAGMA synchronous"
    store.lazy_commit()
    with pytest.raises(RuntimeError), store.tick_transaction():
        assert store.conn.execute(synchronous).fetchone()[0] == 1  # NORMAL inside
        raise RuntimeError("rolled back")
    assert store.conn.execute(synchronous).fetchone()[0] == 2  # FULL again
    with store.tick_transaction():  # the next one is durable
        assert store.conn.execute(synchronous).fetchone()[0] == 2
    store.sync()
    store.close()


def test_lazy_commits_in_a_row_keep_normal_until_a_transaction_that_is_not_lazy(tmp_path):
    from agi_core.memory.sqlite_store import SqliteStore

    store = SqliteStore(tmp_path / "lazy.db")
    level = lambda: store.conn.execute("PRAGMA synchronous").fetchone()[0]  # noqa: E731 - 1 NORMAL, 2 FULL
    for ends in (store.tick_transaction, store.write_block, None):  # None: a sync ends the lazy run
        for _ in range(2):
            store.lazy_commit()
            with store.tick_transaction():
                assert level() == 1
        assert level() == 1  # still NORMAL between lazy commits (a batch switches twice, not twice a tick)
        if ends is None:
            store.sync()
        else:
            with ends():
                assert level() == 2  # a commit that is not lazy waits for the disk
        assert level() == 2
    store.close()


def test_a_background_sync_waits_for_the_disk_only_where_commits_do(tmp_path, monkeypatch):
    import os

    from agi_core.memory import sqlite_store

    synced: list[int] = []
    fsync = os.fsync
    monkeypatch.setattr(sqlite_store.os, "fsync", lambda fd: (synced.append(fd), fsync(fd))[1])  # counted, real
    for level, fsyncs in (("FULL", 1), ("NORMAL", 0), ("OFF", 0)):
        store = sqlite_store.SqliteStore(tmp_path / f"{level}.db", synchronous=level)
        with store.tick_transaction():
            store.meta_set("k", "v")
        synced.clear()
        store.sync_log()
        assert len(synced) == fsyncs, level
        store.close()


def _queued(kernel) -> int:
    """Messages in ``kernel``'s queue on the hub (published to it, not yet acknowledged)."""
    return _unacked(kernel)


def test_a_group_of_sends_is_published_at_once_after_one_durable_point(tmp_path, hub, committed_ticks):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    events, before = _watch(alice, publishes=True), committed_ticks(tmp_path / "alice.db")
    with alice.group_commit():
        for n in range(3):
            alice.command("send_message", {"to": "bob", "text": f"{n}+1"})
        assert events == [] and alice.holding and _queued(bob) == 0  # one transaction, not committed yet
        assert committed_ticks(tmp_path / "alice.db") == before
    assert events == ["lazy", "sync", "publish 3", "mark"] and not _exposed(events)  # one commit, one sync
    assert committed_ticks(tmp_path / "alice.db") == before + 3
    assert [bob.tick().input.raw for _ in range(3)] == ["0+1", "1+1", "2+1"]  # in order
    alice.close(), bob.close()


def test_a_group_whose_transaction_the_database_drops_says_so_when_it_is_left(tmp_path, committed_ticks):
    """A real full disk (SQLite's ``max_page_count``) inside a ``group_commit`` block: SQLite rolls the whole
    transaction back, so the block's earlier ticks are gone too. The failing tick raises; a host that caught
    that and went on is told when it leaves the block, in one line that names the fix."""
    kernel = Kernel.open(tmp_path / "full.db")
    kernel.tick("hello")
    with pytest.raises(StorageError, match=r"group_commit.*was lost.*run those inputs again"), kernel.group_commit():
        assert kernel.tick("1+1").final_output == "1+1 = 2"
        pages = kernel.conn.execute("PRAGMA page_count").fetchone()[0]
        kernel.conn.execute(f"PRAGMA max_page_count={pages}")
        with pytest.raises(StorageError, match="disk full"):
            for n in range(20):
                kernel.tick(f"note {n}: " + "a longer line, to fill pages " * 40)
        kernel.conn.execute("PRAGMA max_page_count=1073741823")
    assert committed_ticks(tmp_path / "full.db") == 1 and kernel.tick_count == 1  # "1+1" went with the rest
    kernel.close()


def test_a_single_send_is_published_right_after_its_own_durable_tick(tmp_path, hub):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    events = _watch(alice, publishes=True)
    alice.command("send_message", {"to": "bob", "text": "hello"})
    assert events == ["durable", "publish 1", "mark"] and _queued(bob) == 1
    alice.close(), bob.close()


def test_a_group_cut_short_by_an_error_is_still_made_durable_before_its_messages_leave(tmp_path, hub):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    events = _watch(alice, publishes=True)
    with pytest.raises(ValidationError), alice.group_commit():
        alice.command("send_message", {"to": "bob", "text": "first"})
        alice.command("send_message", {"to": "no such name!", "text": "refused: nothing stored"})
    assert events == ["lazy", "sync", "publish 1", "mark"] and not _exposed(events)
    assert bob.tick().input.raw == "first"
    alice.close(), bob.close()


def test_an_intent_in_a_group_is_durable_before_its_tool_runs(tmp_path, hub):
    bob = _agent(tmp_path, "bob", hub)
    alice = _agent(tmp_path, "alice", hub, policy=ToolPolicy(allow_tools=frozenset({"send_message"})))
    events = _watch(alice, publishes=True)
    with alice.group_commit():
        receipt = alice.tick("tell bob that the meeting moved")  # the intent's tick, its tool, the receipt tick
        alice.command("send_message", {"to": "bob", "text": "see you"})
    assert receipt.observation.payload["to"] == "bob"
    assert events == ["lazy", "sync", "tool", "lazy", "sync", "publish 2", "mark"]  # the intent commits the block
    assert not _exposed(events)
    assert [bob.tick().input.raw for _ in range(2)] == ["the meeting moved", "see you"]
    alice.close(), bob.close()


def test_a_group_without_a_message_box_syncs_once_at_its_end(tmp_path):
    kernel = Kernel.open(tmp_path / "solo.db")
    commits: list[str] = []
    watched = ("PRAGMA synchronous=", "COMMIT")
    kernel.conn.set_trace_callback(lambda sql: commits.append(sql) if sql.startswith(watched) else None)
    sync = kernel.store.sync
    kernel.store.sync = lambda: (sync(), commits.append("sync"))[0]  # logged once done
    with kernel.group_commit():
        kernel.tick("my name is Ada")
        kernel.tick("what is my name?")
    # the group is one transaction, begun with NORMAL; its sync commits it, fsyncs and puts FULL back
    assert commits == ["PRAGMA synchronous=NORMAL", "COMMIT", "PRAGMA synchronous=FULL", "sync"]
    kernel.tick("hello")
    assert commits[4:] == ["COMMIT"] and kernel.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    kernel.close()
