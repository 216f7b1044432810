"""How often SmolLM2-135M satisfies the contracts: first attempt, after repair, after retry.

Each contract is called through the real pipeline (prompt, JSON-object+schema structured
output, cheap repairs, validation, retry with the errors fed back, fallback) against
llama.cpp: the OpenAI-compatible server if ``--base-url`` is given (start it with
``scripts/llama_server.sh``), else the in-process ``llama-cpp`` provider. Needs
``scripts/install_llama_cpp.sh``. Usage::

    python benchmarks/smollm2_contracts.py [--contracts 20] [--attempts 3] [--base-url URL]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from agi_core.contracts import Budget, ContractViolation, call_contract, registry_from_plugins
from agi_core.plugins import Plugins

SAMPLE = (
    "Hi, I'm Ana. Yesterday I moved to Lisbon for a new job at a bakery; tomorrow I must "
    "register at the city hall, and I'm nervous about my Portuguese."
)


def outcome_of(call: object) -> str:
    if isinstance(call, ContractViolation):
        return "fallback" if call.fallback is not None else "violation"
    if call.attempts == 1:  # type: ignore[attr-defined]
        return "first_attempt_repaired" if call.repairs else "first_attempt"  # type: ignore[attr-defined]
    return "after_retry"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=20, help="how many contracts (alphabetical); 0 = all")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--base-url", help="an OpenAI-compatible llama.cpp server; default: in-process")
    args = parser.parse_args()
    plugins = Plugins.from_environment()
    registry = registry_from_plugins(plugins)
    names = sorted(registry)[: args.contracts or None]
    factories = {name: reg.obj for name, reg in plugins.collect("agi_register_llm_providers").items()}
    if args.base_url:
        provider = factories["openai"](base_url=args.base_url, timeout=300)
    else:
        from agi_core.llm.gguf import packaged_gguf

        provider = factories["llama-cpp"](model_path=str(packaged_gguf()), n_threads=1)
    tally: collections.Counter[str] = collections.Counter()
    start = time.perf_counter()
    for name in names:
        contract = registry[name]
        variables = {key: SAMPLE for key in (contract.inputs or {"text": ""})}
        try:
            call: object = call_contract(
                contract,
                provider,
                variables,
                budget=Budget(attempts=args.attempts, tokens=8000, max_tokens=args.max_tokens),
            )
        except ContractViolation as violation:
            call = violation
        tally[outcome_of(call)] += 1
        print(f"{name:<40} {outcome_of(call)}", flush=True)
    total = len(names)
    print(
        f"\n{total} contract calls with SmolLM2-135M in {time.perf_counter() - start:.0f} s "
        f"(attempts ≤ {args.attempts}, ≤ {args.max_tokens} tokens per answer):"
    )
    for key in ("first_attempt", "first_attempt_repaired", "after_retry", "fallback", "violation"):
        print(f"  {key:<24} {tally[key]:>3}  ({tally[key] / total:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
