"""docs/reliability.md names, for each guarantee, tests that exist: a renamed or deleted test fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"`((?:plugins/[\w-]+/)?tests/[\w/]+\.py)::(\w+)(?:\[[^\]]*\])?`")  # a plugin's tests too


def test_every_guarantee_names_tests_that_exist():
    doc = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    sections = [s for s in re.split(r"\n### ", doc)[1:]]
    assert len(sections) >= 30
    unproved = [s.splitlines()[0] for s in sections if not REFERENCE.search(s) and "benchmarks/" not in s]
    assert unproved == [], f"guarantees with no test named in docs/reliability.md: {unproved}"
    missing = []
    for path, name in REFERENCE.findall(doc):
        source = ROOT / path
        if not source.is_file() or not re.search(
            rf"^\s*(?:async )?def {name}\(", source.read_text(encoding="utf-8"), re.M
        ):
            missing.append(f"{path}::{name}")
    assert missing == [], f"docs/reliability.md names tests that do not exist: {missing}"
