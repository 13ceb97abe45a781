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

Not modelled: terminating the late pods a stale node selector still sends to a node
(``UnschedulableOnAssignedNode``), workload slices.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import ResourceFlavor, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.kueue_v1beta2.workload import UnhealthyNode
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.request import WORKLOAD_ANNOTATION, is_tas_pod
from kbatch.controllers.kueue.tas.unhealthy import (
    EVICTED_EVENT,
    assigned_nodes,
    evict_for_node_failures,
    unhealthy_node_names,
)
from kbatch.controllers.scheduler.convert import toleration_of
from kbatch.controllers.scheduler.types import Taint, Toleration
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
    """Pod events → the node of a terminated or deleted TAS pod (``nodeFailurePodHandler``)."""

    __slots__ = ()
    maps_old_on_update = False

    def __call__(self, pod: Any) -> list[Request]:
        node = pod.spec.node_name if pod.spec else None
        if not node or (pod.metadata.deletion_timestamp is None and not _terminated(pod)):
            return []  # most pod events: a bound pod running
        return [Request("", node)] if is_tas_pod(pod) else []


class NodeFailureController:
    """The ``kueue-tas-node-failure`` reconciler (one key: a node name)."""

    def __init__(self, mgr: Any) -> None:
        self.mgr = mgr

    def _on(self, gate: str) -> bool:
        return bool(self.mgr.settings.on(gate))

    def reconcile(self, request: Request) -> Result | None:
        cache = self.mgr.ctx.cache
        try:
            node: Node | None = cache.get(Node, request.name)
        except NotFound:
            node = None
        name = request.name
        affected = sorted(
            (wl for wl in cache.list(Workload) if name in assigned_nodes(wl)),
            key=lambda w: (w.metadata.namespace or "", w.metadata.name or ""),
        )
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
        if expired and self._on("TASReplaceNodeDueToNotReadyOverFixedTime"):
            self._unhealthy(name, affected)
            return None
        sick: list[Workload] = []
        well: list[Workload] = []
        for wl in affected:
            (sick if self._verdict(node, wl) == UNHEALTHY else well).append(wl)
        self._unhealthy(name, sick)
        for wl in well:
            self._healthy(name, wl)
        return None

    # --- decisions ----------------------------------------------------------------------------------
    def _verdict(self, node: Node, wl: Workload) -> str:
        """``getWorkloadStatus``."""
        if not _is_ready(node):
            if not self._on("TASReplaceNodeOnPodTermination"):
                return UNHEALTHY
            return self._pods_verdict(node, wl, untolerated=False)
        taints = [
            Taint(t.key or "", t.effect or "", t.value or "")
            for t in (node.spec.taints if node.spec else None) or ()
        ]
        if not self._on("TASReplaceNodeOnNodeTaints") or not any(
            t.effect in ("NoSchedule", "NoExecute") for t in taints
        ):
            return HEALTHY
        verdict = taint_verdict(taints, self._tolerations(wl, node.metadata.name or ""))
        if verdict == UNHEALTHY and not self._on("TASReplaceNodeOnPodTermination"):
            return UNHEALTHY
        if verdict == HEALTHY:
            return HEALTHY
        return self._pods_verdict(node, wl, untolerated=verdict == UNHEALTHY)

    def _pods_verdict(self, node: Node, wl: Workload, untolerated: bool) -> str:
        """``checkPodsOnNode``: healthy while a pod of the Workload on the node progresses."""
        progressing = any(
            p.metadata.deletion_timestamp is None and not _terminated(p)
            for p in self.mgr.ctx.cache.list(Pod, wl.metadata.namespace)
            if (p.spec.node_name if p.spec else None) == node.metadata.name
            and (p.metadata.annotations or {}).get(WORKLOAD_ANNOTATION) == wl.metadata.name
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
    def _unhealthy(self, node: str, workloads: Iterable[Workload]) -> None:
        """``handleUnhealthyNode``."""
        for wl in workloads:
            names = unhealthy_node_names(wl)
            if W.has(wl.status, Cond.EVICTED) or node in names:
                continue
            if names:
                evict(self.mgr, wl, MULTIPLE_FAILURES % ", ".join([*names, node]))
                continue
            write_status(self.mgr, wl, lambda status, _obj: _add(status, node))

    def _healthy(self, node: str, wl: Workload) -> None:
        """``handleHealthyNode``."""
        if node in unhealthy_node_names(wl):
            write_status(self.mgr, wl, lambda status, _obj: _remove(status, node))


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
