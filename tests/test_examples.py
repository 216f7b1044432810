"""The documented examples run and say what the docs say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from agi_core.cli import helpdoc

ROOT = Path(__file__).resolve().parent.parent


def test_embed_host_example(tmp_path):
    spec = importlib.util.spec_from_file_location("embed_host", ROOT / "examples" / "embed_host.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(tmp_path / "host.db") == [
        "Noted: the capital of Japan is Tokyo.",
        "The capital of Japan is Tokyo.",
        'stock: {"item":"apples","units":12}',
        "6 * 7 = 42",
    ]


def test_cli_reference_is_fresh():
    on_disk = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert on_disk == helpdoc.render(), "docs/cli.md is stale; run: python -m agi_core.cli.helpdoc > docs/cli.md"


def test_demo_dialogue_runs(tmp_path):
    from agi_core.testing import open_kernel

    lines = (ROOT / "examples" / "dialogue.txt").read_text().splitlines()
    with open_kernel(tmp_path / "demo.db", seed="0") as kernel:
        replies = [record.final_output for record in kernel.run(lines)]
    assert replies[:2] == ["2 + 3 = 5", "I can’t divide by zero: the result is undefined."]
    assert replies[-1].startswith("file_write failed: refused: write tool 'file_write' needs an explicit policy")
