"""The TopologyUngater: each gated pod of a TAS-admitted Workload to one of its domains.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/topology_ungater.go``. A Workload
admitted with a topology assignment (``IsAdmittedByTAS``: Admitted, and a pod set with a
``topologyAssignment``) is reconciled on its own events and on those of its pods (a TAS pod naming
it in ``kueue.x-k8s.io/workload``). For each such pod set, its pods (``kueue.x-k8s.io/podset``
label, not terminated) are matched to the assignment's domains:

* **by rank** when the pod set's topology request names a pod index label (a Job's
  ``batch.kubernetes.io/job-completion-index``; a pod group's ``kueue.x-k8s.io/pod-group-pod-index``;
  for a JobSet the completion index plus ``jobset.sigs.k8s.io/job-index`` times the pods of one
  child Job, the sub-group; less the pod set's offset: a podset group's leader count, the
  ``kueue.x-k8s.io/pod-index-offset`` annotation, :mod:`.ranks`): rank ``r`` goes to the domain
  holding the ``r``-th pod of the assignment (domains in order, each ``count`` ranks). Ranks are
  read only when every pod has a valid rank below the pod set's count, no two share one, and every
  ungated pod sits where its rank says; otherwise
* **greedily**: the gated pods, oldest first (creation time, then name), fill each domain up to its
  count less the pods already ungated there (by their node selector).

A pod to ungate gets the domain's level labels added to its node selector, and loses the
``kueue.x-k8s.io/topology`` gate; kube-scheduler then binds it within the domain. A pod whose
domain is a node in the Workload's ``status.unhealthyNodes`` stays gated until the scheduler's
second pass replaces that node.

An unparsable ``kueue.x-k8s.io/pod-index-offset`` fails the reconcile before any pod is ungated
(retried with back-off), as upstream.

With ``ElasticJobsViaWorkloadSlicesWithTAS`` (alpha, off) the pods of a Workload are those of its
slice chain (``podsForPodSet`` lists by ``kueue.x-k8s.io/workload-slice-name``, a pod without it by
its ``kueue.x-k8s.io/workload``, matched against the Workload's chain name), so a scale-up's slice,
whose assignment keeps the running pods' domains (:mod:`.elastic`), counts the pods already ungated
there and sends only its gated new pods to the new domains; the running pods keep their node
selectors. The pods of an elastic Job name the chain's first slice in ``kueue.x-k8s.io/workload``
(the running Job's template is not rewritten), so a request for a replaced slice (``Finished``,
``WorkloadSliceReplaced``) reconciles the chain's live slices admitted by TAS instead. Deliberately
different: upstream reconciles the replaced slice itself on those pod events and reaches the new
slice only on its own Workload events.

Not modelled: the ungate expectations (kbatch's loop sees its own writes).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.api.kueue_v1beta2 import PodSetAssignment, PodSetTopologyRequest, Workload
from kbatch.api.kueue_v1beta2.constants import POD_SET_LABEL
from kbatch.controllers.kueue.concurrent_admission.variants import is_variant
from kbatch.controllers.kueue.metrics import record_gate_removal
from kbatch.controllers.kueue.podintegration.pods import group_name
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.ranks import RankBase, by_rank, offset_of, rank_bases
from kbatch.controllers.kueue.tas.request import (
    TOPOLOGY_GATE,
    WORKLOAD_ANNOTATION,
    is_tas_pod,
    pod_slice_name,
)
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME
from kbatch.controllers.kueue.tas.unhealthy import unhealthy_node_names
from kbatch.controllers.kueue.workloadslicing.slices import is_replaced, slice_name
from kbatch.runtime.reconcile import Request, Result

__all__ = ["PodWorkload", "TopologyUngater", "admitted_by_tas", "pods_to_domains"]

Domain = tuple[str, ...]


def admitted_by_tas(wl: Workload) -> bool:
    """``workload.IsAdmittedByTAS``."""
    status = wl.status
    if status is None or status.admission is None:
        return False
    admitted = any(c.type == "Admitted" and c.status == "True" for c in status.conditions or ())
    return admitted and any(
        p.topology_assignment is not None for p in status.admission.pod_set_assignments or ()
    )


def admitted_by_tas_not_variant(wl: Workload) -> bool:
    """The ungater's predicate with ``ConcurrentAdmission`` (``topology_ungater.go``): a Variant has
    no pods; its parent, admitted with the Variant's assignment, is the one ungated."""
    return admitted_by_tas(wl) and not is_variant(wl)


def _gated(pod: Pod) -> bool:
    return any(g.name == TOPOLOGY_GATE for g in pod.spec.scheduling_gates or ())


def _domain_of(pod: Pod, levels: Sequence[str]) -> Domain:
    selector = pod.spec.node_selector or {}
    return tuple(selector.get(k, "") for k in levels)


def _by_rank(
    pods: Sequence[Pod],
    request: PodSetTopologyRequest,
    count: int,
    ranks: Sequence[Domain],
    levels: Sequence[str],
    base: RankBase,
) -> dict[int, Pod] | None:
    """``readRanksIfAvailable``: the ranks (:mod:`.ranks`), kept only when every ungated pod
    sits in its rank's domain."""
    out = by_rank(pods, request, count, len(ranks), base)
    if out is None:
        return None
    for rank, pod in out.items():
        if not _gated(pod) and _domain_of(pod, levels) != ranks[rank]:
            return None
    return out


def _created(pod: Pod) -> tuple[str, str]:
    ts = pod.metadata.creation_timestamp
    return (ts.isoformat() if ts is not None else "", pod.metadata.name or "")


def _greedy(
    pods: Sequence[Pod], domains: Sequence[tuple[Domain, int]], levels: Sequence[str]
) -> list[tuple[Pod, Domain]]:
    """``assignGatedPodsToDomainsGreedy``."""
    gated = sorted((p for p in pods if _gated(p)), key=_created)
    placed: dict[Domain, int] = {}
    for pod in pods:
        if not _gated(pod):
            key = _domain_of(pod, levels)
            placed[key] = placed.get(key, 0) + 1
    out: list[tuple[Pod, Domain]] = []
    for values, count in domains:
        room = min(max(count - placed.get(values, 0), 0), len(gated) - len(out))
        out += [(pod, values) for pod in gated[len(out) : len(out) + room]]
    return out


def pods_to_domains(
    pods: Sequence[Pod],
    psa: PodSetAssignment,
    request: PodSetTopologyRequest | None,
    unhealthy: Collection[str] = (),
    base: RankBase | None = None,
) -> list[tuple[Pod, dict[str, str]]]:
    """The gated pods to ungate, each with the node selector labels of its domain; none onto a
    node of ``unhealthy`` (the Workload's ``status.unhealthyNodes``: it awaits its replacement).
    ``base``: the pod set's rank offset and index bound (:func:`.ranks.rank_bases`, shifted by
    the pod index offset; none and bounded by the count by default)."""
    levels, domains = assignment_domains(psa.topology_assignment)
    ranks = [values for values, count in domains for _ in range(count)]
    count = psa.count if psa.count is not None else len(ranks)
    ranked = None
    if request is not None and request.pod_index_label:
        ranked = _by_rank(pods, request, count, ranks, levels, base or RankBase(0, count))
    if ranked is not None:
        chosen = [(pod, ranks[rank]) for rank, pod in sorted(ranked.items()) if _gated(pod)]
    else:
        chosen = _greedy(pods, domains, levels)
    out = [(pod, dict(zip(levels, values, strict=True))) for pod, values in chosen]
    return [(pod, labels) for pod, labels in out if labels.get(HOSTNAME) not in unhealthy]


class PodWorkload:
    """Pod events → the Workload a TAS pod names (``podHandler.queueReconcileForPod``)."""

    __slots__ = ()
    maps_old_on_update = False  # Update reads ``ObjectNew`` only

    def __call__(self, pod: Any) -> list[Request]:
        name = (pod.metadata.annotations or {}).get(WORKLOAD_ANNOTATION)
        if not name or not is_tas_pod(pod):
            return []
        return [Request(pod.metadata.namespace or "", name)]


class TopologyUngater:
    """The ``kueue-tas-topology-ungater`` reconciler."""

    def __init__(self, ctx: Any, elastic: bool = False) -> None:
        self.ctx = ctx
        self.elastic = elastic  # ElasticJobsViaWorkloadSlicesWithTAS

    def reconcile(self, request: Request) -> Result | None:
        cache = self.ctx.cache
        try:
            wl = cache.get(Workload, request.name, request.namespace)
        except NotFound:
            return None
        if self.elastic and is_replaced(wl.status):
            for live in self._live_slices(wl):
                self._reconcile(live)
            return None
        if admitted_by_tas(wl):
            self._reconcile(wl)
        return None

    def _live_slices(self, replaced: Workload) -> list[Workload]:
        """The slices of ``replaced``'s chain that are admitted by TAS and not replaced."""
        chain = slice_name(replaced)
        return [
            wl
            for wl in self.ctx.cache.list(Workload, replaced.metadata.namespace or "")
            if slice_name(wl) == chain and not is_replaced(wl.status) and admitted_by_tas(wl)
        ]

    def _member(self, pod: Pod, wl: Workload) -> bool:
        """``podsForPodSet``'s key: the pod's Workload or (with the gate) its slice chain
        (``IndexPodWorkloadSliceName``)."""
        if not self.elastic:
            return (pod.metadata.annotations or {}).get(WORKLOAD_ANNOTATION) == wl.metadata.name
        return pod_slice_name(pod) == slice_name(wl)

    def _reconcile(self, wl: Workload) -> None:
        cache = self.ctx.cache
        namespace = wl.metadata.namespace or ""
        pod_sets = (wl.spec.pod_sets if wl.spec else None) or ()
        requests = {ps.name or "": ps.topology_request for ps in pod_sets}
        psas = wl.status.admission.pod_set_assignments or ()  # type: ignore[union-attr]
        bases = rank_bases(psas, requests)
        unhealthy = set(unhealthy_node_names(wl))
        chosen: list[tuple[Pod, dict[str, str]]] = []
        for psa in psas:
            if psa.topology_assignment is None:
                continue
            pods = [
                p
                for p in cache.list(Pod, namespace, labels={POD_SET_LABEL: psa.name or ""})
                if self._member(p, wl)
                and (p.status.phase if p.status else None) not in ("Succeeded", "Failed")
            ]
            base = bases[psa.name or ""].shifted(offset_of(pods))  # OffsetError: retried
            chosen += pods_to_domains(pods, psa, requests.get(psa.name or ""), unhealthy, base)
        for pod, labels in chosen:
            if self._ungate(pod, labels):  # ``RecordPodSchedulingGateRemovalSeconds``, ``IsPodGroup``
                now = self.ctx.clock.now_datetime()
                record_gate_removal(self.ctx.metrics, TOPOLOGY_GATE, wl, bool(group_name(pod)), now)

    def _ungate(self, pod: Pod, labels: dict[str, str]) -> bool:
        fresh = edit(pod)
        fresh.spec.scheduling_gates = [
            g for g in fresh.spec.scheduling_gates or () if g.name != TOPOLOGY_GATE
        ] or None
        fresh.spec.node_selector = {**(fresh.spec.node_selector or {}), **labels}
        try:
            self.ctx.client.update(fresh)
        except (Conflict, NotFound):
            return False  # the pod's next event brings the Workload back
        return True
