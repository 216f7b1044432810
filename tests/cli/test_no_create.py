"""Read-only commands on a path with no database fail in one line and create nothing."""

from __future__ import annotations

import pytest

from agi_core.testing.read_only import READ_ONLY_COMMANDS
from tests.cli.conftest import Agi, agi_process

READ_ONLY = READ_ONLY_COMMANDS


@pytest.mark.parametrize("folder", ["nested", ""])
@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_command_on_a_missing_database_creates_nothing(agi: Agi, tmp_path, args, folder) -> None:
    """In a missing folder, and beside other files (``agi modules show`` once made ``typo.db`` and its key)."""
    db = tmp_path / folder / "mistyped.db"
    result = agi("--db", str(db), *args)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: no agent database at {db} (create one with agi run)\n"
    assert list(tmp_path.iterdir()) == []


def test_journal_verify_on_a_mistyped_path_as_a_process(tmp_path) -> None:
    """The case from the issue: it used to create an empty database and answer "journal OK: 0 records"."""
    done = agi_process("--db", "mistyped.db", "journal", "verify", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr == b"Error: no agent database at mistyped.db (create one with agi run)\n"
    assert list(tmp_path.iterdir()) == []
