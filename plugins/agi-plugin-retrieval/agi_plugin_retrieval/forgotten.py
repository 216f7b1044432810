"""What the user asked to forget stays unsaid: the memories of lines that stated a fact since forgotten.

"my dog is called Rex", then "forget my dog's name": the fact is stored as ``null`` (Stage-0's forget), but the
memory of the line that told it is still in long-term memory, and would answer "what did I say my dog was
called?". A memory the asker said is read as Stage-0 reads a line (:func:`agi_core.brain.stage0.facts.parse`):
one that states a fact now stored as ``null`` is left out, and so is a request to forget (it answers nothing).
Told again ("my dog is called Max"), the fact is no longer ``null`` and its memories answer again.
"""

from __future__ import annotations

from typing import Any

from agi_core.brain.stage0 import fact_replies, facts
from agi_core.modules import ModuleContext

FORGOTTEN_UNSAID = "forgotten_unsaid"
"""The change (``ctx.changed``) that leaves out the memories of the asker's lines that stated a fact since forgotten
(and their asks to forget), in answers and in the digest of what was talked about, and a forgotten fact (``null``)
itself: recorded where one was recalled, so a journal from before answers from them as it did."""


def left_out(ctx: ModuleContext, hits: list[dict[str, Any]]) -> set[str]:
    """The ids of ``hits`` the asker said that state a fact now forgotten, or ask to forget one."""
    asker = ctx.input.speaker or ctx.input.source  # as long-term memory names who said an episode
    gone = set()
    for hit in hits:
        if hit.get("speaker") not in (None, asker):
            continue
        text = str(hit["text"])
        parsed = facts.parse(text)
        if parsed is not None and (parsed.op == "forget" or fact_replies.states_forgotten(ctx.memory.reason, text)):
            gone.add(str(hit["id"]))
    return gone


def unsaid(ctx: ModuleContext, statements: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """``(statements, changed)``: the user's ``statements`` (``text``, ``id``) less those :func:`left_out` leaves
    out, where the change is taken (``changed`` then True); else as they are."""
    gone = left_out(ctx, [{"id": s["id"], "text": s["text"]} for s in statements])
    if not gone or not ctx.changed(FORGOTTEN_UNSAID):
        return statements, False
    return [s for s in statements if s["id"] not in gone], True


__all__ = ["FORGOTTEN_UNSAID", "left_out", "unsaid"]
