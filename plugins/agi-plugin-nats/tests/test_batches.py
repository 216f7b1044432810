"""Batches on NATS: a group's messages published at once (acks awaited together) arrive once and in order;
a prefetched batch that an agent closes on comes again at once, not after the ack wait."""

from __future__ import annotations

import time

from agi_core import Kernel, Plugins


def _agent(folder, name, url):
    import agi_plugin_nats.plugin as nats_plugin

    kernel = Kernel.open(folder / f"{name}.db", messaging=url, plugins=Plugins.builtins(nats_plugin))
    kernel.command("set_name", {"name": name})
    return kernel


def _taken(kernel, count, within_s):
    """The inputs of ``count`` message ticks of ``kernel``, waiting at most ``within_s``."""
    taken, end = [], time.monotonic() + within_s
    while len(taken) < count and time.monotonic() < end:
        record = kernel.tick()
        if record is not None:
            taken.append(record.input.raw)
    return taken


def test_a_group_of_sends_arrives_once_and_in_order(tmp_path, deployment):
    alice, bob = _agent(tmp_path, "alice", deployment), _agent(tmp_path, "bob", deployment)
    with alice.group_commit():
        for n in range(40):
            alice.command("send_message", {"to": "bob", "text": f"note {n}"})
    alice.mailbox.flush(leave_in_flight=False)  # waits for the confirmations of the rows in flight
    unpublished = alice.store.outbox_unpublished()
    assert unpublished == [], f"{len(unpublished)} rows not confirmed by JetStream"
    assert _taken(bob, 40, 30) == [f"note {n}" for n in range(40)]
    assert _taken(bob, 1, 2.5) == []  # past the ack wait (1 s): nothing comes twice
    alice.close(), bob.close()


def test_a_prefetched_batch_comes_again_at_once_after_a_close(tmp_path, nats_url):
    url = f"{nats_url}/t{time.monotonic_ns()}?ack_wait=60"  # a redelivery after the ack wait would be too late
    alice, bob = _agent(tmp_path, "alice", url), _agent(tmp_path, "bob", url)
    with alice.group_commit():
        for n in range(20):
            alice.command("send_message", {"to": "bob", "text": f"note {n}"})
    alice.mailbox.flush(leave_in_flight=False)
    assert _taken(bob, 16, 30) == [f"note {n}" for n in range(16)]  # one batch; the next one is being fetched
    bob.close()
    bob = _agent(tmp_path, "bob", url)
    assert _taken(bob, 4, 10) == [f"note {n}" for n in range(16, 20)]
    alice.close(), bob.close()


def test_the_url_sets_the_batch_and_a_bad_one_is_one_line(tmp_path, nats_url):
    import pytest

    from agi_core.errors import ConfigError

    url = f"{nats_url}/t{time.monotonic_ns()}?ack_wait=1&batch=64"
    alice, bob = _agent(tmp_path, "alice", url), _agent(tmp_path, "bob", url)
    with alice.group_commit():
        for n in range(40):
            alice.command("send_message", {"to": "bob", "text": f"note {n}"})
    alice.mailbox.flush(leave_in_flight=False)
    assert bob.tick().input.raw == "note 0"
    assert len(bob.mailbox._ready) == 39  # all 40 in one fetch (16 without ?batch=)
    assert _taken(bob, 39, 30) == [f"note {n}" for n in range(1, 40)]
    alice.close(), bob.close()
    with pytest.raises(ConfigError, match=r"batch in .* is not a whole number from 1 to 256; write \?batch=16"):
        _agent(tmp_path, "carol", f"{nats_url}/x?batch=0")
    # an ack wait of 0 or less (or NaN) made an idle agent spin a core (its in-progress loop slept ack_wait / 3)
    for wait in ("0", "-1", "nan", "inf"):
        with pytest.raises(ConfigError, match=r"ack_wait in .* must be at least 0.1 s; write \?ack_wait=30"):
            _agent(tmp_path, "carol", f"{nats_url}/x?ack_wait={wait}")
    with pytest.raises(ConfigError, match=r"unknown option 'batc' in .*; the options are ack_wait, batch and lease"):
        _agent(tmp_path, "carol", f"{nats_url}/x?batc=32")  # a typo was ignored: the default stood


def test_a_batch_held_past_the_ack_wait_is_not_delivered_again(tmp_path, deployment):
    """An agent whose ticks are slow (an LLM brain) holds a fetched batch, and the prefetched one, past the
    ack wait (1 s here): the broker is told they are in progress, so nothing is delivered twice meanwhile."""
    alice, bob = _agent(tmp_path, "alice", deployment), _agent(tmp_path, "bob", deployment)
    with alice.group_commit():
        for n in range(3):
            alice.command("send_message", {"to": "bob", "text": f"note {n}"})
    alice.mailbox.flush(leave_in_flight=False)
    transport = bob.mailbox.transport
    held, end = [], time.monotonic() + 10
    while len(held) < 3 and time.monotonic() < end:
        held += transport.fetch(0.5)
    assert [d.message.text for d in held] == ["note 0", "note 1", "note 2"]
    time.sleep(2.5)  # the ticks of the batch: 2.5 ack waits
    transport.ack_all(held)
    again, end = [], time.monotonic() + 2.5  # past another ack wait
    while time.monotonic() < end:
        again += transport.fetch(0.5)
    assert again == []
    alice.close(), bob.close()
