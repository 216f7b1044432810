"""The goal DAG laid out for an SVG drawn by the template: a layer per depth, leaves left to right.

Goals form a forest (each has at most one parent, a move that makes a cycle is refused), so a
tidy layout needs no library: a parent sits above the middle of its children. Coordinates
only; the template writes the SVG, so every title goes through Jinja's autoescape.
"""

from __future__ import annotations

from typing import Any

import attrs

NODE_W, NODE_H, GAP_X, GAP_Y, MARGIN = 210, 54, 24, 46, 12
TITLE_CHARS = 24


@attrs.frozen
class Node:
    id: str
    title: str
    status: str
    x: int
    y: int
    steps: str  # "done/total" plan steps


@attrs.frozen
class Edge:
    x1: int
    y1: int
    x2: int
    y2: int


@attrs.frozen
class Layout:
    nodes: list[Node]
    edges: list[Edge]
    width: int
    height: int


def short(text: str, limit: int = TITLE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def layout(goals: list[dict[str, Any]]) -> Layout:
    """Positions of ``goals`` (stored rows, oldest first); a parent missing from the list makes a root."""
    ids = {goal["id"] for goal in goals}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for goal in goals:
        parent = goal.get("parent") if goal.get("parent") in ids else None
        children.setdefault(parent, []).append(goal)
    places: dict[str, tuple[float, int]] = {}
    next_column = 0.0
    for root in children.get(None, []):  # depth first, post-order, without recursion (a chain may be deep)
        stack: list[tuple[dict[str, Any], int, bool]] = [(root, 0, False)]
        while stack:
            goal, depth, expanded = stack.pop()
            kids = children.get(goal["id"], [])
            if not kids:
                places[goal["id"]], next_column = (next_column, depth), next_column + 1
            elif expanded:
                places[goal["id"]] = ((places[kids[0]["id"]][0] + places[kids[-1]["id"]][0]) / 2, depth)
            else:
                stack.append((goal, depth, True))
                stack.extend((kid, depth + 1, False) for kid in reversed(kids))
    nodes = []
    for goal in goals:
        column, depth = places[goal["id"]]
        done = sum(step.get("status") == "done" for step in goal.get("plan", []))
        nodes.append(
            Node(
                id=goal["id"],
                title=short(str(goal.get("description", ""))),
                status=str(goal.get("status", "")),
                x=MARGIN + round(column * (NODE_W + GAP_X)),
                y=MARGIN + depth * (NODE_H + GAP_Y),
                steps=f"{done}/{len(goal.get('plan', []))}",
            )
        )
    at = {node.id: node for node in nodes}
    edges = [
        Edge(at[parent].x + NODE_W // 2, at[parent].y + NODE_H, at[goal["id"]].x + NODE_W // 2, at[goal["id"]].y)
        for parent, kids in children.items()
        if parent is not None
        for goal in kids
    ]
    width = max((node.x for node in nodes), default=0) + NODE_W + MARGIN
    height = max((node.y for node in nodes), default=0) + NODE_H + MARGIN
    return Layout(nodes, edges, width, height)
