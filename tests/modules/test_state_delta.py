"""A large module state value is journaled as a JSON Patch: a 100k-float state changed by one element."""

from __future__ import annotations

import json

import jsonpatch

from agi_core.hookspecs import hookimpl
from agi_core.modules import CognitiveModule
from agi_core.replay import replay
from agi_core.serialization import dumps
from agi_core.testing import builtin_plugins, open_kernel

SIZE = 100_000


class Weights(CognitiveModule):
    """Learns: 100k floats, one nudged per tick."""

    name = "weights"

    def observe(self, ctx):
        weights = ctx.own.get("w") or [0.5] * SIZE
        weights[ctx.tick % SIZE] += 0.25
        ctx.own.put("w", weights)
        ctx.own.put("ticks", ctx.tick)  # small values are journaled whole


class Plugin:
    @hookimpl
    def agi_register_modules(self, register):
        register(Weights())


def test_a_100k_float_state_updated_by_one_element_journals_under_one_percent_and_replays_equal(tmp_path):
    db = tmp_path / "a.db"
    with open_kernel(db, Plugin()) as kernel:
        first = kernel.tick("2 + 3")
        second = kernel.tick("2 + 2")
        texts = [text for _t, _i, text, _c in kernel.store.journal_rows()]
        stored = kernel.store.module_state_get("weights", "w")
    value_chars = len(dumps(stored))
    (write, small) = second.modules["calls"][0]["state"]
    assert write == {"key": "w", "patch": [{"op": "replace", "path": "/2", "value": 0.75}]}
    assert small == {"key": "ticks", "value": 2}
    assert len(texts[1]) < value_chars / 100  # the whole journal record, not just the write
    # the first write has no previous value: journaled whole (stored as a blob, not inline)
    assert first.modules["calls"][0]["state"][0]["value"][1] == 0.75
    # the patch gives the stored value back from the previous one
    assert jsonpatch.apply_patch(first.modules["calls"][0]["state"][0]["value"], write["patch"]) == stored
    assert json.loads(texts[1])["modules"] == second.modules
    assert replay(db, plugins=builtin_plugins(Plugin())).ok
