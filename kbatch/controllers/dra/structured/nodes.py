"""Node selection of slices and devices (upstream ``NodeMatches`` in the allocator's pools file,
with ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``): a node name matches only that node,
``allNodes`` every node, a node selector by its terms (ORed; requirements ANDed; ``matchFields`` only
on ``metadata.name``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.go_int import parse_int

__all__ = ["NodeView", "node_matches", "selector_matches"]


class NodeView:
    """The node an allocation is for: name and labels."""

    __slots__ = ("labels", "name")

    def __init__(self, name: str, labels: Mapping[str, str]) -> None:
        self.name, self.labels = name, labels


def _requirement(req: Any, values: Mapping[str, str]) -> bool:
    op, present = req.operator, req.key in values
    wanted = req.values or []
    if op == "In":
        return present and values[req.key] in wanted
    if op == "NotIn":
        return not present or values[req.key] not in wanted
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(wanted) == 1:
        # labels.Requirement (apimachinery pkg/labels/selector.go): both sides by strconv.ParseInt(v, 10, 64)
        have, bound = parse_int(values[req.key]), parse_int(wanted[0])
        if have is None or bound is None:
            return False
        return have > bound if op == "Gt" else have < bound
    return False


def selector_matches(selector: Any, node: NodeView) -> bool:
    """Whether ``node`` matches a ``v1.NodeSelector`` (a term without requirements matches nothing)."""
    for term in selector.node_selector_terms or ():
        expressions, fields = term.match_expressions or (), term.match_fields or ()
        if not expressions and not fields:
            continue
        if all(_requirement(r, node.labels) for r in expressions) and all(
            r.key == "metadata.name" and _requirement(r, {"metadata.name": node.name}) for r in fields
        ):
            return True
    return False


def node_matches(node: NodeView | None, node_name: str, all_nodes: bool, selector: Any) -> bool:
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node is not None and selector_matches(selector, node)
    return False
