"""The ``podgroup-protection`` controller (kube-controller-manager's "podgroup-protection-controller",
started only with the GenericWorkload gate; upstream ``pkg/controller/podgroupprotection``, KEP-4671
"PodGroup Deletion Protection").

PodGroups carry the finalizer ``scheduling.k8s.io/podgroup-protection`` from their creation (the
API server's ``PodGroupProtection`` admission plugin stamps it). When a PodGroup is being deleted
and no pod that is still active (phase neither Succeeded nor Failed) names it in
``spec.schedulingGroup.podGroupName``, the controller removes the finalizer and the delete goes
through; while one does, the PodGroup stays, terminating.

Triggers: any PodGroup event; any event of a pod naming a group (its deletion or end may be what
the group waits for).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.gates import gate_on
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD, PODGROUP_PROTECTION_FINALIZER, PodGroup
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["BY_POD_GROUP", "PodGroupProtection", "pods_by_group", "releasable", "setup"]

BY_POD_GROUP = "scheduling-pod-group"  # pod cache index: "<namespace>/<podGroupName>"
_DONE = ("Succeeded", "Failed")


def pods_by_group(pod: Any) -> Iterable[str]:
    group = pod.spec.scheduling_group
    name = group.pod_group_name if group is not None else None
    return (f"{pod.metadata.namespace}/{name}",) if name else ()


def releasable(deleting: bool, finalizers: Iterable[str], pod_phases: Iterable[str | None]) -> bool:
    """The decision: a deleting group holding the finalizer with no active pod loses it."""
    if not deleting or PODGROUP_PROTECTION_FINALIZER not in finalizers:
        return False
    return all(phase in _DONE for phase in pod_phases)


class PodGroupProtection:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> None:
        try:
            pg = self.ctx.cache.get(PodGroup, request.name, request.namespace)
        except NotFound:
            return
        pods = self.ctx.cache.list(Pod, index=(BY_POD_GROUP, f"{request.namespace}/{request.name}"))
        meta = pg.metadata
        if not releasable(meta.deletion_timestamp is not None, meta.finalizers or (),
                          [p.status.phase if p.status else None for p in pods]):
            return
        kept = [f for f in meta.finalizers or () if f != PODGROUP_PROTECTION_FINALIZER]
        patch = {"metadata": {"finalizers": kept or None, "resourceVersion": meta.resource_version}}
        try:
            self.ctx.client.patch(PodGroup, request.name, patch, request.namespace)
        except NotFound:
            return
        except Conflict:
            raise  # the queue retries with the newer version


def _group_of_pod(pod: Any) -> list[Request]:
    return [Request(*key.split("/", 1)) for key in pods_by_group(pod)]


def setup(ctx: ControllerContext) -> PodGroupProtection | None:
    """Runs only with the GenericWorkload gate (upstream starts it only then)."""
    if not gate_on(ctx.features, GENERIC_WORKLOAD):
        return None
    ctx.cache.add_index(Pod, BY_POD_GROUP, pods_by_group)
    controller = PodGroupProtection(ctx)
    (ctx.build().describe("removes the podgroup-protection finalizer of unused, deleted PodGroups")
     .for_(PodGroup).watches(Pod, _group_of_pod).complete(controller))
    return controller
