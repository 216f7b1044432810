"""AgentOne's memory as the seed gives it: 200-item short-term memory, 0.7·similarity + 0.3·importance
ranking (selectable), and the importance rules for clock percepts and tool calls (issue 22 item 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agi_core.brain import llm_context
from agi_core.longterm.episodes import importance_of
from agi_core.longterm.importance import BASE, TIME_BASE, TOOL_CALL_BONUS
from agi_core.longterm.short_term import SHORT_TERM_ITEMS, short_term
from agi_core.testing import open_kernel


def _agi(db: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", "a1", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )


def test_the_short_term_memory_holds_the_newest_200_interactions(tmp_path: Path) -> None:
    with open_kernel(tmp_path / "a.db", seed="a1") as kernel:
        for n in range(SHORT_TERM_ITEMS // 2 + 1):  # 101 ticks: 202 interactions (percept and action each)
            kernel.tick(f"note {n}")
        items = short_term(kernel.store)
    assert len(items) == SHORT_TERM_ITEMS == 200
    assert items[0] == "user: note 1" and items[-2] == "user: note 100"  # note 0 and its reply were forgotten
    assert items[1].startswith("agent: ") and items[-1].startswith("agent: ")


def test_the_prompt_sends_the_newest_turns_that_fit() -> None:
    turns = [f"user: line {n}" for n in range(SHORT_TERM_ITEMS)]
    context, report = llm_context.bounded({"recent_turns": turns}, tokens=40)
    kept = context["recent_turns"]
    assert kept and kept[-1] == "user: line 199" and kept == turns[-len(kept) :]
    assert report["omitted"] == {"recent_turns": SHORT_TERM_ITEMS - len(kept)}


def _importances(db: Path) -> dict[str, float]:
    with open_kernel(db, seed="a1") as kernel:
        memory = kernel.long_term_memory(caught_up=True)
        return {item.text: item.importance for item in memory.items(range(1, 50)).values()}


def test_clock_ticks_are_no_memories_and_tool_calls_get_the_seeds_importance(tmp_path: Path) -> None:
    """An idle ``agi run --follow`` ticks the clock every 30 s: mirrored, an idle day was 5,760 memories that
    said only the time, all embedded inside the first question's tick (58 s). A clock tick is bookkeeping."""
    db = tmp_path / "a.db"
    with open_kernel(db, seed="a1") as kernel:
        for second in ("00", "30"):
            assert kernel.tick(f"clock 2026-11-25T16:00:{second}.000Z", source="clock").final_output.startswith(
                "Time noted: "
            )
        kernel.tick("/clock")  # a tool call: the +0.3 bonus, which was never applied before
        kernel.tick("the sky looks grey today")
    importance = _importances(db)
    assert [text for text in importance if text.startswith(("clock ", "Time noted"))] == []
    assert importance["/clock"] == pytest.approx(BASE + TOOL_CALL_BONUS)
    assert importance["the sky looks grey today"] == BASE
    assert importance_of("clock 2026-11-25T16:00:00.000Z", "clock", 0) == TIME_BASE == 0.4  # a time update's base


def test_a_journal_whose_clock_ticks_were_memories_replays_equal(tmp_path: Path, monkeypatch) -> None:
    """Searches are recorded externals: a journal written while clock ticks were mirrored replays equal."""
    import agi_plugin_retrieval.plugin as retrieval

    from agi_core.longterm import episodes
    from agi_core.memory.bookkeeping import is_command_record
    from agi_core.replay import replay
    from agi_core.testing import builtin_plugins

    db = tmp_path / "old.db"
    with monkeypatch.context() as patched:
        patched.setattr(episodes, "is_bookkeeping_input", is_command_record)  # the rule before
        with open_kernel(db, retrieval, seed="a1") as kernel:
            kernel.tick("my sister Maya plays the cello")
            kernel.tick("clock 2026-11-25T16:00:00.000Z", source="clock")
            asked = kernel.tick("what time was noted?")
            clocked = [item.text for item in kernel.long_term_memory(caught_up=True).items(range(1, 50)).values()]
    assert "clock 2026-11-25T16:00:00.000Z" in clocked and "ltm" in str(asked.externals)
    assert replay(db, plugins=builtin_plugins(retrieval)).ok


def test_agentone_ranking_is_selectable_by_option_and_by_setting(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    lines = "I walked the dog in the park\nplease remember that I walked the dog in the park\n"
    assert _agi(db, "run", stdin=lines).returncode == 0
    query = ("memory", "search", "walked the dog in the park", "--json", "--k", "2")
    hybrid = json.loads(_agi(db, *query).stdout)
    ranked = _agi(db, *query, "--rank", "agentone")
    assert ranked.returncode == 0, ranked.stderr
    agentone = json.loads(ranked.stdout)
    for hit in agentone:  # relevance = 0.7 × similarity + 0.3 × importance, exactly
        assert hit["score"] == pytest.approx(0.7 * hit["breakdown"]["dense"] + 0.3 * hit["importance"], abs=1e-5)
    assert [h["score"] for h in agentone] != [h["score"] for h in hybrid]
    assert _agi(db, "config", "set", "longterm.rank", "agentone").returncode == 0
    by_setting = json.loads(_agi(db, *query).stdout)
    assert [(h["id"], h["score"]) for h in by_setting] == [(h["id"], h["score"]) for h in agentone]
    bad = _agi(db, *query, "--rank", "best")
    assert bad.returncode != 0 and "best" in bad.stderr


def test_goal_steps_of_the_follow_loop_are_no_memories_as_agi_goals_step_is_none(tmp_path: Path) -> None:
    """``agi goals step`` runs a command tick (source ``event``): bookkeeping, never mirrored. ``agi run --follow
    --step-every`` ran the same command with source ``goal:ID``, and each step and its reply became memories."""
    from agi_core.scheduling.clock import PinnedClock, SimulatedClock
    from agi_core.scheduling.follow import Follow

    db, sim = tmp_path / "a.db", SimulatedClock(1_795_000_000_000)
    with open_kernel(db, seed="a1", clock=PinnedClock(sim)) as kernel:
        kernel.tick("the sky looks grey today")
        steps = ["what is 2+2?", "what is 3+3?"]
        gid = kernel.command("goal_add", {"title": "do sums", "steps": steps}).agent_outputs["goal_add"]["id"]
        loop = Follow(kernel, step_every_ms=10_000, idle_sleep_s=1.0)
        [stepped] = list(loop.run(until=lambda: sim.ms >= 1_795_000_000_000 + 15_000))
        assert (stepped.input.source, stepped.final_output) == (f"goal:{gid}", f"Step 1 of goal {gid}: 2+2 = 4")
        [by_hand] = kernel.command_ticks("goal_step", {})
        assert by_hand.input.source == "event" and by_hand.final_output.startswith(f"Step 2 of goal {gid}: 3+3 = 6")
    assert list(_importances(db)) == ["the sky looks grey today"]  # (its reply is F3, no memory either)


def test_a_journal_whose_follow_goal_steps_were_memories_replays_equal(tmp_path: Path, monkeypatch) -> None:
    """Searches are recorded externals: a journal written while the follow loop's goal steps were mirrored."""
    import agi_plugin_retrieval.plugin as retrieval

    from agi_core.longterm import episodes
    from agi_core.memory.bookkeeping import is_bookkeeping_input
    from agi_core.replay import replay
    from agi_core.scheduling.clock import PinnedClock, SimulatedClock
    from agi_core.scheduling.follow import Follow
    from agi_core.testing import builtin_plugins

    def before(text: str, source: str | None) -> bool:  # the rule before: a goal:ID source was no command
        return not (source or "").startswith("goal:") and is_bookkeeping_input(text, source)

    db, sim = tmp_path / "old.db", SimulatedClock(1_795_000_000_000)
    with monkeypatch.context() as patched:
        patched.setattr(episodes, "is_bookkeeping_input", before)
        with open_kernel(db, retrieval, seed="a1", clock=PinnedClock(sim)) as kernel:
            kernel.tick("my sister Maya plays the cello")
            kernel.command("goal_add", {"title": "do sums", "steps": ["what is 2+2?"]})
            assert (
                len(
                    list(
                        Follow(kernel, step_every_ms=10_000, idle_sleep_s=1.0).run(
                            until=lambda: sim.ms >= 1_795_000_000_000 + 15_000
                        )
                    )
                )
                == 1
            )
            sim.advance(1)
            kernel.config.clock.refresh()
            asked = kernel.tick("what was the goal step?")
            kept = [item.text for item in kernel.long_term_memory(caught_up=True).items(range(1, 50)).values()]
    assert any(text.startswith("goal_step {") for text in kept) and "ltm" in str(asked.externals)
    assert replay(db, plugins=builtin_plugins(retrieval)).ok
