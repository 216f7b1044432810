"""A tick's evidence items are deduplicated by id, whoever added them and however the list was changed."""

from __future__ import annotations

from agi_core.model import SemanticEntry
from agi_core.reasoning import ReasonContext


class Store:
    shares = None


def _context() -> ReasonContext:
    return ReasonContext(state=None, tick=1, store=Store(), determinism=None, synonyms={})  # type: ignore[arg-type]


def test_an_item_is_kept_once_even_when_the_list_was_changed_elsewhere():
    ctx = _context()
    first = ctx.add_evidence("tool", "weather", "sunny")
    assert ctx.add_evidence("tool", "weather", "sunny") == first
    assert [item["id"] for item in ctx.evidence_items] == [first]
    ctx.evidence_items.insert(0, {"id": "ev-other", "source": "x", "key": "k", "value": 1})  # moved: the index is stale
    assert ctx.add_evidence("tool", "weather", "sunny") == first
    ctx.evidence_items[:] = [{"id": "ev-other", "source": "x", "key": "k", "value": 1}]  # dropped: added again
    assert ctx.add_evidence("tool", "weather", "sunny") == first
    assert [item["id"] for item in ctx.evidence_items] == ["ev-other", first]


def test_facts_read_again_are_one_evidence_item_and_one_read_each():
    ctx = _context()
    entry = SemanticEntry(id="s1", key="user/person/self/name", value="Ada", fact="f", relations=[], updated_at="t")
    listed = SemanticEntry(id="s2", key="user/person/self/pets", value=["cat"], fact="f", relations=[], updated_at="t")
    values = [ctx.listed_value(entry), ctx.listed_value(listed), ctx.listed_value(entry), ctx.listed_value(listed)]
    assert values == ["Ada", ["cat"], "Ada", ["cat"]]
    values[1].append("dog")  # the caller's own copy
    assert ctx.sem_reads[1]["value"] == ["cat"] and len(ctx.sem_reads) == 4
    assert [item["key"] for item in ctx.evidence_items] == ["user/person/self/name", "user/person/self/pets"]
    assert ctx.listed_read(entry).value == "Ada" and len(ctx.evidence_items) == 2
