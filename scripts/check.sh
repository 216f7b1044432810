#!/usr/bin/env bash
# Everything CI checks, in the order a contributor wants to learn about failures:
# lint (ruff), format (ruff format), types (mypy on agi_core and the plugins' packages), floors (lint-imports), then the tests.
#
# Usage: scripts/check.sh [--fast] [PYTHON]     (PYTHON defaults to .venv/bin/python)
#   (no flag)  the whole suite, what CI runs: the tests in parallel on every core (pytest-xdist),
#              then the tests marked `serial` alone, then the 25 slowest tests.
#   --fast     the inner loop: lint, types, and the tests that need no server, no model and are
#              not marked `slow` (about a minute on two cores).
# Extra pytest arguments go in PYTEST_ARGS; AGI_TEST_WORKERS sets the worker count (default: auto).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fast=0
if [[ "${1:-}" == "--fast" ]]; then
    fast=1
    shift
fi
py="${1:-.venv/bin/python}"
workers="${AGI_TEST_WORKERS:-auto}"

"$py" -m ruff check agi_core tests benchmarks examples plugins scripts conftest.py
"$py" -m ruff format --check .
"$py" -m mypy
"$(dirname "$py")/lint-imports"  # the floors of [tool.importlinter] in pyproject.toml

# pytest exits 5 when a marker selects no test: not a failure here.
run_pytest() { "$py" -m pytest "$@" || { status=$?; [[ $status -eq 5 ]] || exit $status; }; }

if [[ $fast -eq 1 ]]; then
    AGI_REQUIRE_LLM=0 run_pytest -q -n "$workers" -m "not slow and not server and not llm and not serial" ${PYTEST_ARGS:-}
    exit 0
fi
export AGI_REQUIRE_LLM="${AGI_REQUIRE_LLM:-1}"
run_pytest -q -n "$workers" -m "not serial" --durations=25 ${PYTEST_ARGS:-}
run_pytest -q -p no:xdist -m serial --durations=10 ${PYTEST_ARGS:-}
