"""The quota tree: ClusterQueues and Cohorts as resource nodes, with Kueue's quota arithmetic.

Upstream: kubernetes-sigs/kueue ``pkg/cache/scheduler/resource_node.go`` (v0.19.2). Per (flavor,
resource) every node has its own ``quotas`` (nominal, borrowing limit, lending limit), a
``subtree_quota`` (a ClusterQueue: its nominal; a Cohort: its own nominal plus each child's subtree
quota beyond the child's *local* quota) and a ``usage`` (a ClusterQueue: what its workloads hold; a
Cohort: the part of its children's usage beyond their local quotas).

* ``local_quota = max(0, subtree_quota - lending_limit)`` when a lending limit is set, else 0: capacity
  only the subtree sees;
* ``available``: a root has ``subtree_quota - usage``; another node has what is left of its local
  quota plus what its parent has, capped by the borrowing limit (``subtree_quota - local_quota -
  used_in_parent + borrowing_limit``);
* ``potential_available``: the same with no usage anywhere, capped at ``subtree_quota +
  borrowing_limit``;
* adding usage fills the local quota first and charges the rest to the parent, recursively;
  removing usage gives back what was charged to the parent first.

Worked example (a flat cohort): CQ ``a`` nominal 10 cpu, lending limit 4; CQ ``b`` nominal 6. Then
``a.local_quota = 6``; the cohort's subtree quota is ``(10 - 6) + (6 - 0) = 10``. With 8 cpu used in
``a``: 6 stay local, 2 are charged to the cohort; ``available(b) = min(cohort's 10 - 2, ...) = 8``;
``available(a) = 0 + (10 - 2) = 8``. ``b`` can borrow at most ``a``'s 4 lendable cpu.

Every change of a usage goes through :class:`Journal`, so a scheduling cycle can work on the live
tree and undo its what-if changes (upstream copies the cache into a snapshot instead).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.controllers.kueue.model.requests import FlavorResource

__all__ = [
    "Cohort",
    "Journal",
    "Node",
    "Quota",
    "available",
    "borrowing_with",
    "find_height_of_lowest_subtree_that_fits",
    "is_within_nominal",
    "local_available",
    "local_quota",
    "node_height",
    "path_to_root",
    "potential_available",
    "quantities_fit_in_quota",
    "root_of",
    "update_tree",
]


@dataclass(frozen=True, slots=True)
class Quota:
    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


class Journal:
    """Undo records of usage changes (and of the snapshot's workload sets): ``(dict, key, old)``;
    ``old`` is :data:`_ABSENT` when the key was missing."""

    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: list[tuple[dict[Any, Any], Any, Any]] = []

    def mark(self) -> int:
        return len(self.records)

    def rollback(self, mark: int = 0) -> None:
        records = self.records
        while len(records) > mark:
            target, key, old = records.pop()
            if old is _ABSENT:
                target.pop(key, None)
            else:
                target[key] = old


class _Absent:
    """The mark of a key that was missing (one instance). It pickles by reference, so a journal that
    is saved and loaded still recognises it (a plain ``object()`` would come back as another one)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "_ABSENT"

    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()


def journaled_set(journal: Journal | None, target: dict[Any, Any], key: Any, value: Any) -> None:
    if journal is not None:
        journal.records.append((target, key, target.get(key, _ABSENT)))
    target[key] = value


def journaled_pop(journal: Journal | None, target: dict[Any, Any], key: Any) -> None:
    if key not in target:
        return
    if journal is not None:
        journal.records.append((target, key, target[key]))
    del target[key]


class Node:
    """A resource node (ClusterQueue or Cohort); ``tree`` holds the shared journal."""

    __slots__ = ("fair_weight", "name", "parent", "quotas", "subtree_quota", "tree", "usage")

    def __init__(self, name: str, tree: Any) -> None:
        self.name = name
        self.tree = tree
        self.quotas: dict[FlavorResource, Quota] = {}
        self.subtree_quota: dict[FlavorResource, int] = {}
        self.usage: dict[FlavorResource, int] = {}
        self.parent: Cohort | None = None
        self.fair_weight = 1.0

    def set_usage(self, fr: FlavorResource, value: int) -> None:
        journaled_set(self.tree.journal, self.usage, fr, value)


class Cohort(Node):
    __slots__ = ("child_cohorts", "child_cqs", "explicit")

    def __init__(self, name: str, tree: Any) -> None:
        super().__init__(name, tree)
        self.child_cohorts: dict[str, Cohort] = {}
        self.child_cqs: dict[str, Any] = {}
        self.explicit = False  # a Cohort object exists (else only referenced by name)

    def children(self) -> Iterator[Node]:
        yield from (self.child_cohorts[n] for n in sorted(self.child_cohorts))
        yield from (self.child_cqs[n] for n in sorted(self.child_cqs))

    def subtree_cluster_queues(self) -> list[Any]:
        out = [self.child_cqs[n] for n in sorted(self.child_cqs)]
        for name in sorted(self.child_cohorts):
            out += self.child_cohorts[name].subtree_cluster_queues()
        return out


def path_to_root(node: Node) -> Iterator[Cohort]:
    """The ancestors of ``node``, parent first."""
    seen: set[int] = set()
    parent = node.parent
    while parent is not None and id(parent) not in seen:
        seen.add(id(parent))
        yield parent
        parent = parent.parent


def root_of(node: Node) -> Node:
    out = node
    for ancestor in path_to_root(node):
        out = ancestor
    return out


def has_cycle(node: Node) -> bool:
    seen: set[int] = {id(node)}
    parent = node.parent
    while parent is not None:
        if id(parent) in seen:
            return True
        seen.add(id(parent))
        parent = parent.parent
    return False


# --- arithmetic ----------------------------------------------------------------------------------


def local_quota(node: Node, fr: FlavorResource) -> int:
    q = node.quotas.get(fr)
    if q is not None and q.lending_limit is not None:
        return max(0, node.subtree_quota.get(fr, 0) - q.lending_limit)
    return 0


def local_available(node: Node, fr: FlavorResource) -> int:
    return max(0, local_quota(node, fr) - node.usage.get(fr, 0))


def available(node: Node, fr: FlavorResource) -> int:
    """May be negative after over-admission (capacity removed, a queue moved). (:func:`local_quota`
    and :func:`local_available` inline: the preemptor asks this after every what-if.)"""
    subtree = node.subtree_quota.get(fr, 0)
    used = node.usage.get(fr, 0)
    if node.parent is None:
        return subtree - used
    parent_available = available(node.parent, fr)
    q = node.quotas.get(fr)
    local = 0
    if q is not None:
        if q.lending_limit is not None:
            local = max(0, subtree - q.lending_limit)
        if q.borrowing_limit is not None:
            used_in_parent = max(0, used - local)
            parent_available = min(subtree - local - used_in_parent + q.borrowing_limit, parent_available)
    return max(0, local - used) + parent_available


def potential_available(node: Node, fr: FlavorResource) -> int:
    if node.parent is None:
        return node.subtree_quota.get(fr, 0)
    avail = local_quota(node, fr) + potential_available(node.parent, fr)
    q = node.quotas.get(fr)
    if q is not None and q.borrowing_limit is not None:
        avail = min(node.subtree_quota.get(fr, 0) + q.borrowing_limit, avail)
    return avail


def _charge(node: Node, fr: FlavorResource, delta: int) -> tuple[int, int]:
    """Add ``delta`` to the node's usage of ``fr`` (journaled, as :meth:`Node.set_usage`); returns the
    usage before and the node's :func:`local_quota`. Both inline: the hot path of every what-if the
    preemptor tries."""
    usage = node.usage
    old = usage.get(fr, _ABSENT)
    used = 0 if old is _ABSENT else old
    q = node.quotas.get(fr)
    lending = q.lending_limit if q is not None else None
    local = 0 if lending is None else max(0, node.subtree_quota.get(fr, 0) - lending)
    journal = node.tree.journal
    if journal is not None:
        journal.records.append((usage, fr, old))
    usage[fr] = used + delta
    return used, local


def add_usage(node: Node, fr: FlavorResource, value: int) -> None:
    """Fill the local quota first, charge the rest to the parent."""
    used, local = _charge(node, fr, value)
    free_locally = max(0, local - used)
    if node.parent is not None and value > free_locally:
        add_usage(node.parent, fr, value - free_locally)


def remove_usage(node: Node, fr: FlavorResource, value: int) -> None:
    """Give back what was charged to the parent first."""
    used, local = _charge(node, fr, -value)
    stored_in_parent = used - local
    if stored_in_parent <= 0 or node.parent is None:
        return
    remove_usage(node.parent, fr, min(value, stored_in_parent))


def borrowing_with(node: Node, fr: FlavorResource, value: int) -> bool:
    """Whether ``usage + value`` exceeds the node's nominal (a ClusterQueue) / subtree quota (a
    Cohort): ``ClusterQueueSnapshot.BorrowingWith`` and ``CohortSnapshot.BorrowingWith``."""
    if isinstance(node, Cohort):
        return node.subtree_quota.get(fr, 0) < node.usage.get(fr, 0) + value
    q = node.quotas.get(fr)
    return (q.nominal if q is not None else 0) < node.usage.get(fr, 0) + value


def is_within_nominal(node: Node, frs: Iterable[FlavorResource]) -> bool:
    """``IsWithinNominalInResources``: usage at or below the subtree quota for every resource."""
    subtree, usage = node.subtree_quota, node.usage
    for fr in frs:  # noqa: SIM110 - a loop, not all(): no generator for each of the preemptor's many calls
        if subtree.get(fr, 0) < usage.get(fr, 0):
            return False
    return True


def quantities_fit_in_quota(
    node: Node, requests: Mapping[FlavorResource, int]
) -> tuple[bool, dict[FlavorResource, int]]:
    """``QuantitiesFitInQuota``: whether ``requests`` fit in the node's subtree quota, and what
    remains of them beyond its local availability (to be asked of the parent)."""
    fits = True
    remaining: dict[FlavorResource, int] = {}
    for fr, v in requests.items():
        if node.subtree_quota.get(fr, 0) < node.usage.get(fr, 0) + v:
            fits = False
        remaining[fr] = max(0, v - local_available(node, fr))
    return fits, remaining


def node_height(cohort: Cohort) -> int:
    """``getNodeHeight``: the distance to the furthest leaf (a cohort with only queues: 1)."""
    height = min(len(cohort.child_cqs) + len(cohort.child_cohorts), 1)
    for child in cohort.child_cohorts.values():
        height = max(height, node_height(child) + 1)
    return height


def find_height_of_lowest_subtree_that_fits(cq: Node, fr: FlavorResource, value: int) -> tuple[int, bool]:
    """``FindHeightOfLowestSubtreeThatFits``: the height of the lowest subtree that fits ``value``
    more of ``fr`` (0: the ClusterQueue itself), and whether that subtree is smaller than the whole
    cohort tree (hierarchical reclaim may then apply)."""
    if not borrowing_with(cq, fr, value) or cq.parent is None:
        return 0, cq.parent is not None
    remaining = value - local_available(cq, fr)
    for node in path_to_root(cq):
        if not borrowing_with(node, fr, remaining):
            return node_height(node), node.parent is not None
        remaining -= local_available(node, fr)
    root = root_of(cq)
    return (node_height(root) if isinstance(root, Cohort) else 0), False


# --- tree maintenance --------------------------------------------------------------------------


def _accumulate(parent: Cohort, child: Node) -> None:
    for fr, q in child.subtree_quota.items():
        parent.subtree_quota[fr] = parent.subtree_quota.get(fr, 0) + q - local_quota(child, fr)
    for fr, used in child.usage.items():
        parent.usage[fr] = parent.usage.get(fr, 0) + max(0, used - local_quota(child, fr))


def _rebuild(node: Node) -> None:
    if isinstance(node, Cohort):
        node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
        node.usage = {}
        for child in node.children():
            _rebuild(child)
            _accumulate(node, child)
    else:
        node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}


def update_tree(node: Node) -> None:
    """Recompute subtree quotas and cohort usages of ``node``'s whole tree (``updateCohortTreeResources``;
    a tree with a cycle is left alone)."""
    if has_cycle(node):
        return
    _rebuild(root_of(node))


@dataclass
class Tree:
    """What every node of one cache shares: the journal (``None``: changes are not recorded) and the
    last revision handed out (:meth:`next_revision`)."""

    journal: Journal | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    revision: int = 0

    def next_revision(self) -> int:
        """A number no node of this tree had before, in this process or a saved one it continues:
        the counter is the tree's own, saved and loaded with it (a process-wide counter would start
        again at 1 in the next CLI command and reuse numbers the loaded nodes still hold)."""
        self.revision += 1
        return self.revision
