"""How hard and on what autonomy works in a maintenance tick, heuristically (each rule gives way to its
contract's validated model answer):

- ``phenomenal_kernel``: its mood: energy (the hourly budget left), arousal (the worst signal's
  pressure), hedonic reward (the share of lines answered);
- ``phenomenal_mode_manager``: ``travail`` or ``flanerie`` (energy under :data:`FLANERIE_BELOW`):
  in flanerie it proposes no new goal, only upkeep;
- ``system_monitor``: risks (a goal backlog, contradictions), each raising the ``rest`` drive;
- ``trigger_router``: which pipeline the worst signal calls for first (``questions`` or
  ``reminders``): its goals get :data:`ROUTED_LIFT`;
- ``cognition_proposer``: the base priority of question goals, from how often the user answered them;
- ``auto_evolution``: after :data:`EVOLVE_AFTER` autonomous ticks in a row with the F3 rate off
  target, the intention "answer better" is promoted: the F3 rate signal weighs more.
"""

from __future__ import annotations

from typing import Any

from agi_plugin_autonomy.signals import pressure

FLANERIE_BELOW = 0.2
RISK_REST = 0.1
BACKLOG = 10
ROUTED_LIFT = 0.05
QUESTION_BASE = 0.5
EVOLVE_AFTER = 3
EVOLVED_WEIGHT = 0.2


def mood(budget: dict[str, int], current: dict[str, dict[str, Any]]) -> dict[str, float]:
    return {
        "energy": round(max(0.0, 1 - budget["used"] / max(1, budget["per_hour"])), 4),
        "arousal": round(max((pressure(s) for s in current.values()), default=0.0), 4),
        "hedonic_reward": round(max(0.0, 1 - float(current["f3_rate"]["value"])), 4),
    }


def mode(energy: float) -> str:
    return "flanerie" if energy < FLANERIE_BELOW else "travail"


def risks(measurements: dict[str, Any]) -> list[str]:
    found = []
    if measurements["open_goals"] >= BACKLOG:
        found.append("goal backlog")
    if measurements["contradictions"] > 0:
        found.append("contradictions")
    return found


def route(current: dict[str, dict[str, Any]]) -> list[str]:
    """``questions`` first when the worst signal is about knowledge; ``reminders`` when about the replies."""
    worst = max(current.values(), key=lambda s: (pressure(s), s["metric"]))
    if pressure(worst) > 0 and worst["metric"] in ("f3_rate", "reply_latency_ms"):
        return ["reminders", "questions"]
    return ["questions", "reminders"]


def question_base(answered: int, ignored: int) -> float:
    return round(min(0.7, max(0.3, QUESTION_BASE + 0.1 * (answered - ignored))), 4)


def evolve(streak: int, current: dict[str, dict[str, Any]]) -> bool:
    """Promote "answer better" once the F3 rate has been off target :data:`EVOLVE_AFTER` autonomous ticks in a row."""
    return streak >= EVOLVE_AFTER and pressure(current["f3_rate"]) > 0
