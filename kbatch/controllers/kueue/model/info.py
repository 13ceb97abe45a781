"""What the queues and the scheduler know of a Workload: a value derived once per observed version.

Upstream: kubernetes-sigs/kueue ``pkg/workload/workload.go`` (``Info``, ``PodSetResources``,
``totalRequestsFromPodSets``, ``totalRequestsFromAdmission``, ``Ordering.GetQueueOrderTimestamp``)
and ``pkg/util/priority`` (effective priority: ``spec.priority`` plus the ``kueue.x-k8s.io/priority-
boost`` annotation when the ``PriorityBoost`` gate is on). A pending workload's requests come from its
pod sets' templates (minus reclaimable pods); a workload holding quota counts what its admission
recorded (``podSetAssignments[].resourceUsage`` with their flavors).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.api.core_v1 import PodSpec
from kbatch.api.go_int import parse_int
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue.concurrent_admission.variants import ALLOWED_FLAVORS_ANNOTATION
from kbatch.controllers.kueue.model.requests import (
    FlavorResource,
    Usage,
    add_requests,
    amount,
    pod_spec_requests,
    transform_requests,
)

__all__ = [
    "InfoOptions",
    "PodSetResources",
    "WorkloadInfo",
    "condition",
    "is_true",
    "parse_priority_boost",
    "workload_key",
]

PRIORITY_BOOST = "kueue.x-k8s.io/priority-boost"


def workload_key(namespace: str | None, name: str | None) -> str:
    return f"{namespace or ''}/{name or ''}"


def condition(wl: Workload, kind: str) -> Any:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == kind:
            return c
    return None


def is_true(wl: Workload, kind: str) -> bool:
    c = condition(wl, kind)
    return c is not None and c.status == "True"


@dataclass(frozen=True, slots=True)
class InfoOptions:
    """The configuration that shapes requests (config ``resources``) and ordering."""

    exclude_prefixes: tuple[str, ...] = ()
    transformations: tuple[Any, ...] = ()
    requeuing_timestamp: str = "Eviction"  # waitForPodsReady.requeuingStrategy.timestamp
    priority_boost: bool = False
    priority_sorting_within_cohort: bool = True
    reclaimable_pods: bool = True
    equivalence_hashing: bool = True  # SchedulingEquivalenceHashing
    concurrent_admission: bool = False  # ConcurrentAdmission: the allowed flavors enter the hash


@dataclass(frozen=True, slots=True)
class PodSetResources:
    """One pod set: ``requests`` are the totals for ``count`` pods; ``flavors`` once admitted."""

    name: str
    count: int
    requests: Mapping[str, int]
    min_count: int | None = None
    flavors: Mapping[str, str] = field(default_factory=dict)
    per_pod: Mapping[str, int] = field(default_factory=dict)

    def scaled_to(self, new_count: int) -> PodSetResources:
        if self.count == 0 or self.count == new_count:
            return self
        return PodSetResources(
            self.name,
            new_count,
            {k: v // self.count * new_count for k, v in self.requests.items()},
            self.min_count,
            self.flavors,
            self.per_pod,
        )


def _reclaimable(wl: Workload) -> dict[str, int]:
    return {r.name or "": r.count or 0 for r in (wl.status.reclaimable_pods if wl.status else None) or ()}


def parse_priority_boost(text: str | None) -> int | None:
    """The boost annotation's value as upstream's ``PriorityBoost`` reads it
    (``pkg/util/priority/priority.go``: ``strconv.ParseInt(value, 10, 32)``): an optional sign and
    ASCII decimal digits within int32, else ``None`` (Python's ``int`` would also take blanks,
    underscores, other scripts' digits and any size). Empty or missing is 0."""
    if not text:
        return 0
    return parse_int(text, 32)


def _effective_priority(wl: Workload, boost: bool) -> int:
    """``EffectivePriority``: a boost ``ParseInt`` refuses counts as none (the webhook refuses it)."""
    base = wl.spec.priority if wl.spec is not None and wl.spec.priority is not None else 0
    if boost:
        return base + (parse_priority_boost((wl.metadata.annotations or {}).get(PRIORITY_BOOST)) or 0)
    return base


def _from_pod_sets(
    wl: Workload,
    opts: InfoOptions,
    dra: Mapping[str, Mapping[str, int]] | None = None,
    replaced: Mapping[str, frozenset[str]] | None = None,
) -> tuple[PodSetResources, ...]:
    reclaim = _reclaimable(wl) if opts.reclaimable_pods else {}
    out = []
    for ps in (wl.spec.pod_sets if wl.spec else None) or ():
        name = ps.name or "main"
        count = ps.count if ps.count is not None else 1
        count -= min(reclaim.get(name, 0), count)
        per_pod = transform_requests(
            pod_spec_requests(ps.template.spec) if ps.template else {},
            opts.exclude_prefixes,
            opts.transformations,
        )
        if replaced and name in replaced:  # extended resources DRA-backed: counted as their key
            per_pod = {k: v for k, v in per_pod.items() if k not in replaced[name]}
        if dra and name in dra:  # WithPreprocessedDRAResources: added after the transformations
            per_pod = add_requests(per_pod, dra[name])
        per_pod = {k: max(0, v) for k, v in per_pod.items()}
        out.append(
            PodSetResources(
                name, count, {k: v * count for k, v in per_pod.items()}, ps.min_count, per_pod=per_pod
            )
        )
    return tuple(out)


def _from_admission(wl: Workload, opts: InfoOptions) -> tuple[PodSetResources, ...]:
    admission = wl.status.admission if wl.status else None
    counts = {
        ps.name or "main": (ps.count if ps.count is not None else 1)
        for ps in (wl.spec.pod_sets if wl.spec else None) or ()
    }
    reclaim = _reclaimable(wl) if opts.reclaimable_pods else {}
    out = []
    for psa in (admission.pod_set_assignments if admission else None) or ():
        name = psa.name or "main"
        count = psa.count if psa.count is not None else counts.get(name, 0)
        requests = {k: amount(k, q) for k, q in (psa.resource_usage or {}).items()}
        after = counts.get(name, count) - min(reclaim.get(name, 0), counts.get(name, count))
        if after < count and count:
            requests = {k: v // count * after for k, v in requests.items()}
            count = after
        out.append(PodSetResources(name, count, requests, None, dict(psa.flavors or {})))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class WorkloadInfo:
    """``workload.Info`` of one observed Workload version (``obj`` is the shared, read-only object)."""

    key: str
    obj: Workload
    pod_sets: tuple[PodSetResources, ...]
    cluster_queue: str
    priority: int
    queue_order_time: datetime
    quota_reserved_time: datetime | None
    scheduling_hash: str = ""
    evicted: bool = False  # the Evicted condition is true (read once: preemption orders by it)

    @classmethod
    def of(
        cls,
        wl: Workload,
        opts: InfoOptions | None = None,
        dra: Mapping[str, Mapping[str, int]] | None = None,
        replaced: Mapping[str, frozenset[str]] | None = None,
    ) -> WorkloadInfo:
        """``NewInfo``; ``dra``: per pod set, the DRA resources one pod adds while it is pending
        (:mod:`kbatch.controllers.kueue.model.dra`), ``replaced``: the extended resources they
        stand for, dropped first (``replacedExtendedResources``)."""
        opts = opts or InfoOptions()
        admission = wl.status.admission if wl.status else None
        if admission is not None:
            pod_sets = _from_admission(wl, opts)
        else:
            pod_sets = _from_pod_sets(wl, opts, dra, replaced)
        reserved = condition(wl, Cond.QUOTA_RESERVED)
        priority = _effective_priority(wl, opts.priority_boost)
        return cls(
            workload_key(wl.metadata.namespace, wl.metadata.name),
            wl,
            pod_sets,
            admission.cluster_queue or "" if admission is not None else "",
            priority,
            _queue_order_time(wl, opts),
            reserved.last_transition_time if reserved is not None and reserved.status == "True" else None,
            (
                _scheduling_hash(wl, pod_sets, priority, opts.concurrent_admission)
                if opts.equivalence_hashing
                else ""
            ),
            is_true(wl, Cond.EVICTED),
        )

    @property
    def namespace(self) -> str:
        return self.obj.metadata.namespace or ""

    @property
    def name(self) -> str:
        return self.obj.metadata.name or ""

    @property
    def uid(self) -> str:
        return self.obj.metadata.uid or ""

    @property
    def queue_name(self) -> str:
        return (self.obj.spec.queue_name if self.obj.spec else None) or ""

    @property
    def generation(self) -> int:
        return self.obj.metadata.generation or 0

    def usage(self) -> Usage:
        """``FlavorResourceUsage``: the admitted requests by (flavor, resource)."""
        total: Usage = {}
        for ps in self.pod_sets:
            for res, value in ps.requests.items():
                fr: FlavorResource = (ps.flavors.get(res, ""), res)
                total[fr] = total.get(fr, 0) + value
        return total

    def total_requests(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for ps in self.pod_sets:
            for res, value in ps.requests.items():
                out[res] = out.get(res, 0) + value
        return out

    def can_be_partially_admitted(self) -> bool:
        return any(ps.min_count is not None and ps.count > ps.min_count for ps in self.pod_sets)


def _queue_order_time(wl: Workload, opts: InfoOptions) -> datetime:
    """``Ordering.GetQueueOrderTimestamp``: the eviction time for a workload evicted by a PodsReady
    timeout (with the ``Eviction`` requeuing timestamp) or by an admission check; with
    ``PrioritySortingWithinCohort`` off, 1ms after being preempted while the preemptor borrowed;
    else the creation time."""
    evicted = condition(wl, Cond.EVICTED)
    created = wl.metadata.creation_timestamp or datetime.min
    if evicted is not None and evicted.status == "True" and evicted.last_transition_time is not None:
        if evicted.reason == Reason.PODS_READY_TIMEOUT and opts.requeuing_timestamp == "Eviction":
            return evicted.last_transition_time
        if evicted.reason == Reason.ADMISSION_CHECK:
            return evicted.last_transition_time
    if not opts.priority_sorting_within_cohort:
        pre = condition(wl, Cond.PREEMPTED)
        if (
            pre is not None
            and pre.status == "True"
            and pre.reason == Reason.IN_COHORT_RECLAIM_WHILE_BORROWING
            and pre.last_transition_time is not None
        ):
            from datetime import timedelta

            return pre.last_transition_time + timedelta(milliseconds=1)
    return created


def _scheduling_hash(
    wl: Workload, pod_sets: tuple[PodSetResources, ...], priority: int, concurrent: bool = False
) -> str:
    """``computeSchedulingHash`` (kueue v0.19.2 ``pkg/workload/workload.go``): per pod set its name,
    effective count and requests, minimum count, ``topologyRequest`` and the pod spec's shape
    (:func:`_spec_shape`), the effective priority, and with ``ConcurrentAdmission`` a Variant's
    allowed-flavor annotation (``allowedFlavors``); the first 16 hex digits of its SHA-256. Two
    Workloads with one hash are the same problem for the scheduler, so one refused marks the other."""
    shapes = []
    for i, ps in enumerate((wl.spec.pod_sets if wl.spec else None) or ()):
        spec = ps.template.spec if ps.template else None
        res = pod_sets[i] if i < len(pod_sets) else None
        shapes.append(
            {
                "name": ps.name,
                "count": res.count if res else ps.count,
                "requests": dict(sorted(res.requests.items())) if res else {},
                "minCount": ps.min_count,
                "topologyRequest": _wire(ps.topology_request),
                "spec": _spec_shape(spec) if spec else None,
            }
        )
    shape: dict[str, Any] = {"podSets": shapes, "priority": priority}
    allowed = (wl.metadata.annotations or {}).get(ALLOWED_FLAVORS_ANNOTATION) if concurrent else None
    if allowed is not None:
        shape["allowedFlavors"] = allowed
    text = json.dumps(shape, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _spec_shape(spec: PodSpec) -> dict[str, Any]:
    """``utilpod.SpecShape``: what of a pod spec decides where and whether it fits — per container
    (init ones apart) its requests and ports, node selector, affinity, tolerations, runtime class,
    priority, spread constraints, overhead, resource claims, and pod-level requests when set."""

    def containers(items: Any) -> list[dict[str, Any]]:
        return [{"requests": _wire(c.resources.requests if c.resources else None), "ports": _wire(c.ports)}
                for c in items or ()]

    shape = {
        "initContainers": containers(spec.init_containers), "containers": containers(spec.containers),
        "nodeSelector": spec.node_selector, "affinity": _wire(spec.affinity),
        "tolerations": _wire(spec.tolerations), "runtimeClassName": spec.runtime_class_name,
        "priority": spec.priority, "topologySpreadConstraints": _wire(spec.topology_spread_constraints),
        "overhead": _wire(spec.overhead), "resourceClaims": _wire(spec.resource_claims),
    }
    if spec.resources is not None:
        shape["resources"] = _wire(spec.resources.requests)
    return {k: v for k, v in shape.items() if v}  # unset and empty alike: fewer bytes to hash


def _wire(value: Any) -> Any:
    """A model (or a list of them) as its wire dict, for hashing; plain values as they are."""
    if isinstance(value, list | tuple):
        return [_wire(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if to_dict is not None else value
