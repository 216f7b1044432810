"""--db takes a backend URL: its scheme picks the backend, and a missing one is a one-line error."""

from __future__ import annotations

from pathlib import Path


def test_a_postgresql_url_without_the_plugin_is_one_line_naming_the_package(run_agi, tmp_path: Path):
    done = run_agi("postgresql://localhost/agi?agent=ada", "run", stdin="hello\n")  # type: ignore[arg-type]
    assert done.returncode == 1
    assert done.stderr == (
        "Error: --db postgresql://… needs the memory backend 'postgres', which is not installed "
        "(installed: sqlite); pip install agi-plugin-postgres, and list postgres in AGI_LOAD_PLUGINS when that is set\n"
    )
    assert list(tmp_path.iterdir()) == [] and not Path("postgresql:").exists()  # nothing created, no stray file


def test_a_file_path_is_still_a_sqlite_database(run_agi, tmp_path: Path):
    db = tmp_path / "a.db"
    assert run_agi(db, "run", stdin="2+2\n").stdout == "2+2 = 4\n"
    assert db.is_file()
