"""What ``agi chat`` adds around the ticks: its slash commands and line editing.

``/help``, ``/facts``, ``/goals`` and ``/why`` are views of the stored agent: they run no
tick and change nothing. Every other line (``/clock``, ``/file_list`` and the other tool
commands included) is a tick.

Line editing and history use the standard library's ``readline`` when standard input is
a terminal: it is what ``input()`` already uses, so it costs no dependency and no import
time, and it gives Emacs keys, Ctrl-R search and the arrow keys. The history is kept
beside the database in ``<db>.history`` (mode 0600: it holds what you told the agent).
prompt_toolkit would add completion menus, but also a dependency for every install.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from agi_core.brain.stage0.explain import decision_lines
from agi_core.serialization import dumps

HISTORY_LENGTH = 1000
HELP = """\
Slash commands (they show what is stored and run no tick):
  /help    this list
  /facts   the stored facts, yours (user/...) first
  /goals   the goals: the active one first, then the others, with their plan steps
  /why     the last tick: router decision, selected agents, evidence, council votes
Tool commands run a tick: /clock (the deterministic clock, derived from the seed, not the
wall clock), /file_list, /file_read notes.txt, /file_write notes.txt hello, /NAME arg=value.
Things to say:
  2 + 3 * 4 | what is 12 * 12? | (1 + 2) * 3 | 0.1 + 0.2
  my favorite color is green | what is my favorite color?
  I like hiking | what do I like? | do I like hiking? | I don't like hiking anymore
  the capital of France is Paris | what is the capital of France?
  what do you remember? | read file notes.txt | list files | list files in docs
  why did you say that?
  my goal is to learn French | what are my goals? | next step | I finished learning French
  remind me to call Ada in 10 minutes | remind me to call Ana tomorrow at 9 | ... on Monday at 10am
exit, quit or Ctrl-D leaves."""
NO_GOALS = "no goals yet; tell me one, e.g. 'my goal is to learn French'"


def history_path(db: Path) -> Path:
    return db.with_name(db.name + ".history")


def enable_history(db: Path) -> Callable[[], None] | None:
    """Turn on ``readline`` editing with ``<db>.history`` when stdin is a terminal.

    Returns the function that saves the history, or None when there is no terminal or
    no ``readline`` (Windows): then lines are read without editing.
    """
    if not sys.stdin.isatty():
        return None
    try:
        import readline
    except ImportError:
        return None
    path = history_path(db)
    readline.set_history_length(HISTORY_LENGTH)
    try:
        readline.read_history_file(path)
    except OSError:
        pass  # no history yet

    def save() -> None:
        try:
            readline.write_history_file(path)
            os.chmod(path, 0o600)
        except OSError:
            pass  # a read-only folder: the session still worked

    return save


def forget_last_line() -> None:
    """Keep a y/N answer out of the history (readline records every line read on a terminal)."""
    readline = sys.modules.get("readline")
    if readline is not None and sys.stdin.isatty() and readline.get_current_history_length():
        readline.remove_history_item(readline.get_current_history_length() - 1)


def _facts(kernel: Any) -> list[str]:
    facts = kernel.store.facts("")
    ordered = [f for f in facts if f.key.startswith("user/")] + [f for f in facts if not f.key.startswith("user/")]
    if not ordered:
        return ["no facts stored yet; tell me one, e.g. 'my favorite color is green'"]
    return [f"{fact.key} = {dumps(fact.value)}" for fact in ordered]


def _goals(kernel: Any) -> list[str]:
    from agi_core.scheduling import goals

    order = {"active": 0, "open": 1, "blocked": 2}
    found = sorted(goals.all_goals(kernel.store), key=lambda goal: order.get(goal.status, 3))
    lines = []
    for goal in found:
        lines.append(goals.line(goal))
        lines.extend(f"  {n}. [{step.status}] {step.do}" for n, step in enumerate(goal.plan, 1))
    return lines or [NO_GOALS]


def _why(kernel: Any) -> list[str]:
    rows = list(kernel.store.journal_rows(since=max(kernel.tick_count - 1, 0)))
    if not rows:
        return ["no tick yet; say something first"]
    return decision_lines(orjson.loads(rows[-1][2]))


SLASH_COMMANDS: dict[str, Callable[[Any], list[str]]] = {
    "/help": lambda kernel: HELP.splitlines(),
    "/facts": _facts,
    "/goals": _goals,
    "/why": _why,
}


def slash_command(kernel: Any, line: str) -> list[str] | None:
    """The lines a chat slash command prints, or None if ``line`` is not one (it is a tick)."""
    command = SLASH_COMMANDS.get(line.strip().lower())
    return None if command is None else command(kernel)
