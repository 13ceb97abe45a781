"""Build the fixtures of upstream's table-driven unit tests (kubernetes-sigs/kueue v0.19.2,
``pkg/scheduler/preemption/preemption_test.go`` and friends) as kbatch objects.

Upstream's tests put ClusterQueues, Cohorts and admitted Workloads straight into a cache, take a
snapshot and ask the preemptor for targets given an incoming workload and a flavor assignment (each
resource's flavor and whether it fits or needs preemption). These helpers do the same with kbatch's
:class:`KueueCache`, :class:`Snapshot` and :class:`Preemptor`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue, Cohort, ResourceFlavor, Workload
from kbatch.controllers.kueue.cache import KueueCache
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.scheduling.preemption.preemptor import Preemptor
from kbatch.controllers.kueue.scheduling.snapshot import Snapshot

KUEUE = "kueue.x-k8s.io/v1beta2"
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
Res = tuple[str, str, str | None, str | None]  # (resource, nominal, borrowingLimit, lendingLimit)


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def cq(
    name: str,
    *groups: list[tuple[str, list[Res]]],
    cohort: str | None = None,
    preemption: dict[str, Any] | None = None,
    fair_weight: str | None = None,
) -> dict[str, Any]:
    """``MakeClusterQueue``: each group is [(flavor, [(resource, nominal, borrowing, lending)])]."""
    rgs = []
    for flavors in groups:
        covered: list[str] = []
        fqs = []
        for fname, resources in flavors:
            rs = []
            for r, nominal, borrowing, lending in resources:
                q: dict[str, Any] = {"name": r, "nominalQuota": nominal}
                if borrowing:
                    q["borrowingLimit"] = borrowing
                if lending:
                    q["lendingLimit"] = lending
                rs.append(q)
                if r not in covered:
                    covered.append(r)
            fqs.append({"name": fname, "resources": rs})
        rgs.append({"coveredResources": covered, "flavors": fqs})
    spec: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": rgs}
    if cohort:
        spec["cohortName"] = cohort
    if preemption:
        spec["preemption"] = preemption
    if fair_weight is not None:
        spec["fairSharing"] = {"weight": fair_weight}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def cohort(
    name: str,
    parent: str | None = None,
    *groups: list[tuple[str, list[Res]]],
    fair_weight: str | None = None,
) -> dict[str, Any]:
    """``MakeCohort``: a parent, quota groups as :func:`cq`'s, a fair-sharing weight."""
    spec = dict(cq(name, *groups)["spec"])
    del spec["namespaceSelector"]
    if not spec["resourceGroups"]:
        del spec["resourceGroups"]
    if parent:
        spec["parentName"] = parent
    if fair_weight is not None:
        spec["fairSharing"] = {"weight": fair_weight}
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def r(resource: str, nominal: str, borrowing: str | None = None, lending: str | None = None) -> Res:
    return (resource, nominal, borrowing, lending)


@dataclass
class Wl:
    """``MakeWorkload``: pod sets are (name, count, {resource: per-pod quantity})."""

    name: str
    requests: dict[str, str] = field(default_factory=dict)
    priority: int | None = None
    pod_sets: list[tuple[str, int, dict[str, str]]] | None = None
    created: datetime | None = None
    uid: str | None = None
    # admitted: ClusterQueue and, per pod set, {resource: (flavor, total quantity)}
    admitted_to: str | None = None
    assignment: list[dict[str, tuple[str, str]]] | None = None
    reserved_at: datetime = NOW
    evicted: bool = False

    def doc(self) -> dict[str, Any]:
        pod_sets = self.pod_sets or [("main", 1, self.requests)]
        meta: dict[str, Any] = {"name": self.name, "namespace": "default", "uid": self.uid or self.name}
        if self.created is not None:
            meta["creationTimestamp"] = stamp(self.created)
        spec: dict[str, Any] = {"queueName": "lq", "podSets": [
            {"name": n, "count": c, "template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "c", "image": "x", "resources": {"requests": dict(req)}}]}}}
            for n, c, req in pod_sets]}
        if self.priority is not None:
            spec["priority"] = self.priority
        body: dict[str, Any] = {"apiVersion": KUEUE, "kind": "Workload", "metadata": meta, "spec": spec}
        if self.admitted_to is not None:
            assignment = self.assignment or [
                {res: ("default", q) for res, q in self.requests.items()}]  # SimpleReserveQuota
            conds = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                      "message": "", "lastTransitionTime": stamp(self.reserved_at)}]
            if self.evicted:
                conds.append({"type": "Evicted", "status": "True", "reason": "Preempted",
                              "message": "", "lastTransitionTime": stamp(self.reserved_at)})
            body["status"] = {"conditions": conds, "admission": {
                "clusterQueue": self.admitted_to,
                "podSetAssignments": [
                    {"name": n, "count": c,
                     "flavors": {res: f for res, (f, _) in a.items()},
                     "resourceUsage": {res: q for res, (_, q) in a.items()}}
                    for (n, c, _), a in zip(pod_sets, assignment, strict=True)]}}
        return body

    def info(self) -> WorkloadInfo:
        return WorkloadInfo.of(Workload.model_validate(self.doc()))


def build_cache(
    cluster_queues: list[dict[str, Any]],
    admitted: list[Wl],
    cohorts: list[dict[str, Any]] | None = None,
    flavors: tuple[str, ...] = ("default", "alpha", "beta"),
) -> KueueCache:
    cache = KueueCache()
    for f in flavors:
        cache.add_or_update_flavor(ResourceFlavor.model_validate(
            {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": f}}))
    for doc in cohorts or ():
        cache.add_or_update_cohort(Cohort.model_validate(doc))
    for doc in cluster_queues:
        cache.add_or_update_cluster_queue(ClusterQueue.model_validate(doc))
    for w in admitted:
        cache.add_or_update_workload(Workload.model_validate(w.doc()))
    return cache


def get_targets(
    cache: KueueCache,
    incoming: Wl,
    target_cq: str,
    assignment: list[dict[str, tuple[str, str]]],
    preemptor: Preemptor | None = None,
    now: datetime = NOW,
) -> set[tuple[str, str]]:
    """``GetTargets`` for ``incoming`` with ``assignment``: per pod set, {resource: (flavor, mode)}
    with mode ``Fit`` or ``Preempt``. Returns {(name, reason)}."""
    info = incoming.info()
    usage: dict[FlavorResource, int] = {}
    frs: set[FlavorResource] = set()
    for ps, a in zip(info.pod_sets, assignment, strict=True):
        for res, (flavor, mode) in a.items():  # TotalRequestsFor
            usage[(flavor, res)] = usage.get((flavor, res), 0) + ps.requests.get(res, 0)
            if mode == "Preempt":
                frs.add((flavor, res))
    snapshot = Snapshot(cache)
    targets = (preemptor or Preemptor()).get_targets(
        info, cache.cluster_queues[target_cq], frozenset(frs), usage, snapshot, now)
    snapshot.close()
    return {(t.info.name, t.reason) for t in targets}


# --- the flavor assigner (pkg/scheduler/flavorassigner/flavorassigner_test.go) ----------------------

RESOURCE_FLAVORS: dict[str, dict[str, Any]] = {  # TestAssignFlavors' resourceFlavors
    "default": {},
    "one": {"nodeLabels": {"type": "one"}},
    "two": {"nodeLabels": {"type": "two"}},
    "b_one": {"nodeLabels": {"b_type": "one"}},
    "b_two": {"nodeLabels": {"b_type": "two"}},
    "tainted": {"nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}]},
    "taint_and_toleration": {
        "nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}],
        "tolerations": [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]},
    "label-x-a": {"nodeLabels": {"x": "a"}},
    "label-xy-b": {"nodeLabels": {"x": "b", "y": "k"}},
}


def pod_set(name: str, count: int, requests: dict[str, str], **spec: Any) -> dict[str, Any]:
    """``MakePodSet(name, count).Request(...)``; ``spec`` adds pod spec fields (nodeSelector,
    tolerations, affinity)."""
    return {"name": name, "count": count, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "x", "resources": {"requests": dict(requests)}}], **spec}}}


def required_affinity(*terms: list[tuple[str, str, list[str]]]) -> dict[str, Any]:
    """``RequiredDuringSchedulingIgnoredDuringExecution``: terms of (key, operator, values)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": k, "operator": op, "values": vs} for k, op, vs in term]}
        for term in terms]}}}


@dataclass
class Assigned:
    """What a test reads of an assignment: the representative mode, per pod set its flavors
    {resource: (flavor, mode, triedFlavorIdx)} and its status message, and the whole message."""

    mode: str
    pod_sets: list[tuple[str, dict[str, tuple[str, str, int]], str]]
    message: str
    borrowing: int
    usage: dict[tuple[str, str], int] = field(default_factory=dict)


def assign_flavors(
    pod_sets: list[dict[str, Any]],
    queue: dict[str, Any],
    usage: dict[tuple[str, str], str] | None = None,
    secondary: dict[str, Any] | None = None,
    secondary_usage: dict[tuple[str, str], str] | None = None,
    simulation: dict[tuple[str, str], tuple[str, int]] | None = None,
    fair_sharing: bool = False,
    reclaimable: list[dict[str, Any]] | None = None,
    gates: dict[str, bool] | None = None,
    flavors: dict[str, dict[str, Any]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    replace: WorkloadInfo | None = None,
) -> Assigned:
    """``TestAssignFlavors``' body: the ClusterQueue (and a second one in its cohort) in a cache,
    usage added to their snapshots, a test oracle answering ``simulation[(flavor, resource)]`` =
    (NoCandidates | Preempt | Reclaim, borrowing after), by default (Preempt, 0). ``flavors``
    replaces the ResourceFlavors (name -> spec); a queue's flavor left out of them is a deleted one."""
    from kbatch.api.quantity import Quantity
    from kbatch.controllers.kueue.model.requests import amount
    from kbatch.controllers.kueue.scheduling.assignment import FIT, NO_FIT, PREEMPT
    from kbatch.controllers.kueue.scheduling.flavorassigner import AssignerOptions, FlavorAssigner

    gates = gates or {}
    cache = KueueCache()
    for name, spec in (RESOURCE_FLAVORS if flavors is None else flavors).items():
        cache.add_or_update_flavor(ResourceFlavor.model_validate(
            {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}))
    for doc in cohorts or ():
        cache.add_or_update_cohort(Cohort.model_validate(doc))
    for doc in (queue, secondary):
        if doc is not None:
            cache.add_or_update_cluster_queue(ClusterQueue.model_validate(doc))
    snapshot = Snapshot(cache)
    for doc, use in ((queue, usage), (secondary, secondary_usage)):
        if doc is not None and use:
            snapshot.add_usage(cache.cluster_queues[doc["metadata"]["name"]],
                               {fr: amount(fr[1], Quantity.parse(q)) for fr, q in use.items()})
    wl_doc: dict[str, Any] = {"apiVersion": KUEUE, "kind": "Workload",
                              "metadata": {"name": "wl", "namespace": "default"},
                              "spec": {"podSets": pod_sets}}
    if reclaimable:
        wl_doc["status"] = {"reclaimablePods": reclaimable}
    from kbatch.controllers.kueue.model.info import InfoOptions
    info = WorkloadInfo.of(Workload.model_validate(wl_doc),
                           InfoOptions(reclaimable_pods=gates.get("ReclaimablePods", True)))
    possibility = {"NoCandidates": 0, "Preempt": 1, "Reclaim": 2}
    sim = simulation or {}

    def oracle(fr: FlavorResource, quantity: int) -> tuple[int, int]:
        p, borrow = sim.get(fr, ("Preempt", 0))
        return possibility[p], borrow

    cq_node = cache.cluster_queues[queue["metadata"]["name"]]
    options = AssignerOptions(fungibility=gates.get("FlavorFungibility", True), fair_sharing=fair_sharing)
    a = FlavorAssigner(info, cq_node, cache.flavors, oracle, options, replace=replace).assign()
    snapshot.close()
    names = {FIT: "Fit", PREEMPT: "Preempt", NO_FIT: "NoFit"}
    return Assigned(
        names[a.representative_mode()],
        [(ps.name, {r: (fa.name, names[fa.mode], fa.tried_flavor_idx) for r, fa in ps.flavors.items()},
          ps.status.message()) for ps in a.pod_sets],
        a.message(),
        a.borrowing,
        dict(a.usage),
    )
