"""Agents in one process on the memory:// transport: conversation, replay, duplicates, hostile messages."""

from __future__ import annotations

import itertools

import pytest

from agi_core import Kernel
from agi_core.hookspecs import hookimpl
from agi_core.messaging.envelope import MAX_MESSAGE_BYTES, MessageRejected
from agi_core.replay import replay
from agi_core.testing import builtin_plugins

_hubs = itertools.count()


@pytest.fixture
def hub():
    return f"memory://test{next(_hubs)}"


def _agent(tmp_path, name, hub):
    kernel = Kernel.open(tmp_path / f"{name}.db", messaging=hub)
    if kernel.store.meta_get("agent_name") is None:
        kernel.command("set_name", {"name": name})
    return kernel


def _inbox(kernel):
    return [row[0] for row in kernel.conn.execute("SELECT id FROM messages_in ORDER BY tick")]


def test_ask_and_answer_from_memory_then_each_replays_equal(tmp_path, hub):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    bob.tick("the capital of Peru is Lima")
    sent = alice.command("send_message", {"to": "bob", "text": "what is the capital of Peru?"})
    asked = bob.tick()
    assert asked.input.source == "message:alice" and asked.final_output == "The capital of Peru is Lima."
    (reply,) = asked.agent_outputs["messages_out"]
    assert reply["recipient"] == "alice" and reply["reply_to"] == sent.agent_outputs["send_message"]["id"]
    told = alice.tick()
    assert told.input.source == "message:bob" and told.input.raw == "The capital of Peru is Lima."
    assert told.externals["message"][0]["conversation"] == reply["conversation"]
    assert alice.tick() is None and bob.tick() is None  # a reply is not answered: the conversation ends
    for kernel in (alice, bob):
        kernel.close()
    for name in ("alice", "bob"):  # replay serves the messages from the journal: no transport at all
        report = replay(tmp_path / f"{name}.db")
        assert report.ok and report.ticks == 3, report.summary()


def test_two_senders_with_one_seed_mint_the_same_ids_and_both_messages_are_ticked(tmp_path, hub):
    """Ids came from each agent's seed and tick, so carol and dave (the default seed) sent the same id: the
    inbox and JetStream deduplicated on it, and dave's message was dropped without a word. The duplicate
    key is the sender and the id (and the ids of two databases now differ too: the message_salt)."""
    bob, carol, dave = (_agent(tmp_path, name, hub) for name in ("bob", "carol", "dave"))
    said = [
        kernel.command("send_message", {"to": "bob", "text": text}) for kernel, text in ((carol, "1+1"), (dave, "2+2"))
    ]
    sent = [record.agent_outputs["send_message"]["id"] for record in said]
    assert sent[0] != sent[1]  # one seed, two databases: each its own ids
    taken = [bob.tick(), bob.tick()]
    assert [(r.input.source, r.final_output) for r in taken] == [
        ("message:carol", "1+1 = 2"),
        ("message:dave", "2+2 = 4"),
    ]
    assert bob.tick() is None and sorted(_inbox(bob)) == sorted([f"carol/{sent[0]}", f"dave/{sent[1]}"])
    for kernel in (bob, carol, dave):
        kernel.close()


def test_a_redelivered_message_is_acknowledged_without_a_second_tick(tmp_path, hub, take_one):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    delivery, first = take_one(alice, bob, "hello")
    assert first.input.source == "message:alice"
    bob.mailbox._ready.append(delivery)  # the same delivery again, as after a lost ack
    ticks = bob.tick_count
    assert bob.tick() is None and bob.tick_count == ticks
    assert _inbox(bob) == [delivery.message.key]
    alice.close(), bob.close()


def test_a_batch_asks_the_inbox_once_and_skips_each_message_received_before(tmp_path, hub, take_one):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    old, _ = take_one(alice, bob, "1+1")
    for text in ("2+2", "3+3"):
        alice.command("send_message", {"to": "bob", "text": text})
    new = bob.mailbox.transport.fetch(0)
    asked: list[int] = []
    known = bob.store.inbox_known
    bob.store.inbox_known = lambda ids: (asked.append(len(ids)), known(ids))[1]
    bob.mailbox._ready.extend([new[0], old, new[0], old, new[1]])  # 1+1 again, twice; 2+2 twice in the batch
    assert [bob.tick().final_output for _ in range(2)] == ["2+2 = 4", "3+3 = 6"]
    assert asked == [5]  # one query for the batch, not one a tick
    assert sorted(_inbox(bob)) == sorted([old.message.key, *(delivery.message.key for delivery in new)])
    alice.close(), bob.close()


def test_the_inbox_refuses_a_second_tick_for_one_message_id(tmp_path, hub, take_one):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    delivery, _ = take_one(alice, bob, "hello")
    bob.mailbox.current = delivery  # past the sensor's check: the unique id in the tick's transaction refuses it
    ticks = bob.tick_count
    assert bob.tick("hello", source="message:alice") is None
    assert bob.tick_count == ticks and _inbox(bob) == [delivery.message.key]
    alice.close(), bob.close()


def test_malformed_and_oversized_messages_are_refused_in_one_line_and_the_next_one_arrives(tmp_path, hub, capsys):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    alice.mailbox.transport.publish_raw("bob", b"\xff not json")
    alice.mailbox.transport.publish_raw(
        "bob", b'{"id": "x", "text": "' + b"a" * MAX_MESSAGE_BYTES + b'", "conversation": "c"}'
    )
    alice.command("send_message", {"to": "bob", "text": "2+2"})
    record = bob.tick()
    assert record.input.source == "message:alice" and record.final_output == "2+2 = 4"
    lines = [line for line in capsys.readouterr().err.splitlines() if "message from" in line]
    assert lines == [
        "agi: warning: message from alice to bob is not a JSON object; dropped",
        f"agi: warning: message from alice to bob is {MAX_MESSAGE_BYTES + 44:,} bytes, over the "
        f"{MAX_MESSAGE_BYTES:,}-byte limit; dropped",
    ]
    alice.close(), bob.close()


def test_the_transport_sets_the_sender_not_the_payload(tmp_path, hub):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    alice.mailbox.transport.publish_raw("bob", b'{"id": "m1", "text": "hi", "conversation": "c", "sender": "carol"}')
    record = bob.tick()
    assert record.input.source == "message:alice"
    assert record.externals["message"][0]["sender"] == "alice"
    alice.close(), bob.close()


def test_a_message_waits_in_the_outbox_until_a_transport_publishes_it(tmp_path, hub):
    alice = Kernel.open(tmp_path / "alice.db")
    alice.command("set_name", {"name": "alice"})
    alice.command("send_message", {"to": "bob", "text": "hello"})
    alice.close()
    bob = _agent(tmp_path, "bob", hub)
    assert bob.tick() is None
    alice = _agent(tmp_path, "alice", hub)  # its first poll publishes the committed outbox row
    assert alice.tick() is None
    assert bob.tick().input.raw == "hello"
    alice.close(), bob.close()


class LongWinded:
    """A router agent whose reply is far over a message's size limit."""

    name, rule, priority = "long_winded", "matched_long", 1

    def matches(self, text: str) -> bool:
        return text == "tell me everything"

    def handle(self, ctx):
        from agi_core.reasoning import AgentReply

        return AgentReply("é" * MAX_MESSAGE_BYTES)


class LongWindedPlugin:
    @hookimpl
    def agi_register_router_agents(self, register):
        register(LongWinded())


def test_a_message_over_the_size_limit_is_refused_before_the_outbox_and_the_next_one_goes(tmp_path, hub):
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    with pytest.raises(MessageRejected, match=r"is 80,\d+ bytes; the limit is 65,536: send a shorter text"):
        alice.command("send_message", {"to": "bob", "text": '"' * 40_000})  # JSON doubles each quote
    assert alice.store.outbox_unpublished() == []
    alice.command("send_message", {"to": "bob", "text": "2+2"})
    assert bob.tick().final_output == "2+2 = 4"  # nothing oversized waits at the head of the outbox
    alice.close(), bob.close()


def test_a_reply_over_the_size_limit_is_sent_cut_to_fit_saying_so(tmp_path, hub):
    alice = _agent(tmp_path, "alice", hub)
    bob = Kernel.open(tmp_path / "bob.db", messaging=hub, plugins=builtin_plugins(LongWindedPlugin()))
    bob.command("set_name", {"name": "bob"})
    alice.command("send_message", {"to": "bob", "text": "tell me everything"})
    answered = bob.tick()
    assert len(answered.final_output) == MAX_MESSAGE_BYTES  # the tick's own reply is whole
    told = alice.tick()
    assert told.input.source == "message:bob"
    assert told.input.raw.startswith("éé") and told.input.raw.endswith(f"of {MAX_MESSAGE_BYTES:,} characters]")
    assert "… [cut: " in told.input.raw and len(told.input.raw.encode()) < MAX_MESSAGE_BYTES
    alice.close(), bob.close()
    report = replay(tmp_path / "bob.db", plugins=builtin_plugins(LongWindedPlugin()))
    assert report.ok, report.summary()


def test_a_messages_data_is_every_field_in_order():
    """``Message.to_data`` writes its fields out by hand (it runs a few times a message tick): a field added
    to the class must appear there too, or the journal's ``message`` external would lose it."""
    import attrs

    from agi_core.messaging.envelope import Message, from_data

    message = Message("m1", "alice", "bob", "hello", "c1", "m0")
    assert list(message.to_data().items()) == list(attrs.asdict(message).items())
    assert from_data(message.to_data()) == message


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_message_is_refused_by_the_sender_not_dropped_by_the_recipient(tmp_path, hub, text):
    """agi send bob "" said "queued"; bob then dropped it with a warning (a message with no text)."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    ticks = alice.tick_count
    with pytest.raises(MessageRejected, match="the message to 'bob' is empty; say what to send"):
        alice.command("send_message", {"to": "bob", "text": text})
    assert alice.tick_count == ticks and bob.tick() is None
    alice.close(), bob.close()


def test_a_second_database_under_an_open_agents_name_is_refused_until_it_closes(tmp_path, hub):
    from agi_core.messaging.transport import NameInUse

    (tmp_path / "first").mkdir(), (tmp_path / "second").mkdir()
    first, bob = _agent(tmp_path / "first", "alice", hub), _agent(tmp_path, "bob", hub)
    with pytest.raises(NameInUse) as refused:
        _agent(tmp_path / "second", "alice", hub)
    assert str(refused.value) == (
        f"agent name 'alice' is in use on {hub} by an agent of another database; close that kernel or open this one "
        "on another hub (two databases with one name would take each other's messages)"
    )
    again = Kernel.open(tmp_path / "first" / "alice.db", messaging=hub)  # the same database twice: one holder
    bob.command("send_message", {"to": "alice", "text": "one"})
    assert first.tick().input.raw == "one"
    again.close(), first.close()
    second = _agent(tmp_path / "second", "alice", hub)  # free once the first database's kernels are closed
    bob.command("send_message", {"to": "alice", "text": "two"})
    assert second.tick().input.raw == "two"
    second.close(), bob.close()


def test_messages_sent_after_a_rollback_or_by_an_agent_recreated_under_its_name_arrive(tmp_path, hub):
    """Message ids came from the seed and the tick alone: after a rollback, or from a new database under the
    same name (the default seed), bob minted the id of a message alice had received, and his new message was
    dropped as a duplicate (by the hub, JetStream's duplicate window, and alice's inbox) after "queued"."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    bob.checkpoint("before")
    first = bob.command("send_message", {"to": "alice", "text": "the meeting is at 3"})
    assert alice.tick().input.raw == "the meeting is at 3"
    bob.rollback("before")
    second = bob.command("send_message", {"to": "alice", "text": "the meeting moved to 5"})
    assert (
        second.tick == first.tick
        and second.agent_outputs["send_message"]["id"] != first.agent_outputs["send_message"]["id"]
    )
    assert alice.tick().input.raw == "the meeting moved to 5"
    bob.close()
    (tmp_path / "new").mkdir()
    again = _agent(tmp_path / "new", "bob", hub)  # a new database under bob's name: the same seed, the same ticks
    third = again.command("send_message", {"to": "alice", "text": "hello from the new bob"})
    assert third.tick == first.tick
    assert alice.tick().input.raw == "hello from the new bob"
    again.close()
    alice.close()
    for db in (tmp_path / "bob.db", tmp_path / "new" / "bob.db", tmp_path / "alice.db"):
        report = replay(db)  # the salt is recorded: replay mints the same ids without a transport
        assert report.ok, report.summary()


def test_a_rollback_by_another_connection_salts_the_next_message_anew(tmp_path, hub):
    """The salt is kept between ticks (it was read on every sending tick), so a rollback made through
    another connection of bob's database (another process's, as `agi rollback` beside `agi run --follow`)
    must still change it: the kernel reads it again after another connection's commit."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    bob.checkpoint("before")
    first = bob.command("send_message", {"to": "alice", "text": "the meeting is at 3"})
    assert alice.tick().input.raw == "the meeting is at 3"
    other = Kernel.open(tmp_path / "bob.db")  # no message box: the rollback alone
    other.rollback("before")
    other.close()
    second = bob.command("send_message", {"to": "alice", "text": "the meeting moved to 5"})
    assert second.tick == first.tick
    assert second.agent_outputs["send_message"]["id"] != first.agent_outputs["send_message"]["id"]
    assert alice.tick().input.raw == "the meeting moved to 5"
    bob.close()
    alice.close()
    assert replay(tmp_path / "bob.db").ok


def test_a_sending_tick_reads_no_journal_archive_and_the_salt_is_read_once_until_a_reload(tmp_path, hub):
    """The salt was read on every tick that sent a message, and read by iterating every archived journal row:
    after a rollback of 2,000 ticks each reply cost 4.6 ms. It is counted once, then kept until the kernel
    reloads (a rollback, another connection's commit)."""
    alice, bob = _agent(tmp_path, "alice", hub), _agent(tmp_path, "bob", hub)
    bob.checkpoint("before")
    for n in range(5):
        bob.tick(f"{n}+1")
    bob.rollback("before")
    statements: list[str] = []
    bob.conn.set_trace_callback(statements.append)
    said = [bob.command("send_message", {"to": "alice", "text": f"note {n}"}) for n in range(3)]
    bob.conn.set_trace_callback(None)
    archive = [sql for sql in statements if "journal_archive" in sql]
    assert archive == ["SELECT count(*) FROM journal_archive"]
    assert len({record.agent_outputs["send_message"]["id"] for record in said}) == 3
    assert [alice.tick().input.raw for _ in said] == ["note 0", "note 1", "note 2"]
    bob.close()
    alice.close()
    assert replay(tmp_path / "bob.db").ok
