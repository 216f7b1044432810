"""Commands over the agent's history: replay, journal, checkpoint, rollback."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from agi_core import checkpoints, journal
from agi_core.errors import AgiError, StorageError, os_problem
from agi_core.memory import blobs
from agi_core.replay import compare, replay, replay_records, require_modules, require_tools
from agi_core.serialization import to_data


@click.command("replay")
@click.option(
    "--journal",
    "journal_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Replay an exported JSONL journal instead of the database's own.",
)
@click.option("--from", "from_checkpoint", metavar="CHECKPOINT", help="Start from this checkpoint's state.")
@click.pass_obj
def replay_command(state: Any, journal_file: Path | None, from_checkpoint: str | None) -> None:
    """Re-run the recorded ticks from the same seed and compare them, field by field (docs/replay.md).

    Exits 0 when every tick is equal; on the first difference prints
    REPLAY_MISMATCH tick=N field=F and a diff, and exits 1. Compared: the 11 rulebook
    fields, then hook_order, modules, plan, goal and beliefs where the record has them.
    """
    if journal_file is not None:
        first = 1  # the first tick the file holds: a later archive's needs --from
        for index, row in enumerate(journal.read_jsonl(journal_file)):  # a malformed line is refused before any
            first = row[0] if index == 0 else first  # tick replays, then the records stream
        found: dict[str, bytes] = {}
        records = _each_resolved(journal.read_jsonl(journal_file, found), found)
        start = _archive_start(state, journal_file, first, from_checkpoint)
        report = replay_records(records, seed=start.pop("seed", state.seed or "0"), plugins=state.plugins, **start)
    else:
        state.require_db()
        report = replay(state.db, seed=state.seed, plugins=state.plugins, checkpoint=from_checkpoint)
    click.echo(report.summary())
    if report.mismatch is not None:
        click.echo(report.mismatch.diff())
        sys.exit(1)


def _archive_start(state: Any, path: Path, first: int, checkpoint: str | None) -> dict[str, Any]:
    """Where a replay of ``path`` (whose first tick is ``first``) starts: the beginning, or (``--from``) a
    checkpoint of --db, which a journal that does not start at tick 1 (a later archive file) needs."""
    if checkpoint is None:
        if first > 1:
            raise AgiError(
                f"{path} starts at tick {first} (an archive after an earlier one): replay it from the checkpoint "
                f"at tick {first - 1} with --db AGENT --from CHECKPOINT"
            )
        return {}
    from agi_core.journal_key import key_file
    from agi_core.kernel import stored_seed
    from agi_core.memory.sqlite_store import SqliteStore
    from agi_core.opening import open_store

    store = open_store(state.require_db(), plugins=state.plugins)
    try:
        if not isinstance(store, SqliteStore):
            raise AgiError(f"replay from a checkpoint needs the sqlite backend, not {store.name!r}")
        info = next((c for c in store.checkpoint_list() if c.name == checkpoint), None)
        if info is not None and info.tick != first - 1:
            raise AgiError(
                f"checkpoint {checkpoint!r} is at tick {info.tick} but {path} starts at tick {first}; "
                f"pass the checkpoint at tick {first - 1}"
            )
        found = checkpoints.checkpoint_file(store, checkpoint)
        return {"start": found, "key_file": key_file(store), "seed": stored_seed(store, state.seed)}
    finally:
        store.close()


def _each_resolved(rows: Iterator[tuple[int, str, str, str]], found: dict[str, bytes]) -> Iterator[dict[str, Any]]:
    """Each row's record, resolved, one at a time: an exported line holds its own strings in full, so the blobs
    its reading put in ``found`` serve that record only and are dropped after it (memory stays one record's)."""
    for _tick, _id, text, _chain in rows:
        yield _resolved(text, found)
        found.clear()


def _resolved(text: str, found: dict[str, bytes]) -> dict[str, Any]:
    """A record's stored text as data, blob references resolved from an exported journal's records."""
    return blobs.resolve(json.loads(text), lambda hex_digest: found[hex_digest].decode("utf-8"))


@click.group("journal")
def journal_group() -> None:
    """Verify, export and import the tamper-evident journal."""


@journal_group.command("verify")
@click.option(
    "--archive",
    "archive_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Verify this archive file (agi journal archive) with the agent's key instead.",
)
@click.pass_obj
def journal_verify(state: Any, archive_file: Path | None) -> None:
    """Check the HMAC chain and its head, the state seal and every checkpoint.

    Finds an edited, deleted, reordered or truncated record, a fact, episode, working
    memory, RLM variable or meta row changed outside the journal (naming table and key),
    and a damaged checkpoint. With --archive, checks an archive file's header and chain.
    """
    from agi_core.integrity import verify_agent

    kernel = state.open_kernel(existing=True)
    if archive_file is not None:
        checked = journal.verify_archive(archive_file, kernel.journal_key)
        click.echo(f"archive {archive_file}: {checked}")
        if not checked.ok:
            if (journal.unverified_import(kernel.store) or {}).get("key") == "no":
                click.echo(
                    "agi: this agent was imported with --unverified without its exported key, which its archive "
                    "files were made with: they cannot be checked here; verify them on the agent that archived them",
                    err=True,
                )
            sys.exit(1)
        return
    report = verify_agent(kernel.store, kernel.journal_key)
    click.echo("\n".join(report.lines()))
    if not report.ok:
        sys.exit(1)


@journal_group.command("archive")
@click.option(
    "--through", "checkpoint", required=True, metavar="CHECKPOINT", help="Archive the ticks up to this checkpoint's."
)
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The archive file to create (JSON Lines; it must not exist).",
)
@click.option(
    "--vacuum", is_flag=True, help="Then rebuild the database file without the archived records' pages (smaller)."
)
@click.pass_obj
def journal_archive(state: Any, checkpoint: str, to: Path, vacuum: bool) -> None:
    """Move the records up to checkpoint CHECKPOINT's tick into the new file --to, keeping the chain provable.

    The live journal then starts after that tick: journal verify checks it from there, replay
    starts from that checkpoint (kept while it is the archive point), and journal verify --archive
    checks the file. A kill leaves the database as it was, or the archive complete (docs/replay.md).
    Without --vacuum the freed pages are reused by later ticks and the file keeps its size.
    """
    from agi_core.archive import archive
    from agi_core.cli.transfer import write_atomically

    try:
        report = archive(state.open_kernel(existing=True), checkpoint, to, write_atomically, vacuum=vacuum)
    except OSError as exc:
        raise StorageError(os_problem(exc, to)) from exc
    click.echo(str(report))


@journal_group.command("export")
@click.option("--jsonl", is_flag=True, default=True, help="JSON Lines (the only format).")
@click.option("--archived", is_flag=True, help="Export the ticks undone by rollbacks instead.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="File (default stdout).")
@click.pass_obj
def journal_export(state: Any, jsonl: bool, archived: bool, output: Path | None) -> None:
    """Write the journal as one JSON object per line. A file is replaced only once the new export is complete."""
    from agi_core.cli.transfer import refuse_own_file, write_atomically
    from agi_core.opening import open_store

    store = open_store(state.require_db(), plugins=state.plugins)
    rows: Any = ()

    def write(out: Any) -> int:
        nonlocal rows
        rows = store.archived_rows() if archived else store.journal_rows()
        with contextlib.closing(rows):  # type: ignore[type-var]  # generators have close()
            count = journal.export_jsonl(rows, out, archived=archived, store=store)
        out.flush()
        return count

    try:
        if output is not None:
            refuse_own_file(output, store)
        count = write(sys.stdout) if output is None else write_atomically(output, write)
    except BrokenPipeError:
        raise  # the reader went away: `agi` exits quietly
    except OSError as exc:
        raise StorageError(os_problem(exc, output or "the output")) from exc
    finally:
        getattr(rows, "close", lambda: None)()  # a generator left open would read a closed store later
        store.close()
    click.echo(f"exported {count} records", err=True)


@journal_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--key-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The exporting database's journal key (<db>.key); default: AGI_JOURNAL_KEY.",
)
@click.pass_obj
def journal_import(state: Any, file: Path, key_file: Path | None) -> None:
    """Rebuild an agent in --db (a new database) from an exported journal, verifying it."""
    import os

    from agi_core.journal_key import KEY_ENV, JournalKey

    if key_file is not None:
        key = JournalKey(key_file.read_text(encoding="ascii").strip().encode("ascii"), str(key_file))
    elif os.environ.get(KEY_ENV):
        key = JournalKey(os.environ[KEY_ENV].encode("utf-8"), KEY_ENV)
    else:
        raise AgiError(f"pass --key-file with the journal key of the database {file} came from (its <db>.key)")
    found: dict[str, bytes] = {}
    rows = list(journal.read_jsonl(file, found))
    report = journal.verify_rows(rows, key)
    if not report.ok:
        raise AgiError(
            f"{file} does not verify with the key from {key.source} ({report}); pass the key it was recorded with"
        )
    kernel = state.open_kernel()
    if kernel.tick_count:
        raise AgiError(f"{state.db} already has {kernel.tick_count} ticks; import into a new database file")
    modules = {module.name for module in kernel.modules}
    for _tick, _id, text, _chain in rows:
        record = _resolved(text, found)
        require_tools(kernel.tools, record)
        require_modules(modules, record)
        mismatch = compare(record, to_data(kernel.replay_tick(record)))
        if mismatch is not None:
            raise AgiError(f"{mismatch.headline()} while importing {file}; the journal does not replay here")
    click.echo(f"imported {len(rows)} ticks into {state.db}")


@click.group("checkpoint")
def checkpoint_group() -> None:
    """Snapshot the whole agent (facts, episodes, working memory, variables, indexes)."""


@checkpoint_group.command("create")
@click.argument("name")
@click.option(
    "--keep",
    type=int,
    default=checkpoints.CHECKPOINT_LIMIT,
    show_default=True,
    help="Then remove the oldest checkpoints beyond the newest N (each is a full copy of the agent).",
)
@click.pass_obj
def checkpoint_create(state: Any, name: str, keep: int) -> None:
    """Snapshot the agent as it is after its last tick."""
    kernel = state.open_kernel()
    before = {info.name for info in checkpoints.list_checkpoints(kernel.store)}
    info = checkpoints.create(kernel, name, keep=keep)
    click.echo(f"checkpoint {info.name} at tick {info.tick}")
    kept = {row.name for row in checkpoints.list_checkpoints(kernel.store)}
    for gone in sorted(before - kept):
        click.echo(f"removed checkpoint {gone}")


@checkpoint_group.command("remove")
@click.argument("name")
@click.pass_obj
def checkpoint_remove(state: Any, name: str) -> None:
    """Delete checkpoint NAME and its copy; the agent and the other checkpoints are unchanged."""
    info = checkpoints.remove(state.open_kernel(existing=True).store, name)
    click.echo(f"removed checkpoint {info.name} (tick {info.tick})")


@checkpoint_group.command("prune")
@click.option("--keep", type=int, required=True, help="How many of the newest checkpoints to keep.")
@click.pass_obj
def checkpoint_prune(state: Any, keep: int) -> None:
    """Remove the oldest checkpoints beyond the newest N."""
    gone = checkpoints.prune(state.open_kernel(existing=True).store, keep)
    for name in gone:
        click.echo(f"removed checkpoint {name}")
    if not gone:
        click.echo("no checkpoint removed")


@checkpoint_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def checkpoint_list(state: Any, as_json: bool) -> None:
    """List checkpoints, oldest first."""
    rows = checkpoints.list_checkpoints(state.open_kernel(existing=True).store)
    if as_json:
        click.echo(json.dumps([{"name": r.name, "tick": r.tick} for r in rows]))
        return
    for row in rows:
        click.echo(f"{row.name}\ttick {row.tick}")


@click.command("rollback")
@click.argument("name")
@click.pass_obj
def rollback_command(state: Any, name: str) -> None:
    """Restore the whole agent to checkpoint NAME; undone ticks are archived, not destroyed."""
    report = checkpoints.rollback(state.open_kernel(), name)
    click.echo(
        f"rolled back to {report.name} (tick {report.tick}); archived {report.archived_ticks} ticks "
        f"as rollback {report.rollback_id}"
    )
