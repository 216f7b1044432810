"""With a contract provider, code_evolver's patches become proposals: validated, journaled, replayed offline."""

from __future__ import annotations

import json

from agi_plugin_self_improver import improver

from agi_core import Kernel, Plugins
from agi_core.contracts.testing import ScriptedProvider
from agi_core.hookspecs import hookimpl
from agi_core.replies import F3_NO_AGENT

PATCHES = {
    "summary": "Two phrasings users write that the rules do not read.",
    "patches": [
        {
            "target_id": "self_improver.phrasings",
            "patched_source": json.dumps({"whats": "what is"}),
            "assessment": {"should_promote": True, "confidence": 0.8},
            "notes": "'whats' is 'what is' without the apostrophe",
        },
        {"target_id": "/etc/passwd", "patched_source": "root::0:0::/:/bin/sh", "assessment": {"should_promote": True}},
        {"target_id": "agi_core/kernel.py", "patched_source": '{"a": "b"}', "assessment": {"should_promote": True}},
    ],
}


class FakeEvolver:
    """A named fake model: one scripted code_evolver answer (the real server is slow and rarely this precise)."""

    def __init__(self) -> None:
        self.provider = ScriptedProvider([json.dumps(PATCHES)], name="fake-evolver")

    @hookimpl
    def agi_register_llm_providers(self, register):
        register(lambda: self.provider, name="fake-evolver")


def test_code_evolver_proposes_a_phrasing_that_shadow_replay_accepts(tmp_path, bwrap):
    from agi_plugin_self_improver import plugin

    model = FakeEvolver()
    plugins = Plugins.builtins(model)
    plugins.add_module(plugin, name="self_improver")
    db = tmp_path / "agent.db"
    with Kernel.open(db, seed="improve", plugins=plugins, contract_provider="fake-evolver") as kernel:
        kernel.tick("the capital of Japan is Tokyo")
        kernel.tick("whats the capital of Japan?")
        kernel.tick("whats the capital of Japan?")  # asked again, never rephrased: no heuristic proposal
        (proposal,) = improver.propose(kernel)
        assert proposal["source"] == "code_evolver"
        assert proposal["changes"] == {"self_improver": {"phrasings": {"whats": "what is"}}}
        assert proposal["why"] == "'whats' is 'what is' without the apostrophe"
        maintained = kernel.store.journal_rows()
        record = [json.loads(text) for _t, _i, text, _c in maintained if '"maintain"' in text][-1]
        (call,) = record["externals"]["contract_call"]
        assert (call["contract"], call["source"]) == ("code_evolver", "llm")
        module_call = next(c for c in record["modules"]["calls"] if c["module"] == "self_improver")
        refused = ["/etc/passwd", "agi_core/kernel.py"]  # an unknown target is never applied
        assert module_call["output"] == {"asked": True, "source": "llm", "pending": 1, "refused": refused}
        assert len(model.provider.requests) == 1
        evaluated = improver.evaluate(kernel, proposal["id"])
        assert evaluated["status"] == "accepted" and evaluated["scores"]["improved"] == [2, 3]
        improver.promote(kernel, proposal["id"])
        assert kernel.tick("whats the capital of Japan?").final_output == "The capital of Japan is Tokyo."
        assert kernel.replay().ok  # the model is not asked again: its answer is served from the journal
        assert len(model.provider.requests) == 1
        assert kernel.tick("whats a good joke?").final_output.startswith(F3_NO_AGENT)
