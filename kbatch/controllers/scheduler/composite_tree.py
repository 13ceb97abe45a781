"""The tree of a CompositePodGroup as the scheduler sees it (KEP-6012, gate ``CompositePodGroup``).

A PodGroup or CompositePodGroup names its parent composite by ``spec.parentCompositePodGroupName``;
the root is the composite with no parent. Upstream keeps this in the scheduler's cache and queue
(``gangscheduling/hierarchy_tracker.go``, the queue's ``workloadForest``, ``util.TraverseHierarchyUp``,
``GetPodGroupStates``); kbatch reads it from the informer cache when asked, which is cheap at the sizes
a gang has and needs no second copy.

* :func:`root_of` walks up from a group to its root composite ("" while a parent is missing; an
  :class:`InvalidTree` for a cycle);
* :func:`build_tree` collects the root's subtree, children oldest first (``creationTimestamp``, then
  name, a composite before a PodGroup of the same name), and rejects what kube-scheduler's runtime
  validation rejects: a cycle, more than 4 levels
  (``WorkloadMaxTreeDepth``), groups of more than one Workload;
* :func:`ready` is GangScheduling's quorum for PreEnqueue (``hierarchyTrackerImpl.isGroupReady``): a
  leaf is ready with ``minCount`` pods known (1 for a basic group), a composite with
  ``minGroupCount`` ready children (1 for basic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import PodGroup

__all__ = ["MAX_DEPTH", "InvalidTree", "TreeNode", "build_tree", "composites", "leaves", "ready", "root_of",
           "tree_of_group"]

MAX_DEPTH = 4  # scheduling/v1alpha3 WorkloadMaxTreeDepth: levels, the root composite and the leaves included


class InvalidTree(Exception):
    """A layout the scheduler refuses (condition reason ``Invalid``); ``names`` the composites seen."""

    def __init__(self, message: str, names: tuple[str, ...]) -> None:
        super().__init__(message)
        self.names = names


@dataclass(slots=True)
class TreeNode:
    """One group of the tree: a composite (``children``) or a leaf PodGroup (``key`` namespace/name)."""

    key: str
    group: Any  # PodGroup | CompositePodGroup
    children: list[TreeNode] = field(default_factory=list)

    @property
    def composite(self) -> bool:
        return isinstance(self.group, CompositePodGroup)

    @property
    def name(self) -> str:
        return self.group.metadata.name or ""


def _get(cache: Any, kind: type, name: str, namespace: str) -> Any:
    try:
        return cache.get(kind, name, namespace)
    except NotFound:
        return None


def root_of(cache: Any, namespace: str, parent: str) -> str:
    """The root composite above ``parent`` (itself when it has none); "" while one is missing."""
    seen: list[str] = []
    while True:
        if parent in seen:
            path = " -> ".join((*seen, parent))
            raise InvalidTree(f"cycle detected in composite pod group hierarchy: {path}", tuple(seen))
        seen.append(parent)
        cpg = _get(cache, CompositePodGroup, parent, namespace)
        if cpg is None:
            return ""
        if cpg.spec.parent_composite_pod_group_name is None:
            return parent
        parent = cpg.spec.parent_composite_pod_group_name


def _children(cache: Any, namespace: str, name: str) -> list[TreeNode]:
    out = [TreeNode(f"{namespace}/{c.metadata.name}", c) for c in cache.list(CompositePodGroup, namespace)
           if c.spec.parent_composite_pod_group_name == name]
    out += [TreeNode(f"{namespace}/{p.metadata.name}", p) for p in cache.list(PodGroup, namespace)
            if p.spec.parent_composite_pod_group_name == name]
    return sorted(out, key=_child_order)


def _child_order(node: TreeNode) -> tuple[float, str, int]:
    """Upstream ``PodGroupInfo.GetChildGroups`` (``pkg/scheduler/framework/types.go``): the earlier
    ``creationTimestamp`` first, then the name, then the kind (``compositepodgroup`` before
    ``podgroup``, the entity key types' order)."""
    created = node.group.metadata.creation_timestamp
    when = created.timestamp() if created is not None else float("-inf")
    return (when, node.name, 0 if node.composite else 1)


def build_tree(cache: Any, namespace: str, root: str, *, strict: bool = True) -> TreeNode:
    """The subtree of composite ``root`` (which must exist); ``InvalidTree`` for a bad layout unless
    not ``strict`` (PreEnqueue and the queueing hints: upstream's tracker counts readiness whatever
    the layout, the cycle then marks it ``Invalid``)."""
    top = TreeNode(f"{namespace}/{root}", cache.get(CompositePodGroup, root, namespace))
    stack, composites = [(top, 1)], [root]
    while stack:
        node, depth = stack.pop()
        node.children = _children(cache, namespace, node.name)
        for child in node.children:
            if strict and depth + 1 > MAX_DEPTH:
                raise InvalidTree(f"composite pod group hierarchy of {root!r} exceeds the maximum depth "
                                  f"of {MAX_DEPTH}", tuple(composites))
            if child.composite:
                composites.append(child.name)
                stack.append((child, depth + 1))
    workloads = sorted({ref.workload_name for node in _walk(top)
                        if (ref := node.group.spec.workload_ref) is not None})
    if strict and len(workloads) > 1:
        raise InvalidTree(f"composite pod group hierarchy of {root!r} references multiple workloads: "
                          f"{', '.join(workloads)}", tuple(composites))
    return top


def _walk(node: TreeNode) -> Iterator[TreeNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def leaves(node: TreeNode) -> list[TreeNode]:
    """The tree's PodGroups, depth first in child order."""
    return [n for n in _walk(node) if not n.composite]


def composites(node: TreeNode) -> list[TreeNode]:
    return [n for n in _walk(node) if n.composite]


def ready(node: TreeNode, count: Callable[[str], int]) -> bool:
    """GangScheduling's PreEnqueue quorum for ``node`` (``count``: the pods known per leaf key)."""
    if not node.composite:
        gang = node.group.spec.scheduling_policy.gang
        return count(node.key) >= (gang.min_count if gang is not None else 1)
    return ready_children(node, count) >= node.group.min_group_count()


def ready_children(node: TreeNode, count: Callable[[str], int]) -> int:
    return sum(1 for child in node.children if ready(child, count))


def tree_of_group(cache: Any, group_key: str) -> TreeNode | None:
    """The tree a PodGroup (``namespace/name``) belongs to, or None (no parent, a missing or invalid
    tree)."""
    namespace, _, name = group_key.partition("/")
    pg = _get(cache, PodGroup, name, namespace)
    parent = pg.spec.parent_composite_pod_group_name if pg is not None else None
    return tree_of_parent(cache, namespace, parent) if parent else None


def tree_of_parent(cache: Any, namespace: str, parent: str) -> TreeNode | None:
    try:
        root = root_of(cache, namespace, parent)
        return build_tree(cache, namespace, root, strict=False) if root else None
    except InvalidTree:
        return None
