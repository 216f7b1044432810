"""A code proposal (a plugin file) proven by shadow replay, promoted, answering, reverted; both replay equal.

The promoted file lives in the setting ``self_improver.code`` and loads through the plugin manager
facade when the agent opens and before each tick; a raising, looping or broken one costs one
tick's reply (F4, named), never the agent.
"""

from __future__ import annotations

import pytest
from agi_plugin_self_improver import improver
from agi_plugin_self_improver.proposals import code

from agi_core import Kernel, Plugins
from agi_core.errors import PluginError
from agi_core.replay import replay
from agi_core.replies import F3_NO_AGENT, F4_AGENT_FAILURE

#: answers "whats the capital of X?" from the fact the R3 rule wrote; "boom" raises, "spin" hangs
WHATS = """
import re
import time

from agi_core.hookspecs import hookimpl
from agi_core.reasoning import AgentReply

ASKED = re.compile(r"whats the capital of (\\w+)\\??$", re.IGNORECASE)


class WhatsCapital:
    name, rule, priority, inline = "whats_capital_agent", "matched_whats_capital", 500, True

    def matches(self, text):
        if "spin" in text:
            time.sleep(10)  # past the kernel's agent timeout (a busy loop would keep a test worker spinning)
        return ASKED.match(text.strip()) is not None or "boom" in text

    def handle(self, ctx):
        if "boom" in ctx.text:
            raise RuntimeError("boom")
        country = ASKED.match(ctx.text.strip()).group(1)
        found = ctx.sem_read(ctx.key("world", "entity", country.lower(), "capital"))
        return AgentReply(f"The capital of {country} is {found.value}." if found.exists else "I do not know.")


@hookimpl
def agi_register_router_agents(register):
    register(WhatsCapital())
"""


def _code_setting(kernel) -> dict:
    return kernel.plugin_settings.values("self_improver")["code"]


def test_a_plugin_file_is_proven_promoted_answers_and_its_revert_restores_the_f3(agent, rephrased, bwrap, tmp_path):
    """The issue's scripted session for code: shadow replay accepts, promote answers the original
    input (also after the agent reopens), revert restores the F3; both replay equal."""
    with agent() as kernel:
        for line in rephrased:
            kernel.tick(line)
        proposal = improver.add(kernel, code(WHATS, "test", "answer 'whats the capital of X?'"))
        evaluated = improver.evaluate(kernel, proposal["id"])
        assert evaluated["status"] == "accepted", evaluated["scores"]
        assert (evaluated["scores"]["improved"], evaluated["scores"]["regressed"]) == ([4, 6], [])
        promoted = improver.promote(kernel, proposal["id"])
        assert promoted["checkpoint"] == f"improve-{proposal['id']}"
        answered = kernel.tick("whats the capital of Japan?")
        assert answered.final_output == "The capital of Japan is Tokyo."
        assert answered.router_decision.agent == "improvement_agent"
        assert answered.router_decision.why == f"promoted:{proposal['id']}:whats_capital_agent:matched_whats_capital"
        assert kernel.tick("what is the capital of France?").final_output == "The capital of France is Paris."
        assert kernel.replay().ok
    with agent() as kernel:  # the next open loads it from the agent's settings
        assert kernel.tick("whats the capital of France?").final_output == "The capital of France is Paris."
        improver.revert(kernel, proposal["id"])
        assert _code_setting(kernel) == {}
        assert kernel.tick("whats the capital of Japan?").final_output.startswith(F3_NO_AGENT)
        assert kernel.replay().ok
        assert improver.stored(kernel)[proposal["id"]]["status"] == "reverted"
    with agent() as kernel:
        assert kernel.tick("whats the capital of Japan?").final_output.startswith(F3_NO_AGENT)
    report = replay(tmp_path / "agent.db", plugins=_with_plugin())  # as `agi replay` does
    assert report.ok, report.summary()


def _with_plugin() -> Plugins:
    from agi_plugin_self_improver import plugin

    found = Plugins.builtins()
    found.add_module(plugin, name="self_improver")
    return found


def test_a_replay_without_the_self_improver_names_the_missing_plugin(agent, rephrased, tmp_path):
    with agent() as kernel:
        for line in rephrased[:2]:
            kernel.tick(line)
        kernel.command("config_set", {"plugin": "self_improver", "key": "code", "value": {"imp-test": WHATS}})
        kernel.tick("whats the capital of Japan?")
    with pytest.raises(PluginError, match="of plugin 'self_improver', which is not installed; install plugin"):
        replay(tmp_path / "agent.db", plugins=Plugins.builtins())


def test_a_raising_or_hanging_promoted_agent_costs_one_reply_never_the_agent(agent, rephrased):
    with agent() as kernel:
        for line in rephrased[:2]:
            kernel.tick(line)
        kernel.command("config_set", {"plugin": "self_improver", "key": "code", "value": {"imp-test": WHATS}})
        raised = kernel.tick("boom")
        assert raised.final_output == F4_AGENT_FAILURE
        assert raised.agent_outputs["improvement_agent"] == {
            "error": "PluginError: promoted plugin imp-test (whats_capital_agent) failed: RuntimeError: boom"
        }
        looped = kernel.tick("spin the capital of Japan")
        assert looped.final_output.startswith(F3_NO_AGENT)  # the router went on to the other rules
        assert looped.agent_outputs["improvement_agent"] == {
            "error": f"PluginError: promoted plugin imp-test (whats_capital_agent) took longer than "
            f"{kernel.config.timeout_s:g} s"
        }
        assert kernel.tick("whats the capital of Japan?").final_output == "The capital of Japan is Tokyo."
        assert kernel.replay().ok


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("raise SystemExit(3)", "failed in import: SystemExit: 3"),
        ("import no_such_module_here", "failed in import: ModuleNotFoundError: No module named 'no_such_module_here'"),
        (
            "from agi_core.hookspecs import hookimpl\n@hookimpl\ndef agi_before_tick(kernel, state):\n    pass\n",
            "failed in register: implements agi_before_tick; a promoted plugin file may implement only "
            "agi_register_router_agents",
        ),
        ("x = 1\n", "failed in register: registers no router agent; implement agi_register_router_agents"),
    ],
)
def test_a_promoted_file_that_cannot_load_is_reported_and_skipped(agent, rephrased, capfd, source, why):
    with agent() as kernel:
        kernel.tick(rephrased[0])
        kernel.command("config_set", {"plugin": "self_improver", "key": "code", "value": {"imp-bad": source}})
        assert kernel.tick("what is the capital of Japan?").final_output == "The capital of Japan is Tokyo."
        assert kernel.tick("whats the capital of Japan?").final_output.startswith(F3_NO_AGENT)
        assert kernel.replay().ok
    assert f"agi: warning: plugin 'improvement:imp-bad' {why}" in capfd.readouterr().err


def test_agi_improve_proposes_a_plugin_file_and_shows_it(agi, tmp_path):
    plugin_file = tmp_path / "whats.py"
    plugin_file.write_text(WHATS, encoding="utf-8")
    proposed = agi("improve", "propose", "--plugin", str(plugin_file))
    assert proposed.returncode == 0, proposed.stderr
    pid, status, verdict, why = proposed.stdout.strip().split("\t")
    assert (status, verdict, why) == ("proposed", "-", "plugin file whats.py")
    shown = agi("improve", "show", pid).stdout.splitlines()
    assert shown[0] == f"{pid} (proposed, manual): plugin file whats.py"
    assert "+ class WhatsCapital:" in shown
    missing = agi("improve", "propose", "--plugin", str(tmp_path / "nowhere.py"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_an_exported_agent_imported_elsewhere_answers_with_its_promoted_file(rephrased, agi, tmp_path):
    """The promoted file travels in the journal: export, import into a new database, it answers there."""
    with Kernel.open(tmp_path / "agent.db", plugins=_with_plugin()) as kernel:  # the seed agi uses
        for line in rephrased[:2]:
            kernel.tick(line)
        kernel.command("config_set", {"plugin": "self_improver", "key": "code", "value": {"imp-test": WHATS}})
    exported = agi("journal", "export", "-o", str(tmp_path / "journal.jsonl"))
    assert exported.returncode == 0, exported.stderr
    copy = tmp_path / "copy.db"
    key, journal = str(tmp_path / "agent.db.key"), str(tmp_path / "journal.jsonl")
    imported = agi("--db", str(copy), "journal", "import", "--key-file", key, journal)
    assert imported.returncode == 0, imported.stderr
    answered = agi("--db", str(copy), "run", stdin="whats the capital of France?\n")
    assert answered.stdout.strip() == "The capital of France is Paris."
