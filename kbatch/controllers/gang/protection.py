"""The ``podgroup-protection`` controller (kube-controller-manager's "podgroup-protection-controller",
started only with the GenericWorkload gate; upstream ``pkg/controller/podgroupprotection``, KEP-4671
"PodGroup Deletion Protection").

PodGroups carry the finalizer ``scheduling.k8s.io/podgroup-protection`` from their creation (the
API server's ``PodGroupProtection`` admission plugin stamps it). A pod is active while its phase is
neither Succeeded nor Failed; it uses the group its ``spec.schedulingGroup.podGroupName`` names.

* A PodGroup being deleted that no active pod uses loses the finalizer and the delete goes through;
  while one does, the PodGroup stays, terminating.
* A PodGroup not being deleted that lacks the finalizer (a user took it off) gets it back while an
  active pod uses it (upstream ``processPodGroup``'s ``NeedToAddFinalizer`` branch; KEP-4671: "the
  controller adds it when processing them").

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

__all__ = ["BY_POD_GROUP", "PodGroupProtection", "needs_finalizer", "pods_by_group", "releasable", "setup"]

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


def needs_finalizer(deleting: bool, finalizers: Iterable[str], pod_phases: Iterable[str | None]) -> bool:
    """The other decision: a group not being deleted, without the finalizer, used by an active pod."""
    if deleting or PODGROUP_PROTECTION_FINALIZER in finalizers:
        return False
    return any(phase not in _DONE for phase in pod_phases)


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
        deleting, finalizers = meta.deletion_timestamp is not None, list(meta.finalizers or ())
        phases = [p.status.phase if p.status else None for p in pods]
        if releasable(deleting, finalizers, phases):
            finalizers = [f for f in finalizers if f != PODGROUP_PROTECTION_FINALIZER]
        elif needs_finalizer(deleting, finalizers, phases):
            finalizers.append(PODGROUP_PROTECTION_FINALIZER)
        else:
            return
        patch = {"metadata": {"finalizers": finalizers or None, "resourceVersion": meta.resource_version}}
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
    (ctx.build().describe("keeps the podgroup-protection finalizer on PodGroups in use, removes it "
                          "from unused, deleted ones")
     .for_(PodGroup).watches(Pod, _group_of_pod).complete(controller))
    return controller
