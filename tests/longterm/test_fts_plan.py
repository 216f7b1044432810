"""The bounded FTS5 plan: rarest terms first within a budget of postings, exact when all fit."""

from __future__ import annotations

import sqlite3

from agi_core.longterm import migrate
from agi_core.memory.sqlite.ltm_rows import SqliteLtmRows


def _rows(tmp_path, budget: int) -> SqliteLtmRows:
    conn = sqlite3.connect(tmp_path / "fts.db")
    migrate(conn)
    texts = [f"common filler line {i}" for i in range(50)] + ["common greyhound puppy", "a greyhound named Pixel"]
    rows = [(f"id{i}", i, "message", t, None, None, None, 0.3, "{}") for i, t in enumerate(texts)]
    store = SqliteLtmRows(conn)
    store.insert_items(rows)
    store.plan.budget = budget
    return store


def test_all_terms_within_budget_is_the_exact_query(tmp_path) -> None:
    rows = _rows(tmp_path, budget=1000)
    assert rows.plan.choose(rows.conn, ["greyhound", "common", "absent"]) == ["greyhound", "common"]
    hits = rows.full_text(["greyhound", "common"], 100)
    assert len(hits) == 52 and max(hits, key=hits.__getitem__) == 51  # "common greyhound puppy"


def test_common_terms_past_the_budget_are_left_out(tmp_path) -> None:
    rows = _rows(tmp_path, budget=10)
    assert rows.plan.choose(rows.conn, ["common", "greyhound", "pixel"]) == ["greyhound", "pixel"]
    assert set(rows.full_text(["common", "greyhound", "pixel"], 100)) == {51, 52}
    assert rows.plan.choose(rows.conn, ["common", "filler"]) == ["filler"]  # the rarest term always stays
