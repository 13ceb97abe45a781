"""The ``podgroup-protection`` controller (kube-controller-manager's "podgroup-protection-controller",
started only with the GenericWorkload gate; upstream ``pkg/controller/podgroupprotection``, KEP-4671
"PodGroup Deletion Protection").

PodGroups carry the finalizer ``scheduling.k8s.io/podgroup-protection`` from their creation (the
API server's ``PodGroupProtection`` admission plugin stamps it). A pod is active while its phase is
neither Succeeded nor Failed; it uses the group its ``spec.schedulingGroup.podGroupName`` names.

* A PodGroup being deleted that no active pod uses loses the finalizer and the delete goes through;
  while one does, the PodGroup stays, terminating.
* The controller never adds the finalizer: admission stamps it, and a PodGroup whose finalizer a
  user took off stays without it (upstream dropped the early ``NeedToAddFinalizer`` branch; its
  table says "no action (admission plugin handles it)").

Triggers, as upstream's handlers (``handlePodGroupUpdate``, ``handlePodChange``, 1.37,
``scheduling/v1beta1``): a PodGroup added or updated that is a deletion candidate (being deleted,
holding the finalizer), read from the new object only, never its delete; a pod added or updated
into a terminal phase (its group), a pod deleted (its group), and a pod update whose UID changed
(the old pod's group as well: the update masks a delete and a create under one name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.gates import gate_on
from kbatch.api.scheduling_v1beta1 import GENERIC_WORKLOAD, PODGROUP_PROTECTION_FINALIZER, PodGroup
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs
from kbatch.runtime.reconcile import Request

__all__ = ["BY_POD_GROUP", "PodGroupProtection", "pod_event_groups", "pods_by_group", "releasable", "setup"]

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
        deleting, finalizers = meta.deletion_timestamp is not None, list(meta.finalizers or ())
        phases = [p.status.phase if p.status else None for p in pods]
        if not releasable(deleting, finalizers, phases):
            return
        finalizers = [f for f in finalizers if f != PODGROUP_PROTECTION_FINALIZER]
        patch = {"metadata": {"finalizers": finalizers or None, "resourceVersion": meta.resource_version}}
        try:
            self.ctx.client.patch(PodGroup, request.name, patch, request.namespace)
        except NotFound:
            return
        except Conflict:
            raise  # the queue retries with the newer version


def _deletion_candidate(pg: Any) -> bool:
    """``protectionutil.IsDeletionCandidate``: being deleted and holding the finalizer."""
    meta = pg.metadata
    return meta.deletion_timestamp is not None and PODGROUP_PROTECTION_FINALIZER in (meta.finalizers or ())


_GROUP_EVENTS = Funcs(create=_deletion_candidate, update=_deletion_candidate, delete=False)


def _terminated(pod: Any) -> bool:
    return (pod.status.phase if pod.status else None) in _DONE


def pod_event_groups(old: Any, new: Any) -> list[str]:
    """``handlePodChange``: the ``<namespace>/<group>`` keys a pod event enqueues (``old`` is None
    for an add, ``new`` for a delete)."""
    pods = []
    if new is not None and _terminated(new):
        pods.append(new)
    if new is not None and old is not None and old.metadata.uid != new.metadata.uid:
        pods.append(old)
    if new is None and old is not None:
        pods.append(old)
    keys: list[str] = []
    for pod in pods:
        keys.extend(k for k in pods_by_group(pod) if k not in keys)
    return keys


class _PodHandler:
    """The pod informer's handler: :func:`pod_event_groups` into the controller's queue."""

    __slots__ = ("add",)

    def __init__(self, add: Callable[[Request], None]) -> None:
        self.add = add

    def _enqueue(self, old: Any, new: Any) -> None:
        for key in pod_event_groups(old, new):
            self.add(Request(*key.split("/", 1)))

    def on_add(self, pod: Any) -> None:
        self._enqueue(None, pod)

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(old, new)

    def on_delete(self, pod: Any) -> None:
        self._enqueue(pod, None)


def setup(ctx: ControllerContext) -> PodGroupProtection | None:
    """Runs only with the GenericWorkload gate (upstream starts it only then)."""
    if not gate_on(ctx.features, GENERIC_WORKLOAD):
        return None
    ctx.cache.add_index(Pod, BY_POD_GROUP, pods_by_group)
    controller = PodGroupProtection(ctx)
    built = (ctx.build().describe("removes the podgroup-protection finalizer from deleted PodGroups "
                                  "no active pod uses")
             .for_(PodGroup, _GROUP_EVENTS).complete(controller))
    ctx.cache.informer_for(Pod).add_event_handler(_PodHandler(built.queue.add))
    return controller
