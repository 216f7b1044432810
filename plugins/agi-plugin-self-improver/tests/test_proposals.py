"""Proposals learned from rephrased F3 inputs, stored in the agent, listed and shown by `agi improve`."""

from __future__ import annotations

import json

from agi_plugin_self_improver import improver
from agi_plugin_self_improver.proposals import phrasing_of


def test_phrasing_of_finds_the_replaced_phrase():
    assert phrasing_of("whats the capital of Japan?", "what is the capital of Japan?") == ("whats", "what is")
    assert phrasing_of("tell me the capital of Japan", "what is the capital of Japan") == ("tell me", "what is")
    assert phrasing_of("capital of Japan?", "what is the capital of Japan?") is None  # only added words: no phrase
    assert phrasing_of("2 + 3", "what is the weather") is None  # nothing in common: not a rephrasing


def test_a_phrasing_is_proposed_once_it_was_rephrased_twice(agent, rephrased):
    with agent() as kernel:
        for line in rephrased[:5]:
            kernel.tick(line)
        assert improver.propose(kernel) == []  # one rephrasing is not yet a pattern
        for line in rephrased[5:]:
            kernel.tick(line)
        (made,) = improver.propose(kernel)
        assert made["changes"] == {"self_improver": {"phrasings": {"whats": "what is"}}}
        assert made["before"] == {"self_improver": {"phrasings": {}}}
        assert made["evidence"] == [4, 5, 6, 7] and made["status"] == "proposed"
        assert improver.propose(kernel) == []  # stored: not proposed twice
        assert kernel.replay().ok  # the proposal is a journaled tick
    with agent() as kernel:
        assert list(improver.stored(kernel)) == [made["id"]]  # kept in the agent


def test_cli_lists_and_shows_a_proposal(agi, rephrased):
    assert agi("run", stdin="\n".join(rephrased) + "\n").returncode == 0
    proposed = agi("improve", "propose")
    assert proposed.returncode == 0, proposed.stderr
    pid = proposed.stdout.split("\t")[0]
    why = "2 inputs with 'whats' no rule answered were answered when rephrased as 'what is'"
    assert proposed.stdout == f"{pid}\tproposed\t-\t{why}\n"
    listed = json.loads(agi("improve", "list", "--json").stdout)
    assert [(p["id"], p["status"]) for p in listed] == [(pid, "proposed")]
    shown = agi("improve", "show", pid[:8]).stdout.splitlines()
    assert shown[1:] == [
        "- self_improver.phrasings = {}",
        '+ self_improver.phrasings = {"whats": "what is"}',
        "scores: null",
    ]
    missing = agi("improve", "show", "imp-nope")
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1].endswith(f"no single proposal 'imp-nope'; known proposals: {pid}")
