"""Helpers of the contract tests: where every contract file is, and the plugins that register them."""

from __future__ import annotations

import json
from pathlib import Path

from agi_core.plugins import Plugins

REPO = Path(__file__).resolve().parents[2]
CORE_SPECS = REPO / "agi_core" / "contracts" / "specs"
#: distribution folder -> (entry-point name, plugin module)
DISTRIBUTIONS = {
    path.name: (
        path.name.removeprefix("agi-plugin-").replace("-", "_"),
        f"agi_plugin_{path.name.removeprefix('agi-plugin-').replace('-', '_')}.plugin",
    )
    for path in sorted((REPO / "plugins").glob("agi-plugin-*"))
    if any(path.glob("agi_plugin_*/contracts/*.json"))
}
CONTRACT_FILES = sorted(
    [*CORE_SPECS.glob("*.json"), *(REPO / "plugins").glob("agi-plugin-*/agi_plugin_*/contracts/*.json")],
    key=lambda path: path.stem,
)
NAMES = [path.stem for path in CONTRACT_FILES]
SEED = REPO.parent / "shared" / "seeds" / "agi-evolutive-llm-contracts.fr.md"


def contract_data(name: str) -> dict:
    """The parsed contract file of ``name``."""
    return json.loads(next(p for p in CONTRACT_FILES if p.stem == name).read_text(encoding="utf-8"))


def all_plugins() -> Plugins:
    """The built-in contracts plugin and every contract distribution, added by module."""
    plugins = Plugins()
    assert plugins.add_module("agi_core.default_plugins.contracts", name="contracts", builtin=True)
    for entry_point, module in DISTRIBUTIONS.values():
        assert plugins.add_module(module, name=entry_point), plugins.failures
    return plugins
