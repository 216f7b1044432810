"""Which contracts have a runtime consumer, and that each module really calls every contract it declares.

``agi contracts list --json`` reads ``used_by`` from the modules' ``contracts`` declarations; the second
test runs each module through a real kernel over a scenario that reaches all its paths and checks that
the contracts it called (the journal's ``contract_call`` externals) are exactly the ones it declares, so
a consumer removed from the code goes red here even if its name stays in the declaration.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import agi_plugin_autonomy.plugin as autonomy
import agi_plugin_learning.plugin as learning
import click
from agi_plugin_autonomy.module import AutonomyModule
from agi_plugin_learning.module import LearningModule
from click.testing import CliRunner
from contracts_support import all_plugins

from agi_core.contracts.caller import EXTERNAL
from agi_core.default_plugins import contracts as contracts_plugin
from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, CognitiveModule, ModuleContext, Proposals
from agi_core.replay import replay
from agi_core.scheduling.clock import PinnedClock, SimulatedClock
from agi_core.settings.schema import env_name
from agi_core.testing import builtin_plugins, open_kernel

#: issue 20 item 4: each contract of these families, and the module that consumes it
CONSUMERS = {
    "auto_evolution": "autonomy",
    "auto_signal_derivation": "autonomy",
    "auto_signal_keywords": "autonomy",
    "auto_signal_registration": "autonomy",
    "autonomy_core": "autonomy",
    "cognition_context_inference": "autonomy",
    "cognition_goal_prioritizer": "autonomy",
    "cognition_proposer": "autonomy",
    "homeostasis": "autonomy",
    "identity_mission": "autonomy",
    "planner_support": "autonomy",
    "trigger_router": "autonomy",
    "goal_interpreter": "autonomy",
    "goal_priority_review": "autonomy",
    "question_auto_answer": "autonomy",
    "question_manager": "autonomy",
    "reasoning_episode": "autonomy",
    "world_model": "autonomy",
    "jsonl_logger": "autonomy",
    "phenomenal_kernel": "autonomy",
    "phenomenal_mode_manager": "autonomy",
    "response_formatter": "autonomy",
    "runtime_analytics": "autonomy",
    "runtime_dash": "autonomy",
    "runtime_job_manager": "autonomy",
    "scheduler": "autonomy",
    "system_monitor": "autonomy",
    "response_contract": "learning",
    "experiential_learning_cycle": "learning",
    "learning_auto_curriculum": "learning",
    "learning_curiosity_update": "learning",
    "learning_curriculum_planner": "learning",
    "learning_meta_controller": "learning",
    "learning_reinforcement_policy": "learning",
    "learning_self_assessment": "learning",
    "learning_transfer_mapping": "learning",
    "code_evolver": "self_improver",
}
FAMILIES = {"autonomy", "cognition", "goals", "learning", "runtime", "self_improver", "questions", "reasoning"}
FAMILIES |= {"world_model"}
START_MS = 1_795_000_000_000


def test_every_contract_of_the_growth_families_has_its_consumer():
    group = click.Group(name="agi")
    contracts_plugin.agi_register_commands(group)
    listed = CliRunner().invoke(group, ["contracts", "list", "--json"], obj=SimpleNamespace(plugins=all_plugins()))
    rows = json.loads(listed.output)
    mine = {row["name"] for row in rows if row["family"] in FAMILIES}
    assert mine == set(CONSUMERS)  # a new contract of these families needs a consumer, and a line here
    used = {row["name"]: row["used_by"] for row in rows}
    for name, module in CONSUMERS.items():
        assert module in used[name], f"{name} has no consumer in {module}"


def called(records):
    return {call["contract"] for record in records for call in record.externals.get(EXTERNAL, [])}


def test_the_autonomy_module_calls_every_contract_it_declares(tmp_path, monkeypatch):
    monkeypatch.setenv(env_name("autonomy", "idle_after_s"), "0")
    sim = SimulatedClock(START_MS)
    clock = PinnedClock(sim)
    records = []
    with open_kernel(tmp_path / "agent.db", autonomy, clock=clock) as kernel:
        records += [kernel.tick("my sister Maya is coming over"), kernel.tick("Maya is a nurse")]
        records += [kernel.tick("my goal is to learn French and visit Paris"), kernel.maintain()]
        records += [kernel.tick("hello"), kernel.tick("ok"), kernel.tick("why did you ask?")]
        records += [kernel.tick("I'm at work"), kernel.tick("stop reminding me"), kernel.maintain()]
        records += [kernel.tick(f"line {i}") for i in range(12)]
        records.append(kernel.tick("/file_list ."))  # a tool call the brain chose: weighed before it runs
        sim.advance(86_400)
        clock.refresh()
        records += [kernel.maintain(), kernel.maintain(), kernel.maintain()]
    assert called(records) == set(AutonomyModule.contracts)
    assert replay(tmp_path / "agent.db", plugins=builtin_plugins(autonomy)).ok


class Joker(CognitiveModule):
    """A module that proposes a joke: two of them compete for the same line (a real module, not a fake)."""

    def __init__(self, name: str, reply: str, score: float) -> None:
        self.name, self.reply, self.score = name, reply, score

    def deliberate(self, ctx: ModuleContext) -> Proposals | None:
        return Proposals(candidates=[Candidate(self.reply, self.score)]) if ctx.text == "tell me a joke" else None


class jokers:  # a plugin object
    @staticmethod
    @hookimpl
    def agi_register_modules(register):
        register(Joker("alpha", "Why did the chicken cross the road?", 0.9))
        register(Joker("beta", "I told my computer a joke; it did not get it.", 0.8))


def test_the_learning_module_calls_every_contract_it_declares(tmp_path):
    with open_kernel(tmp_path / "agent.db", learning, jokers) as kernel:
        records = [kernel.tick(line) for line in ("tell me a joke", "that's wrong", "tell me a joke")]
        records.append(kernel.maintain())
    assert called(records) == set(LearningModule.contracts)
    assert replay(tmp_path / "agent.db", plugins=builtin_plugins(learning, jokers)).ok
