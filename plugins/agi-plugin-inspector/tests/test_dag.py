"""The goal DAG's layout: a layer per depth, a parent centred over its children, any depth."""

from __future__ import annotations

from agi_plugin_inspector import dag


def goal(goal_id: str, parent: str | None = None, title: str = "") -> dict[str, object]:
    plan = [{"do": "a", "status": "done"}, {"do": "b", "status": "todo"}]
    return {"id": goal_id, "parent": parent, "description": title or goal_id, "status": "open", "plan": plan}


def test_a_parent_is_centred_one_layer_above_its_children() -> None:
    graph = dag.layout([goal("p"), goal("a", "p"), goal("b", "p"), goal("c")])
    at = {node.id: node for node in graph.nodes}
    assert at["a"].y == at["b"].y == at["p"].y + dag.NODE_H + dag.GAP_Y
    assert at["p"].x == (at["a"].x + at["b"].x) // 2
    assert at["c"].y == at["p"].y and at["c"].x > at["b"].x  # another root, right of the first tree
    assert len(graph.edges) == 2 and at["p"].steps == "1/2"
    assert graph.width == at["c"].x + dag.NODE_W + dag.MARGIN


def test_a_goal_whose_parent_is_missing_is_a_root_and_titles_are_cut() -> None:
    graph = dag.layout([goal("x", "gone", title="t" * 100)])
    assert graph.nodes[0].y == dag.MARGIN and graph.edges == []
    assert graph.nodes[0].title == "t" * (dag.TITLE_CHARS - 1) + "…"


def test_a_chain_deeper_than_the_recursion_limit_is_laid_out() -> None:
    chain = [goal("g0"), *(goal(f"g{n}", f"g{n - 1}") for n in range(1, 3000))]
    graph = dag.layout(chain)
    assert graph.nodes[-1].y == dag.MARGIN + 2999 * (dag.NODE_H + dag.GAP_Y)
    assert {node.x for node in graph.nodes} == {dag.MARGIN}
