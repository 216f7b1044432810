"""R4 consults long-term memory before F3: a question that an ingested document answers gets that passage.

Only documents count (memories with a session: a file ingested with ``agi memory ingest``, a
LoCoMo conversation), never the agent's own episodes, so the user's earlier lines are not read
back as answers. A passage must share a content word with the question. Whether the agent has
any document is recorded (``ltm_documents``) and so is the search (``ltm_recall``), so replay
serves both and needs neither the index nor the model; a line that is no question costs nothing.
"""

from __future__ import annotations

from typing import Any

from agi_core.brain.stage0.facts import WH_WORDS
from agi_core.brain.stage0.habits import quoted
from agi_core.brain.stage0.phrases import lower_ascii
from agi_core.reasoning import AgentReply, ReasonContext

DOCUMENTS_EXTERNAL = "ltm_documents"
RECALL_K = 5
PASSAGE_CHARS = 240
STOPWORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it its me my of on or "
    "our so than that the their them then there these they this to was we were what when where which who "
    "whom why will with would you your tell know about please".split()
)


def is_question(text: str) -> bool:
    low = lower_ascii(text.strip())
    return low.endswith("?") or low.startswith(WH_WORDS) or low.startswith(("tell me", "do you know"))


def content_words(text: str) -> set[str]:
    words = "".join(ch if ch.isalnum() else " " for ch in lower_ascii(text)).split()
    return {word for word in words if len(word) > 2 and word not in STOPWORDS}


def has_documents(ctx: ReasonContext) -> bool:
    """Whether long-term memory holds an ingested document (recorded, so replay asks no store)."""

    def look() -> bool:
        rows = getattr(ctx.store, "ltm_rows", None)
        probe = getattr(rows(), "has_sessions", None) if rows is not None else None
        return bool(probe()) if probe is not None else False

    return bool(ctx.externals.fetch(DOCUMENTS_EXTERNAL, look))


def from_documents(ctx: ReasonContext) -> AgentReply | None:
    """The best passage of an ingested document for a question, or None (then F3)."""
    raw = ctx.state.input.raw
    if not is_question(raw) or ctx.long_term is None or not has_documents(ctx):
        return None
    asked = content_words(raw)
    for hit in ctx.recall_long_term(raw, RECALL_K):
        if _document(hit) and asked & content_words(hit["text"]):
            source = (hit.get("metadata") or {}).get("source") or hit["session"]
            return AgentReply(f"From {source}: {quoted(hit['text'], PASSAGE_CHARS)}")
    return None


def _document(hit: dict[str, Any]) -> bool:
    return hit.get("session") is not None and hit.get("speaker") not in ("agent", "user")


__all__ = ["from_documents", "has_documents", "is_question"]
