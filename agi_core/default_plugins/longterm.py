"""Long-term memory: ``agi ingest``, ``agi memory search``, and the index's rollback.

Ticks store episodes only; the kernel mirrors them into long-term memory rows the first
time something needs long-term memory, and embeddings are computed when something searches.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from agi_core.hookspecs import hookimpl

#: The ranking modes (agi_core.longterm.ranking.PRESETS; not imported here: this plugin loads for agi --help).
RANKS = ("hybrid", "agentone", "dense", "bm25")

agi_manifest = {
    "description": "Long-term memory: agi ingest, agi memory search, recall in the tick.",
    "settings": {
        "type": "object",
        "properties": {
            "rank": {
                "type": "string",
                "enum": list(RANKS),
                "default": "hybrid",
                "description": "How memories are ranked, in agi memory search and in the tick's recall: hybrid "
                "(dense + BM25 + speaker/date/recency, fused), agentone (AgentOne's 0.7 similarity + 0.3 importance), "
                "dense or bm25.",
            },
        },
    },
}


@hookimpl
def agi_restore_checkpoint(kernel: Any, tick: int) -> None:
    kernel.long_term_memory(caught_up=False).restore_to(tick)


def _interactive() -> bool:
    """Progress bars only for a person watching: stderr (where tqdm writes) and stdout are terminals."""
    return sys.stderr.isatty() and sys.stdout.isatty()


@contextmanager
def _bar(total: int, show: bool) -> Iterator[Callable[[int], None] | None]:
    """A tqdm "embedding" bar's update function, or None (and tqdm not imported) when hidden."""
    if not show or total <= 0:
        yield None
        return
    from tqdm import tqdm

    with tqdm(desc="embedding", unit="text", total=total) as bar:
        yield bar.update


@click.command("ingest")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))  # a str: pathlib is not for agi --help
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "jsonl", "locomo"]),
    help="Default: from the file (.jsonl, LoCoMo .json, anything else is text).",
)
@click.option("--no-embed", is_flag=True, help="Store the rows now; embed on the first search.")
@click.option("--progress/--no-progress", default=None, help="Show a progress bar (default: when run in a terminal).")
@click.option("--strict", is_flag=True, help="Store nothing and exit 1 if any line or record is unusable.")
@click.pass_obj
def ingest(state: Any, file: str, fmt: str | None, no_embed: bool, progress: bool | None, strict: bool) -> None:
    """Store FILE (text lines, JSONL with a text field, or a LoCoMo conversation) as long-term memories.

    The rows are stored by one journaled tick (so replay and rollback cover them); the
    embeddings are computed after it, with a progress bar. Unusable lines are skipped and
    named on stderr (``2 lines skipped: line 7 not JSON, line 9 missing "text"``).
    """
    from agi_core.longterm.ingest import skipped_summary

    name = os.path.basename(file)
    kernel = state.open_kernel()
    args = {"path": os.path.realpath(file), "format": fmt, **({"strict": True} if strict else {})}
    record = kernel.command("ingest", args)
    result = record.agent_outputs["ingest"]
    if result.get("problems"):
        click.echo(f"{name}: {skipped_summary(result['problems'])}", err=True)
    embedded = 0
    if not no_embed and result["added"]:
        with _bar(result["added"], _interactive() if progress is None else progress) as update:
            embedded = kernel.long_term.catch_up(progress=update)
    click.echo(
        f"{name}: {result['added']} memories added ({result['format']}), "
        f"{result['duplicates']} already stored, {embedded} embedded"
    )


@click.command("search")
@click.argument("query")
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 1000), help="How many memories.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of the hits, with the score breakdown.")
@click.option(
    "--rank",
    type=click.Choice(RANKS),
    default=None,
    help="Ranking: hybrid, agentone (0.7 similarity + 0.3 importance), dense, bm25; "
    "default: the setting longterm.rank (agi config set longterm.rank agentone), else hybrid.",
)
@click.pass_obj
def search(state: Any, query: str, k: int, as_json: bool, rank: str | None) -> None:
    """Search long-term memory (dense + BM25 + speaker/date awareness, fused).

    Memories not embedded yet (the episodes of recent ticks) are embedded first, with a
    progress bar when run in a terminal without --json. The kernel's bookkeeping (command
    records and receipts, failure sentences) is not among the memories.
    """
    kernel = state.open_kernel(existing=True)
    memory = kernel.long_term
    pending = memory.pending()
    if pending:
        with _bar(pending, _interactive() and not as_json) as update:
            memory.catch_up(progress=update)
    hits = memory.search(query, k, mode=rank or kernel.recall_rank())
    if as_json:  # one JSON document on stdout, as every --json
        import json  # not at import: this plugin loads for agi --help

        click.echo(json.dumps([hit.to_dict() for hit in hits], ensure_ascii=False, sort_keys=True))
        return
    for hit in hits:
        who = f"{hit.item.speaker}: " if hit.item.speaker else ""
        click.echo(f"{hit.rank:>3}. {hit.score:.3f}  {who}{hit.item.text}")


@hookimpl
def agi_register_commands(cli: click.Group) -> None:
    cli.add_command(ingest)
    memory = cli.commands.get("memory")
    if isinstance(memory, click.Group):
        memory.add_command(search)
