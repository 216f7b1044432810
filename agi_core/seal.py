"""The state seal: a keyed digest of facts, episodes, working memory, RLM variables, meta, jobs, module state and goals.

Each stored row has a keyed hash, ``HMAC(key, table|row key|row)``; the seal is
``tick digest mac`` in meta (``state_seal``), where the digest is the sum of every row hash
modulo 2**256 and the MAC binds it to the tick. Only the key's holder can produce a digest
that matches edited rows. The backend stores the row hashes and computes the seal
(:meth:`~agi_core.memory.backend.SealStore.seal`; SQLite: :mod:`agi_core.memory.sqlite.seal`).
"""

from __future__ import annotations

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
