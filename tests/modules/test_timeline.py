"""Kernel.checkpoint / rollback / replay as a Python API, counterfactual replay, and ctx.journal."""

from __future__ import annotations

from typing import ClassVar

import pytest

from agi_core.errors import ConfigError
from agi_core.hookspecs import hookimpl
from agi_core.modules import Candidate, Claim, CognitiveModule, Proposals, Revision
from agi_core.replies import F1_SEM_MISS
from agi_core.testing import builtin_plugins, open_kernel


class Recap(CognitiveModule):
    """Reads the journal: what the agent said in the tick before."""

    name = "recap"

    def perceive(self, ctx):
        (last,) = ctx.journal.last(1) or [None]
        return None if last is None else {"tick": last["tick"], "said": last["final_output"]}


class Shout(CognitiveModule):
    name = "shout"

    def revise(self, ctx, draft):
        return Revision.rewrite(draft.reply.upper()) if draft.action.type == "response" else None


class Eager(CognitiveModule):
    name = "eager"

    def deliberate(self, ctx):
        claim = Claim("user/person/self/name", "Bob", "You are Bob.", None)
        return Proposals(candidates=[Candidate("You are Bob.", score=1.0, claims=[claim])])


def plugin(*modules):
    class Plugin:
        @hookimpl
        def agi_register_modules(self, register):
            for module in modules:
                register(module)

    return Plugin()


def test_checkpoint_rollback_and_replay_are_kernel_methods_and_ctx_journal_reads_past_records(tmp_path):
    with open_kernel(tmp_path / "a.db", plugin(Recap())) as kernel:
        first = kernel.tick("2 + 3")
        assert first.modules["calls"][0]["output"] is None  # no past record yet
        kernel.checkpoint("one")
        second = kernel.tick("2 + 2")
        assert second.modules["calls"][0]["output"] == {"tick": 1, "said": "2 + 3 = 5"}
        kernel.tick("3 + 3")
        assert kernel.rollback("one").tick == 1
        assert kernel.tick_count == 1
        again = kernel.tick("4 + 4")
        assert again.modules["calls"][0]["output"] == {"tick": 1, "said": "2 + 3 = 5"}
        report = kernel.replay()
        assert (report.ok, report.ticks) == (True, 2)
        assert kernel.replay(checkpoint="one").ticks == 1


def test_counterfactual_replay_runs_in_a_scratch_copy_with_other_plugins_or_settings(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, plugin(Eager())) as kernel:
        live = [kernel.tick("2 + 3"), kernel.tick("who is talking?")]
        assert live[1].final_output == F1_SEM_MISS
        journal = [text for _t, _i, text, _c in kernel.store.journal_rows()]

        shouted = kernel.replay(compare=False, overrides={"plugins": builtin_plugins(plugin(Eager(), Shout()))})
        assert [r.final_output for r in shouted] == ["2 + 3 = 5".upper(), F1_SEM_MISS.upper()]
        weighed = kernel.replay(
            compare=False, overrides={"settings": {"stage0": {"council_weights": {"evidence_check": 0}}}}
        )
        assert [r.final_output for r in weighed] == ["2 + 3 = 5", "You are Bob."]

        # the agent itself is untouched, and a plain replay still compares equal
        assert [text for _t, _i, text, _c in kernel.store.journal_rows()] == journal
        assert kernel.tick_count == 2 and kernel.replay().ok
        with pytest.raises(ConfigError, match="replay cannot override 'brain'; overrides are plugins, settings"):
            kernel.replay(compare=False, overrides={"brain": "llm"})
        with pytest.raises(ConfigError, match="overrides make a counterfactual replay; pass compare=False"):
            kernel.replay(overrides={"settings": {}})


class Tone(CognitiveModule):
    """Says its reply in the tone its plugin's setting asks for."""

    name = "tone"

    def revise(self, ctx, draft):
        warm = ctx.settings["tone"] == "warm" and draft.agent == "math_agent"
        return Revision.rewrite(draft.reply + " Have a nice day.", "tone") if warm else None


class TonePlugin:
    agi_manifest: ClassVar[dict] = {
        "settings": {"type": "object", "properties": {"tone": {"enum": ["plain", "warm"], "default": "plain"}}}
    }

    @hookimpl
    def agi_register_modules(self, register):
        register(Tone())


def test_a_counterfactual_setting_holds_over_a_recorded_environment_value_and_a_replayed_config_set(
    tmp_path, monkeypatch
):
    db = tmp_path / "a.db"
    monkeypatch.setenv("AGI_PLUGIN_TONEPLUGIN_TONE", "warm")  # an operator's override, recorded by the tick
    with open_kernel(db, TonePlugin()) as kernel:
        assert kernel.tick("2 + 3").final_output == "2 + 3 = 5 Have a nice day."
    monkeypatch.delenv("AGI_PLUGIN_TONEPLUGIN_TONE")
    with open_kernel(db, TonePlugin()) as kernel:
        kernel.command("config_set", {"plugin": "TonePlugin", "key": "tone", "value": "warm"})  # a journaled tick
        assert kernel.tick("2 + 2").final_output == "2 + 2 = 4 Have a nice day."
        plain = kernel.replay(compare=False, overrides={"settings": {"TonePlugin": {"tone": "plain"}}})
        assert [r.final_output for r in plain] == ["2 + 3 = 5", 'TonePlugin.tone = "warm"', "2 + 2 = 4"]
        assert kernel.replay().ok  # the agent itself still replays as it ran
