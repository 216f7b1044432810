""" "how many goals do I have?" and "what is my active goal?" are answered from the goal store by the goal agent
(the ``goal_asks`` parse change), through a real kernel and SQLite file."""

from __future__ import annotations

import pytest

from agi_core.replay import replay
from agi_core.scheduling.goal_phrases import goal_request
from agi_core.scheduling.goals import all_goals
from agi_core.testing import builtin_plugins, open_kernel


def test_goals_are_counted_by_status_and_the_active_one_named(tmp_path):
    db = tmp_path / "agent.db"
    with open_kernel(db) as kernel:
        none = [kernel.tick(line).final_output for line in ("how many goals do I have?", "what is my active goal?")]
        kernel.tick("my goal is to learn Spanish")
        kernel.tick("my goal is to run a marathon")
        kernel.tick("done: learn Spanish")
        kernel.tick("my goal is to read Dune")
        counted = kernel.tick("How many goals do I have?").final_output
        named = kernel.tick("what's my active goal?").final_output
        [dune] = [goal for goal in all_goals(kernel.store) if goal.description == "read Dune"]
        answered = kernel.tick("which goal is active?").final_output
    assert none == [
        "You have no goals yet; tell me one, e.g. 'my goal is to learn French'.",
        "No goal is active: you have no goals yet; tell me one, e.g. 'my goal is to learn French'.",
    ]
    assert counted == "You have 3 goals: 1 active, 1 open, 1 done."
    assert named == answered == f"Your active goal is read Dune ({dune.id}, priority 0.5, progress 0%, step 0/1)."
    assert replay(db, plugins=builtin_plugins()).ok


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("how many goals do I have?", "count"),
        ("How many goals have I got", "count"),
        ("how many goals", "count"),
        ("what is my active goal?", "active"),
        ("What's my current goal", "active"),
        ("which goal is active?", "active"),
    ],
)
def test_the_goal_questions_are_read(line, kind):
    assert goal_request(line) == (kind, "")
    assert goal_request(line, new_asks=False) is None
