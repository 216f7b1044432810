"""A module that stored None reads None back, not the default it passes for a missing key."""

from __future__ import annotations

from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule, ModuleContext
from agi_core.modules.state import OWN_NULL_READ, ModuleState
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


class Last(CognitiveModule):
    """Remembers the last number the user said, None for a line without one ("no number yet" is the default)."""

    name = "last"

    def observe(self, ctx: ModuleContext) -> None:
        before = ctx.own.get("number", "never asked")
        ctx.own.put("seen", before)
        words = [word for word in ctx.text.split() if word.isdigit()]
        ctx.own.put("number", int(words[0]) if words else None)
        ctx.own.put("same_call", ctx.own.get("number", "never asked"))  # the call's own pending null


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Last())


def state_writes(record):
    return next(call["state"] for call in record.modules["calls"] if call["module"] == "last")


def test_a_stored_null_reads_as_none_a_missing_key_as_the_default_and_replays_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as kernel:
        first = kernel.tick("hello")
        second = kernel.tick("hello again")
        third = kernel.tick("I am 42")
        fourth = kernel.tick("bye")
    assert [w["value"] for w in state_writes(first)] == ["never asked", None, None]
    assert [w["value"] for w in state_writes(second)] == [None, None, None]
    assert [w["value"] for w in state_writes(fourth)] == [42, None, None]
    assert first.externals[OWN_NULL_READ] == [{"module": "last", "key": "number"}]  # the call's own null
    assert second.externals[OWN_NULL_READ] == [{"module": "last", "key": "number"}] * 2
    assert third.externals[OWN_NULL_READ] == fourth.externals[OWN_NULL_READ] == [{"module": "last", "key": "number"}]
    assert replay(db, plugins=builtin_plugins(Plugin())).ok


def test_a_journal_from_before_that_read_a_stored_null_as_the_default_replays_equal(tmp_path, monkeypatch):
    """The journal older code wrote: a stored null read as the default, no external recorded."""
    db = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(ModuleState, "_null_is_none", lambda state, key: False)
        with open_kernel(db, Plugin()) as kernel:
            kernel.tick("hello")
            second = kernel.tick("hello again")
    assert [w["value"] for w in state_writes(second)] == ["never asked", None, "never asked"]
    assert OWN_NULL_READ not in second.externals
    assert replay(db, plugins=builtin_plugins(Plugin())).ok


def test_a_backend_written_before_default_still_serves_its_state_reading_a_stored_null_as_missing(tmp_path):
    from agi_core.memory.sqlite_store import SqliteStore

    class OldBackend(SqliteStore):
        def module_state_get(self, module, key):  # the protocol before ``default``
            return super().module_state_get(module, key)

    store = OldBackend(tmp_path / "old.db")
    try:
        with store.tick_transaction():
            store.module_state_put("last", "number", None, 1)
            store.module_state_put("last", "seen", 3, 1)
        state = ModuleState(store, "last", 2, None, lambda: None)
        assert (state.get("number", "default"), state.get("seen", 0), state.get("none", 0)) == ("default", 3, 0)
    finally:
        store.close()
