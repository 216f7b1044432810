"""Issue 18 item 7: a goal command reads only the goals it needs (indexed reads, the ancestors in one
query), never the whole table, on a real SQLite file; the conversational reply stays short.

The statements are counted with SQLite's own trace callback on the store's connection; the
speed itself is measured by ``benchmarks/goals_scale.py``, never here.
"""

from __future__ import annotations

import re

import pytest

from agi_core.errors import ValidationError
from agi_core.kernel import Kernel
from agi_core.scheduling.goals import all_goals, get
from agi_core.testing.conformance.harness import goal

DEPTH, COUNT = 60, 300
FULL_READ = re.compile(r"^SELECT id, parent, description\b[^()]* FROM goals ORDER BY seq$")  # every row, whole


def _agent(tmp_path):
    """An agent with COUNT goals: a chain DEPTH deep (g-00000000 at the top) and the rest at the top."""
    kernel = Kernel.open(tmp_path / "agent.db", seed="scale")
    kernel.command("goal_add", {"title": "the active goal", "steps": ["list files"]})
    with kernel.store.tick_transaction():
        for index in range(COUNT):
            parent = f"g-{index - 1:08x}" if 0 < index < DEPTH else None
            kernel.store.put_goal(goal(f"g-{index:08x}", "open") | {"parent": parent, "updated_tick": 1})
    return kernel


def _goal_statements(kernel, run):
    seen: list[str] = []
    kernel.store.conn.set_trace_callback(seen.append)
    try:
        run()
    finally:
        kernel.store.conn.set_trace_callback(None)
    return [text for text in seen if re.search(r"\bgoals\b", text) and "_agi_seal_rows" not in text]


def test_goal_commands_read_only_the_goals_they_need(tmp_path):
    kernel = _agent(tmp_path)
    deepest = f"g-{DEPTH - 1:08x}"
    with kernel:
        for name, args in [
            ("goal_add", {"title": "one more", "parent": deepest, "steps": ["list files"]}),
            ("goal_move", {"id": f"g-{COUNT - 1:08x}", "parent": deepest}),
            ("goal_set", {"id": f"g-{COUNT - 1:08x}", "status": "done"}),
        ]:
            said = _goal_statements(kernel, lambda n=name, a=args: kernel.command(n, a))
            assert [text for text in said if FULL_READ.search(text)] == [], name  # before: dozens of full reads
            # one read per ancestor and its subgoals at most (done: DEPTH levels), else a handful
            assert len(said) <= (3 * DEPTH + 20 if name == "goal_set" else 20), (name, len(said))
        # the done leaf under the chain moved every ancestor's progress, up to the top
        assert [get(kernel.store, f"g-{index:08x}").progress for index in (DEPTH - 1, DEPTH - 2, 0)] == [
            0.5,
            0.5,
            0.5,
        ]
        with pytest.raises(ValidationError, match="goal g-00000000 cannot go under g-0000003b"):
            kernel.command("goal_move", {"id": "g-00000000", "parent": deepest})  # a cycle 60 deep


def test_what_are_my_goals_summarizes_many_goals_in_one_short_reply(tmp_path):
    kernel = _agent(tmp_path)
    with kernel:
        said = _goal_statements(kernel, lambda: kernel.tick("what are my goals?"))
        reply = kernel.tick("what are my goals?").final_output
        [active] = [g for g in all_goals(kernel.store) if g.status == "active"]
    assert [text for text in said if FULL_READ.search(text)] == []
    assert reply.startswith(f"Your goals: {COUNT + 1} (1 active, {COUNT} open). Active: {active.id} [active] ")
    assert " Next: g-00000000 [open] reach g-00000000 (priority 0.5, progress 0%, step 0/1); g-00000001 " in reply
    assert reply.endswith(". All of them: agi goals list.")
    assert reply.count("[open]") == 4 and len(reply) < 1000  # before: every goal, in one line
