"""Node affinity ``Gt``/``Lt`` as the scheduler reads them (k8s.io/component-helpers 1.37
``scheduling/corev1/nodeaffinity/nodeaffinity.go``): each requirement goes through
``labels.NewRequirement``, which takes the bound with ``strconv.ParseInt(v, 10, 64)``; a term with a
requirement it refuses is a parse error and never matches (other terms still may), and a node label
``ParseInt`` refuses never satisfies ``Gt``/``Lt`` (``labels.Requirement.Matches``). Validation lets
such bounds through (``ValidateNodeSelectorRequirement`` checks only that they are label values), so
these pods are admitted and then fit no node.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, filter_reasons, world

NA = "NodeAffinity"
POD = ("UNRESOLVABLE", ("node(s) didn't match Pod's node affinity/selector",))


def _pod(*terms: list[dict[str, Any]]) -> Any:
    required = {"nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    return api_pod("p", affinity=affinity)


def _node(labels: dict[str, str]) -> Any:
    return api_node("node1", {"cpu": "4", "memory": "4Gi", "pods": "110"}, labels=labels)


def _gt(bound: str, key: str = "v") -> list[dict[str, Any]]:
    return [{"key": key, "operator": "Gt", "values": [bound]}]


@pytest.mark.parametrize(("term", "label", "want"), [
    (_gt("1_0"), "20", POD),  # Python's int reads "1_0" as 10; ParseInt refuses it
    (_gt("99999999999999999999"), "100000000000000000000", POD),  # beyond int64
    (_gt("abc"), "20", POD),
    (_gt("5"), "1_1", POD),  # the node's label is not an int64 either
    (_gt("5"), "99999999999999999999", POD),
    (_gt("5"), "20", None),
    ([{"key": "v", "operator": "Lt", "values": ["9223372036854775807"]}], "9223372036854775806", None),
])
def test_gt_lt_bounds_are_parsed_as_strconv_parse_int(
    term: list[dict[str, Any]], label: str, want: Any
) -> None:
    assert filter_reasons(world([_node({"v": label})]), _pod(term), NA) == {"node1": want}


def test_a_term_the_scheduler_cannot_parse_leaves_the_other_terms() -> None:
    """``LazyErrorNodeSelector.Match``: a term with parse errors is skipped, the next one may match."""
    pod = _pod(_gt("1_0"), [{"key": "zone", "operator": "In", "values": ["a"]}])
    assert filter_reasons(world([_node({"v": "20", "zone": "a"})]), pod, NA) == {"node1": None}
    assert filter_reasons(world([_node({"v": "20", "zone": "b"})]), pod, NA) == {"node1": POD}
