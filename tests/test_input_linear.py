"""Issue 9, input is linear: no pattern applied to user text backtracks super-linearly.

Not a timed test: ``benchmarks/regex_linear.py --check`` runs every pattern (and whole
Stage-0 ticks) once on 64,000-character adversarial lines in a subprocess; linear code
needs a few seconds, the former router patterns needed hours (a 4,000-character line
took minutes). The timeout is only a hard stop, set far above what linear code needs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARD_STOP_S = 60  # linear code takes ~5 s here; one quadratic shape at 64 KB took ~100 s


def test_every_pattern_on_64k_adversarial_lines_finishes():
    command = [sys.executable, str(ROOT / "benchmarks" / "regex_linear.py"), "--check"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HARD_STOP_S, cwd=ROOT)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"still running after {HARD_STOP_S} s, on: {out.strip().splitlines()[-1:]}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "all patterns done"


def test_every_module_with_a_regex_is_in_the_benchmark():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from regex_linear import AUDITED_MODULES, CASES
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    using_re = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "agi_core").rglob("*.py")
        if any(
            line.strip() in ("import re", "from re import") for line in path.read_text(encoding="utf-8").splitlines()
        )
    )
    assert using_re == sorted(AUDITED_MODULES), "time the new module's patterns in benchmarks/regex_linear.py"
    assert set(AUDITED_MODULES.values()) <= set(CASES)


def test_the_stage0_router_uses_no_regex():
    for name in ("agents.py", "phrases.py", "habits.py", "mathparse.py", "brain.py", "explain.py", "indirect.py"):
        source = (ROOT / "agi_core" / "brain" / "stage0" / name).read_text(encoding="utf-8")
        assert "import re\n" not in source, name
    council = (ROOT / "agi_core" / "council.py").read_text(encoding="utf-8")  # the Stage-0 voters
    assert "import re\n" not in council
