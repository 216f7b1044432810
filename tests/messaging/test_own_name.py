"""The sender name a tick's messages carry: the agent's stored name, kept by the kernel between ticks
(Kernel.own_name) and read again whenever the stored state may have changed under it."""

from __future__ import annotations

import itertools
import sqlite3

from agi_core import Kernel

_hubs = itertools.count()


def _sender(record):
    """The sender of the message a ``send_message`` command tick wrote to the outbox."""
    return record.agent_outputs["send_message"]["sender"]


def test_a_rollback_past_the_naming_forgets_the_kept_name(tmp_path):
    hub = f"memory://ownname{next(_hubs)}"
    Kernel.open(tmp_path / "bob.db", messaging=hub).close()  # bob joins, so he can be sent to
    kernel = Kernel.open(tmp_path / "first.db")  # no messaging: not named at open
    kernel.checkpoint("unnamed")
    kernel.command("set_name", {"name": "ada"})
    ada = kernel.command("send_message", {"to": "bob", "text": "one"})
    kernel.rollback("unnamed")  # the naming is undone: the name kept from it must go too
    kernel.command("set_name", {"name": "eve"})
    eve = kernel.command("send_message", {"to": "bob", "text": "two"})
    assert [_sender(ada), _sender(eve)] == ["ada", "eve"]
    kernel.close()


def test_a_name_stored_by_another_connection_is_the_one_sent(tmp_path):
    kernel = Kernel.open(tmp_path / "first.db")
    Kernel.open(tmp_path / "bob.db").close()
    before = kernel.command("send_message", {"to": "bob", "text": "one"})  # unnamed: the file's stem
    other = sqlite3.connect(tmp_path / "first.db")  # another process names it (what set_name stores)
    with other:
        other.execute("INSERT INTO meta (key, value) VALUES ('agent_name', 'zed')")
    other.close()
    after = kernel.command("send_message", {"to": "bob", "text": "two"})
    assert [_sender(before), _sender(after)] == ["first", "zed"]
    kernel.close()


def test_naming_itself_after_sending_unnamed_sends_the_new_name(tmp_path):
    kernel = Kernel.open(tmp_path / "first.db")
    Kernel.open(tmp_path / "bob.db").close()
    before = kernel.command("send_message", {"to": "bob", "text": "one"})  # the file's stem, not kept
    kernel.command("set_name", {"name": "ann"})
    after = kernel.command("send_message", {"to": "bob", "text": "two"})
    assert [_sender(before), _sender(after)] == ["first", "ann"]
    kernel.close()
