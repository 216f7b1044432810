"""The shadow replay, run inside the sandbox: ``python -m agi_plugin_self_improver.shadow SPEC``.

Copies the agent into the tmpfs workspace, replays its journal with the proposal applied
(a counterfactual replay), and prints the scores as one JSON line.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from agi_plugin_self_improver.scoring import score


def plugins_with() -> Any:
    """The installed plugins, this one included (it hosts a code proposal's router agents)."""
    from agi_core.plugins import Plugins
    from agi_plugin_self_improver import plugin

    plugins = Plugins.from_environment()
    if all(info.name != "self_improver" for info in plugins.info()):
        plugins.add_module(plugin, name="self_improver")
    return plugins


def apply(proposal: dict[str, Any]) -> dict[str, Any]:
    """Hold the proposal's change fixed for the whole replay; the settings stored before its first tick.

    A code proposal is loaded first, as its promotion would load it: a file that fails to load (it
    wrote outside, reached for the network, ran out of memory) ends the process here, exit 1, named.
    """
    from agi_plugin_self_improver import plugin
    from agi_plugin_self_improver.promoted import load

    if proposal.get("kind") == "plugin":
        source = proposal["changes"]["code"]
        loaded = load(proposal["id"], source)
        if loaded.failure is not None:
            raise SystemExit(loaded.failure)
        plugin.SHADOW["code"] = {proposal["id"]: source}  # over the journal's own config_set ticks
        return {}
    plugin.SHADOW.update(proposal["changes"].get("self_improver", {}))
    return dict(proposal["changes"])


def main(spec_path: str) -> None:
    from agi_core import Kernel

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    source = Path(spec["db"])
    work = Path.cwd() / "agent"
    work.mkdir()
    for item in source.parent.iterdir():
        if item.name.startswith(source.name):
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, work / item.name)
    settings = apply(spec["proposal"])
    plugins = plugins_with()
    with Kernel.open(work / source.name, plugins=plugins) as kernel:
        recorded = [json.loads(text) for _tick, _id, text, _chain in kernel.store.journal_rows()]
        overrides: dict[str, Any] = {"plugins": plugins, **({"settings": settings} if settings else {})}
        produced = kernel.replay(compare=False, overrides=overrides)
    rows = [
        {
            "tick": r.tick,
            "final_output": r.final_output,
            "claims": r.claims,
            "router_decision": {"why": r.router_decision.why},
        }
        for r in produced
    ]
    print(json.dumps(score(recorded, rows)))


if __name__ == "__main__":
    main(sys.argv[1])
