"""Helpers for the CLI tests: the ``agi`` command through click's runner and as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agi_core.cli.main import make_cli

Agi = Callable[..., Result]


@pytest.fixture
def agi(monkeypatch: pytest.MonkeyPatch) -> Agi:
    """``agi(*args, input=None)``: the ``agi`` group through click's runner (stderr kept apart)."""
    monkeypatch.delenv("AGI_RAISE_ERRORS", raising=False)
    monkeypatch.delenv("AGI_DEBUG", raising=False)

    def invoke(*args: str, input: str | bytes | None = None) -> Result:
        return CliRunner().invoke(make_cli(), list(args), input=input, prog_name="agi")

    return invoke


def agi_process(*args: str, input: bytes | str = b"", env: dict[str, str] | None = None, cwd: Path | None = None):
    """``python -m agi_core ARGS`` as a real process; returns the CompletedProcess (bytes)."""
    data = input.encode() if isinstance(input, str) else input
    environment = {k: v for k, v in os.environ.items() if k not in ("AGI_DEBUG", "AGI_RAISE_ERRORS")}
    return subprocess.run(
        [sys.executable, "-m", "agi_core", *args],
        input=data,
        capture_output=True,
        timeout=120,
        env={**environment, **(env or {})},
        cwd=cwd,
    )
