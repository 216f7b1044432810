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


def echo_output(variables):
    """The fallback of :func:`echo_contract`: returns ``variables["output"]`` itself (not a copy)."""
    return variables["output"]


def echo_contract():
    """A contract whose heuristic answers whatever the test passes as ``output``: a summary and a list."""
    from agi_core.contracts import contract_from_dict

    return contract_from_dict(
        {
            "name": "echo",
            "version": 1,
            "family": "tests",
            "owner_module": "tests/contracts",
            "description": "Echo the output the test chose.",
            "output_schema": {
                "type": "object",
                "properties": {"summary": {"type": "string"}, "items": {"type": "array"}},
                "required": ["summary", "items"],
            },
            "prompt": {"goal": "Echo.", "instructions": ["Echo."], "example": {"summary": "s", "items": []}},
            "fallback": "contracts_support:echo_output",
        }
    )
