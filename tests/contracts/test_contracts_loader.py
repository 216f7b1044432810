"""Contract files: a malformed one is refused with its path and the JSON path of the problem."""

from __future__ import annotations

import json

import pytest
from contracts_support import CORE_SPECS

from agi_core.contracts import (
    ContractFileError,
    ContractRegistry,
    UnknownContract,
    contract_from_dict,
    load_contract,
    meta_schema_path,
    registry_from_plugins,
)
from agi_core.errors import RegistrationError, ValidationError
from agi_core.hookspecs import hookimpl
from agi_core.plugins import Plugins

GOOD = json.loads((CORE_SPECS / "trigger_router.json").read_text(encoding="utf-8"))


def write(tmp_path, data, name="trigger_router"):
    path = tmp_path / f"{name}.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def refused(tmp_path, data, name="trigger_router") -> ContractFileError:
    path = write(tmp_path, data, name)
    with pytest.raises(ContractFileError) as info:
        load_contract(path)
    assert info.value.file == str(path)
    assert "\n" not in str(info.value)
    assert str(info.value).startswith(f"contract file {path} is invalid @ {info.value.path}: ")
    return info.value


def test_the_meta_schema_is_draft_2020_12():
    schema = json.loads(meta_schema_path().read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://agi-core.dev/schemas/contract.json"


def test_a_good_file_loads(tmp_path):
    contract = load_contract(write(tmp_path, GOOD))
    assert (contract.name, contract.family, contract.max_tokens) == ("trigger_router", "cognition", 512)
    assert contract.to_dict()["output_schema"] == GOOD["output_schema"]


@pytest.mark.parametrize(
    "change,path,problem",
    [
        (lambda d: d.pop("name"), "$.name", "required field is missing"),
        (lambda d: d.update(name="Bad Name"), "$.name", "does not match"),
        (lambda d: d.update(colour="red"), "$", "Additional properties are not allowed ('colour' was unexpected)"),
        (lambda d: d["normalize"].append({"op": "clampp", "path": "$.x"}), "$.normalize[0].op", "must be one of"),
        (
            lambda d: d["normalize"].append({"op": "clamp", "path": "$.x", "min": 0}),
            "$.normalize[0].max",
            "required field is missing",
        ),
        (
            lambda d: d["normalize"].append({"op": "clamp", "path": "$.x", "min": 1, "max": 0}),
            "$.normalize[0]",
            "clamp has min greater than max",
        ),
        (lambda d: d["normalize"].append({"op": "upper", "path": "x.y"}), "$.normalize[0].path", "does not match"),
        (
            lambda d: d["normalize"].append({"op": "default_id", "path": "$", "field": "id", "template": "{uuid}"}),
            "$.normalize[0].template",
            "does not match",
        ),
        (lambda d: d["output_schema"].update(type="array"), "$.output_schema.type", '"object" was expected'),
        (
            lambda d: d["output_schema"]["properties"]["notes"].update(type="text"),
            "$.output_schema.properties.notes.type",
            "",
        ),
        (
            lambda d: d["prompt"]["example"].update(notes=3),
            "$.prompt.example.notes",
            "the example output does not satisfy the contract: expected string, got integer",
        ),
        (lambda d: d.update(fallback="not a reference"), "$.fallback", "does not match"),
        (lambda d: d.update(limits={"max_tokens": 1}), "$.limits.max_tokens", "must be >= 16"),
    ],
)
def test_malformed_files_are_refused(tmp_path, change, path, problem):
    data = json.loads(json.dumps(GOOD))
    data["normalize"] = []
    change(data)
    error = refused(tmp_path, data)
    assert error.path == path
    assert problem in error.problem
    assert isinstance(error, ValidationError)


def test_not_json_names_line_and_column(tmp_path):
    error = refused(tmp_path, '{"name": "trigger_router",\n  oops}')
    assert error.path == "$"
    assert error.problem == "not valid JSON at line 2 column 3: Expecting property name enclosed in double quotes"


def test_name_must_match_file_name(tmp_path):
    error = refused(tmp_path, GOOD, name="router")
    assert (error.path, error.problem) == (
        "$.name",
        "'trigger_router' does not match the file name; rename the file to trigger_router.json",
    )


def test_missing_file(tmp_path):
    with pytest.raises(ContractFileError, match=r"@ \$: cannot be read \(FileNotFoundError"):
        load_contract(tmp_path / "nope.json")


def test_non_object():
    with pytest.raises(ContractFileError, match=r"<x> is invalid @ \$: a contract must be a JSON object"):
        contract_from_dict([], source="<x>")


# -- registration through plugins ------------------------------------------------------------


class _FilePlugin:
    def __init__(self, path, name=None):
        self.path, self.name = path, name

    @hookimpl
    def agi_register_contracts(self, register):
        register(self.path, **({"name": self.name} if self.name else {}))


def test_a_malformed_plugin_contract_is_reported_and_skipped(tmp_path):
    bad = json.loads(json.dumps(GOOD))
    bad["prompt"]["example"]["pipelines"] = "x"
    plugins = Plugins()
    plugins.add_module(_FilePlugin(write(tmp_path, bad), "trigger_router"), name="broken")
    plugins.add_module("agi_core.default_plugins.contracts", name="contracts")
    registry = registry_from_plugins(plugins)
    assert len(registry) == 40
    assert registry.plugin_of("trigger_router") == "contracts"
    assert [(f.plugin, f.stage) for f in plugins.failures] == [("broken", "agi_register_contracts")]
    assert "@ $.prompt.example.pipelines: the example output" in plugins.failures[0].cause


def test_duplicate_names_name_both_plugins(tmp_path):
    plugins = Plugins()
    plugins.add_module("agi_core.default_plugins.contracts", name="contracts")
    plugins.add_module(_FilePlugin(write(tmp_path, GOOD)), name="copycat")  # registered without name=
    registry = registry_from_plugins(plugins)
    assert registry.plugin_of("trigger_router") == "contracts"
    assert "'trigger_router' is registered by both plugins 'contracts' and 'copycat'" in plugins.failures[0].cause


def test_registration_name_must_be_the_contract_name(tmp_path):
    plugins = Plugins()
    plugins.add_module(_FilePlugin(write(tmp_path, GOOD), "router"), name="p")
    assert len(registry_from_plugins(plugins)) == 0
    assert "registered under the name 'router'; call register(obj, name='trigger_router')" in plugins.failures[0].cause


def test_registry_accepts_contract_objects_and_dicts():
    contract = contract_from_dict(GOOD)
    registry = ContractRegistry()
    registry.add(contract, "mine")
    assert registry["trigger_router"] is contract and list(registry) == ["trigger_router"]
    with pytest.raises(RegistrationError, match="registered by both plugins 'mine' and 'yours'"):
        registry.add(contract_from_dict(GOOD), "yours")
    with pytest.raises(UnknownContract, match=r"no contract named 'nope'; `agi contracts list` shows the 1") as info:
        registry["nope"]
    assert isinstance(info.value, KeyError)
    assert registry.get("nope") is None


def test_a_contract_folder_hook_registers_each_file_of_its_folder_under_its_name(tmp_path):
    import types

    from agi_core.plugins import contract_folder_hook

    other = json.loads(json.dumps(GOOD))
    other["name"] = "second_router"
    write(tmp_path, GOOD), write(tmp_path, other, "second_router")
    pack = types.ModuleType("pack")
    pack.agi_register_contracts = contract_folder_hook(tmp_path)  # type: ignore[attr-defined]
    plugins = Plugins()
    assert plugins.add_module(pack)
    registry = registry_from_plugins(plugins)
    assert sorted(registry) == ["second_router", "trigger_router"]
    assert {registry.plugin_of(name) for name in registry} == {"pack"}
    assert plugins.failures == []


def test_a_contract_folder_that_does_not_exist_is_one_line_at_import(tmp_path):
    from agi_core.plugins import contract_folder_hook

    with pytest.raises(RegistrationError, match=r"^no contract folder at .*gone; ship the contract files"):
        contract_folder_hook(tmp_path / "gone")
