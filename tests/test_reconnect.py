"""A tick whose server went away is retried only if it did not commit (agi_core.memory.reconnect).

The real thing, a PostgreSQL server restarted under a running agent, is tested against a real
server in plugins/agi-plugin-postgres/tests/test_server_restart.py. Two cases cannot be provoked
there at will: a connection lost *after* the server committed (the client cannot tell the commit
happened), and one lost just before. ``FakeLostConnectionStore`` makes them on SQLite: a store
whose transaction raises BackendUnavailable once, before or after a real commit.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator

import attrs
import pytest

from agi_core.errors import BackendUnavailable
from agi_core.hookspecs import hookimpl
from agi_core.integrity import verify_agent
from agi_core.memory.reconnect import Reconnect
from agi_core.memory.sqlite_store import SqliteStore
from agi_core.testing import open_kernel


class FakeLostConnectionStore(SqliteStore):
    """A fake: ``lose = "before"|"after"`` makes the next tick transaction raise BackendUnavailable
    just before or just after its real commit; ``away`` more tries of ``reconnect()`` fail first."""

    lose: str | None = None
    away = 0
    reconnects = 0

    @contextlib.contextmanager
    def tick_transaction(self) -> Iterator[None]:
        lose, FakeLostConnectionStore.lose = FakeLostConnectionStore.lose, None
        with super().tick_transaction():
            yield
            if lose == "before":
                raise BackendUnavailable("fake server away before the commit")
        if lose == "after":
            raise BackendUnavailable("fake server away after the commit")

    def reconnect(self) -> None:
        FakeLostConnectionStore.reconnects += 1
        if FakeLostConnectionStore.away > 0:
            FakeLostConnectionStore.away -= 1
            raise BackendUnavailable("fake server still away")


@hookimpl
def agi_register_memory_backends(register):
    register(FakeLostConnectionStore, name="fake_lost_connection")


PLUGIN = types.SimpleNamespace(agi_register_memory_backends=agi_register_memory_backends, __name__="fake_lost")


@pytest.fixture
def kernel(tmp_path):
    FakeLostConnectionStore.lose, FakeLostConnectionStore.away, FakeLostConnectionStore.reconnects = None, 0, 0
    k = open_kernel(tmp_path / "a.db", PLUGIN, backend="fake_lost_connection", reconnect_s=5.0)
    k.tick("hello")
    yield k
    k.close()


def _inputs(kernel) -> list[str]:
    return [record.split('"raw":"')[1].split('"')[0] for _t, _i, record, _c in kernel.store.journal_rows()]


def test_a_tick_whose_commit_was_lost_is_not_run_again(kernel, capfd):
    FakeLostConnectionStore.lose = "after"
    record = kernel.tick("my favorite color is green")
    assert record is not None and record.tick == 2
    assert _inputs(kernel) == ["hello", "my favorite color is green"]  # once, not twice
    assert kernel.tick("what is my favorite color?").tick == 3
    assert verify_agent(kernel.store, kernel.journal_key).ok
    err = capfd.readouterr().err.splitlines()
    assert err == [
        "agi: fake server away after the commit; retrying for up to 5 s",
        "agi: reconnected after 0.1 s; going on",
    ]


def test_a_tick_lost_before_its_commit_runs_again_once(kernel, capfd):
    FakeLostConnectionStore.lose, FakeLostConnectionStore.away = "before", 2
    record = kernel.tick("my favorite color is green")
    assert record is not None and record.tick == 2
    assert _inputs(kernel) == ["hello", "my favorite color is green"]
    assert FakeLostConnectionStore.reconnects == 3  # away twice, then back
    assert kernel.tick("what is my favorite color?").final_output.endswith("green.")
    assert verify_agent(kernel.store, kernel.journal_key).ok
    assert capfd.readouterr().err.splitlines() == [
        "agi: fake server away before the commit; retrying for up to 5 s",
        "agi: reconnected after 0.7 s; going on",  # 0.1 + 0.2 + 0.4 s of backoff
    ]


def test_waiting_is_bounded_and_the_agent_goes_on_after(kernel, capfd):
    kernel.config = attrs.evolve(kernel.config, reconnect_s=1.0)
    FakeLostConnectionStore.lose, FakeLostConnectionStore.away = "before", 1000
    with pytest.raises(BackendUnavailable) as caught:
        kernel.tick("my favorite color is green")
    assert str(caught.value) == (
        "fake server still away; gave up after 1 s; start the server, then run the command again"
    )
    assert FakeLostConnectionStore.reconnects == 4  # after 0.1, 0.3, 0.7 and 1.0 s: the limit bounds the wait
    FakeLostConnectionStore.away = 0  # the server is back: the next tick numbers and chains from what is stored
    assert kernel.tick("my favorite color is blue").tick == 2
    assert _inputs(kernel) == ["hello", "my favorite color is blue"]
    assert verify_agent(kernel.store, kernel.journal_key).ok
    assert capfd.readouterr().err.splitlines() == [
        "agi: fake server away before the commit; retrying for up to 1 s",
    ]


def test_a_backend_without_reconnect_is_not_waited_for(tmp_path):
    error = BackendUnavailable("away")
    with pytest.raises(BackendUnavailable) as caught:
        Reconnect(object(), 60.0).wait(error)
    assert caught.value is error
