#!/usr/bin/env bash
# Everything CI checks, in the order a contributor wants to learn about failures:
# lint (ruff), format (ruff format), types (mypy on agi_core), floors (lint-imports), then the whole test suite.
# Usage: scripts/check.sh [PYTHON]   (PYTHON defaults to .venv/bin/python); extra pytest args via PYTEST_ARGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
py="${1:-.venv/bin/python}"
"$py" -m ruff check agi_core tests benchmarks examples plugins scripts
"$py" -m ruff format --check .
"$py" -m mypy
"$(dirname "$py")/lint-imports"  # the floors of [tool.importlinter] in pyproject.toml
AGI_REQUIRE_LLM="${AGI_REQUIRE_LLM:-1}" "$py" -m pytest -q ${PYTEST_ARGS:-}
