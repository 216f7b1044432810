"""The cheap pre-test of stored JSON (``blobs.maybe_refs``) never misses a string that needs a blob."""

from __future__ import annotations

import random

from agi_core.memory import blobs
from agi_core.memory.blobs import BLOB_THRESHOLD, MARKER, maybe_refs, stored_record_text
from agi_core.serialization import dumps


def _store(data):
    stored: dict[str, bytes] = {}
    return stored_record_text(data, lambda key, value: stored.__setitem__(key, value)), stored


def test_a_long_text_of_short_strings_is_stored_as_it_is_without_a_walk():
    record = {"modules": {"calls": [{"module": f"m{i}", "output": "x" * 100} for i in range(200)]}}
    text = dumps(record)
    assert len(text) > 5 * BLOB_THRESHOLD
    assert maybe_refs(text) is False
    assert _store(record) == (text, {})


def test_a_string_of_the_threshold_length_is_seen_even_when_made_of_escapes():
    for filler in ('"', "\\", '\\"', "\n", 'a"b\\'):
        long = (filler * BLOB_THRESHOLD)[:BLOB_THRESHOLD]
        record = {"a": "short", "z": long}
        assert maybe_refs(dumps(record)) is True, filler
        text, stored = _store(record)
        assert MARKER in text and list(stored.values()) == [long.encode()]
    just_under = {"a": "y" * (BLOB_THRESHOLD - 1), "b": "y" * (BLOB_THRESHOLD - 1)}
    assert _store(just_under) == (dumps(just_under), {})  # the pre-test may say maybe: the walk says no


def test_the_pre_test_agrees_with_the_full_walk_on_random_records():
    rng = random.Random(7)
    alphabet = ['"', "\\", "a", "é", "\n", "\u2028", " ", "/"]

    def text():
        size = rng.choice([0, 3, 200, BLOB_THRESHOLD - 2, BLOB_THRESHOLD - 1, BLOB_THRESHOLD, BLOB_THRESHOLD + 5])
        return "".join(rng.choice(alphabet) for _ in range(size))

    for _ in range(200):
        record = {f"k{i}": [text(), {"v": text()}] for i in range(rng.randint(1, 4))}
        needs = any(blobs.needs_blob(s) for v in record.values() for s in (v[0], v[1]["v"]))
        if needs:
            assert maybe_refs(dumps(record)) is True
        text_stored, stored = _store(record)
        assert bool(stored) is needs
        assert text_stored == dumps(blobs.externalize(record, lambda key, value: None))


def _walked(data):
    stored: dict[str, bytes] = {}
    return dumps(blobs.externalize_record(data, lambda key, value: stored.__setitem__(key, value))), stored


def test_a_compact_records_working_memories_are_stored_as_the_full_walk_stores_them():
    """journal_form's working memories (JSON_MARKER strings) are the only blobs of an idle record: stored
    without walking the record, to the same text and blobs as the walk; anything else goes through the walk."""
    working = blobs.JSON_MARKER + dumps({"focus": "user/person/self", "recent_turns": ["user: hi"] * 10})
    compact = {"brainstate_before": {"working": working}, "brainstate_after": {"working": working, "tick": 2}}
    assert _store(compact) == _walked(compact) and MARKER in _store(compact)[0]
    assert len(_store(compact)[1]) == 1  # the same working memory before and after: one blob
    told = {**compact, "final_output": blobs.JSON_MARKER + "a user's line"}  # the marker elsewhere: walked
    assert _store(told) == _walked(told) and len(_store(told)[1]) == 2
    long = {**compact, "input": {"raw": "z" * BLOB_THRESHOLD}}
    assert _store(long) == _walked(long) and len(_store(long)[1]) == 2
    referring = {**compact, "note": MARKER + "0" * 64}
    assert _store(referring) == _walked(referring)


def test_working_memories_of_any_text_are_referenced_in_place_as_the_walk_stores_them():
    """The record is serialized (and checked) once: each working memory's literal is replaced by its
    reference's in that text, to the very text the walk gives, whatever the working memories hold."""
    odd = ['say "hi"\\', "é\u2028\n\t\x01", "\ud800 lone", "agi:json: inside", "</script>", ""]
    for before_turn in odd:
        for after_turn in (before_turn, "plain"):
            before = blobs.JSON_MARKER + dumps({"recent_turns": [before_turn]})
            after = blobs.JSON_MARKER + dumps({"recent_turns": [after_turn], "focus": None})
            record = {
                "brainstate_after": {"working": after, "tick": 2},
                "brainstate_before": {"working": before, "tick": 1},
                "final_output": 'a "quoted" reply',
                "scores": [0.5, None],
            }
            assert _store(record) == _walked(record), (before_turn, after_turn)


def test_a_record_is_serialized_once_when_only_its_working_memories_need_blobs(monkeypatch):
    working = blobs.JSON_MARKER + dumps({"recent_turns": ["user: hi"]})
    record = {"brainstate_after": {"working": working}, "brainstate_before": {"working": working}, "big": "x" * 300}
    expected = _walked(record)
    records = []

    def counting(data):
        if isinstance(data, dict):
            records.append(data)
        return dumps(data)

    monkeypatch.setattr("agi_core.serialization.dumps", counting)
    assert _store(record) == expected
    assert len(records) == 1, "the record was serialized again to put its references in"
