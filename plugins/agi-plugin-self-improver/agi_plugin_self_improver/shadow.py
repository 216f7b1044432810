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


def plugins_with(proposal: dict[str, Any]) -> Any:
    """The installed plugins, this one included; a code proposal's plugin file added from the workspace."""
    import importlib.util

    from agi_core.plugins import Plugins
    from agi_plugin_self_improver import plugin

    plugins = Plugins.from_environment()
    if all(info.name != "self_improver" for info in plugins.info()):
        plugins.add_module(plugin, name="self_improver")
    code = proposal.get("changes", {}).get("code")
    if code is not None:
        path = Path.cwd() / "improvement_plugin.py"
        path.write_text(code, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("improvement_plugin", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        plugins.add_module(module, name="improvement")
    return plugins


def main(spec_path: str) -> None:
    from agi_core import Kernel
    from agi_plugin_self_improver import plugin

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    source = Path(spec["db"])
    work = Path.cwd() / "agent"
    work.mkdir()
    for item in source.parent.iterdir():
        if item.name.startswith(source.name):
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, work / item.name)
    proposal = spec["proposal"]
    plugins = plugins_with(proposal)
    with Kernel.open(work / source.name, plugins=plugins) as kernel:
        recorded = [json.loads(text) for _tick, _id, text, _chain in kernel.store.journal_rows()]
        overrides: dict[str, Any] = {"plugins": plugins}
        if proposal.get("kind") == "settings":
            overrides["settings"] = proposal["changes"]
            plugin.SHADOW.update(proposal["changes"].get("self_improver", {}))  # over later config_set ticks
        produced = kernel.replay(compare=False, overrides=overrides)
    print(json.dumps(score(recorded, [{"tick": r.tick, "final_output": r.final_output} for r in produced])))


if __name__ == "__main__":
    main(sys.argv[1])
