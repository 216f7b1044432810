"""Stage-0's test of whether a line reads otherwise under older parse rules (``facts.reads_otherwise``): never
wrong, and cheap for the usual line.

``reads_otherwise`` skips the parses when no part of the line may differ (``MAY_DIFFER`` and the precise tests
beside it). Skipping a line that does differ would make a journal from before replay it the new way (a
``REPLAY_MISMATCH``), so every line of the fixture journals, the tests' and the questions benchmark's is checked
against all the older parses.
"""

from __future__ import annotations

import json
from pathlib import Path

from agi_core.brain.stage0 import facts

ROOT = Path(__file__).resolve().parents[1]


def _lines() -> list[str]:
    found: set[str] = set()
    for path in (ROOT / "tests" / "journals").rglob("*.jsonl"):
        for row in path.read_text(encoding="utf-8").splitlines():
            raw = (json.loads(row).get("record") or {}).get("input", {}).get("raw")
            if isinstance(raw, str):
                found.add(raw)
    for path in (ROOT / "benchmarks" / "questions").glob("*.jsonl"):
        for row in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(row)
            found.update(value for value in case.values() if isinstance(value, str))
            found.update(line for line in case.get("setup", []) if isinstance(line, str))
    return sorted(found)


def test_every_line_that_an_older_rule_parses_otherwise_is_seen():
    lines = _lines()
    assert len(lines) > 300
    missed = [
        line
        for line in lines
        if not facts.reads_otherwise(line)
        and any(facts.parsed_under(line, rules) != facts.parse(line) for rules in range(len(facts.CHANGES)))
    ]
    assert missed == []


def test_the_usual_question_is_not_parsed_again_under_older_rules():
    """A substring test of the chat markers ("ha", ":") matched every "what …" question: each was parsed under
    every older rule set (15 parses), a 30 % slower tick for the question lines of tick_throughput.py."""
    for line in ("what is my favorite color?", "what is the capital of France?", "meet me at 10:30 please"):
        before = facts._parse.cache_info().misses
        assert facts.reads_otherwise(line) is False
        assert facts._parse.cache_info().misses == before, line
    assert facts.reads_otherwise("my name is Dan lol") is True  # the chat_markers change reads it otherwise
