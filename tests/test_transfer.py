"""agi export / agi import (agi_core.memory.transfer): a whole agent moved through a versioned JSONL file."""

from __future__ import annotations

import json
from pathlib import Path

from agi_core.plugins import _agi_core_version

SAID = "the capital of Peru is Lima\nmy favorite color is green\n2*21\nwhat is the capital of Peru?\n"


def _moved(run_agi, tmp_path: Path) -> tuple[Path, Path]:
    first, last = tmp_path / "first.db", tmp_path / "last.db"
    assert run_agi(first, "run", stdin=SAID + "y" * 5000 + "\n").returncode == 0  # the long input is a blob
    assert run_agi(first, "export", "-o", str(tmp_path / "first.jsonl")).returncode == 0
    done = run_agi(last, "import", str(tmp_path / "first.jsonl"), "--key-file", f"{first}.key")
    assert (done.returncode, done.stdout) == (
        0,
        f"imported {_rows(tmp_path / 'first.jsonl')} rows into {last} (tick 5)\n",
    )
    return first, last


def _rows(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("["))


def test_an_exported_agent_imports_with_every_row_identical_and_replays_equal(run_agi, tmp_path: Path):
    _first, last = _moved(run_agi, tmp_path)
    assert run_agi(last, "export", "-o", str(tmp_path / "last.jsonl")).returncode == 0
    assert (tmp_path / "last.jsonl").read_bytes() == (tmp_path / "first.jsonl").read_bytes()
    assert run_agi(last, "replay").stdout == "replay equal: 5 ticks (1..5), 16 fields each\n"
    verified = run_agi(last, "journal", "verify")
    assert verified.returncode == 0 and "state OK: every row matches the seal at tick 5" in verified.stdout
    assert run_agi(last, "run", stdin="what is the capital of Peru?\n").stdout == "The capital of Peru is Lima.\n"
    core = _agi_core_version()  # the versions that wrote the ticks moved with them
    assert (
        run_agi(last, "status").stdout.splitlines()[-1]
        == f"written by: ticks 1..6: agi-core {core} with no other plugins"
    )


def test_a_truncated_export_is_refused_and_nothing_is_imported(run_agi, tmp_path: Path):
    first = tmp_path / "first.db"
    run_agi(first, "run", stdin=SAID)
    run_agi(first, "export", "-o", str(tmp_path / "a.jsonl"))
    lines = (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "cut.jsonl").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    done = run_agi(tmp_path / "b.db", "import", str(tmp_path / "cut.jsonl"), "--key-file", f"{first}.key")
    assert (done.returncode, done.stderr) == (
        1,
        "Error: the export is truncated (no end line); export the agent again\n",
    )
    assert not (tmp_path / "b.db").exists() and not (tmp_path / "b.db.key").exists()  # nothing was created


def test_an_export_of_another_version_or_format_is_one_line(run_agi, tmp_path: Path):
    (tmp_path / "v9.jsonl").write_text('{"format":"agi-agent","version":9}\n', encoding="utf-8")
    (tmp_path / "key").write_text("k\n", encoding="ascii")
    done = run_agi(tmp_path / "b.db", "import", str(tmp_path / "v9.jsonl"), "--key-file", str(tmp_path / "key"))
    assert (
        done.stderr
        == "Error: export format version 9 is not supported (this agi reads 2 and 3, and 1 with --unverified)\n"
    )
    (tmp_path / "x.jsonl").write_text("[1,2]\n", encoding="utf-8")
    done = run_agi(tmp_path / "c.db", "import", str(tmp_path / "x.jsonl"), "--key-file", str(tmp_path / "key"))
    assert done.stderr == (
        "Error: not an agi agent export (line 1 is not a 'agi-agent' header); pass a file from agi export\n"
    )


def test_import_into_an_existing_agent_is_refused(run_agi, tmp_path: Path):
    first, last = _moved(run_agi, tmp_path)
    again = run_agi(last, "import", str(tmp_path / "first.jsonl"), "--key-file", f"{first}.key")
    assert again.returncode == 1
    assert again.stderr == f"Error: {last} already holds an agent; import into a new database (or a new agent name)\n"


NOTEBOOK = Path(__file__).with_name("modules") / "notebook_plugin.py"


def test_module_state_moves_with_the_agent_and_the_moved_agent_replays_equal(run_agi, plugin_site, tmp_path: Path):
    site = plugin_site("notebook", NOTEBOOK.read_text(encoding="utf-8"))
    first, last = tmp_path / "first.db", tmp_path / "last.db"

    def agi(db: Path, *args: str, stdin: str = ""):
        done = run_agi(db, *args, site=site, plugins="notebook", stdin=stdin)
        assert done.returncode == 0, done.stderr
        return done

    agi(first, "run", stdin="hello\nnotebook?\n")
    agi(first, "export", "-o", str(tmp_path / "first.jsonl"))
    lines = (tmp_path / "first.jsonl").read_text(encoding="utf-8").splitlines()
    start = lines.index('{"table":"module_state","columns":["module","key","value","tick"],"rows":2}')
    assert [line[: -len(',"') - 64 - 2] + "]" for line in lines[start + 1 : start + 3]] == [  # each row's MAC cut
        '["notebook","last","\\"I have seen 2 inputs.\\"",2]',
        '["notebook","seen","2",2]',
    ]
    agi(last, "import", str(tmp_path / "first.jsonl"), "--key-file", f"{first}.key")
    shown = agi(last, "modules", "show", "notebook", "--json").stdout
    assert json.loads(shown) == {"seen": 2, "last": "I have seen 2 inputs."}
    agi(last, "export", "-o", str(tmp_path / "last.jsonl"))
    assert (tmp_path / "last.jsonl").read_bytes() == (tmp_path / "first.jsonl").read_bytes()
    assert agi(last, "replay").stdout.startswith("replay equal: 2 ticks (1..2)")
    assert "state OK: every row matches the seal at tick 2" in agi(last, "journal", "verify").stdout
    assert agi(last, "run", stdin="notebook?\n").stdout == "I have seen 3 inputs.\n"
