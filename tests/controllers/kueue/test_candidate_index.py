"""The preemption candidate index against candidates gathered afresh, through what-if changes.

``scheduling/candidate_index.py`` keeps each ClusterQueue's workloads in candidate order per snapshot,
keyed by the queue's ``workloads_revision``; ``preemption/classical.py`` builds the classical
``candidateIterator`` (upstream ``pkg/scheduler/preemption/classical/candidate_generator.go``) from it.
The reference here gathers the candidates as the preemptor did before the index: every workload of
every queue walked, filtered (``WorkloadUsesResources``, the policies) and sorted by the comparator
``CandidatesOrdering``. Removals and additions through the snapshot, and rollbacks, run between the
iterations: a stale index would show a removed workload, or miss a restored one.
"""

from __future__ import annotations

import itertools
import pickle
from datetime import UTC, datetime, timedelta
from functools import cmp_to_key
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import ClusterQueue, Cohort, ResourceFlavor, Workload
from kbatch.controllers.kueue.cache import KueueCache
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode, CQSettings
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import (
    Journal,
    Tree,
    is_within_nominal,
    path_to_root,
    quantities_fit_in_quota,
)
from kbatch.controllers.kueue.scheduling.candidate_index import CandidateIndex, slots_of
from kbatch.controllers.kueue.scheduling.preemption.classical import CandidateIterator, PreemptionCtx
from kbatch.controllers.kueue.scheduling.preemption.policy import compare_candidates, satisfies_policy
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot

from .helpers import cluster_queue, quota, workload

NOW = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
FR = ("default", "cpu")
OTHER = ("other", "cpu")
# queue -> cohort: cq0, cq1 in the root "co"; cq2, cq3 in "sub", a child of "co"
QUEUES = {"cq0": "co", "cq1": "co", "cq2": "sub", "cq3": "sub"}
POLICY = st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"])


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@st.composite
def _admitted(draw: Any, i: int) -> Workload:
    cq = draw(st.sampled_from(sorted(QUEUES)))
    doc = workload(f"w{i}", "lq", priority=draw(st.sampled_from([None, 1, 5, 9])))
    doc["metadata"]["uid"] = draw(st.sampled_from(["a", "b", f"u{i}"]))
    doc["metadata"]["creationTimestamp"] = _stamp(NOW - timedelta(seconds=draw(st.integers(0, 3))))
    at = NOW - timedelta(seconds=draw(st.sampled_from([1, 2, 30])))
    conditions = [{"type": "QuotaReserved", "status": "True", "reason": "R", "message": "",
                   "lastTransitionTime": _stamp(at)}]
    if draw(st.booleans()):
        conditions.append({"type": "Evicted", "status": "True", "reason": "R", "message": "",
                           "lastTransitionTime": _stamp(NOW)})
    flavor = draw(st.sampled_from(["default", "default", "other"]))
    cpu = draw(st.integers(1, 4))
    doc["status"] = {"conditions": conditions, "admission": {"clusterQueue": cq, "podSetAssignments": [
        {"name": "main", "flavors": {"cpu": flavor}, "resourceUsage": {"cpu": str(cpu)}, "count": 1}]}}
    return Workload.model_validate(doc)


@st.composite
def _world(draw: Any) -> tuple[KueueCache, dict[str, Any]]:
    cache = KueueCache()
    for name in ("default", "other"):
        cache.add_or_update_flavor(ResourceFlavor.model_validate(
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}}))
    cache.add_or_update_cohort(Cohort.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "sub"},
        "spec": {"parentName": "co"}}))
    for name, cohort in QUEUES.items():
        flavors = [(f, [quota("cpu", str(draw(st.integers(0, 4))), "10")]) for f in ("default", "other")]
        preemption = {"withinClusterQueue": draw(POLICY), "reclaimWithinCohort": draw(POLICY),
                      "borrowWithinCohort": {"policy": draw(st.sampled_from(["Never", "LowerPriority"]))}}
        cache.add_or_update_cluster_queue(ClusterQueue.model_validate(
            cluster_queue(name, (["cpu"], flavors), cohort=cohort, preemption=preemption)))
    for i in range(draw(st.integers(0, 14))):
        cache.add_or_update_workload(draw(_admitted(i)))
    return cache, [draw(_request()) for _ in range(draw(st.integers(1, 4)))]


@st.composite
def _request(draw: Any) -> dict[str, Any]:
    """A preemptor: its queue, priority, and what it asks of which flavor resources."""
    doc = workload("p", "lq", priority=draw(st.sampled_from([1, 5, 9])))
    doc["metadata"]["creationTimestamp"] = _stamp(NOW - timedelta(seconds=draw(st.integers(0, 3))))
    frs = draw(st.sampled_from([(FR,), (OTHER,), (FR, OTHER)]))
    info = WorkloadInfo.of(Workload.model_validate(doc))
    return {"cq": draw(st.sampled_from(sorted(QUEUES))), "info": info,
            "usage": {fr: draw(st.integers(1, 6)) for fr in frs}}


def _ctx(request: dict[str, Any], cache: KueueCache, snapshot: Snapshot) -> PreemptionCtx:
    cq = cache.cluster_queues[request["cq"]]
    return PreemptionCtx(request["info"], cq, snapshot, frozenset(request["usage"]), request["usage"], NOW)


def _uses(wl: WorkloadInfo, frs: frozenset[Any]) -> bool:
    return any((ps.flavors.get(r, ""), r) in frs for ps in wl.pod_sets for r in ps.flavors)


def _reference(ctx: PreemptionCtx) -> tuple[Any, ...]:
    """The candidates gathered afresh: (key, variant) in order, the two emptiness flags, and the keys
    valid now, while the preemptor does not borrow and while it does."""
    cq, pre = ctx.cq, ctx.cq.preemption

    def variant(wl: WorkloadInfo, advantage: bool) -> int:
        own = wl.cluster_queue == cq.name
        if not _uses(wl, ctx.frs):
            return 0
        policy = pre.within_cluster_queue if own else pre.reclaim_within_cohort
        if not satisfies_policy(ctx.preemptor, wl, policy):
            return 0
        if own:
            return 1
        if advantage:
            return 2
        if pre.borrow_within_cohort == "Never" or wl.priority >= ctx.preemptor.priority:
            return 3
        threshold = pre.max_priority_threshold
        return 3 if threshold is not None and wl.priority > threshold else 4

    def of(node: Any, advantage: bool, lca: Any) -> list[tuple[WorkloadInfo, int, Any]]:
        found = [(wl, variant(wl, advantage), lca) for _, wl in sorted(node.workloads.items())]
        return [c for c in found if c[1]]

    def subtree(cohort: Any, root: Any, skip: Any, advantage: bool) -> list[tuple[WorkloadInfo, int, Any]]:
        out = []
        for name in sorted(cohort.child_cohorts):
            child = cohort.child_cohorts[name]
            if child is not skip and not is_within_nominal(child, ctx.frs):
                out += subtree(child, root, skip, advantage)
        for name in sorted(cohort.child_cqs):
            child = cohort.child_cqs[name]
            if child is not cq and ctx.snapshot.in_snapshot(child) and not is_within_nominal(child, ctx.frs):
                out += of(child, advantage, root)
        return out

    same = of(cq, False, None) if pre.within_cluster_queue != "Never" else []
    hierarchy: list[tuple[WorkloadInfo, int, Any]] = []
    priority: list[tuple[WorkloadInfo, int, Any]] = []
    if cq.parent is not None and pre.reclaim_within_cohort != "Never":
        advantage, remaining = quantities_fit_in_quota(cq, ctx.usage)
        previous = None
        for root in path_to_root(cq):
            (hierarchy if advantage else priority).extend(subtree(root, root, previous, advantage))
            fits, remaining = quantities_fit_in_quota(root, remaining)
            advantage = advantage or fits
            previous = root

    def ordered(group: list[tuple[WorkloadInfo, int, Any]]) -> list[tuple[WorkloadInfo, int, Any]]:
        return sorted(group, key=cmp_to_key(lambda a, b: compare_candidates(a[0], b[0], cq.name, ctx.now)))

    groups = [ordered(g) for g in (hierarchy, priority, same)]
    evicted = [c for g in groups for c in g if c[0].evicted]
    items = evicted + [c for g in groups for c in g if not c[0].evicted]
    return items, not hierarchy and not priority, not hierarchy


def _valid(ctx: PreemptionCtx, wl: WorkloadInfo, variant: int, lca: Any, borrowing: bool) -> bool:
    """A candidate's validity now: its queue, and each Cohort below the one it was gathered at, still
    above nominal (and, while the preemptor borrows, not one reclaimable only without borrowing)."""
    if wl.cluster_queue == ctx.cq.name:
        return True
    if borrowing and variant == 3:
        return False
    node = ctx.snapshot.cluster_queue(wl.cluster_queue)
    if node is None or is_within_nominal(node, ctx.frs):
        return False
    for ancestor in path_to_root(node):
        if ancestor is lca:
            break
        if is_within_nominal(ancestor, ctx.frs):
            return False
    return True


def _check(ctx: PreemptionCtx, probe: list[WorkloadInfo]) -> None:
    """The iterator against the reference; then, as the search goes on (``probe``'s usage removed
    one by one), the candidates still valid."""
    it = CandidateIterator(ctx)
    items, no_other, no_hierarchy = _reference(ctx)
    assert [(c.wl.key, c.variant) for c in it.items] == [(wl.key, v) for wl, v, _ in items]
    flags = (it.no_candidate_from_other_queues, it.no_candidate_for_hierarchical_reclaim)
    assert flags == (no_other, no_hierarchy)
    mark = ctx.snapshot.mark()
    for wl in [None, *probe]:
        if wl is not None:
            ctx.snapshot.remove_usage(ctx.snapshot.cluster_queue(wl.cluster_queue), wl.usage())
        for borrowing in (False, True):
            expected = [c[0].key for c in items if _valid(ctx, *c, borrowing)]
            assert [c.wl.key for c in it.candidates(borrowing)] == expected
    ctx.snapshot.rollback(mark)


def present_now(cache: KueueCache, infos: list[WorkloadInfo]) -> list[WorkloadInfo]:
    return [wl for wl in infos if wl.key in cache.cluster_queues[wl.cluster_queue].workloads]


STEP = st.tuples(st.sampled_from(["check", "remove", "add", "rollback"]), st.integers(0, 40))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=_world(), steps=st.lists(STEP, max_size=12))
def test_the_indexed_candidates_are_those_gathered_afresh(world: Any, steps: list[tuple[str, int]]) -> None:
    cache, requests = world
    snapshot = Snapshot(cache)
    try:
        contexts = [_ctx(r, cache, snapshot) for r in requests]
        infos = sorted((wl for node in cache.cluster_queues.values() for wl in node.workloads.values()),
                       key=lambda wl: wl.key)
        removed: list[WorkloadInfo] = []
        marks: list[int] = []
        for ctx in contexts:
            _check(ctx, [])
        for action, n in steps:
            present = present_now(cache, infos)
            if action == "remove" and present:
                marks.append(snapshot.mark())
                wl = present[n % len(present)]
                snapshot.remove_workload(wl)
                removed.append(wl)
            elif action == "add" and removed:
                snapshot.add_workload(removed.pop(n % len(removed)))  # a fill-back
            elif action == "rollback" and marks:
                mark = marks[n % len(marks)]
                del marks[n % len(marks):]
                snapshot.rollback(mark)
                removed = [wl for wl in infos if wl not in present_now(cache, infos)]
            present = present_now(cache, infos)
            for ctx in contexts:
                _check(ctx, present[n % 3::3])
    finally:
        snapshot.close()


def _placed(name: str, cq: str, cpu: int) -> Workload:
    doc = workload(name, "lq", priority=1)
    doc["metadata"]["uid"] = name
    doc["status"] = {
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "R", "message": "",
                        "lastTransitionTime": _stamp(NOW)}],
        "admission": {"clusterQueue": cq, "podSetAssignments": [
            {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(cpu)}, "count": 1}]}}
    return Workload.model_validate(doc)


def test_one_queue_gathered_from_different_places_in_the_tree() -> None:
    """cq2 (nominal 0, in "sub" with cq3 of nominal 4; "sub" under "co" with cq0 of nominal 2) holds
    5 cpu: gathered by cq0 through "sub" (hierarchical reclaim for 1 cpu, reclamation without
    borrowing for 10), by cq3 within "sub", and by cq2 itself. Once one of its workloads is gone,
    "sub" is within nominal: cq0 may no longer take cq2's, cq3 still may. The index keeps each
    queue's candidates once per content for every place and variant; every order of the
    preemptors fills it differently."""
    cache = KueueCache()
    cache.add_or_update_flavor(ResourceFlavor.model_validate(
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}))
    cache.add_or_update_cohort(Cohort.model_validate({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "sub"},
        "spec": {"parentName": "co"}}))
    preemption = {"withinClusterQueue": "Any", "reclaimWithinCohort": "Any"}
    for name, cohort, nominal in (("cq0", "co", 2), ("cq2", "sub", 0), ("cq3", "sub", 4)):
        quotas = (["cpu"], [("default", [quota("cpu", str(nominal))])])
        cache.add_or_update_cluster_queue(ClusterQueue.model_validate(
            cluster_queue(name, quotas, cohort=cohort, preemption=preemption)))
    for i, cpu in enumerate((1, 1, 1, 2)):
        cache.add_or_update_workload(_placed(f"w{i}", "cq2", cpu))
    doc = workload("p", "lq", priority=9)
    doc["metadata"]["creationTimestamp"] = _stamp(NOW)
    info = WorkloadInfo.of(Workload.model_validate(doc))
    requests = [{"cq": cq, "info": info, "usage": {FR: cpu}} for cq, cpu in
                (("cq0", 1), ("cq0", 10), ("cq3", 1), ("cq2", 1))]
    probe = [cache.cluster_queues["cq2"].workloads["default/w0"]]
    for order in itertools.permutations(requests):
        snapshot = Snapshot(cache)
        try:
            for request in order:
                _check(_ctx(request, cache, snapshot), probe)
        finally:
            snapshot.close()


def _node(name: str, tree: Tree) -> ClusterQueueNode:
    return ClusterQueueNode(CQSettings(name), tree)


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["put", "drop", "mark", "rollback", "slots", "save"]),
                                st.integers(0, 5), st.integers(0, 3)), max_size=30))
def test_a_revision_names_one_content_and_the_index_follows_it(steps: list[tuple[str, int, int]]) -> None:
    """Also across a save and load (``save``: the CLI pickles the control plane between commands):
    the tree's counter goes on from where it was, so a number is never handed out twice."""
    tree = Tree(journal=Journal())
    node = _node("cq", tree)
    index = CandidateIndex()
    contents: dict[int, dict[str, Any]] = {}
    marks: list[int] = []
    for action, i, priority in steps:
        if action == "save":
            tree, node, index = pickle.loads(pickle.dumps((tree, node, index)))  # the journal too
        elif action == "put":
            doc = workload(f"w{i}", "lq", priority=priority)
            doc["status"] = {"admission": {"clusterQueue": "cq", "podSetAssignments": [
                {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}, "count": 1}]}}
            node.put_workload(WorkloadInfo.of(Workload.model_validate(doc)))
        elif action == "drop":
            node.drop_workload(f"default/w{i}")
        elif action == "mark":
            marks.append(tree.journal.mark())  # type: ignore[union-attr]
        elif action == "rollback" and marks:
            tree.journal.rollback(marks.pop())  # type: ignore[union-attr]
        else:
            assert index.slots(node, NOW) == slots_of(node, NOW)
        content = {key: info.priority for key, info in node.workloads.items()}
        assert contents.setdefault(node.workloads_revision, content) == content


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=_world(), data=st.data(), rounds=st.integers(1, 4))
def test_one_index_serves_every_cycle_as_the_cache_changes(
    world: Any, data: st.DataObject, rounds: int
) -> None:
    """The scheduler keeps one index for all its cycles: between two, workloads leave the cache,
    arrive, or come back changed (evicted, another priority) under the same key."""
    cache, requests = world
    index = CandidateIndex()
    for r in range(rounds):
        snapshot = Snapshot(cache, index)
        try:
            for request in requests:
                _check(_ctx(request, cache, snapshot), [])
        finally:
            snapshot.close()
        keys = sorted(cache.assigned)
        if keys and data.draw(st.booleans()):
            cache.delete_workload(data.draw(st.sampled_from(keys)))
        for i in range(data.draw(st.integers(0, 3))):
            name = data.draw(st.sampled_from([i, 100 + r * 10 + i]))  # an update, or a new workload
            cache.add_or_update_workload(data.draw(_admitted(name)))
