"""The state seal: a keyed digest of facts, episodes, working memory, RLM variables, meta, jobs, module state and goals.

Each stored row has a keyed hash, ``HMAC(key, table|row key|row)``; the seal is
``tick digest mac`` in meta (``state_seal``), where the digest is the sum of every row hash
modulo 2**256 and the MAC binds it to the tick. Only the key's holder can produce a digest
that matches edited rows. The backend stores the row hashes and computes the seal
(:meth:`~agi_core.memory.backend.SealStore.seal`; SQLite: :mod:`agi_core.memory.sqlite.seal`).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agi_core.journal_key import JournalKey

SEAL = "state_seal"
# meta rows about the database file, not the agent: the key's own check, and the seal itself
UNSEALED_META = (SEAL, "journal_key_check", "journal_key_source")
MOD = 2**256


def row_hash(key: JournalKey, table: str, row_key: str, text: str) -> str:
    return key.mac(f"{table}\x1f{row_key}\x1f{text}")


def seal_mac(key: JournalKey, tick: int, digest: int) -> str:
    return key.mac(f"seal|{tick}|{digest:064x}")


def parse_seal(value: str) -> tuple[int, int, str]:
    """``(tick, digest, mac)`` of a stored seal value; a malformed one fails its MAC check."""
    tick, digest, mac = [*value.split(" "), "", "", ""][:3]
    try:
        return int(tick), int(digest, 16), mac
    except ValueError:
        return -1, 0, "malformed"  # fails its MAC check: reported as edited


def row_problems(
    key: JournalKey,
    sealed: Mapping[tuple[str, str], str],
    digest: int,
    seal_tick: int,
    head_tick: int,
    tables: Iterable[tuple[str, bool]],
    rows: Callable[[str], Iterable[tuple[str, int, str]]],
) -> list[str]:
    """Every difference between a backend's stored rows and its seal's row hashes, by table and key.

    ``sealed`` maps ``(table, row key)`` to the sealed hash and ``digest`` is the sealed sum;
    ``tables`` gives each sealed table and whether its rows carry the tick that wrote them
    (``ticked``); ``rows(table)`` yields ``(row key, tick, text)``. A table without a tick is
    compared only when the seal is at the head (later ticks changed it: the journal chain
    covers them until the next seal); a ticked row written after the seal is skipped.
    """
    problems = []
    if sum(int(h, 16) for h in sealed.values()) % MOD != digest:
        problems.append("the seal's row hashes were edited (their sum is not the sealed digest)")
    current = seal_tick == head_tick
    for table, ticked in tables:
        if not (ticked or current):
            continue
        seen = set()
        for row_key, row_tick, text in rows(table):
            seen.add(row_key)
            if ticked and row_tick > seal_tick:
                continue
            expected = sealed.get((table, row_key))
            if expected is None:
                problems.append(f"{table} key {row_key!r}: added outside the journal")
            elif not hmac.compare_digest(expected, row_hash(key, table, row_key, text)):
                problems.append(f"{table} key {row_key!r}: changed outside the journal")
        problems.extend(
            f"{table} key {k!r}: deleted outside the journal" for (t, k) in sealed if t == table and k not in seen
        )
    return problems
