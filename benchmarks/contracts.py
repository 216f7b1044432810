"""Contract validation throughput: agi-core's engine against plain ``jsonschema``.

For each of the 70 contracts, two outputs as a model would send them (JSON text): the
contract's example (valid) and the example with its first required field removed or, for a
contract without required fields, its first field given the wrong type (invalid).

- ``agi``         ``validate_and_normalize(contract, text)``: parse, normalize, freeze, validate
                  (compiled ``jsonschema_rs``), and on failure path-carrying messages;
- ``jsonschema``  ``json.loads(text)`` then a pre-compiled ``Draft202012Validator``:
                  ``is_valid`` on valid outputs, the list of errors on invalid ones.

Both parse the same text; only agi-core also normalizes and freezes the result. Usage::

    PYTHONPATH=. python benchmarks/contracts.py [--seconds 0.2] [--json] [--contract NAME ...]
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agi_core.contracts import Contract, registry_from_plugins, validate_and_normalize
from agi_core.plugins import Plugins

PLUGIN_MODULES = {
    "contracts": "agi_core.default_plugins.contracts",
    "social": "agi_plugin_social.plugin",
    "autonomy": "agi_plugin_autonomy.plugin",
    "beliefs": "agi_plugin_beliefs.plugin",
    "self_improver": "agi_plugin_self_improver.plugin",
    "retrieval": "agi_plugin_retrieval.plugin",
    "learning": "agi_plugin_learning.plugin",
}


def load_contracts() -> dict[str, Contract]:
    """Every contract, from the plugin modules (installed or on ``sys.path``)."""
    plugins = Plugins()
    for name, module in PLUGIN_MODULES.items():
        if not plugins.add_module(module, name=name):
            sys.exit(f"cannot import {module}: pip install -e plugins/agi-plugin-{name.replace('_', '-')}")
    return dict(registry_from_plugins(plugins))


def invalid_output(contract: Contract) -> dict[str, Any]:
    example = copy.deepcopy(dict(contract.prompt.example))
    required = contract.output_schema.get("required", [])
    if required:
        del example[required[0]]
    elif contract.output_schema.get("properties"):
        first = next(name for name in example if name in contract.output_schema["properties"])
        example[first] = [1] if not isinstance(example[first], list) else "wrong"
    else:
        example = [example]  # type: ignore[assignment]
    return example


def rate(call: Callable[[], Any], seconds: float) -> float:
    """Calls per second: best of 3 timed runs of about ``seconds`` each."""
    batch = 1
    while True:  # size a batch to ~1/10 of the window
        start = time.perf_counter()
        for _ in range(batch):
            call()
        if time.perf_counter() - start > seconds / 10:
            break
        batch *= 2
    best = 0.0
    for _ in range(3):
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(batch):
                call()
            count += batch
        best = max(best, count / elapsed)
    return best


def measure(contract: Contract, seconds: float) -> dict[str, Any]:
    valid_text = json.dumps(dict(contract.prompt.example), ensure_ascii=False)
    invalid_text = json.dumps(invalid_output(contract), ensure_ascii=False)
    reference = jsonschema.Draft202012Validator(dict(contract.output_schema))
    assert validate_and_normalize(contract, valid_text).ok and reference.is_valid(json.loads(valid_text))
    assert not validate_and_normalize(contract, invalid_text).ok and not reference.is_valid(json.loads(invalid_text))
    return {
        "contract": contract.name,
        "bytes": len(valid_text),
        "agi_valid": rate(lambda: validate_and_normalize(contract, valid_text), seconds),
        "jsonschema_valid": rate(lambda: reference.is_valid(json.loads(valid_text)), seconds),
        "agi_invalid": rate(lambda: validate_and_normalize(contract, invalid_text), seconds),
        "jsonschema_invalid": rate(lambda: list(reference.iter_errors(json.loads(invalid_text))), seconds),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.2, help="length of each timed run (3 per measure)")
    parser.add_argument("--contract", action="append", help="only these contracts (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    contracts = load_contracts()
    names = args.contract or sorted(contracts)
    rows = [measure(contracts[name], args.seconds) for name in names]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"python {platform.python_version()} on {platform.machine()}, {len(rows)} contracts, "
        f"best of 3 x {args.seconds}s; calls/s"
    )
    header = (
        f"{'contract':34} {'bytes':>5} {'agi valid':>10} {'jsonschema':>10} {'ratio':>6}  "
        f"{'agi invalid':>11} {'jsonschema':>10} {'ratio':>6}"
    )
    print(header)
    for row in rows:
        print(
            f"{row['contract']:34} {row['bytes']:5d} {row['agi_valid']:10.0f} {row['jsonschema_valid']:10.0f} "
            f"{row['agi_valid'] / row['jsonschema_valid']:6.1f}  {row['agi_invalid']:11.0f} "
            f"{row['jsonschema_invalid']:10.0f} {row['agi_invalid'] / row['jsonschema_invalid']:6.1f}"
        )
    for kind in ("valid", "invalid"):
        ours = [row[f"agi_{kind}"] for row in rows]
        theirs = [row[f"jsonschema_{kind}"] for row in rows]
        ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
        print(
            f"{kind:>7}: agi median {statistics.median(ours):,.0f}/s (min {min(ours):,.0f}), jsonschema median "
            f"{statistics.median(theirs):,.0f}/s; ratio median {statistics.median(ratios):.1f}x "
            f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)"
        )


if __name__ == "__main__":
    main()
