"""Check the seed rlm-state-schema.yaml against itself and against schemas/rlm_state.json.

Run ``python tests/state/rlm_seed.py`` from the repository root to print the report; the
tests in this folder import the same functions. The seed is read from
``../shared/seeds/rlm-state-schema.yaml`` beside the repository when it is there, else from
the copy in ``tests/state/data/``.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED_SEED = REPO.parent / "shared" / "seeds" / "rlm-state-schema.yaml"
SEED_COPY = HERE / "data" / "rlm-state-schema.yaml"
CORRECTIONS = HERE / "data" / "seed_corrections.json"
SCHEMA = REPO / "schemas" / "rlm_state.json"

RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("date-time")
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or RFC3339.fullmatch(value) is not None


# Small documents that show what the seed's schema gets wrong (name -> instance).
PROBES: dict[str, dict[str, Any]] = {
    "tree_id_null": {"version": "1.0.0", "state_id": "state-00000000", "tree_id": None, "variables": {}},
    "final_of_type_null": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {"Final": {"name": "Final", "value": None, "type": "null"}},
    },
    "user_variable_not_a_variable": {"version": "1.0.0", "state_id": "state-00000000", "variables": {"risk_count": 5}},
    "value_disagrees_with_type": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {"risk_count": {"name": "risk_count", "value": "three", "type": "number"}},
    },
    "name_breaks_identifier_rule": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {"risk-count": {"name": "risk-count", "value": 3, "type": "number"}},
    },
    "typo_in_field_name": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {"x": {"name": "x", "value": 3, "type": "number", "create_at": "2026-02-09T10:00:00Z"}},
    },
    "file_path_escapes": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {"f": {"name": "f", "value": "file:../other-state/secret.json", "type": "file_path"}},
    },
    "rollback_mutation": {
        "version": "1.0.0",
        "state_id": "state-00000000",
        "variables": {},
        "history": {
            "mutations": [
                {
                    "mutation_id": "mut-00000001",
                    "operation": "rollback",
                    "variable_name": "*",
                    "timestamp": "2026-02-09T10:00:00Z",
                    "metadata": {"checkpoint_id": "ckpt-00000001"},
                }
            ]
        },
    },
}
# What each probe should do: (accepted by the seed's schema, accepted by ours).
PROBE_VERDICTS: dict[str, tuple[bool, bool]] = {
    "tree_id_null": (False, True),
    "final_of_type_null": (False, True),
    "user_variable_not_a_variable": (True, False),
    "value_disagrees_with_type": (True, False),
    "name_breaks_identifier_rule": (True, False),
    "typo_in_field_name": (True, False),
    "file_path_escapes": (True, False),
    "rollback_mutation": (False, True),
}


def seed_path() -> Path:
    """The shared seed when it is readable, else the stored copy."""
    return SHARED_SEED if SHARED_SEED.is_file() else SEED_COPY


def load_seed(path: Path | None = None) -> dict[str, Any]:
    """The seed YAML as data."""
    return yaml.safe_load((path or seed_path()).read_text(encoding="utf-8"))


def load_schema() -> dict[str, Any]:
    """Our corrected schema."""
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def seed_validator(seed: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """The seed used as a schema exactly as written (it fails the meta-schema, so unchecked)."""
    return jsonschema.Draft202012Validator(seed)


def our_validator() -> jsonschema.Draft202012Validator:
    """Our schema, with RFC 3339 ``date-time`` checking switched on."""
    return jsonschema.Draft202012Validator(load_schema(), format_checker=FORMATS)


def store_validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator for a schema's ``VariableStore`` alone."""
    return jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": "#/$defs/VariableStore"}, format_checker=FORMATS
    )


def _pointer(doc: Any, pointer: str) -> tuple[Any, str]:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("/").split("/")]
    for part in parts[:-1]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc, parts[-1]


def _get(doc: Any, pointer: str) -> Any:
    parent, key = _pointer(doc, pointer)
    return parent[int(key)] if isinstance(parent, list) else parent[key]


def apply_patch(doc: Any, patch: dict[str, Any]) -> None:
    """Apply one JSON-Patch ``replace``/``add``/``copy`` operation in place."""
    value = copy.deepcopy(_get(doc, patch["from"]) if patch["op"] == "copy" else patch.get("value"))
    parent, key = _pointer(doc, patch["path"])
    if isinstance(parent, list):
        if key == "-":
            parent.append(value)
        else:
            parent[int(key)] = value
    else:
        parent[key] = value


def examples(seed: dict[str, Any]) -> dict[str, Any]:
    """The seed's examples by target name: the three documents and the VariableStore one."""
    found = {f"examples/{name}": doc for name, doc in seed["examples"].items()}
    for i, doc in enumerate(seed["$defs"]["VariableStore"].get("examples", [])):
        found[f"$defs/VariableStore/examples/{i}"] = doc
    return copy.deepcopy(found)


def corrected_examples(seed: dict[str, Any]) -> dict[str, Any]:
    """The seed's examples with every patch of ``seed_corrections.json`` applied."""
    found = examples(seed)
    for patch in json.loads(CORRECTIONS.read_text(encoding="utf-8"))["patches"]:
        apply_patch(found[patch["target"]], patch)
    return found


def errors(validator: jsonschema.protocols.Validator, instance: Any) -> list[str]:
    """``<json path>: <message>`` for every error, sorted."""
    return sorted(f"{e.json_path}: {e.message}" for e in validator.iter_errors(instance))


def meta_errors(schema: dict[str, Any]) -> list[str]:
    """Where ``schema`` breaks the Draft 2020-12 meta-schema (path and failed keyword)."""
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    return sorted(f"{e.json_path}: fails {e.validator!r} {e.validator_value!r}" for e in meta.iter_errors(schema))


def report() -> str:
    """The full text report (seed as-is, ours on the original and corrected examples)."""
    seed = load_seed()
    ours = our_validator()
    lines = [f"seed: {seed_path()}"]
    meta = meta_errors(seed)
    lines.append(f"seed against the 2020-12 meta-schema: {len(meta)} error(s)")
    lines += [f"  {m}" for m in meta]
    fixed = corrected_examples(seed)
    for target, doc in examples(seed).items():
        is_store = target.startswith("$defs/")
        theirs = store_validator(seed) if is_store else seed_validator(seed)
        mine = store_validator(load_schema()) if is_store else ours
        lines.append(f"{target}:")
        lines += [f"  seed schema: {e}" for e in errors(theirs, doc)] or ["  seed schema: valid"]
        lines += [f"  ours, as written: {e}" for e in errors(mine, doc)] or ["  ours, as written: valid"]
        lines += [f"  ours, corrected: {e}" for e in errors(mine, fixed[target])] or ["  ours, corrected: valid"]
    for name, probe in PROBES.items():
        lines.append(
            f"probe {name}: seed {'accepts' if not errors(seed_validator(seed), probe) else 'rejects'},"
            f" ours {'accepts' if not errors(ours, probe) else 'rejects'}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(report() + "\n")
