"""The quota tree's arithmetic against its definition, on random trees and usage changes.

``model/quota.py`` (upstream kubernetes-sigs/kueue ``pkg/cache/scheduler/resource_node.go``) writes
``available``, ``add_usage`` and ``remove_usage`` with their helpers inline, for the preemptor's
many what-ifs. The reference here is the definition, helper by helper: the local quota (what a
lending limit keeps in the subtree), usage filling it first and charging the rest to the parent,
removal giving back the parent's part first; availability capped by the borrowing limit. Every
change is journaled: rolling back restores every usage.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode, CQSettings
from kbatch.controllers.kueue.model.quota import (
    Cohort,
    Journal,
    Node,
    Quota,
    Tree,
    add_usage,
    available,
    remove_usage,
    update_tree,
)

FR = ("f", "cpu")
LIMIT = st.one_of(st.none(), st.integers(0, 6))


def _local_quota(node: Node) -> int:
    q = node.quotas.get(FR)
    if q is not None and q.lending_limit is not None:
        return max(0, node.subtree_quota.get(FR, 0) - q.lending_limit)
    return 0


def _local_available(node: Node) -> int:
    return max(0, _local_quota(node) - node.usage.get(FR, 0))


def _available(node: Node) -> int:
    if node.parent is None:
        return node.subtree_quota.get(FR, 0) - node.usage.get(FR, 0)
    parent = _available(node.parent)
    q = node.quotas.get(FR)
    if q is not None and q.borrowing_limit is not None:
        lq = _local_quota(node)
        used_in_parent = max(0, node.usage.get(FR, 0) - lq)
        parent = min(node.subtree_quota.get(FR, 0) - lq - used_in_parent + q.borrowing_limit, parent)
    return _local_available(node) + parent


def _add(node: Node, value: int, usages: dict[int, int]) -> None:
    free = max(0, _local_quota(node) - usages.get(id(node), 0))
    usages[id(node)] = usages.get(id(node), 0) + value
    if node.parent is not None and value > free:
        _add(node.parent, value - free, usages)


def _remove(node: Node, value: int, usages: dict[int, int]) -> None:
    stored = usages.get(id(node), 0) - _local_quota(node)
    usages[id(node)] = usages.get(id(node), 0) - value
    if stored > 0 and node.parent is not None:
        _remove(node.parent, min(value, stored), usages)


@st.composite
def _tree(draw: Any) -> tuple[Tree, list[Node]]:
    tree = Tree(journal=Journal())
    root = Cohort("root", tree)
    sub = Cohort("sub", tree)
    sub.parent = root
    root.child_cohorts["sub"] = sub
    nodes: list[Node] = [root, sub]
    for i in range(draw(st.integers(1, 4))):
        cq = ClusterQueueNode(CQSettings(f"cq{i}"), tree)
        if draw(st.booleans()):
            cq.quotas[FR] = Quota(draw(st.integers(0, 8)), draw(LIMIT), draw(LIMIT))
        parent = draw(st.sampled_from([root, sub]))
        cq.parent = parent
        parent.child_cqs[cq.name] = cq
        nodes.append(cq)
    if draw(st.booleans()):
        sub.quotas[FR] = Quota(draw(st.integers(0, 4)), draw(LIMIT), draw(LIMIT))
    update_tree(root)
    return tree, nodes


@settings(max_examples=300, deadline=None)
@given(world=_tree(), steps=st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 7)),
                                     max_size=12))
def test_inline_arithmetic_is_the_definition(world: tuple[Tree, list[Node]], steps: list[Any]) -> None:
    tree, nodes = world
    queues = [n for n in nodes if isinstance(n, ClusterQueueNode)]
    expected = {id(n): n.usage.get(FR, 0) for n in nodes}
    before = {id(n): dict(n.usage) for n in nodes}
    for adding, which, value in steps:
        cq = queues[which % len(queues)]
        if adding:
            _add(cq, value, expected)
            add_usage(cq, FR, value)
        else:
            _remove(cq, value, expected)
            remove_usage(cq, FR, value)
        assert {id(n): n.usage.get(FR, 0) for n in nodes} == expected
        for n in nodes:
            assert available(n, FR) == _available(n)
    tree.journal.rollback(0)  # type: ignore[union-attr]
    assert {id(n): dict(n.usage) for n in nodes} == before
