"""agi export / agi import under attack: kills mid-write, edited files, leftover files, hostile lines.

Real ``agi`` processes on real SQLite files; kills are real SIGKILLs, at random moments or at the
named fault points of :mod:`agi_core.agent_import` (``AGI_FAULT``).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agi_core.memory.transfer import MAX_LINE_BYTES

ROOT = Path(__file__).resolve().parent.parent
SAID = "the capital of Peru is Lima\nmy name is Ada150\n2*21\n"


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGI_LOAD_PLUGINS": "", **extra}
    env.pop("AGI_JOURNAL_KEY", None)
    env.pop("AGI_FAULT", None)
    env.update(extra)
    return env


def agi(db: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "agi_core", "--db", str(db), *args]
    return subprocess.run(command, input=stdin, env=_env(**env), capture_output=True, text=True, timeout=120)


def popen(db: Path, *args: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "agi_core", "--db", str(db), *args]
    return subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An agent of three ticks and its export: ``(database, export file)``."""
    folder = tmp_path_factory.mktemp("source")
    db = folder / "a.db"
    assert agi(db, "run", stdin=SAID).returncode == 0
    assert agi(db, "export", "-o", str(folder / "a.jsonl")).returncode == 0
    return db, folder / "a.jsonl"


def _files(folder: Path, name: str) -> list[str]:
    """Every file whose name mentions ``name`` (the target, its key, temporary files)."""
    return sorted(p.name for p in folder.iterdir() if name in p.name)


# -- 1. export never destroys a good export ------------------------------------------------------
def test_a_kill_during_export_to_a_file_leaves_the_previous_export_whole(tmp_path: Path):
    db = tmp_path / "big.db"
    notes = "".join(f"note {i}: " + "x" * 50_000 + "\n" for i in range(60))  # 60 blobs of 50 KB
    assert agi(db, "run", stdin=notes).returncode == 0
    out = tmp_path / "agent.jsonl"
    assert agi(db, "export", "-o", str(out)).returncode == 0
    before = out.read_bytes()
    assert len(before) > 4_000_000
    started = time.monotonic()
    assert agi(db, "export", "-o", str(out)).returncode == 0
    whole = time.monotonic() - started
    killed_writing = 0
    for trial in range(12):
        process = popen(db, "export", "-o", str(out))
        if trial < 6:  # kill once the new export is being written
            while process.poll() is None and not _writing(tmp_path, out, len(before)):
                time.sleep(0.0005)
        else:  # kill at a random moment of the command's life
            time.sleep(random.uniform(0, whole))
        process.send_signal(signal.SIGKILL)
        process.wait()
        killed_writing += trial < 6 and process.returncode == -signal.SIGKILL
        assert out.read_bytes() == before, f"trial {trial}: the previous export was damaged"
    assert killed_writing == 6  # each of those kills landed while the new file was being written
    assert agi(db, "export", "-o", str(out)).returncode == 0
    assert out.read_bytes() == before
    assert _files(tmp_path, "agent.jsonl") == ["agent.jsonl"]  # the killed exports' temporary files are gone


def _writing(folder: Path, out: Path, size: int) -> bool:
    if out.stat().st_size != size:
        return True  # the old code truncates the file itself
    for temp in folder.glob(f".{out.name}.export-*"):
        try:
            if temp.stat().st_size > 0:
                return True
        except FileNotFoundError:
            pass
    return False


@pytest.mark.parametrize("command", [["export"], ["journal", "export"]], ids=["export", "journal export"])
@pytest.mark.parametrize("own", ["a.db", "a.db.key", "a.db-wal", "a.db.checkpoints/x.jsonl", "sub/../a.db"])
def test_an_export_over_the_agents_own_files_is_refused_and_changes_nothing(
    tmp_path: Path, command: list[str], own: str
):
    """Both exports renamed (agi export) or truncated (agi journal export) their file over the agent's own
    database or key and said "exported": the agent could not be opened again."""
    db = tmp_path / "a.db"
    assert agi(db, "run", stdin=SAID).returncode == 0
    (tmp_path / "sub").mkdir()
    before = {name: (tmp_path / name).read_bytes() for name in ("a.db", "a.db.key")}
    done = agi(db, *command, "-o", str(tmp_path / own))
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is the agent's own" in done.stderr or "is inside the agent's own" in done.stderr
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert agi(db, "journal", "verify").returncode == 0


def test_a_kill_during_journal_export_leaves_the_previous_file_whole(tmp_path: Path):
    """agi journal export wrote its file in place: a kill left a shorter journal, which imported as good."""
    db, out = tmp_path / "big.db", tmp_path / "j.jsonl"
    notes = "".join(f"note {i}: " + "x" * 50_000 + "\n" for i in range(60))  # records that resolve to 50 KB each
    assert agi(db, "run", stdin=notes).returncode == 0
    assert agi(db, "journal", "export", "-o", str(out)).returncode == 0
    before = out.read_bytes()
    for trial in range(4):  # killed once the new export is being written
        process = popen(db, "journal", "export", "-o", str(out))
        while process.poll() is None and not _writing(tmp_path, out, len(before)):
            time.sleep(0.0005)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert process.returncode == -signal.SIGKILL and out.read_bytes() == before, f"trial {trial}"


def test_an_export_says_the_checkpoints_it_leaves_out(tmp_path: Path):
    """Checkpoints are files beside the database: an imported agent has none, and the first rollback on it
    said "no checkpoint named 'base'", nothing having said so before."""
    db = tmp_path / "a.db"
    assert agi(db, "run", stdin=SAID).returncode == 0
    assert "checkpoint" not in agi(db, "export", "-o", str(tmp_path / "a.jsonl")).stderr
    assert agi(db, "checkpoint", "create", "base").returncode == 0
    done = agi(db, "export", "-o", str(tmp_path / "a.jsonl"))
    assert done.returncode == 0 and done.stderr.splitlines()[1] == (
        "agi: its 1 checkpoint(s) (base) are not in the export; the imported agent starts with none "
        "(agi checkpoint create there)"
    )


def test_an_import_given_another_seed_succeeds_and_says_the_agents_own(source, tmp_path: Path):
    """'agi --seed 5 import' built the whole agent, then failed its seed check: exit 1 after a success,
    and importing again said the database already held an agent."""
    db, export = source
    done = agi(tmp_path / "z.db", "--seed", "5", "import", str(export), "--key-file", f"{db}.key")
    assert done.returncode == 0 and done.stdout.startswith("imported ")
    assert done.stderr == (
        f"agi: {tmp_path / 'z.db'} keeps the seed it was exported with ('0'), not --seed 5; "
        "open it without --seed, or with --seed 0\n"
    )
    assert agi(tmp_path / "z.db", "journal", "verify").returncode == 0


def test_an_export_or_import_into_a_missing_folder_names_the_folder(source, tmp_path: Path):
    """The lines named the hidden temporary file: 'missing/.x.jsonl.export-2396: no such file or directory'."""
    db, export = source
    out = agi(db, "export", "-o", str(tmp_path / "missing" / "x.jsonl"))
    assert (
        out.returncode == 1
        and out.stderr == f"Error: {tmp_path / 'missing'}: no such file or directory; check the path\n"
    )
    into = agi(tmp_path / "missing" / "x.db", "import", str(export), "--key-file", f"{db}.key")
    assert (
        into.returncode == 1 and ".import-" not in into.stderr and "missing: no such file or directory" in into.stderr
    )


def test_export_to_stdout_is_unchanged_and_equals_the_file(source: tuple[Path, Path]):
    db, export = source
    done = agi(db, "export")
    assert done.returncode == 0 and done.stdout.encode() == export.read_bytes()


# -- 2. an edited export is refused --------------------------------------------------------------
def _edited(export: Path, folder: Path, old: str, new: str, *, table: str) -> tuple[Path, int]:
    """``export`` with ``old`` replaced by ``new`` in the first row of ``table`` holding it; and that line's number."""
    lines = export.read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f'{{"table":"{table}"')))
    number = next(i for i, line in enumerate(lines) if i > start and old in line)
    lines[number] = lines[number].replace(old, new, 1)
    path = folder / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, number + 1


@pytest.mark.parametrize(
    ("table", "old", "new", "named"),
    [
        ("facts", "Ada150", "Mallory", "facts key 'user/person/self/name'"),
        ("journal", "Ada150", "Mallory", "journal tick 2"),
        ("meta", '"tick","3"', '"tick","9"', "meta key 'tick'"),
    ],
)
def test_an_edited_export_is_refused_naming_the_row_and_creates_nothing(source, tmp_path, table, old, new, named):
    db, export = source
    edited, number = _edited(export, tmp_path, old, new, table=table)
    done = agi(tmp_path / "b.db", "import", str(edited), "--key-file", f"{db}.key")
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: the export was edited: {named} (line {number}) does not match its MAC; "
        "import the file agi export wrote\n",
    )
    assert _files(tmp_path, "b.db") == []


def test_a_removed_row_or_a_wrong_key_is_refused(source, tmp_path: Path):
    db, export = source
    lines = export.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('{"table":"facts"'))
    lines[first] = lines[first].replace('"rows":2', '"rows":1')
    del lines[first + 1]
    # 3 ticks: 3 tick_timings rows, the versions row, and 4 blobs (each working memory, stored once)
    lines[-1] = lines[-1].replace('"rows":27', '"rows":26')
    (tmp_path / "cut.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "cut.jsonl"), "--key-file", f"{db}.key")
    assert done.stderr == (
        "Error: the export was edited: a row or a table was added, removed or moved (its end MAC does not match); "
        "import the file agi export wrote\n"
    )
    (tmp_path / "other.key").write_text("0" * 64 + "\n", encoding="ascii")
    done = agi(tmp_path / "b.db", "import", str(export), "--key-file", str(tmp_path / "other.key"))
    assert done.stderr == (
        f"Error: the journal key from {tmp_path / 'other.key'} is not the key of the exported agent; "
        "pass its <db>.key\n"
    )
    assert _files(tmp_path, "b.db") == []


def test_without_the_key_import_refuses_and_unverified_marks_the_agent(source, tmp_path: Path):
    _db, export = source
    edited, _number = _edited(export, tmp_path, "Ada150", "Mallory", table="facts")
    done = agi(tmp_path / "b.db", "import", str(edited))
    assert (done.returncode, done.stderr) == (
        1,
        "Error: pass --key-file with the journal key of the exported agent (its <db>.key), or set AGI_JOURNAL_KEY; "
        "without it nothing proves the file's rows (--unverified imports them anyway, marked as unproven)\n",
    )
    assert _files(tmp_path, "b.db") == []
    done = agi(tmp_path / "b.db", "import", str(edited), "--unverified")
    assert (done.returncode, done.stdout) == (0, f"imported 27 rows into {tmp_path / 'b.db'} (tick 3)\n")
    verified = agi(tmp_path / "b.db", "journal", "verify")
    assert verified.returncode == 0
    assert verified.stdout.splitlines()[:2] == [
        "journal OK: 3 records, chain intact after tick 3; ticks 1..3 were imported without their key "
        "(agi import --unverified) and cannot be checked",
        "IMPORTED_UNVERIFIED at tick 3: agi import --unverified took this agent from a file nothing proved; "
        "what it held then is not proven, only what happened after",
    ]
    # the mark moves with the agent: a verified move of an unverified agent stays marked
    assert agi(tmp_path / "b.db", "run", stdin="what is my name?\n").stdout == "Your name is Mallory.\n"
    assert agi(tmp_path / "b.db", "export", "-o", str(tmp_path / "b.jsonl")).returncode == 0
    assert (
        agi(tmp_path / "c.db", "import", str(tmp_path / "b.jsonl"), "--key-file", f"{tmp_path / 'b.db'}.key").returncode
        == 0
    )
    lines = agi(tmp_path / "c.db", "journal", "verify").stdout.splitlines()
    assert lines[0].startswith("journal OK: 4 records, chain intact after tick 3; ticks 1..3 were imported")
    assert lines[1].startswith("IMPORTED_UNVERIFIED at tick 3: ")


def test_an_older_export_without_proof_needs_unverified(source, tmp_path: Path):
    db, export = source
    lines = export.read_text(encoding="utf-8").splitlines()
    old = [lines[0].replace('"version":2', '"version":1')]
    old += [line[: -len(',"') - 64 - 2] + "]" if line.startswith("[") else line for line in lines[1:]]
    (tmp_path / "v1.jsonl").write_text("\n".join(old) + "\n", encoding="utf-8")
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "v1.jsonl"), "--key-file", f"{db}.key")
    assert done.stderr == (
        "Error: this export (format version 1, from an older agi) carries no proof of its rows; export the agent "
        "again with this agi, or import it with --unverified\n"
    )
    assert _files(tmp_path, "b.db") == []
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "v1.jsonl"), "--key-file", f"{db}.key", "--unverified")
    assert done.returncode == 0, done.stderr
    lines = agi(tmp_path / "b.db", "journal", "verify").stdout.splitlines()
    assert lines[0] == "journal OK: 3 records, chain intact"  # the key was given: the chain is checked
    assert lines[1].startswith("IMPORTED_UNVERIFIED at tick 3: ")


def test_export_refuses_an_agent_that_does_not_verify(source, tmp_path: Path):
    db, export = source
    copy = tmp_path / "t.db"
    copy.write_bytes(db.read_bytes())
    Path(f"{copy}.key").write_bytes(Path(f"{db}.key").read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE facts SET value = '\"Mallory\"' WHERE key = 'user/person/self/name'")
    (tmp_path / "t.jsonl").write_bytes(export.read_bytes())
    done = agi(copy, "export", "-o", str(tmp_path / "t.jsonl"))
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: {copy} does not verify (facts key 'user/person/self/name': changed outside the journal); "
        "agi export proves only an intact agent: run agi journal verify\n",
    )
    assert (tmp_path / "t.jsonl").read_bytes() == export.read_bytes()


def test_replay_refuses_a_journal_whose_chain_does_not_verify(source, tmp_path: Path):
    db, _export = source
    copy = tmp_path / "r.db"
    copy.write_bytes(db.read_bytes())
    Path(f"{copy}.key").write_bytes(Path(f"{db}.key").read_bytes())
    with sqlite3.connect(copy) as conn:  # the action is not a compared field: only the chain sees this
        conn.execute("""UPDATE journal SET record = replace(record, '"name":"respond"', '"name":"delete_all"')
                        WHERE tick = 2""")
    done = agi(copy, "replay")
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        f"Error: the journal of {copy} does not verify (JOURNAL_BROKEN tick=2: chain mismatch: the record was "
        "edited, or one before it was); replay proves nothing about an edited journal: run agi journal verify\n",
    )


# -- 3. import is all-or-nothing -----------------------------------------------------------------
@pytest.mark.parametrize("point", ["import.rows", "import.built", "import.linked"])
def test_a_kill_at_each_step_of_import_leaves_no_agent_or_the_whole_agent(source, tmp_path: Path, point: str):
    db, export = source
    target = tmp_path / "b.db"
    done = agi(target, "import", str(export), "--key-file", f"{db}.key", AGI_FAULT=f"{point}:1")
    assert done.returncode == -signal.SIGKILL
    if point == "import.linked":  # committed: the agent is whole, its key linked by the next command
        assert _files(tmp_path, "b.db") == [".b.db.key.import-" + _pid(tmp_path), "b.db"]
        _assert_whole(target, export)
        assert _files(tmp_path, "b.db") == ["b.db", "b.db.key"]
        return
    assert not target.exists() and not Path(f"{target}.key").exists()
    assert agi(target, "import", str(export), "--key-file", f"{db}.key").returncode == 0
    assert _files(tmp_path, "b.db") == ["b.db", "b.db.key"]  # the killed import's temporary files are gone
    _assert_whole(target, export)


def _pid(folder: Path) -> str:
    return next(p.name for p in folder.iterdir() if p.name.startswith(".b.db.key.import-")).rsplit("-", 1)[1]


def _assert_whole(target: Path, export: Path) -> None:
    verified = agi(target, "journal", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "state OK: every row matches the seal at tick 3" in verified.stdout
    again = agi(target, "export")
    assert again.stdout.encode() == export.read_bytes()


def test_a_kill_at_random_moments_of_import_leaves_no_agent_or_the_whole_agent(source, tmp_path: Path):
    db, export = source
    started = time.monotonic()
    assert agi(tmp_path / "timed.db", "import", str(export), "--key-file", f"{db}.key").returncode == 0
    whole = time.monotonic() - started
    outcomes = set()
    for trial in range(10):
        target = tmp_path / f"t{trial}.db"
        process = popen(target, "import", str(export), "--key-file", f"{db}.key")
        time.sleep(whole * (0.3 + 0.7 * trial / 10))
        process.send_signal(signal.SIGKILL)
        process.wait()
        if target.exists():
            outcomes.add("whole")
            _assert_whole(target, export)
        else:
            outcomes.add("none")
            assert not Path(f"{target}.key").exists(), f"trial {trial}: a key without its agent"
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(f"t{trial}.db")]
    assert outcomes  # each trial was one of the two states


def test_a_leftover_key_or_wal_is_refused_before_anything_is_written(source, tmp_path: Path):
    db, export = source
    Path(f"{tmp_path / 'b.db'}.key").write_text("f" * 64 + "\n", encoding="ascii")  # from a deleted database
    done = agi(tmp_path / "b.db", "import", str(export), "--key-file", f"{db}.key")
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: {tmp_path / 'b.db'}.key already exists and holds another journal key (left by a deleted "
        "database?); remove it, or import into another database name\n",
    )
    assert _files(tmp_path, "b.db") == ["b.db.key"]
    Path(f"{tmp_path / 'c.db'}-wal").write_bytes(b"stale")
    done = agi(tmp_path / "c.db", "import", str(export), "--key-file", f"{db}.key")
    assert (
        done.stderr == f"Error: {tmp_path / 'c.db'}-wal is left from a deleted database; remove it and import again\n"
    )
    assert _files(tmp_path, "c.db") == ["c.db-wal"]


@pytest.mark.parametrize("version", ["true", "1.0", '"2"'])
def test_a_version_that_is_not_an_integer_is_refused_and_leaves_no_file(source, tmp_path: Path, version: str):
    db, export = source
    lines = export.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"version":2', f'"version":{version}')
    (tmp_path / "v.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "v.jsonl"), "--key-file", f"{db}.key")
    shown = {"true": "True", "1.0": "1.0", '"2"': "'2'"}[version]
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: export format version {shown} is not supported (this agi reads 2 and 3, and 1 with --unverified)\n",
    )
    assert _files(tmp_path, "b.db") == []


def test_a_bad_line_leaves_no_file(source, tmp_path: Path):
    db, export = source
    lines = export.read_text(encoding="utf-8").splitlines()
    lines[5] = "{not json"
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "bad.jsonl"), "--key-file", f"{db}.key")
    assert done.returncode == 1 and done.stderr.startswith("Error: line 6 of the export is not JSON (")
    assert _files(tmp_path, "b.db") == []


@pytest.mark.parametrize("after", ["GARBAGE\n", "twice"], ids=["appended", "two exports joined"])
def test_data_after_the_end_line_is_refused_and_leaves_no_file(source, tmp_path: Path, after: str):
    """Lines after the end line were never read: an appended line, or a second export, imported silently."""
    db, export = source
    text = export.read_text(encoding="utf-8")
    (tmp_path / "more.jsonl").write_text(text + (text if after == "twice" else after), encoding="utf-8")
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "more.jsonl"), "--key-file", f"{db}.key")
    lines = len(text.splitlines())
    assert done.returncode == 1
    refused = f"Error: the export goes on after its end line (line {lines + 1}); import the file agi export wrote\n"
    assert done.stderr == refused
    assert _files(tmp_path, "b.db") == []


def test_a_line_over_the_cap_is_refused_without_reading_it_whole(source, tmp_path: Path):
    db, export = source
    header = export.read_text(encoding="utf-8").splitlines()[0]
    with (tmp_path / "huge.jsonl").open("w", encoding="ascii") as out:
        out.write(header + "\n" + '{"table":"blobs","columns":["hash","data"],"rows":1}\n')
        out.write('["' + "a" * 64 + '",{"$bytes":"')
        for _ in range(MAX_LINE_BYTES // (1 << 20) + 1):
            out.write("A" * (1 << 20))
        out.write('"},"' + "0" * 64 + '"]\n{"end":true,"rows":1,"mac":""}\n')
    done = agi(tmp_path / "b.db", "import", str(tmp_path / "huge.jsonl"), "--key-file", f"{db}.key")
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: line 3 of the export is longer than {MAX_LINE_BYTES} bytes, the most a line may hold; "
        "pass a file from agi export\n",
    )
    assert _files(tmp_path, "b.db") == []
