"""docs/contracts.md shows what the code does."""

from __future__ import annotations

import json
import re

from contracts_support import CORE_SPECS, REPO

from agi_core.contracts import meta_schema_path
from agi_core.contracts.normalize import OPERATIONS

DOCS = (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")


def test_the_format_example_is_the_shipped_file():
    block = re.search(r"```json\n(.*?)```", DOCS, re.S).group(1)
    assert block == (CORE_SPECS / "goal_priority_review.json").read_text(encoding="utf-8")


def test_every_operation_is_documented_and_in_the_meta_schema():
    meta = json.loads(meta_schema_path().read_text(encoding="utf-8"))
    assert meta["$defs"]["rule"]["properties"]["op"]["enum"] == list(OPERATIONS)
    section = DOCS.split("## Normalization", 1)[1].split("\n## ", 1)[0]
    first_cells = re.findall(r"^\| ([^|]+) \|", section, re.M)
    names = {name for cell in first_cells for name in re.findall(r"`([a-z_]+)`", cell)}
    assert names == set(OPERATIONS)
