"""A head's nomination, kept across scheduling cycles while nothing it reads has changed.

Upstream (kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go`` ``nominate``/``getAssignments``,
``pkg/scheduler/flavorassigner``, ``pkg/scheduler/preemption``, v0.19.2) nominates every head of
every cycle afresh: its flavor assigner keeps only the scan position (``LastAssignment``), and a head
that does not fit simulates the preemptor (``SimulatePreemption``) again. A release in any cohort
starts a cycle, so in a forest of cohorts most heads are nominated again over cohort trees nothing
touched. kbatch keeps the last nomination of each head (its :class:`~.assignment.Assignment` and
preemption targets) and hands it back, instead of computing it, only when every input is the same:

* the head: its :class:`~kbatch.controllers.kueue.model.info.WorkloadInfo` (the same object, or one
  equal in every field nomination reads and in its spec) and the scan position the assigner starts
  from (the ``LastState`` left after ``lastAssignmentOutdated``, by the flavor each pod set's
  resource resumes at: ``next_flavor``, the assigner's only read of it);
* its cohort tree, by value: for every Cohort and ClusterQueue of the tree of its ClusterQueue (the
  only tree quota questions and the preemptor read), in a fixed walk, its name and depth, quotas,
  subtree quotas, usage and fair weight, and for a ClusterQueue its settings (policies, resource
  groups, fungibility), its ``generation``, whether the cycle leaves it out, and its
  ``workloads_revision`` (the content of its admitted workloads: a number the quota tree hands out
  once, journaled and saved with it, so equal numbers mean equal content);
* the clock, only when a workload of the tree has no quota reservation time (candidates are ordered
  by it, ``now`` standing in for a missing one: the only place nomination reads the clock);
* what is global: the cycle's configuration (gates, fungibility, partial admission), the preemptor's
  configuration, the ResourceFlavors (node labels, taints, tolerations), the quota tree object, and
  with admission fair sharing the LocalQueues' usage (it orders preemption candidates).

Nomination runs on the snapshot as of the cycle's start (``run_cycle`` nominates every head before
it processes any, and every what-if of the oracle is rolled back), so the cycle's own admissions and
preemptions are not an input; a lookup with what-if changes pending is refused all the same. The
output that names the cycle (``LastState.cycle``) is set to the current one on reuse; everything is
copied in and out, so nothing handed out aliases what is kept.

The memo is not saved with a control-plane image (it pickles empty): a later CLI process starts
without it and can never match a number an earlier process kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import Cohort, Node, has_cycle, root_of
from kbatch.controllers.kueue.scheduling.assignment import Assignment, LastState

__all__ = ["CycleMemo", "NominationMemo", "copy_assignment"]

Nomination = tuple[Assignment, list[Any]]  # (assignment, preemption targets)
# an entry unused for this many cycles is dropped (its head left the heaps), at the next sweep (one
# every this many cycles); a dropped entry only means a fresh nomination, the same answer
_KEEP_CYCLES = 64


def _items(d: Mapping[Any, Any]) -> tuple[Any, ...]:
    return tuple(sorted(d.items()))


def _same_info(a: WorkloadInfo, b: WorkloadInfo) -> bool:
    """Whether nomination reads the same from ``a`` as from ``b``: the derived fields and the spec
    (pod templates, counts, minimum counts)."""
    if a is b:
        return True
    return (
        a.key == b.key
        and a.uid == b.uid
        and a.priority == b.priority
        and a.queue_order_time == b.queue_order_time
        and a.quota_reserved_time == b.quota_reserved_time
        and a.evicted == b.evicted
        and a.scheduling_hash == b.scheduling_hash
        and a.cluster_queue == b.cluster_queue
        and a.pod_sets == b.pod_sets
        and a.obj.spec == b.obj.spec
    )


def copy_assignment(a: Assignment) -> Assignment:
    """A copy of ``a`` sharing no mutable part with it (what ``copy.deepcopy`` gives, at a fraction
    of its cost: a reuse copies once in and once out). A pod set's ``topology`` is immutable and
    shared."""
    return replace(
        a,
        pod_sets=[
            replace(
                ps,
                flavors={r: replace(fa) for r, fa in ps.flavors.items()},
                status=replace(ps.status, reasons=list(ps.status.reasons)),
                requests=dict(ps.requests),
                attempts=[replace(at, reasons=list(at.reasons)) for at in ps.attempts],
            )
            for ps in a.pod_sets
        ],
        usage=dict(a.usage),
        last_state=replace(a.last_state, tried=[dict(t) for t in a.last_state.tried]),
    )


def _last_key(last: LastState | None) -> tuple[Any, ...]:
    """What the flavor assigner reads of the scan position: ``next_flavor`` per pod set and resource
    (its only read), where it is not the first flavor. No position, a resource not tried and a scan
    that went through every flavor (``-1``) all start at the first, so they share a key."""
    if last is None:
        return ()
    return tuple(
        (i, res, idx + 1) for i, per_ps in enumerate(last.tried) for res, idx in sorted(per_ps.items())
        if idx + 1 != 0
    )


@dataclass
class _Entry:
    info: WorkloadInfo
    last: tuple[Any, ...]
    tree: tuple[Any, ...]
    nomination: Nomination
    used: int


@dataclass
class _Reserved:
    """Whether every workload of one content of a ClusterQueue has a quota reservation time."""

    node: ClusterQueueNode
    revision: int
    all_reserved: bool


@dataclass
class NominationMemo:
    """Kept by the scheduler across cycles; :meth:`cycle` gives the view one cycle uses.
    ``enabled=False`` turns it off (tests compare both)."""

    enabled: bool = True
    hits: int = 0
    misses: int = 0
    _entries: dict[str, _Entry] = field(default_factory=dict)
    _reserved: dict[str, _Reserved] = field(default_factory=dict)
    _trees: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # last key per root, shared
    _global: tuple[Any, ...] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (NominationMemo, (self.enabled,))  # never saved: see the module docstring

    def cycle(
        self, snapshot: Any, config: Any, preemptor: Any, now: datetime, cycle: int
    ) -> CycleMemo | None:
        """The view for one cycle, or ``None`` when disabled. Entries made under other global
        inputs are dropped."""
        if not self.enabled:
            return None
        flavors = tuple(sorted(snapshot.flavors.items()))
        # admission fair sharing's LocalQueue usage orders preemption candidates: any change of it
        # invalidates every kept nomination
        lq_usage = tuple(sorted(snapshot.lq_usage.items())) if snapshot.lq_usage is not None else None
        key = (snapshot.cache.tree, config, _preemptor_key(preemptor), flavors, lq_usage)
        if self._global is None or not _same_global(self._global, key):
            self._entries.clear()
            self._reserved.clear()
            self._trees.clear()
            self._global = key
        if cycle % _KEEP_CYCLES == 0:  # a sweep per cycle would read every entry every cycle
            stale = cycle - _KEEP_CYCLES
            for name in [k for k, e in self._entries.items() if e.used < stale]:
                del self._entries[name]
        return CycleMemo(self, snapshot, now, cycle)

    def forget(self, key: str) -> None:
        """Drop a workload's entry: it was admitted, so it is no head while it holds quota (a
        dropped entry only means a fresh nomination, the same answer)."""
        self._entries.pop(key, None)

    def all_reserved(self, cq: ClusterQueueNode) -> bool:
        revision = cq.workloads_revision
        got = self._reserved.get(cq.name)
        if got is None or got.node is not cq or got.revision != revision:
            ok = all(wl.quota_reserved_time is not None for wl in cq.workloads.values())
            got = self._reserved[cq.name] = _Reserved(cq, revision, ok)
        return got.all_reserved


def _preemptor_key(p: Any) -> tuple[Any, ...]:
    return (type(p), p.fair_sharing, p.strategies, p.timestamp_buffer, p.within_nominal)


def _same_global(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if a[0] is not b[0] or a[1] != b[1] or a[2] != b[2] or len(a[3]) != len(b[3]):
        return False
    return all(na == nb and (fa is fb or fa == fb) for (na, fa), (nb, fb) in zip(a[3], b[3], strict=True))


class CycleMemo:
    """One cycle's view: the tree keys are computed once per cohort tree per cycle (nomination does
    not change the snapshot), on first use."""

    __slots__ = ("cycle_no", "memo", "now", "snapshot", "trees")

    def __init__(self, memo: NominationMemo, snapshot: Any, now: datetime, cycle_no: int) -> None:
        self.memo, self.snapshot, self.now, self.cycle_no = memo, snapshot, now, cycle_no
        self.trees: dict[int, tuple[Node, tuple[Any, ...]]] = {}

    def _tree_key(self, cq: ClusterQueueNode) -> tuple[Any, ...] | None:
        if self.snapshot.mark() != 0 or has_cycle(cq):
            return None  # what-if changes pending, or a tree nobody schedules: no reuse
        root = root_of(cq)
        got = self.trees.get(id(root))
        if got is None or got[0] is not root:
            key = self._walk(root)
            last = self.memo._trees.get(root.name)
            if last is not None and last == key:
                key = last  # the same object as the entries made under it: compared by identity
            else:
                self.memo._trees[root.name] = key
            got = self.trees[id(root)] = (root, key)
        return got[1]

    def _walk(self, root: Node) -> tuple[Any, ...]:
        out: list[Any] = []
        reserved = True
        inactive = self.snapshot.inactive
        stack: list[tuple[int, Node]] = [(0, root)]
        while stack:
            depth, node = stack.pop()
            common = (depth, node.name, _items(node.quotas), _items(node.subtree_quota), _items(node.usage),
                      node.fair_weight)
            if isinstance(node, Cohort):
                out.append(("cohort", *common))
                children = [*node.children()]
                stack.extend((depth + 1, c) for c in reversed(children))
            else:
                assert isinstance(node, ClusterQueueNode)
                out.append(("cq", *common, node.settings, node.generation, node.workloads_revision,
                            node.name in inactive))
                reserved = reserved and self.memo.all_reserved(node)
        out.append(None if reserved else self.now)
        return tuple(out)

    def lookup(self, info: WorkloadInfo, cq: ClusterQueueNode, last: LastState | None) -> Nomination | None:
        memo = self.memo
        entry = memo._entries.get(info.key)
        tree = self._tree_key(cq) if entry is not None else None
        if (
            entry is None
            or tree is None
            or entry.last != _last_key(last)
            or not _same_info(entry.info, info)
            or (entry.tree is not tree and entry.tree != tree)
        ):
            memo.misses += 1
            return None
        memo.hits += 1
        entry.used = self.cycle_no
        assignment, targets = copy_assignment(entry.nomination[0]), list(entry.nomination[1])
        assignment.last_state.cycle = self.cycle_no
        return assignment, targets

    def store(
        self, info: WorkloadInfo, cq: ClusterQueueNode, last: LastState | None, got: Nomination
    ) -> None:
        tree = self._tree_key(cq)
        if tree is None:
            self.memo._entries.pop(info.key, None)
            return
        kept = (copy_assignment(got[0]), list(got[1]))
        self.memo._entries[info.key] = _Entry(info, _last_key(last), tree, kept, self.cycle_no)
