"""``agi improve`` as a Python API: propose, evaluate (shadow replay in the sandbox), promote, revert.

Every change is a journaled ``config_set`` tick of the ``self_improver`` settings; a promotion
is a checkpoint first (``improve-ID``), so both the promotion and its revert replay equal. A
promoted plugin file goes into the setting ``self_improver.code`` (:mod:`.promoted` loads it);
its revert takes it out again.
"""

from __future__ import annotations

import json
from typing import Any

from agi_core.errors import ConfigError
from agi_plugin_self_improver import proposals as props
from agi_plugin_self_improver.proposals import PLUGIN


def settings(kernel: Any) -> dict[str, Any]:
    return kernel.plugin_settings.values(PLUGIN)  # type: ignore[no-any-return]


def stored(kernel: Any) -> dict[str, Any]:
    return dict(settings(kernel).get("proposals", {}))


def _save(kernel: Any, proposal: dict[str, Any]) -> None:
    everything = {**stored(kernel), proposal["id"]: proposal}
    kernel.command("config_set", {"plugin": PLUGIN, "key": "proposals", "value": everything})


def journal(kernel: Any) -> list[dict[str, Any]]:
    """The agent's journal records as plain data."""
    from agi_core.memory import blobs

    return [
        blobs.resolve(json.loads(text), kernel.store.get_blob)
        for _tick, _id, text, _chain in kernel.store.journal_rows()
    ]


def propose(kernel: Any, *, repeats: int = 2) -> list[dict[str, Any]]:
    """New proposals learned from the journal (F3 inputs the user rephrased and then got answered),
    and, with a contract provider, from ``code_evolver`` (a maintenance tick: the call is journaled)."""
    current = dict(settings(kernel).get("phrasings", {}))
    known = stored(kernel)
    made = []
    if kernel.config.contract_provider:
        kernel.maintain()
        for pending in kernel.store.module_state_get(PLUGIN, "pending") or []:
            changes = {PLUGIN: {"phrasings": {**current, **pending["changes"][PLUGIN]["phrasings"]}}}
            proposal = props.make(changes, {PLUGIN: {"phrasings": current}}, "code_evolver", [], pending["why"])
            if proposal["id"] not in known and changes[PLUGIN]["phrasings"] != current:
                _save(kernel, proposal)
                known[proposal["id"]] = proposal
                made.append(proposal)
    for phrase, (canonical, ticks) in props.learned_phrasings(journal(kernel), repeats=repeats).items():
        if current.get(phrase) == canonical:
            continue
        changes = {PLUGIN: {"phrasings": {**current, phrase: canonical}}}
        proposal = props.make(
            changes,
            {PLUGIN: {"phrasings": current}},
            "heuristic:rephrased_f3",
            ticks,
            f"{len(ticks) // 2} inputs with {phrase!r} no rule answered were answered when rephrased as {canonical!r}",
        )
        if proposal["id"] in known:
            continue
        _save(kernel, proposal)
        made.append(proposal)
    return made


def propose_setting(kernel: Any, name: str, text: str) -> dict[str, Any]:
    """A proposal to set ``PLUGIN.KEY`` (a threshold, a module weight) to ``text``, checked against its schema."""
    from agi_core.settings import schema

    plugin, _, key = name.partition(".")
    declared = kernel.plugin_settings.declared
    prop = schema.schema_for(declared, plugin, key)
    value = schema.check_value(plugin, key, prop, schema.parse(plugin, key, prop, text))
    before = kernel.plugin_settings.values(plugin).get(key)
    if value == before:
        raise ConfigError(f"{name} is already {text}; propose another value")
    changes = {plugin: {key: value}}
    proposal = props.make(changes, {plugin: {key: before}}, "manual", [], f"set {name} to {text}")
    _save(kernel, proposal)
    return proposal


def add(kernel: Any, proposal: dict[str, Any]) -> dict[str, Any]:
    """Store a proposal made elsewhere (a code proposal, a settings change from a contract)."""
    _save(kernel, proposal)
    return proposal


def evaluate(kernel: Any, wanted: str) -> dict[str, Any]:
    """Shadow-replay the proposal in the sandbox; its scores and verdict are stored with it."""
    from agi_plugin_self_improver.sandbox import shadow_replay

    proposal = props.find(stored(kernel), wanted)
    if proposal["status"] == "promoted":
        raise ConfigError(f"proposal {proposal['id']} is promoted; revert it before evaluating it again")
    scores = shadow_replay(kernel, proposal, settings(kernel))
    proposal["scores"] = scores
    proposal["status"] = "accepted" if scores.get("verdict") == "accept" else "rejected"
    _save(kernel, proposal)
    return proposal


def promote(kernel: Any, wanted: str) -> dict[str, Any]:
    """Apply an accepted proposal after a checkpoint; evaluates it first when it has no verdict yet."""
    proposal = props.find(stored(kernel), wanted)
    if proposal["status"] == "proposed":
        proposal = evaluate(kernel, proposal["id"])
    if proposal["status"] != "accepted":
        raise ConfigError(
            f"proposal {proposal['id']} is {proposal['status']}, not accepted by its shadow replay; "
            f"see `agi improve show {proposal['id']}`"
        )
    checkpoint = f"improve-{proposal['id']}"
    kernel.checkpoint(checkpoint)
    _apply(kernel, _settings_change(kernel, proposal, promote=True))
    proposal.update(status="promoted", checkpoint=checkpoint)
    _save(kernel, proposal)
    return proposal


def revert(kernel: Any, wanted: str) -> dict[str, Any]:
    """Put back the settings the proposal changed (journaled ticks; the ticks since are kept)."""
    proposal = props.find(stored(kernel), wanted)
    if proposal["status"] != "promoted":
        raise ConfigError(
            f"proposal {proposal['id']} is {proposal['status']}; only a promoted proposal can be reverted"
        )
    _apply(kernel, _settings_change(kernel, proposal, promote=False))
    proposal["status"] = "reverted"
    _save(kernel, proposal)
    return proposal


def _settings_change(kernel: Any, proposal: dict[str, Any], *, promote: bool) -> dict[str, dict[str, Any]]:
    """The settings that promote (revert) ``proposal``: its own, or the promoted files with (without) it."""
    if proposal["kind"] == "settings":
        return proposal["changes"] if promote else proposal["before"]  # type: ignore[no-any-return]
    code = {pid: source for pid, source in settings(kernel).get("code", {}).items() if pid != proposal["id"]}
    if promote:
        code[proposal["id"]] = proposal["changes"]["code"]
    return {PLUGIN: {"code": code}}


def _apply(kernel: Any, changes: dict[str, dict[str, Any]]) -> None:
    for plugin, values in changes.items():
        for key, value in values.items():
            kernel.command("config_set", {"plugin": plugin, "key": key, "value": value})
