"""Group commit on PostgreSQL: a lazy commit is one transaction with ``synchronous_commit`` off, and the
message box takes a fetched batch in such ticks, acknowledging it only after the last one's durable commit."""

from __future__ import annotations

import itertools

import agi_plugin_postgres.plugin as postgres_plugin
from agi_plugin_postgres.store import PostgresStore

from agi_core import Kernel, Plugins
from agi_core.memory.backend import GroupCommit

_hubs = itertools.count()


def test_a_lazy_commit_is_one_transaction_with_synchronous_commit_off(agent_url):
    store = PostgresStore(agent_url("lazy"))
    try:
        assert isinstance(store, GroupCommit)
        store.lazy_commit()
        with store.tick_transaction():
            assert store._one("SHOW synchronous_commit") == ("off",)
        with store.tick_transaction():  # the next one is durable again
            assert store._one("SHOW synchronous_commit") == ("on",)
        store.sync()
    finally:
        store.close()


def test_a_batch_is_acknowledged_after_its_last_tick_commits(agent_url):
    hub = f"memory://postgres-group{next(_hubs)}"
    plugins = Plugins.builtins(postgres_plugin)
    alice = Kernel.open(agent_url("alice"), plugins=plugins, messaging=hub)
    bob = Kernel.open(agent_url("bob"), plugins=plugins, messaging=hub)
    try:
        for n in range(3):
            alice.command("send_message", {"to": bob.mailbox.transport.agent, "text": f"{n}+1"})
        queue = bob.mailbox.transport.hub.queues[bob.mailbox.transport.agent]
        assert [bob.tick().final_output for _ in range(2)] == ["0+1 = 1", "1+1 = 2"]
        assert len(queue) == 3  # two lazy commits: nothing acknowledged yet
        assert bob.tick().final_output == "2+1 = 3"
        assert len(queue) == 0  # the batch's last tick committed durably: all three acknowledged
    finally:
        alice.close()
        bob.close()


def test_a_message_after_a_rollback_is_salted_anew_from_the_archives_count(agent_url):
    """The message salt counts the archived journal rows (``archived_count``: one count, not every row fetched
    into memory on each sending tick); a rollback changes it, so the next message gets a new id and arrives."""
    hub = f"memory://postgres-salt{next(_hubs)}"
    plugins = Plugins.builtins(postgres_plugin)
    alice = Kernel.open(agent_url("alice"), plugins=plugins, messaging=hub)
    bob = Kernel.open(agent_url("bob"), plugins=plugins, messaging=hub)
    try:
        to = alice.mailbox.transport.agent
        bob.checkpoint("before")
        first = bob.command("send_message", {"to": to, "text": "the meeting is at 3"})
        assert alice.tick().input.raw == "the meeting is at 3"
        bob.rollback("before")
        assert bob.store.archived_count() == sum(1 for _ in bob.store.archived_rows()) == 1
        second = bob.command("send_message", {"to": to, "text": "the meeting moved to 5"})
        assert second.agent_outputs["send_message"]["id"] != first.agent_outputs["send_message"]["id"]
        assert alice.tick().input.raw == "the meeting moved to 5"
    finally:
        alice.close()
        bob.close()


def test_a_reply_names_the_question_read_from_the_postgres_outbox(agent_url):
    """``outbox_message`` on PostgreSQL: the message box reads the text of the message a reply answers, so alice's
    tick of bob's reply says what she asked and keeps the reply (docs/messaging.md), and replays equal."""
    hub = f"memory://postgres-reply{next(_hubs)}"
    plugins = Plugins.builtins(postgres_plugin)
    alice = Kernel.open(agent_url("alice"), plugins=plugins, messaging=hub)
    bob = Kernel.open(agent_url("bob"), plugins=plugins, messaging=hub)
    try:
        sent = alice.command("send_message", {"to": bob.mailbox.transport.agent, "text": "what is 2+2?"})
        assert alice.store.outbox_message("no-such-id") is None
        assert bob.tick().final_output == "2+2 = 4"
        told = alice.tick()
        assert told.input.metadata == {"reply_to": sent.agent_outputs["send_message"]["id"], "asked": "what is 2+2?"}
        assert told.final_output == f"Noted {bob.mailbox.transport.agent}'s reply to “what is 2+2?”."
        assert alice.replay().ok
    finally:
        alice.close()
        bob.close()
