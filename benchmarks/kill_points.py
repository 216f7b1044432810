"""SIGKILL real ``agi`` processes during storage operations and tally clean recoveries.

Operations: database creation, ``checkpoint create``, ``rollback``, ``journal archive``, ``ingest`` (a small
JSONL, embedded with MiniLM) and ticks that run a write tool. Each trial copies a prepared
agent, starts the real command in a subprocess and kills it with SIGKILL, either at a named
fault point (``AGI_FAULT=<point>:<n>``, see agi_core/faults.py; the first trials walk the
points) or after a random delay within the operation's measured duration. After each kill
the database is reopened and checked (a random delay may also land before the operation
starts or after it ends: the "killed mid-run" column counts the kills that found the process
still running): it opens; ``journal verify`` is OK (chain, head, state
seal, every checkpoint's sha256, MAC and digest); no tick is torn (meta, journal and episodes
agree) or lost (every reply the process printed is journaled); the checkpoint list is
consistent (rollback: the agent is wholly before or wholly after it; checkpoint: no row,
or a complete verified one); and every file a write tool left has a journal intent or record.

Usage: python benchmarks/kill_points.py [--trials N] [--seed S] [--only OP ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from agi_core.consistency import check_database

SEED = "kill"
TABLES = ("facts", "episodes", "working", "journal", "journal_archive", "checkpoints")
WRITES = "".join(f"/file_write notes/f{i}.txt hello{i}\n" for i in range(40))
TICKS = "".join(f"the capital of country{i} is City{i}\n" for i in range(30))


KILLED: list[bool] = []  # per trial: did the SIGKILL land before the process finished?


def agi(db: Path, *args: str, input: str = "", fault: str | None = None, kill_after: float | None = None) -> str:
    """Run ``agi`` and return what it printed; SIGKILL it at ``fault`` or after ``kill_after`` seconds."""
    env = {**os.environ, "AGI_FAULT": fault or "", "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "agi_core", "--db", str(db), "--seed", SEED, *args]
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    if kill_after is None:
        out, _ = child.communicate(input, timeout=300)
        KILLED.append(child.returncode == -signal.SIGKILL)
        return out
    assert child.stdin is not None
    child.stdin.write(input)
    child.stdin.close()
    time.sleep(kill_after)
    child.send_signal(signal.SIGKILL)
    out = child.stdout.read() if child.stdout else ""
    KILLED.append(child.wait() == -signal.SIGKILL)
    return out


def dump(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with closing(sqlite3.connect(db)) as conn:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}


def copy_agent(source: Path, target: Path) -> None:
    for suffix in ("", ".key", "-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", f"{target}{suffix}")
    for folder in (".checkpoints", ".state"):
        if Path(f"{source}{folder}").is_dir():
            shutil.copytree(f"{source}{folder}", f"{target}{folder}")


class Operation:
    """One row of the tally: how to prepare, run and judge a trial."""

    name = ""
    points: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    input = ""

    def prepare(self, folder: Path) -> Path | None:
        """A template agent copied into each trial (None: each trial starts with no database)."""
        return None

    def judge(self, db: Path, printed: str) -> list[str]:
        """Problems beyond the generic checks."""
        return []


class Create(Operation):
    name = "database creation"
    points = ("migration:1", "migration.done:1", "migration.done:3", "migration.done:5", "migration.done:8", "seal:1")
    args = ("run",)
    input = "2+2\nmy favorite color is red\n"


class CheckpointCreate(Operation):
    name = "checkpoint create"
    points = ("seal:1", "checkpoint.copied:1", "checkpoint.renamed:1")
    args = ("checkpoint", "create", "cp")

    def prepare(self, folder: Path) -> Path:
        db = folder / "template.db"
        agi(db, "run", input=TICKS)
        self.before = dump(db)
        return db

    def judge(self, db: Path, printed: str) -> list[str]:
        now = dump(db)
        rows = now.pop("checkpoints")
        before = {k: v for k, v in self.before.items() if k != "checkpoints"}
        problems = [] if now == before else ["the agent changed"]
        if rows and rows[0][0] != "cp":
            problems.append(f"unexpected checkpoint rows {rows}")
        return problems


class Rollback(Operation):
    name = "rollback"
    points = ("rollback.attached:1", "rollback.copied:1")
    args = ("rollback", "base")

    def prepare(self, folder: Path) -> Path:
        db = folder / "template.db"
        agi(db, "run", input=TICKS[: len(TICKS) // 2])
        agi(db, "checkpoint", "create", "base")
        agi(db, "run", input=TICKS[len(TICKS) // 2 :])
        self.before = dump(db)
        after = folder / "after.db"
        copy_agent(db, after)
        agi(after, *self.args)
        self.after = dump(after)
        return db

    def judge(self, db: Path, printed: str) -> list[str]:
        now = dump(db)
        return [] if now in (self.before, self.after) else ["the agent is neither before nor after the rollback"]


class Archive(Operation):
    name = "journal archive"
    points = ("archive.header:1", "archive.written:1", "archive.deleted:1")
    args = ("journal", "archive", "--through", "base", "--to", "{folder}/old.jsonl")

    def prepare(self, folder: Path) -> Path:
        db = folder / "template.db"
        agi(db, "run", input=TICKS[: len(TICKS) // 2])
        agi(db, "checkpoint", "create", "base")
        agi(db, "run", input=TICKS[len(TICKS) // 2 :])
        self.before = dump(db)
        after = folder / "after" / "a.db"
        after.parent.mkdir()
        copy_agent(db, after)
        agi(after, *(arg.format(folder=after.parent) for arg in self.args))
        self.after = dump(after)
        return db

    def judge(self, db: Path, printed: str) -> list[str]:
        from agi_core import journal
        from agi_core.journal_key import JournalKey

        now = dump(db)
        if now == self.before:
            return []
        if now != self.after:
            return ["the agent is neither before nor after the archive"]
        key = JournalKey(Path(f"{db}.key").read_text(encoding="ascii").strip().encode("ascii"), "kill")
        checked = journal.verify_archive(db.parent / "old.jsonl", key)
        return [] if checked.ok else [f"archived, but the archive file does not verify: {checked}"]


class Ingest(Operation):
    name = "ingest (jsonl, embedded)"
    points = ("tick.before_commit:1",)

    def prepare(self, folder: Path) -> Path:
        lines = [{"text": f"note {i}: we talked about city{i} and its river", "speaker": "ann"} for i in range(8)]
        source = folder / "notes.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in lines))
        self.args = ("ingest", str(source), "--no-progress")
        db = folder / "template.db"
        agi(db, "run", input="2+2\n")
        return db

    def judge(self, db: Path, printed: str) -> list[str]:
        with closing(sqlite3.connect(db)) as conn:
            items = conn.execute("SELECT count(*) FROM ltm_items WHERE text LIKE 'note %: we talked%'").fetchone()[0]
            ingested = conn.execute("SELECT count(*) FROM journal WHERE record LIKE '%\"ingest\"%'").fetchone()[0]
        return [] if items in (0, 8) and (items == 8) == (ingested == 1) else [f"{items} items for {ingested} ticks"]


class WriteTicks(Operation):
    name = "write-tool ticks"
    points = ("tick.before_commit:1", "tick.before_commit:5")
    args = ("run", "--allow-tool", "file_write")
    input = WRITES

    def prepare(self, folder: Path) -> Path:
        db = folder / "template.db"
        agi(db, "run", input="2+2\n")
        return db

    def judge(self, db: Path, printed: str) -> list[str]:
        notes = db.parent / "workspace" / "notes"
        written = sorted(p.name for p in notes.iterdir()) if notes.is_dir() else []
        with closing(sqlite3.connect(db)) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            texts = [r[0] for r in conn.execute("SELECT record FROM journal")]
            for table in (t for t in tables if "intent" in t or "effect" in t):  # the effects lane's intents
                texts += [json.dumps(row) for row in conn.execute(f"SELECT * FROM {table}")]
        unjournaled = [name for name in written if not any(f"notes/{name}" in text for text in texts)]
        return [f"side effect without a journal intent or record: {unjournaled}"] if unjournaled else []


OPERATIONS: dict[str, Callable[[], Operation]] = {
    "create": Create,
    "checkpoint": CheckpointCreate,
    "rollback": Rollback,
    "archive": Archive,
    "ingest": Ingest,
    "write": WriteTicks,
}
DEFAULT_TRIALS = {"create": 10, "checkpoint": 6, "rollback": 6, "archive": 6, "ingest": 2, "write": 6}


def trial_problems(op: Operation, db: Path, printed: str) -> list[str]:
    if not db.exists():
        return []  # killed before the file existed: nothing to lose
    problems = check_database(db, SEED).problems  # opens, chain + head + seal + checkpoints, no torn tick
    replies = [line for line in printed.splitlines() if line.strip()]
    with closing(sqlite3.connect(db)) as conn:
        ticks = conn.execute("SELECT count(*) FROM journal").fetchone()[0]
    if op.args[:1] == ("run",) and len(replies) > ticks:
        problems.append(f"{len(replies)} replies printed but {ticks} ticks journaled (lost)")
    return problems + op.judge(db, printed)


def run_operation(op: Operation, trials: int, rng: random.Random, folder: Path) -> tuple[int, int, int, list[str]]:
    template = op.prepare(folder)
    probe = folder / "probe" / "a.db"
    probe.parent.mkdir()
    if template is not None:
        copy_agent(template, probe)
    started = time.perf_counter()
    agi(probe, *(arg.format(folder=probe.parent) for arg in op.args), input=op.input)
    duration = time.perf_counter() - started
    clean, killed, notes = 0, 0, []
    for index in range(trials):
        db = folder / f"t{index}" / "a.db"
        db.parent.mkdir()
        if template is not None:
            copy_agent(template, db)
        args = tuple(arg.format(folder=db.parent) for arg in op.args)  # a file of the trial's own (archive)
        if index < len(op.points):
            how, printed = op.points[index], agi(db, *args, input=op.input, fault=op.points[index])
        else:
            delay = rng.uniform(0.05, duration)
            how, printed = f"after {delay:.2f}s", agi(db, *args, input=op.input, kill_after=delay)
        killed += KILLED[-1]
        problems = trial_problems(op, db, printed)
        clean += not problems
        if problems:
            notes.append(f"  {op.name}, killed {how}: {problems}")
    return trials, killed, clean, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, help="trials per operation (default: 10/6/6/6/2/6)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", nargs="*", choices=sorted(OPERATIONS), help="run these operations only")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows, notes = [], []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agi-kill-") as scratch:
        for key in args.only or OPERATIONS:
            folder = Path(scratch) / key
            folder.mkdir()
            trials, killed, clean, bad = run_operation(
                OPERATIONS[key](), args.trials or DEFAULT_TRIALS[key], rng, folder
            )
            rows.append((OPERATIONS[key].name, trials, killed, clean, trials - clean))
            notes += bad
    print(f"{'operation':<26}{'trials':>7}{'killed mid-run':>16}{'clean':>7}{'lost/broken':>13}")
    for name, trials, killed, clean, broken in rows:
        print(f"{name:<26}{trials:>7}{killed:>16}{clean:>7}{broken:>13}")
    print(f"({time.perf_counter() - started:.0f}s)")
    print("\n".join(notes))
    return 0 if all(broken == 0 for *_rest, broken in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
