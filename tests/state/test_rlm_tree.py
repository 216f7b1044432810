"""Task trees: inputs from the parent, Final propagation, completion handlers."""

from __future__ import annotations

import pytest

from agi_core.state import (
    CompletionEvent,
    ReadOnlyVariable,
    StateError,
    VariableNotFound,
    VariableValueError,
)


@pytest.fixture
def parent(svc):
    sid = svc.create_state("Find all TypeScript errors", session_id="sess-1", tree_id=svc.new_tree_id()).state_id
    svc.set(sid, "error_list", [{"file": "src/auth.ts", "line": 42}], description="scan result")
    svc.set(sid, "threshold", 3)
    return sid


def test_child_gets_named_inputs_and_inherits_session_and_tree(svc, parent):
    child = svc.spawn_child(
        parent, "Fix src/auth.ts", inputs={"errors": "error_list", "threshold": "threshold"}, result_name="fix_report"
    )
    info, parent_info = svc.state(child.state_id), svc.state(parent)
    assert (info.parent_state_id, info.result_name) == (parent, "fix_report")
    assert (info.session_id, info.tree_id) == (parent_info.session_id, parent_info.tree_id)
    errors = svc.describe(child.state_id, "errors")
    assert (errors.value, errors.type, errors.source, errors.description, errors.scope) == (
        [{"file": "src/auth.ts", "line": 42}],
        "array",
        parent,
        "scan result",
        "state",
    )
    assert svc.get(child.state_id, "threshold") == 3
    assert svc.children(parent) == [info]
    # the initial checkpoint already holds the inputs
    assert svc.checkpoints(child.state_id)[0].variable_count == 4


def test_child_final_propagates_to_the_parent_and_fires_handlers_once(svc, parent):
    events: list[CompletionEvent] = []
    svc.on_complete(events.append)
    child = svc.spawn_child(parent, "Fix it", result_name="fix_report").state_id
    svc.set(child, "scratch", 1)
    svc.set(child, "Final", "Fixed 2 errors")
    assert events == [
        CompletionEvent(state_id=child, value="Fixed 2 errors", parent_state_id=parent, result_name="fix_report")
    ]
    report = svc.describe(parent, "fix_report")
    assert (report.value, report.type, report.source) == ("Fixed 2 errors", "text", child)
    assert svc.is_complete(child) is True and svc.is_complete(parent) is False
    svc.set(child, "Final", "Fixed 2 errors, for real")  # still complete: no second event
    assert len(events) == 1
    assert svc.get(parent, "fix_report") == "Fixed 2 errors"
    svc.set(child, "Final", None)  # reopened
    assert svc.is_complete(child) is False
    svc.set(child, "Final", "Fixed 3 errors")
    assert [e.value for e in events] == ["Fixed 2 errors", "Fixed 3 errors"]
    assert svc.get(parent, "fix_report") == "Fixed 3 errors"


def test_a_result_named_final_completes_the_parent_too(svc, parent):
    events: list[str] = []
    svc.on_complete(lambda event: events.append(event.state_id))
    child = svc.spawn_child(parent, "Answer for me", result_name="Final").state_id
    svc.set(child, "Final", {"answer": 42})
    assert events == [parent, child]  # the parent's completion happens inside the child's
    assert svc.get(parent, "Final") == {"answer": 42}
    assert svc.state(parent).completion_status == "complete"


def test_a_failing_handler_undoes_the_final_write(svc, parent):
    child = svc.spawn_child(parent, "Fix it", result_name="fix_report").state_id

    def broken(event: CompletionEvent) -> None:
        raise RuntimeError("mailer down")

    svc.on_complete(broken)
    with pytest.raises(StateError) as info:
        svc.set(child, "Final", "done")
    assert str(info.value) == (
        f"completion handler test_a_failing_handler_undoes_the_final_write.<locals>"
        f".broken failed for {child}: RuntimeError('mailer down'); fix the handler "
        "(the Final write was undone)"
    )
    assert svc.get(child, "Final") is None
    assert svc.is_complete(child) is False
    with pytest.raises(VariableNotFound):
        svc.get(parent, "fix_report")


def test_file_path_values_are_copied_between_state_folders(svc, parent, root):
    (root / parent / "variables").mkdir(parents=True)
    (root / parent / "variables" / "scan.txt").write_bytes(b"scan bytes")
    svc.set(parent, "scan", "file:variables/scan.txt", type="file_path")
    child = svc.spawn_child(parent, "Read the scan", inputs={"scan": "scan"}, result_name="out").state_id
    copied = svc.get(child, "scan")
    assert copied == f"file:from/{parent}/variables/scan.txt"
    assert (root / child / copied[5:]).read_bytes() == b"scan bytes"
    (root / child / "result.md").write_text("# result")
    svc.set(child, "Final", "file:result.md", type="file_path")
    assert svc.get(parent, "out") == f"file:from/{child}/result.md"
    assert svc.path(parent, "out").read_text() == "# result"


def test_bad_inputs_create_nothing(svc, parent):
    before = svc.states()
    with pytest.raises(VariableNotFound, match=f"^variable 'nope' of {parent} does not exist"):
        svc.spawn_child(parent, "x", inputs={"a": "nope"})
    with pytest.raises(VariableValueError) as info:
        svc.spawn_child(parent, "x", inputs={"Final": "threshold"})
    assert str(info.value) == "input 'Final' would overwrite the child's Final; give the input another name"
    with pytest.raises(ReadOnlyVariable, match=r"^a child's result cannot go to the parent's read-only prompt"):
        svc.spawn_child(parent, "x", result_name="prompt")
    assert svc.states() == before


def test_a_read_only_result_target_blocks_completion(svc, parent):
    svc.set(parent, "locked", "keep", read_only=True)
    child = svc.spawn_child(parent, "x", result_name="locked").state_id
    with pytest.raises(ReadOnlyVariable, match=f"^variable 'locked' of {parent} is read-only"):
        svc.set(child, "Final", "new")
    assert svc.is_complete(child) is False
