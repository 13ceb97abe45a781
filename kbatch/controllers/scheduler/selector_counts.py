"""Pods matching a label selector, per node and per topology domain, kept up to date as pods come
and go: PodTopologySpread's counts for the system default constraints.

Upstream's PodTopologySpread counts, in PreScore, the pods matching each constraint's selector on
every node (``scoring.go`` ``initPreScoreState``: ``countPodsMatchSelector`` over ``allNodes``), and
the per-node count again in Score. The count is a function of the cluster, not of the pod being
scheduled, whenever every node is counted: the pod's node inclusion policies let every node in (no
nodeSelector or required node affinity under ``nodeAffinityPolicy: Honor``, ``nodeTaintsPolicy``
Ignore) and nodes lacking a topology key are not excluded (the system defaults). kbatch therefore
keeps, per (namespace, selector) asked for, the number of matching pods per node and per
(topology key, value) domain, updated in O(1) when the snapshot adds or removes a pod, instead of
recounting every node for every pod. The numbers are exactly ``countPodsMatchSelector``'s: pods of
the namespace, not terminating, matching a non-empty selector; a node without the key counts under
the value "" as upstream's ``node.Labels[key]`` does.

:class:`SelectorIndex` holds at most :data:`LIMIT` selectors (least recently used dropped; a
dropped one is rebuilt by one scan when asked for again). A pod added or removed visits only the
selectors whose first ``matchLabels`` pair it carries (plus those without ``matchLabels``).

A selector asked for the first time is counted by one scan of the placed pods, unless one of its
``matchLabels`` pairs is carried by no placed pod: the index keeps, per label pair, how many placed
pods carry it (terminating ones too), so the first pod of a new workload (a JobSet's first pod, whose
Service selects ``jobset-name``) starts from empty counts without walking every pod of the cluster
(otherwise the n-th workload's first pod scanned the pods of the n - 1 before it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from kbatch.controllers.scheduler.types import LabelSelector, PodInfo

__all__ = ["LIMIT", "SelectorCounts", "SelectorIndex"]

LIMIT = 256
_ANY = ("", "")  # the bucket of selectors without matchLabels


def counts_in(selector: LabelSelector, namespace: str, pod: PodInfo) -> bool:
    """Upstream ``countPodsMatchSelector`` for one pod (the selector is non-empty)."""
    return pod.namespace == namespace and not pod.terminating and selector.matches(pod.labels)


class SelectorCounts:
    """Matching pods of one (namespace, selector): per node name, and per topology key's value."""

    __slots__ = ("_domains", "_labels", "namespace", "nodes", "selector")

    def __init__(self, namespace: str, selector: LabelSelector,
                 labels: Callable[[str], Mapping[str, str]]) -> None:
        self.namespace, self.selector = namespace, selector
        self.nodes: dict[str, int] = {}  # node name -> matching pods (> 0 only)
        self._domains: dict[str, dict[str, int]] = {}  # topology key -> value -> matching pods
        self._labels = labels  # node name -> its labels

    def change(self, node: str, delta: int) -> None:
        count = self.nodes.get(node, 0) + delta
        if count:
            self.nodes[node] = count
        else:
            self.nodes.pop(node, None)
        if self._domains:
            labels = self._labels(node)
            for key, values in self._domains.items():
                value = labels.get(key, "")
                values[value] = values.get(value, 0) + delta

    def domains(self, key: str) -> dict[str, int]:
        """Matching pods per value of ``key`` (nodes without it under ""); read-only."""
        values = self._domains.get(key)
        if values is None:
            values = self._domains[key] = {}
            for node, count in self.nodes.items():
                value = self._labels(node).get(key, "")
                values[value] = values.get(value, 0) + count
        return values

    def relabelled(self) -> None:
        """Some node's labels changed: the per-domain sums are rebuilt when next asked for."""
        self._domains = {}


class SelectorIndex:
    """The :class:`SelectorCounts` asked for, fed by the snapshot's pod additions and removals."""

    def __init__(self, labels: Callable[[str], Mapping[str, str]]) -> None:
        self._labels = labels
        self._entries: dict[tuple[str, LabelSelector], SelectorCounts] = {}  # least recently used first
        self._buckets: dict[tuple[str, str], dict[tuple[str, LabelSelector], SelectorCounts]] = {}
        self._carried: dict[tuple[str, str], int] = {}  # label pair -> placed pods carrying it (> 0 only)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, namespace: str, selector: LabelSelector,
            placed: Callable[[], Iterable[tuple[str, PodInfo]]]) -> SelectorCounts:
        """The counts for (``namespace``, ``selector``); built from ``placed`` (node, pod) pairs
        when not indexed yet."""
        key = (namespace, selector)
        entry = self._entries.pop(key, None)
        if entry is None:
            entry = SelectorCounts(namespace, selector, self._labels)
            carried = self._carried
            if all(pair in carried for pair in selector.match_labels):  # else no placed pod matches
                for node, pod in placed():
                    if counts_in(selector, namespace, pod):
                        entry.nodes[node] = entry.nodes.get(node, 0) + 1
            if len(self._entries) >= LIMIT:
                self._drop(next(iter(self._entries)))
            self._buckets.setdefault(_bucket(selector), {})[key] = entry
        self._entries[key] = entry  # most recently used last
        return entry

    def holds(self, entry: SelectorCounts) -> bool:
        return self._entries.get((entry.namespace, entry.selector)) is entry

    def _drop(self, key: tuple[str, LabelSelector]) -> None:
        del self._entries[key]
        bucket = _bucket(key[1])
        self._buckets[bucket].pop(key)
        if not self._buckets[bucket]:
            del self._buckets[bucket]

    def change(self, pod: PodInfo, node: str, delta: int) -> None:
        """``pod`` was added to (+1) or removed from (-1) ``node``."""
        carried = self._carried
        for pair in pod.labels.items():
            count = carried.get(pair, 0) + delta
            if count:
                carried[pair] = count
            else:
                del carried[pair]
        if not self._buckets or pod.terminating:
            return
        buckets = self._buckets
        for pair in (*pod.labels.items(), _ANY):
            found = buckets.get(pair)
            if found:
                for entry in found.values():
                    if counts_in(entry.selector, entry.namespace, pod):
                        entry.change(node, delta)

    def relabelled(self) -> None:
        for entry in self._entries.values():
            entry.relabelled()


def _bucket(selector: LabelSelector) -> tuple[str, str]:
    return selector.match_labels[0] if selector.match_labels else _ANY
