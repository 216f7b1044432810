"""The 70 contracts of the seed: all present, each loadable, each field as the seed's tables say."""

from __future__ import annotations

import copy
import re
from collections import Counter

import pytest
from contracts_support import CONTRACT_FILES, NAMES, SEED, contract_data

from agi_core.contracts import Contract, registry_from_plugins, run_fallback, thaw, validate_and_normalize
from agi_core.contracts.pipeline import resolve_fallback
from agi_core.plugins import DEFAULT_PLUGINS, Plugins

PER_PLUGIN = {
    "contracts": 40,
    "social": 10,
    "autonomy": 5,
    "beliefs": 4,
    "self_improver": 1,
    "retrieval": 2,
    "learning": 8,
}


def test_seventy_contract_files():
    assert len(CONTRACT_FILES) == 70
    assert len(set(NAMES)) == 70


def test_seventy_contracts_through_real_plugin_loading(monkeypatch):
    """Built-ins plus the installed distributions' entry points, as `agi` loads them."""
    monkeypatch.delenv("AGI_LOAD_PLUGINS", raising=False)
    assert "agi_core.default_plugins.contracts" in DEFAULT_PLUGINS, (
        "add 'agi_core.default_plugins.contracts' to agi_core.plugins.DEFAULT_PLUGINS"
    )
    plugins = Plugins.from_environment()
    registry = registry_from_plugins(plugins)
    counts = {plugin: len(names) for plugin, names in registry.by_plugin().items()}
    assert counts == PER_PLUGIN, (
        "install the contract distributions: pip install -e plugins/agi-plugin-{social,autonomy,beliefs,"
        "self-improver,retrieval,learning} --no-deps"
    )
    assert len(registry) == 70
    assert [f for f in plugins.failures if f.stage == "agi_register_contracts"] == []


def test_each_plugin_owns_its_families(registry):
    families = {(registry[name].family, registry.plugin_of(name)) for name in registry}
    plugin_of_family = dict(families)
    assert len(plugin_of_family) == len(families), "a family is split across plugins"
    for family in ("social", "autonomy", "beliefs", "self_improver", "retrieval", "learning"):
        assert plugin_of_family[family] == family
    assert Counter(registry.plugin_of(n) for n in registry) == Counter(PER_PLUGIN)


@pytest.mark.parametrize("name", NAMES)
def test_example_validates_and_is_a_fixed_point(registry, name):
    contract = registry[name]
    first = validate_and_normalize(contract, dict(contract.prompt.example))
    assert first.ok, first.errors
    again = validate_and_normalize(contract, thaw(first.value))
    assert again.ok and thaw(again.value) == thaw(first.value), "normalization is not idempotent"


@pytest.mark.parametrize("name", NAMES)
def test_missing_required_field_is_a_violation_naming_its_path(registry, name):
    contract = registry[name]
    required = contract.required_paths()
    if not required:
        _check_wrong_type(contract)
        return
    for path in required:
        broken = copy.deepcopy(dict(contract.prompt.example))
        assert _delete(broken, path), f"the example of {name} lacks {path}"
        result = validate_and_normalize(contract, broken)
        assert not result.ok and result.reason == "schema"
        concrete = [issue.path for issue in result.errors if issue.code == "required"]
        assert re.sub(r"\[\d+\]", "[*]", concrete[0]) == path, result.errors


def _delete(data, path: str) -> bool:
    """Remove ``path`` (``$.a[*].b``) from every item; True if something was removed."""
    parts = re.findall(r"\.([A-Za-z_0-9]+)|(\[\*\])", path)
    nodes = [data]
    for key, star in parts[:-1]:
        nodes = [item for node in nodes for item in node] if star else [n[key] for n in nodes if key in n]
    last = parts[-1][0]
    removed = False
    for node in nodes:
        if last in node:
            del node[last]
            removed = True
    return removed


def _check_wrong_type(contract: Contract) -> None:
    """A contract without required fields: a field of the wrong type names its path."""
    example = dict(contract.prompt.example)
    properties = contract.output_schema.get("properties", {})
    if not properties:  # "any serializable mapping": only a non-object is refused
        result = validate_and_normalize(contract, "[1, 2]")
        assert not result.ok and result.errors[0].path == "$"
        return
    field = next(name for name in properties if name in example)
    wrong = [1, 2] if isinstance(example[field], (str, dict, int, float)) else "not a list"
    result = validate_and_normalize(contract, {**example, field: wrong})
    assert not result.ok
    assert result.errors[0].path == f"$.{field}", result.errors


@pytest.mark.parametrize("name", [n for n in NAMES if "fallback" in contract_data(n)])
def test_declared_fallback_returns_a_valid_object(registry, name):
    contract = registry[name]
    assert callable(resolve_fallback(contract))
    assert run_fallback(contract, {}).ok
    hostile = {
        "text": ["x"],
        "candidates": "no",
        "memories": [None, {"id": 3.5}],
        "state": 7,
        "jobs": [{"job_id": 1}],
        "actions": [{"name": "a"}],
        "mission": ["x"],
        "goal": "\u0000" * 10,
        "base_text": None,
    }
    assert run_fallback(contract, hostile).ok


def test_contracts_without_fallback_are_the_documented_ones():
    without = sorted(n for n in NAMES if "fallback" not in contract_data(n))
    assert "semantic_memory_maintenance" in without  # the seed: "sans heuristique de repli"
    assert len(without) == 70 - 61  # 38 core and 23 plugin contracts declare one


# -- conformance with the seed's tables --------------------------------------------------------


def _seed_tables() -> dict[str, list[tuple[str, str]]]:
    text = SEED.read_text(encoding="utf-8")
    tables: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^### `([a-z_]+)` — ", line)
        if heading:
            current = tables.setdefault(heading.group(1), [])
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if current is not None and len(cells) == 4 and cells[0] not in ("Champ", "---"):
            current.append((cells[0], cells[2]))
    return tables


def _seed_names(cell: str) -> list[str]:
    """`a.b` / `c` -> ["a.b", "a.c"]; `x[*].y` ou `z` -> ["x[*].y", "x[*].z"]."""
    names = re.findall(r"`([^`]+)`", cell.split("(")[0])
    if not names:
        return []
    prefix = names[0].rsplit(".", 1)[0] + "." if "." in names[0] else ""
    return [names[0]] + [n if "." in n or not prefix else prefix + n for n in names[1:]]


def _schema_at(schema: dict, dotted: str) -> tuple[dict | None, dict | None, str]:
    """(parent object schema, field schema, field name) of a seed path like ``a[*].b``."""
    parent, node = None, schema
    name = ""
    for part in dotted.split("."):
        stars = part.count("[*]")
        name = part.replace("[*]", "")
        parent = node
        node = (node or {}).get("properties", {}).get(name)
        for _ in range(stars):
            node = (node or {}).get("items")
    return parent, node, name


@pytest.mark.skipif(not SEED.exists(), reason="the seed is in shared/, beside the repository")
def test_every_seed_contract_and_field_is_in_its_contract():
    tables = _seed_tables()
    assert sorted(tables) == sorted(NAMES)
    problems = []
    for name, rows in tables.items():
        data = contract_data(name)
        schema = data["output_schema"]
        alias_names = {source for r in data["normalize"] if r["op"] == "alias" for source in r["from"]}
        for cell, required in rows:
            names = _seed_names(cell)
            canonical = []
            for seed_name in names:
                parent, field, leaf = _schema_at(schema, seed_name)
                if field is not None:
                    canonical.append((parent, leaf))
                    continue
                if leaf not in alias_names:
                    problems.append(f"{name}: {seed_name} is neither a field nor an alias")
            is_required = any(leaf in (parent or {}).get("required", ()) for parent, leaf in canonical)
            conditional = "(opération" in required or "(sauf" in required or "(alternative)" in required
            if required.startswith("Oui") and not conditional and canonical and not is_required:
                problems.append(f"{name}: {cell} is required by the seed")
            if required.startswith("Non") and is_required:
                problems.append(f"{name}: {cell} is optional in the seed")
    assert problems == []
