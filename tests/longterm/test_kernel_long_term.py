"""Long-term memory inside the kernel: agi ingest, agi memory search, reopen, rollback, replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agi_core import checkpoints
from agi_core.cli.main import make_cli
from agi_core.replay import replay
from agi_core.testing import builtin_plugins, open_kernel


def _agi(db: Path, *args: str) -> str:
    result = CliRunner().invoke(make_cli(), ["--db", str(db), "--seed", "ltm", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_ingest_then_search_finds_the_evidence_turn_and_reopening_embeds_nothing(
    tmp_path, locomo_conv26, _minilm_loaded
):
    if not locomo_conv26.is_file():
        pytest.skip(f"{locomo_conv26} is not beside the repository")
    db = tmp_path / "a.db"
    out = _agi(db, "ingest", str(locomo_conv26), "--no-progress")
    assert out.startswith("conv-26.json: ") and " memories added (locomo), 0 already stored, " in out
    hits = json.loads(_agi(db, "memory", "search", "What did Caroline research?", "--json"))
    assert len(hits) == 10
    assert "D2:8" in [hit["metadata"].get("dia_id") for hit in hits]
    with open_kernel(db, seed="ltm") as kernel:
        kernel.long_term.search("When did Melanie paint a sunrise?", 10)
        assert kernel.long_term.embedder.texts_encoded == 1  # the query; nothing re-embedded
    assert _agi(db, "ingest", str(locomo_conv26), "--no-progress").startswith("conv-26.json: 0 memories added")
    assert replay(db, seed="ltm", plugins=builtin_plugins()).ok


def test_ticks_store_inputs_and_actions_and_rollback_restores_the_index(tmp_path, _minilm_loaded):
    db = tmp_path / "a.db"
    with open_kernel(db, seed="ltm") as kernel:
        kernel.tick("my favorite color is teal")
        kernel.tick("the capital of Peru is Lima")
        assert kernel.long_term.search("Which color do I like?", 2)[0].item.text == "my favorite color is teal"
        checkpoints.create(kernel, "two")
        kernel.tick("remember that my dentist appointment is on Friday")
        assert kernel.long_term.count() == 6
        assert "dentist" in kernel.long_term.search("dentist appointment", 1)[0].item.text
        checkpoints.rollback(kernel, "two")
        assert kernel.long_term.count() == 4
        assert all("dentist" not in hit.item.text for hit in kernel.long_term.search("dentist appointment", 4))
    with open_kernel(db, seed="ltm") as reopened:
        assert reopened.long_term.count() == 4


def test_rule_only_ticks_never_import_torch(tmp_path):
    code = (
        "import sys\nfrom agi_core.testing import open_kernel\n"
        f"with open_kernel({str(tmp_path / 'a.db')!r}) as k:\n"
        "    [k.tick(t) for t in ['2+2', 'my favorite color is red', 'what is my favorite color?']]\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'faiss') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stderr
