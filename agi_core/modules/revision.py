"""The ``revise`` phase: after the brain decides and before the agent acts, modules may change the reply.

Each module with ``revise(ctx, draft)`` sees the :class:`Draft` as the modules before it
left it, in run order, and returns None (keep it) or a :class:`Revision`: ``rewrite`` (the
reply's form: same claims), ``replace`` (a new reply: its claims go, a tool call becomes
this reply) or ``veto`` (the reply is withheld and ``reply`` said instead; the modules after
it are not asked). Every revision is in the journal, in the module's entry of the record's
``modules`` calls, and the record's ``final_output`` is the revised reply. A rewrite that changes a
fact of the reply (drops a number or a claimed value it said) is refused: the module is skipped
for the phase.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

import attrs

from agi_core.errors import ValidationError
from agi_core.model import JSON, Action
from agi_core.reasoning import Decision
from agi_core.serialization import from_data

VETO_REPLY = "I won't give that answer."


@attrs.frozen
class Draft:
    """The decision as ``revise`` sees it: the reply, the action, the agent that chose it, its claims."""

    reply: str
    action: Action
    agent: str
    claims: list[dict[str, JSON]] = attrs.field(factory=list)
    vetoed_by: str | None = None


@attrs.frozen
class Revision:
    """What one module's ``revise`` changes: build one with :meth:`rewrite`, :meth:`replace` or :meth:`veto`."""

    kind: Literal["rewrite", "replace", "veto"]
    text: str
    reason: str = ""

    @classmethod
    def rewrite(cls, text: str, reason: str = "") -> Revision:
        """The same reply in another form (its claims stand)."""
        return cls("rewrite", text, reason)

    @classmethod
    def replace(cls, text: str, reason: str = "") -> Revision:
        """Another reply (the claims go; a tool call the brain chose is not made)."""
        return cls("replace", text, reason)

    @classmethod
    def veto(cls, reason: str, reply: str = VETO_REPLY) -> Revision:
        """Withhold the reply (and any tool call): ``reply`` is said instead; later modules are not asked."""
        return cls("veto", reply, reason)


def as_revision(value: Any) -> Revision | None:
    """``value`` (None, a :class:`Revision` or a dict of one) checked; :class:`ValidationError` otherwise."""
    if value is None or isinstance(value, Revision):
        revision = value
    elif isinstance(value, dict):
        revision = from_data(value, Revision)
    else:
        raise ValidationError(f"revise returned {type(value).__name__}; return a Revision or None")
    if revision is not None and not isinstance(revision.text, str):
        raise ValidationError("a revision's text must be a string")
    return revision


def draft_of(decision: Decision) -> Draft:
    return Draft(decision.final_output, decision.action, decision.router_decision.agent, list(decision.claims))


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def changed_facts(reply: str, rewritten: str, claims: list[dict[str, JSON]], *, ignore_case: bool = True) -> str | None:
    """What a rewrite of ``reply`` took away that is not form: a number the reply said (a changed number is
    one dropped), or a claimed value the reply said, in any case, as the council reads a value (None: its
    facts stand; what it adds, a reminder, is the module's; ``ignore_case=False``: a value in another case
    counts as dropped, as before :data:`CASE_KEPT`)."""
    lost = Counter(_NUMBER.findall(reply)) - Counter(_NUMBER.findall(rewritten))
    if lost:
        return "it drops " + ", ".join(sorted(lost.elements()))
    said, kept = (reply.casefold(), rewritten.casefold()) if ignore_case else (reply, rewritten)
    for claim in claims:
        value = claim.get("value")
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            text = str(value)
            wanted = text.casefold() if ignore_case else text
            if wanted and wanted in said and wanted not in kept:
                return f"it drops the claimed value {text!r}"
    return None


CASE_KEPT = "revise_case_kept"
"""The external that records a rewrite taken that changed only the case of a claimed value (journals from
before it refused such a rewrite, and replay so)."""


def revised(draft: Draft, revision: Revision, module: str, case_kept: Callable[[], bool] = lambda: True) -> Draft:
    """``draft`` after ``module``'s ``revision``; a rewrite of a tool call, or one that drops a fact of the reply
    (a number, a claimed value), is refused (ValidationError): a rewrite changes the form only. One that
    changes only the case of a claimed value is taken if ``case_kept()`` (False: the replay of a journal
    from before, which refused it)."""
    respond = Action(type="response", name="respond", args={"text": revision.text})
    if revision.kind == "rewrite":
        if draft.action.type != "response":
            raise ValidationError("a rewrite changes a reply's form; replace or veto a tool call instead")
        change = changed_facts(draft.reply, revision.text, draft.claims)
        if change is None and (case := changed_facts(draft.reply, revision.text, draft.claims, ignore_case=False)):
            change = None if case_kept() else case
        if change is not None:
            raise ValidationError(
                f"a rewrite changes a reply's form only, but this one changed its facts ({change}); "
                "keep them, or return Revision.replace (the claims go)"
            )
        return attrs.evolve(draft, reply=revision.text, action=respond)
    if revision.kind == "replace":
        return attrs.evolve(draft, reply=revision.text, action=respond, claims=[])
    return attrs.evolve(draft, reply=revision.text, action=respond, claims=[], vetoed_by=module)


def apply_draft(decision: Decision, draft: Draft) -> Decision:
    """The decision the kernel acts on once every module revised it (the same object when none changed it)."""
    if draft == draft_of(decision):
        return decision
    acted = decision.acted if draft.action == decision.action else None  # a replaced tool call is not made
    return attrs.evolve(decision, final_output=draft.reply, action=draft.action, claims=draft.claims, acted=acted)
