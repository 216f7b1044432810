"""One tick, one transaction: a tick is stored entirely or not at all."""

from __future__ import annotations

import pytest

from agi_core.errors import StorageError
from agi_core.hookspecs import hookimpl
from agi_core.model import PLAN_STEPS_MAX, Plan
from agi_core.testing import open_kernel


def _counts(kernel):
    conn = kernel.store.conn
    return {
        table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("facts", "episodes", "journal")
    }


def test_a_failing_journal_write_rolls_back_the_whole_tick(agi_kernel):
    agi_kernel.tick("my favorite color is red")
    before, counter = _counts(agi_kernel), agi_kernel.determinism.counter
    agi_kernel.store.conn.execute(
        "CREATE TRIGGER fail_journal BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'journal full'); END"
    )
    with pytest.raises(StorageError, match="journal full"):
        agi_kernel.tick("my favorite color is blue")
    assert _counts(agi_kernel) == before
    assert agi_kernel.get_fact("user/person/self/favorite_color").value == "red"
    assert (agi_kernel.determinism.counter, agi_kernel.tick_count) == (counter, 1)
    agi_kernel.store.conn.execute("DROP TRIGGER fail_journal")
    assert agi_kernel.tick("what is my favorite color?").tick == 2


def test_every_tick_stores_input_and_action_episodes_and_one_journal_record(agi_kernel):
    agi_kernel.tick("2+2")
    episodes = agi_kernel.store.episodes()
    assert [(e.event, e.context["kind"]) for e in episodes] == [("2+2", "input"), ("2+2 = 4", "action")]
    assert _counts(agi_kernel)["journal"] == 1


class _LongPlanBrain:
    name = "long_planner"

    def __init__(self, kernel):
        self.inner = kernel.plugins.collect("agi_register_brains")["stage0"].obj(kernel)

    def reason(self, ctx):
        import attrs

        decision = self.inner.reason(ctx)
        return attrs.evolve(decision, plan=Plan(steps=[f"step {i}" for i in range(25)]))


class _LongPlanPlugin:
    @hookimpl
    def agi_register_brains(self, register):
        register(_LongPlanBrain, name="long_planner")


def test_a_plan_over_twenty_steps_asks_for_confirmation_instead_of_acting(tmp_path):
    with open_kernel(tmp_path / "a.db", _LongPlanPlugin(), brain="long_planner") as kernel:
        record = kernel.tick("my favorite color is red")
    assert len(record.plan.steps) == PLAN_STEPS_MAX
    assert record.final_output.startswith(
        "This needs 25 steps; plans over 20 steps need a subgoal or your confirmation"
    )
    assert record.action.type == "response"


def test_unknown_brain_is_a_config_error(tmp_path):
    from agi_core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"no brain named 'nope'; installed brains: llm, stage0"):
        open_kernel(tmp_path / "a.db", brain="nope")


def test_the_memory_backend_comes_from_the_plugin_registry(tmp_path):
    from agi_core.errors import ConfigError

    with open_kernel(tmp_path / "a.db") as kernel:
        assert type(kernel.store).__name__ == "SqliteStore"
    with pytest.raises(ConfigError, match="no memory backend named 'postgres'; installed: sqlite"):
        open_kernel(tmp_path / "b.db", backend="postgres")
