"""The TAS node controller's failure half: a failed node of a TAS Workload goes to
``status.unhealthyNodes`` (the scheduler then replaces it: :mod:`.second_pass`), or, when the
Workload already has another one, the Workload is evicted.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/node_controller.go`` (gates
``TASFailedNodeReplacement``, ``TASReplaceNodeOnPodTermination``, ``TASReplaceNodeOnNodeTaints``:
beta, on; ``TASReplaceNodeDueToNotReadyOverFixedTime``: deprecated, off), KEP 2724 "Node failure".
A node is reconciled when it is created or deleted, when its Ready status or (with
``TASReplaceNodeOnNodeTaints``) its taints change, and when a TAS pod bound to it is terminated or
being deleted (``nodeFailurePodHandler``). For each Workload assigned to the node (admitted, not
finished nor evicted, a topology assignment naming it at the hostname level):

* node deleted, or without a Ready condition: unhealthy;
* node not Ready: with ``TASReplaceNodeOnPodTermination`` unhealthy once none of the Workload's
  pods on the node is progressing (not terminated, not being deleted); without it, unhealthy
  ``NodeFailureDelay`` (30 s) after the Ready transition; with the deprecated
  ``TASReplaceNodeDueToNotReadyOverFixedTime`` unhealthy after that delay whatever its pods do;
* Ready with a ``NoSchedule``/``NoExecute`` taint not tolerated by every pod set on the node
  (their tolerations with the admitted flavors'): unhealthy once no pod is progressing (while one
  is, healthy); a taint tolerated only for a while (``tolerationSeconds``) likewise; a taint
  tolerated permanently leaves the Workload healthy;
* otherwise healthy: the node leaves ``unhealthyNodes``.

An unhealthy node is added to ``unhealthyNodes``, unless the Workload already has another one:
then it is evicted, reason ``NodeFailures``, "Workload eviction triggered due to multiple TAS
assigned node failures, including: a, b".

Late pods (:mod:`.late_pods`): a node is also reconciled when a TAS pod whose node selector names
it at the hostname level is pending unbound, and the Workloads of such pods (not finished nor
evicted) are judged with the assigned ones. Wherever the verdict looked at the pods (the node is
not in the Workload's assignment any more; not Ready; an untolerated or temporarily tolerated
taint, with ``TASReplaceNodeOnPodTermination``), the Workload's ungated pods still pending there
are failed (``TerminatedByKueue``, reason ``UnschedulableOnAssignedNode``) unless the Workload was
evicted. A Workload the node is no longer assigned to is healthy on it (``unhealthyNodes`` is not
polluted). A deleted node, or one without a Ready condition, terminates no pods (as upstream,
which returns before looking at them).

Deliberately different: with the deprecated fixed-time marking, upstream re-judges the Workloads
it has just recorded by their pods in the same reconcile and would clear a node whose pods still
run, which only its informer lag prevents; kbatch keeps them recorded (what the gate means).
The node's pods are found by listing them (upstream keeps field indexes).

A Workload's pods on the node are those of its slice chain (``hasProgressingPods`` lists them by
``workloadslicing.SliceName``): an elastic Job's later slice is judged by the running pods, which
name the chain's first slice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.kueue_v1beta2.workload import UnhealthyNode
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.controllers.kueue.tas import late_pods
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.late_pods import WorkloadKey
from kbatch.controllers.kueue.tas.request import is_tas_pod, pod_slice_name
from kbatch.controllers.kueue.tas.unhealthy import (
    EVICTED_EVENT,
    assigned_nodes,
    evict_for_node_failures,
    hostname_nodes,
    unhealthy_node_names,
)
from kbatch.controllers.kueue.workloadslicing.slices import slice_name
from kbatch.controllers.scheduler.convert import toleration_of
from kbatch.controllers.scheduler.types import Taint, Toleration
from kbatch.runtime.cache import BY_NODE_NAME
from kbatch.runtime.reconcile import Request, Result

__all__ = [
    "NODE_FAILURE_DELAY",
    "NodeFailureController",
    "NodeFailureEvents",
    "PodNode",
    "evict",
    "taint_verdict",
]

NODE_FAILURE_DELAY = timedelta(seconds=30)  # ``NodeFailureDelay``
MULTIPLE_FAILURES = "Workload eviction triggered due to multiple TAS assigned node failures, including: %s"
HEALTHY, UNHEALTHY, CHECK_PODS = "healthy", "unhealthy", "check-pods"


def _ready(node: Node) -> Any:
    return next(
        (c for c in (node.status.conditions if node.status else None) or () if c.type == "Ready"), None
    )


def _is_ready(node: Node | None) -> bool:
    cond = _ready(node) if node is not None else None
    return cond is not None and cond.status == "True"


def _terminated(pod: Pod) -> bool:
    return (pod.status.phase if pod.status else None) in ("Succeeded", "Failed")


def taint_verdict(taints: Iterable[Taint], pod_sets: Sequence[Sequence[Toleration]]) -> str:
    """``classifyTaints``: ``unhealthy`` when a scheduling taint is not tolerated by every pod set,
    ``check-pods`` when one is tolerated only for a while, else ``healthy``."""
    temporary = False
    for taint in taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not all(any(t.tolerates(taint) for t in tols) for tols in pod_sets):
            return UNHEALTHY
        permanent = [[t for t in tols if t.toleration_seconds is None] for tols in pod_sets]
        if not all(any(t.tolerates(taint) for t in tols) for tols in permanent):
            temporary = True
    return CHECK_PODS if temporary else HEALTHY


class NodeFailureEvents:
    """The Node watch's predicate (``nodeReconciler.Create/Update/Delete``)."""

    __slots__ = ("taints",)

    def __init__(self, taints: bool) -> None:
        self.taints = taints  # TASReplaceNodeOnNodeTaints

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        if _is_ready(old) != _is_ready(new):
            return True
        return self.taints and (old.spec.taints if old.spec else None) != (
            new.spec.taints if new.spec else None
        )

    def delete(self, obj: Any) -> bool:
        return True


class PodNode:
    """Pod events → nodes (``nodeFailurePodHandler``): the node a pending TAS pod's hostname
    selector names (a late pod may wait there), and the node of a bound TAS pod that is
    terminated or being deleted."""

    __slots__ = ()
    maps_old_on_update = False

    def __call__(self, pod: Any) -> list[Request]:
        node = pod.spec.node_name if pod.spec else None
        if not node:
            sent = late_pods.hostname_selector(pod) if pod.spec and pod.spec.node_selector else None
            return [Request("", sent)] if sent else []
        if pod.metadata.deletion_timestamp is None and not _terminated(pod):
            return []  # most pod events: a bound pod running
        return [Request("", node)] if is_tas_pod(pod) else []


class NodeFailureController:
    """The ``kueue-tas-node-failure`` reconciler (one key: a node name)."""

    def __init__(self, mgr: Any) -> None:
        self.mgr = mgr

    def _on(self, gate: str) -> bool:
        return bool(self.mgr.settings.on(gate))

    def reconcile(self, request: Request) -> Result | None:
        """``nodeReconciler.Reconcile``."""
        cache = self.mgr.ctx.cache
        try:
            node: Node | None = cache.get(Node, request.name)
        except NotFound:
            node = None
        name = request.name
        affected = sorted((wl for wl in cache.list(Workload) if name in assigned_nodes(wl)), key=_key)
        if node is None or _ready(node) is None:
            self._unhealthy(name, affected)
            return None
        cond = _ready(node)
        expired = False
        if cond.status != "True":
            since = cond.last_transition_time or self.mgr.now()
            remaining = since + NODE_FAILURE_DELAY - self.mgr.now()
            expired = remaining <= timedelta(0)
            if not expired and not self._on("TASReplaceNodeOnPodTermination"):
                return Result(requeue_after=remaining.total_seconds())
        forced: set[WorkloadKey] = set()
        if expired and self._on("TASReplaceNodeDueToNotReadyOverFixedTime"):
            evicted = self._unhealthy(name, affected)
            affected = [wl for wl in affected if _key(wl) not in evicted]
            forced = {_key(wl) for wl in affected}
        sent = late_pods.pods_sent_to(cache.list(Pod), name)
        workloads = affected + self._late_workloads(sent, affected)
        self._reconcile_workloads(node, workloads, sent, forced)
        return None

    def _late_workloads(
        self, sent: Mapping[WorkloadKey, Sequence[Pod]], affected: Sequence[Workload]
    ) -> list[Workload]:
        """``getWorkloadsFromPodsOnNode``: the Workloads, not finished nor evicted, of the pods
        sent to the node that its assignment does not name."""
        out = []
        for namespace, wl_name in late_pods.late_workload_keys(sent, map(_key, affected)):
            try:
                wl = self.mgr.ctx.cache.get(Workload, wl_name, namespace)
            except NotFound:
                continue
            if not W.has(wl.status, Cond.FINISHED) and not W.has(wl.status, Cond.EVICTED):
                out.append(wl)
        return out

    def _reconcile_workloads(
        self,
        node: Node,
        workloads: Sequence[Workload],
        sent: Mapping[WorkloadKey, Sequence[Pod]],
        forced: set[WorkloadKey],
    ) -> None:
        """``reconcileWorkloadsOnNode``: each Workload judged; the unhealthy ones recorded (or
        evicted), the healthy ones cleared; then the late pods of those not evicted failed. A
        Workload the deprecated fixed-time marking has just recorded stays unhealthy."""
        name = node.metadata.name or ""
        sick: list[Workload] = []
        well: list[Workload] = []
        doomed: dict[WorkloadKey, list[Pod]] = {}
        for wl in workloads:
            verdict, pods_checked = self._verdict(node, wl)
            if pods_checked:
                doomed[_key(wl)] = late_pods.to_terminate(sent.get(_key(wl), ()))
            (sick if verdict == UNHEALTHY or _key(wl) in forced else well).append(wl)
        evicted = self._unhealthy(name, sick)
        for wl in well:
            self._healthy(name, wl)
        for key in sorted(doomed):
            if key not in evicted and doomed[key]:
                late_pods.mark_failed(self.mgr.ctx.client, self.mgr.recorder, doomed[key], self.mgr.now())

    # --- decisions ----------------------------------------------------------------------------------
    def _verdict(self, node: Node, wl: Workload) -> tuple[str, bool]:
        """``getWorkloadStatus``: the verdict, and whether the pods on the node were looked at
        (``checkPodsOnNode``: only then are late pods terminated)."""
        name = node.metadata.name or ""
        if name not in hostname_nodes(wl):
            return HEALTHY, True  # only late pods bring such a Workload here: fail them
        if not _is_ready(node):
            if not self._on("TASReplaceNodeOnPodTermination"):
                return UNHEALTHY, False
            return self._pods_verdict(node, wl, untolerated=False), True
        taints = [
            Taint(t.key or "", t.effect or "", t.value or "")
            for t in (node.spec.taints if node.spec else None) or ()
        ]
        if not self._on("TASReplaceNodeOnNodeTaints") or not any(
            t.effect in ("NoSchedule", "NoExecute") for t in taints
        ):
            return HEALTHY, False
        verdict = taint_verdict(taints, self._tolerations(wl, name))
        if verdict == UNHEALTHY and not self._on("TASReplaceNodeOnPodTermination"):
            return UNHEALTHY, False
        if verdict == HEALTHY:
            return HEALTHY, False
        return self._pods_verdict(node, wl, untolerated=verdict == UNHEALTHY), True

    def _pods_verdict(self, node: Node, wl: Workload, untolerated: bool) -> str:
        """``checkPodsOnNode``: healthy while a pod of the Workload's slice chain bound to the node
        progresses (``hasProgressingPods``: ``ListPodsForWorkloadSlice``; not terminated, not being
        deleted)."""
        chain = slice_name(wl)
        progressing = any(
            p.metadata.deletion_timestamp is None and not _terminated(p)
            for p in self.mgr.ctx.cache.list(Pod, index=(BY_NODE_NAME, node.metadata.name or ""))
            if p.metadata.namespace == wl.metadata.namespace and pod_slice_name(p) == chain
        )
        if progressing and (not untolerated or self._on("TASReplaceNodeOnPodTermination")):
            return HEALTHY
        return UNHEALTHY

    def _tolerations(self, wl: Workload, node: str) -> list[list[Toleration]]:
        """``podSetsWithEffectiveTolerationsOnNode``: each pod set on the node, its template's
        tolerations with those of its admitted flavors (``podset.FromAssignment``)."""
        specs = {ps.name: ps for ps in (wl.spec.pod_sets if wl.spec else None) or ()}
        out = []
        for psa in wl.status.admission.pod_set_assignments or ():  # type: ignore[union-attr]
            if psa.topology_assignment is None:
                continue
            if node not in {v[-1] for v, _ in assignment_domains(psa.topology_assignment)[1] if v}:
                continue
            ps = specs.get(psa.name)
            spec = ps.template.spec if ps is not None and ps.template is not None else None
            tols = [toleration_of(t) for t in (spec.tolerations if spec is not None else None) or ()]
            for flavor in sorted(set((psa.flavors or {}).values())):
                tols += [toleration_of(t) for t in self._flavor_tolerations(flavor)]
            out.append(tols)
        return out

    def _flavor_tolerations(self, name: str) -> list[Any]:
        try:
            flavor = self.mgr.ctx.cache.get(ResourceFlavor, name)
        except NotFound:
            return []
        return list((flavor.spec.tolerations if flavor.spec else None) or ())

    # --- effects ------------------------------------------------------------------------------------
    def _unhealthy(self, node: str, workloads: Iterable[Workload]) -> set[WorkloadKey]:
        """``handleUnhealthyNode``; the Workloads evicted, now or before."""
        evicted: set[WorkloadKey] = set()
        for wl in workloads:
            names = unhealthy_node_names(wl)
            if W.has(wl.status, Cond.EVICTED):
                evicted.add(_key(wl))
            elif names and node not in names:
                evict(self.mgr, wl, MULTIPLE_FAILURES % ", ".join([*names, node]))
                evicted.add(_key(wl))
            elif node not in names:
                write_status(self.mgr, wl, lambda status, _obj: _add(status, node))
        return evicted

    def _healthy(self, node: str, wl: Workload) -> None:
        """``handleHealthyNode``."""
        if node in unhealthy_node_names(wl):
            write_status(self.mgr, wl, lambda status, _obj: _remove(status, node))


def _key(wl: Workload) -> WorkloadKey:
    return (wl.metadata.namespace or "", wl.metadata.name or "")


def _add(status: Any, node: str) -> bool:
    if any(n.name == node for n in status.unhealthy_nodes or ()):
        return False
    status.unhealthy_nodes = [*(status.unhealthy_nodes or ()), UnhealthyNode(name=node)]
    return True


def _remove(status: Any, node: str) -> bool:
    kept = [n for n in status.unhealthy_nodes or () if n.name != node]
    if len(kept) == len(status.unhealthy_nodes or ()):
        return False
    status.unhealthy_nodes = kept or None
    return True


def evict(mgr: Any, wl: Workload, message: str) -> None:
    """``workloadevict.Evict`` with reason ``NodeFailures``, and its event."""
    written = write_status(mgr, wl, evict_for_node_failures(message, mgr.now()))
    if written is not None:
        mgr.recorder.event(written, "Normal", EVICTED_EVENT, W.truncate(message, W.MAX_EVENT_MESSAGE))
