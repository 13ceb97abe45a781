"""The pod integration's controller: which requests pod and Workload events make, and which
reconciler answers them.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/event_handlers.go``: a pod without
a group is reconciled by its name; a pod of a group by the key ``group/<namespace>``/``<group name>``;
a Workload's events reach its group (``kueue.x-k8s.io/is-group-workload``) or its controlling v1 Pod.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.core_v1 import Pod
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.reconciler import JobReconciler
from kbatch.controllers.kueue.podintegration import pods as P
from kbatch.controllers.kueue.podintegration.group import BY_GROUP, PodGroupReconciler, group_index
from kbatch.families.family import JobIntegration
from kbatch.runtime.controller import Controller
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["GROUP_PREFIX", "PodIntegration", "PodRequests", "WorkloadRequests"]

GROUP_PREFIX = "group/"


class PodRequests:
    """Pod events → ``reconcileRequestForPod``."""

    __slots__ = ("identifier_annotations",)

    def __init__(self, identifier_annotations: bool) -> None:
        self.identifier_annotations = identifier_annotations

    def __call__(self, pod: Any) -> list[Request]:
        namespace = pod.metadata.namespace or ""
        group = P.group_name(pod, self.identifier_annotations)
        if group:
            return [Request(GROUP_PREFIX + namespace, group)]
        return [Request(namespace, pod.metadata.name or "")]


class WorkloadRequests:
    """Workload events → ``queueReconcileForChildPod``."""

    __slots__ = ()

    def __call__(self, wl: Any) -> list[Request]:
        namespace = wl.metadata.namespace or ""
        if not wl.metadata.owner_references:
            return []
        if (wl.metadata.annotations or {}).get(P.IS_GROUP_WORKLOAD) == "true":
            return [Request(GROUP_PREFIX + namespace, wl.metadata.name or "")]
        ref = wl.metadata.controller_ref()
        if ref is not None and ref.kind == "Pod" and ref.group == "":  # the core group, any version
            return [Request(namespace, ref.name)]
        return []


class PodIntegration:
    """Answers both kinds of request: single pods through the generic job reconciler, groups
    through :class:`~.group.PodGroupReconciler`."""

    def __init__(self, mgr: KueueManager, integration: JobIntegration) -> None:
        self.single = JobReconciler(mgr, integration)
        self.group = PodGroupReconciler(self.single)

    def reconcile(self, request: Request) -> Result | None:
        if request.namespace.startswith(GROUP_PREFIX):
            return self.group.reconcile(request.namespace[len(GROUP_PREFIX):], request.name)
        return self.single.reconcile(request)


def build(mgr: KueueManager, integration: JobIntegration, name: str) -> Controller:
    """The controller (:func:`..wiring.job_integrations` calls this for the ``pod`` integration)."""
    ids = mgr.settings.on("WorkloadIdentifierAnnotations")
    mgr.ctx.cache.add_index(Pod, BY_GROUP, group_index(ids))
    return (
        mgr.ctx.build(name)
        .describe("Kueue's pod integration (plain pods and pod groups)")
        .watches(Pod, PodRequests(ids))
        .watches(Workload, WorkloadRequests())
        .complete(PodIntegration(mgr, integration))
    )
