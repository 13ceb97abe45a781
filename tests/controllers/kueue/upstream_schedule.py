"""One scheduling cycle over the fixtures of upstream's ``TestSchedule``.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/scheduler_test.go``: its resource flavors,
ClusterQueues (``sales``, ``eng-alpha``, ``eng-beta``, ``flavor-nonexistent-cq``, ``lend-a``,
``lend-b``), LocalQueues and labelled namespaces; workloads created pending or already holding quota;
then exactly one ``schedule`` call. Here the scheduler's reconciler (one call is one cycle) is held
while everything is created and loaded, then allowed one call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch.api.kueue_v1beta2 import Workload

from .helpers import KUEUE, World, local_queue
from .upstream_tables import cq, r

CPU, GPU = "cpu", "example.com/gpu"


def _ns_selector(dep: str) -> dict[str, Any]:
    return {"matchExpressions": [{"key": "dep", "operator": "In", "values": [dep]}]}


def base_cluster_queues() -> list[dict[str, Any]]:
    # upstream gives sales borrowingLimit 0 without a cohort, which the CRD's rule refuses through an
    # API server ("borrowingLimit must be nil when cohort is empty"); without a cohort it changes nothing
    sales = cq("sales", [("default", [r(CPU, "50")])])
    alpha = cq(
        "eng-alpha", [("on-demand", [r(CPU, "50", "50")]), ("spot", [r(CPU, "100", "0")])], cohort="eng"
    )
    beta = cq(
        "eng-beta",
        [("on-demand", [r(CPU, "50", "10")]), ("spot", [r(CPU, "0", "100")])],
        [("model-a", [r(GPU, "20", "0")])],
        cohort="eng",
        preemption={"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
    )
    nonexistent = cq("flavor-nonexistent-cq", [("nonexistent-flavor", [r(CPU, "50")])])
    lend_a = cq("lend-a", [("default", [r(CPU, "3", None, "2")])], cohort="lend")
    lend_b = cq("lend-b", [("default", [r(CPU, "2", None, "2")])], cohort="lend")
    for doc, dep in ((sales, "sales"), (alpha, "eng"), (beta, "eng"), (lend_a, "lend"), (lend_b, "lend")):
        doc["spec"]["namespaceSelector"] = _ns_selector(dep)
    for doc in (sales, alpha, beta, nonexistent):
        doc["spec"]["queueingStrategy"] = "StrictFIFO"
    return [sales, alpha, beta, nonexistent, lend_a, lend_b]


BASE_LOCAL_QUEUES = [
    ("main", "sales", "sales"),
    ("blocked", "sales", "eng-alpha"),
    ("main", "eng-alpha", "eng-alpha"),
    ("main", "eng-beta", "eng-beta"),
    ("flavor-nonexistent-queue", "sales", "flavor-nonexistent-cq"),
    ("cq-nonexistent-queue", "sales", "nonexistent-cq"),
    ("lend-a-queue", "lend", "lend-a"),
    ("lend-b-queue", "lend", "lend-b"),
]
NAMESPACES = {
    "default": {},
    "eng-alpha": {"dep": "eng"},
    "eng-beta": {"dep": "eng"},
    "eng-gamma": {"dep": "eng"},
    "sales": {"dep": "sales"},
    "lend": {"dep": "lend"},
}
FLAVORS: dict[str, dict[str, Any]] = {
    "default": {},
    "on-demand": {},
    "spot": {},
    "model-a": {},
    "spot-tainted": {"nodeTaints": [{"key": "key", "value": "val", "effect": "NoSchedule"}]},
    "spot-tainted-2": {"nodeTaints": [{"key": "key", "value": "val2", "effect": "NoSchedule"}]},
}


@dataclass
class W:
    """A workload: pod sets (name, count, requests), and, when it holds quota, its ClusterQueue and
    per pod set {resource: (flavor, total)}."""

    name: str
    namespace: str
    queue: str = ""
    requests: dict[str, str] = field(default_factory=dict)
    pod_sets: list[tuple[str, int, dict[str, str]]] | None = None
    priority: int | None = None
    admitted_to: str | None = None
    assignment: list[dict[str, tuple[str, str]]] | None = None
    later: float = 0  # seconds the clock advances before a pending workload is created (Creation)
    limits: dict[str, str] | None = None  # every container's limits
    preemption_gates: list[str] | None = None  # spec.preemptionGates (``PreemptionGates``)

    def doc(self) -> dict[str, Any]:
        pod_sets = self.pod_sets or [("main", 1, self.requests)]
        spec: dict[str, Any] = {
            "podSets": [
                {
                    "name": n,
                    "count": c,
                    "template": {
                        "spec": {
                            "restartPolicy": "Never",
                            "containers": [{"name": "c", "image": "x", "resources": {"requests": dict(req)}}],
                        }
                    },
                }
                for n, c, req in pod_sets
            ]
        }
        if self.limits:
            for ps in spec["podSets"]:
                ps["template"]["spec"]["containers"][0]["resources"]["limits"] = dict(self.limits)
        if self.queue:
            spec["queueName"] = self.queue
        if self.priority is not None:
            spec["priority"] = self.priority
        if self.preemption_gates:
            spec["preemptionGates"] = [{"name": g} for g in self.preemption_gates]
        return {
            "apiVersion": KUEUE,
            "kind": "Workload",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": spec,
        }

    def status(self, now: str) -> dict[str, Any]:
        pod_sets = self.pod_sets or [("main", 1, self.requests)]
        assert self.assignment is not None
        cond = [
            {"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": now}
            for t in ("QuotaReserved", "Admitted")
        ]
        return {
            "conditions": cond,
            "admission": {
                "clusterQueue": self.admitted_to,
                "podSetAssignments": [
                    {
                        "name": n,
                        "count": c,
                        "flavors": {res: f for res, (f, _) in a.items()},
                        "resourceUsage": {res: q for res, (_, q) in a.items()},
                    }
                    for (n, c, _), a in zip(pod_sets, self.assignment, strict=True)
                ],
            },
        }


@dataclass
class CycleOutcome:
    reserved: dict[str, tuple[str, dict[str, dict[str, str]]]]  # key -> (cq, {pod set: {res: flavor}})
    pending: dict[str, tuple[str, str]]  # key -> QuotaReserved (reason, message) of the not reserved
    preempted: dict[str, str]  # key -> Preempted reason
    left: dict[str, list[str]]
    inadmissible: dict[str, list[str]]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # key -> {pod set: admitted count}
    events: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # key -> [(type, reason)]
    # key -> BlockedOnPreemptionGates (status, reason, message), where the workload has it
    blocked: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    world: Any = None  # the World the cycle ran in, for rows that read more


def one_cycle(
    workloads: list[W],
    cluster_queues: list[dict[str, Any]] | None = None,
    local_queues: list[tuple[str, str, str]] | None = None,
    cohorts: list[dict[str, Any]] | None = None,
    **world: Any,
) -> CycleOutcome:
    objects: list[Any] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n, "labels": lbl}}
        for n, lbl in NAMESPACES.items()
    ]
    objects += [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": n}, "spec": s}
        for n, s in FLAVORS.items()
    ]
    objects += cohorts or []
    objects += base_cluster_queues() + (cluster_queues or [])
    objects += [local_queue(n, c, ns) for n, ns, c in BASE_LOCAL_QUEUES + (local_queues or [])]
    w = World(**world)
    (ctl,) = [c for c in w.cp.manager.controllers if c.name == "kueue-scheduler"]
    rec = ctl.reconciler
    allowed = [0]
    original = rec.reconcile

    def gated(request: Any) -> Any:
        if allowed[0] <= 0:
            return None
        allowed[0] -= 1
        return original(request)

    rec.reconcile = gated
    w.apply(*objects)
    w.cp.run_until_idle()
    holders = [x for x in workloads if x.admitted_to is not None]
    now = w.cp.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    for x in holders:  # quota holders first, as upstream's cache has them before the cycle
        w.apply(x.doc())
        w.cp.client.patch_status(Workload, x.name, {"status": x.status(now)}, x.namespace)
    w.cp.run_until_idle()
    for x in workloads:
        if x.admitted_to is None:
            if x.later:
                w.cp.advance(x.later)
            w.apply(x.doc())
    w.cp.run_until_idle()
    mgr = rec.mgr
    allowed[0] = 1
    mgr.kick()
    w.cp.run_until_idle()
    assert allowed[0] == 0, "the cycle did not run"
    return _outcome(w, mgr)


def _outcome(w: World, mgr: Any) -> CycleOutcome:
    reserved: dict[str, Any] = {}
    pending: dict[str, tuple[str, str]] = {}
    preempted: dict[str, str] = {}
    counts: dict[str, dict[str, int]] = {}
    blocked: dict[str, tuple[str, str, str]] = {}
    for wl in w.cp.client.list(Workload).items:
        key = f"{wl.metadata.namespace}/{wl.metadata.name}"
        conds = {c.type: c for c in (wl.status.conditions if wl.status else None) or ()}
        qr = conds.get("QuotaReserved")
        if qr is not None and qr.status == "True" and wl.status.admission is not None:
            adm = wl.status.admission
            counts[key] = {ps.name: ps.count for ps in adm.pod_set_assignments or ()}
            reserved[key] = (
                adm.cluster_queue,
                {ps.name: dict(ps.flavors or {}) for ps in adm.pod_set_assignments or ()},
            )
        elif qr is not None:
            pending[key] = (qr.reason, qr.message)
        if (b := conds.get("BlockedOnPreemptionGates")) is not None:
            blocked[key] = (b.status, b.reason, b.message)
        pre = conds.get("Preempted")
        if pre is not None and pre.status == "True":
            preempted[key] = pre.reason
    left = {n: sorted(q.infos) for n, q in mgr.queues.cluster_queues.items() if q.infos}
    inadmissible = {n: sorted(q.inadmissible) for n, q in mgr.queues.cluster_queues.items() if q.inadmissible}
    from kbatch.api.core_v1 import Event

    events: dict[str, list[tuple[str, str]]] = {}
    for e in w.cp.client.list(Event).items:
        ref = e.involved_object
        events.setdefault(f"{ref.namespace}/{ref.name}", []).append((e.type or "", e.reason or ""))
    return CycleOutcome(reserved, pending, preempted, left, inadmissible, counts, events, blocked, w)
