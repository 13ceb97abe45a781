"""Kueue v0.19's manager on kbatch's runtime: one catalog entry (``kueue``), several controllers.

Upstream: kubernetes-sigs/kueue ``cmd/kueue/main.go`` and ``pkg/controller/core``,
``pkg/scheduler``, ``pkg/controller/jobframework`` (v0.19.2). The pure decision code lives in
:mod:`.scheduling` (snapshot, flavor assigner, preemptor, ordering, the cycle) and :mod:`.model`
(quota tree, workload info); :mod:`.workloads` holds the status transitions. The effectful parts are
thin controllers over them:

========================  ==================================================================
``kueue-scheduler``       :class:`.scheduler.Scheduler` — runs a cycle, applies it
``kueue-requeue``         :class:`.requeue.InadmissibleRequeuer` — batched requeue of inadmissible workloads
``kueue-workload``        :class:`.workload_controller.WorkloadReconciler`
``kueue-clusterqueue``    :class:`.status.ClusterQueueStatus`
``kueue-localqueue``      :class:`.status.LocalQueueStatus`
``kueue-cohort``          :class:`.status.CohortStatus`
``kueue-resourceflavor``  :class:`.status.ResourceFlavorFinalizer`
``kueue-admissioncheck``  :class:`.admissionchecks.AdmissionCheckFinalizer`
``kueue-priorityclass``   :class:`.priorityclasses.PriorityClassPropagator`
``kueue-job-<name>``      :class:`.jobframework.reconciler.JobReconciler`, one per enabled integration
``kueue-tas-topology-…``  :class:`.tas.ungater.TopologyUngater` (TopologyAwareScheduling)
``kueue-tas-node-…``      :class:`.tas.node_failure.NodeFailureController` (TASFailedNodeReplacement)
``kueue-provisioning-…``  :mod:`.provisioning`: the ProvisioningRequest admission check
``kueue-multikueue-…``    :mod:`.multikueue`: clusters, admission checks, workloads (MultiKueue)
``kueue-concurrent-…``    :mod:`.concurrent_admission`: a parent's Variants (ConcurrentAdmission)
========================  ==================================================================

The webhooks are admission plugins (:mod:`.webhooks`), so they work whatever controllers run.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import LimitRange, Namespace, Node, Pod
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    Cohort,
    LocalQueue,
    ResourceFlavor,
    Workload,
    WorkloadPriorityClass,
)
from kbatch.api.node_v1 import RuntimeClass
from kbatch.api.resource_v1.claim import ResourceClaimTemplate
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.controllers.kueue import metrics
from kbatch.controllers.kueue.admissionchecks import AdmissionCheckFinalizer
from kbatch.controllers.kueue.dra_handlers import DeviceClassHandler, ResourceSliceHandler
from kbatch.controllers.kueue.jobframework.reconciler import JobReconciler
from kbatch.controllers.kueue.manager import (
    KUEUE_MANAGER,
    CheckHandler,
    ClusterQueueHandler,
    CohortHandler,
    FlavorHandler,
    KueueManager,
    LocalQueueHandler,
    NamespaceHandler,
    WorkloadHandler,
)
from kbatch.controllers.kueue.podintegration.controller import build as build_pod_controller
from kbatch.controllers.kueue.priorityclasses import PRIORITY_CLASS_EVENTS, PriorityClassPropagator
from kbatch.controllers.kueue.provisioning import setup as setup_provisioning
from kbatch.controllers.kueue.requeue import InadmissibleRequeuer
from kbatch.controllers.kueue.resource_updates import LimitRangeHandler, RuntimeClassHandler
from kbatch.controllers.kueue.scheduler import Scheduler
from kbatch.controllers.kueue.status import (
    ClusterQueueStatus,
    CohortStatus,
    LocalQueueStatus,
    ResourceFlavorFinalizer,
)
from kbatch.controllers.kueue.tas.node_failure import NodeFailureController, NodeFailureEvents, PodNode
from kbatch.controllers.kueue.tas.nodes import TASNodeHandler
from kbatch.controllers.kueue.tas.ungater import (
    PodWorkload,
    TopologyUngater,
    admitted_by_tas,
    admitted_by_tas_not_variant,
)
from kbatch.controllers.kueue.watches import CHECK_EVENTS, COHORT_EVENTS, FLAVOR_EVENTS
from kbatch.controllers.kueue.workload_controller import WorkloadReconciler
from kbatch.controllers.kueue.workloadslicing.ungater import ActiveSlice, ElasticJobUngater
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs, predicate_func
from kbatch.runtime.reconcile import Request

__all__ = ["KueueManager", "setup"]


class _OwnerMapper:
    """Workload events → the job that controls them (``Owns(&kueue.Workload{})``)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, wl: Any) -> list[Request]:
        ref = wl.metadata.controller_ref()
        if ref is None or ref.kind != self.kind:
            return []
        return [Request(wl.metadata.namespace or "", ref.name)]


class _ChildJobs:
    """A Workload created or updated → the batch Jobs its owner controls (``parentWorkloadHandler``,
    kueue ``pkg/controller/jobs/job/job_controller.go``: the child jobs of a JobSet, say, whose
    suspension follows their parent's Workload; deletes are ignored, as upstream's handler does)."""

    __slots__ = ("cache",)
    maps_old_on_update = False  # Update reads ``ObjectNew`` only

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, wl: Any) -> list[Request]:
        from kbatch.api.batch_v1 import Job
        from kbatch.runtime.cache.indexer import BY_OWNER_UID

        owner = wl.metadata.controller_ref()
        if owner is None:
            return []
        namespace = wl.metadata.namespace or ""
        jobs = self.cache.list(Job, namespace, index=(BY_OWNER_UID, owner.uid))
        return [Request(namespace, job.metadata.name or "") for job in jobs]

    def __getstate__(self) -> Any:
        return self.cache

    def __setstate__(self, state: Any) -> None:
        self.cache = state


_NO_DELETES = Funcs(delete=False)


def _integrations(mgr: KueueManager) -> list[Any]:
    enabled = set(mgr.settings.frameworks)
    seen: set[str] = set()
    out = []
    for integ in mgr.ctx.composition.job_integrations:
        if integ.name in enabled and integ.name not in seen:
            seen.add(integ.name)
            out.append(integ)
    return out


def setup(ctx: ControllerContext) -> KueueManager:
    mgr = KueueManager(ctx)
    ctx.published.put(KUEUE_MANAGER, mgr)
    metrics.install(mgr)
    mgr.integrations = _integrations(mgr)
    b = ctx.build
    mgr.controllers["kueue-scheduler"] = (
        b("kueue-scheduler").describe("Kueue's scheduler").complete(Scheduler(mgr))
    )
    mgr.controllers["kueue-requeue"] = (
        b("kueue-requeue").describe("requeues inadmissible workloads").complete(InadmissibleRequeuer(mgr))
    )
    mgr.controllers["kueue-workload"] = b("kueue-workload").for_(Workload).complete(WorkloadReconciler(mgr))
    mgr.controllers["kueue-clusterqueue"] = (
        b("kueue-clusterqueue").for_(ClusterQueue).complete(ClusterQueueStatus(mgr))
    )
    mgr.controllers["kueue-localqueue"] = (
        b("kueue-localqueue").for_(LocalQueue).complete(LocalQueueStatus(mgr))
    )
    mgr.controllers["kueue-cohort"] = (
        b("kueue-cohort").for_(Cohort, COHORT_EVENTS).complete(CohortStatus(mgr))
    )
    mgr.controllers["kueue-resourceflavor"] = (
        b("kueue-resourceflavor").for_(ResourceFlavor, FLAVOR_EVENTS).complete(ResourceFlavorFinalizer(mgr))
    )
    mgr.controllers["kueue-admissioncheck"] = (
        b("kueue-admissioncheck").for_(AdmissionCheck, CHECK_EVENTS).complete(AdmissionCheckFinalizer(mgr))
    )
    mgr.controllers["kueue-priorityclass"] = (
        b("kueue-priorityclass")
        .for_(WorkloadPriorityClass, PRIORITY_CLASS_EVENTS)
        .complete(PriorityClassPropagator(mgr))
    )
    for integ in mgr.integrations:
        name = f"kueue-job-{integ.name.replace('/', '-').replace('.', '-')}"
        if integ.name == "pod":  # plain pods and pod groups: requests of their own (podintegration/)
            mgr.controllers[name] = build_pod_controller(mgr, integ, name)
            continue
        builder = (
            b(name)
            .describe(f"Kueue's {integ.name} integration")
            .for_(integ.model)
            .watches(Workload, _OwnerMapper(integ.model.api_info.kind))
        )
        if integ.name == "batch/job":
            builder = builder.watches(Workload, _ChildJobs(ctx.cache), _NO_DELETES)
        mgr.controllers[name] = builder.complete(JobReconciler(mgr, integ))
    if mgr.settings.on("ElasticJobsViaWorkloadSlices"):  # pkg/controller/elasticjobs
        active = ActiveSlice(ctx.cache, True)
        mgr.controllers["kueue-elastic-job-ungater"] = (
            b("kueue-elastic-job-ungater")
            .describe("Kueue's ElasticJobUngater")
            .watches(Workload, active)
            .watches(Pod, active)
            .complete(ElasticJobUngater(ctx, active))
        )
    if mgr.settings.on("TopologyAwareScheduling"):
        ctx.cache.informer_for(Node).add_event_handler(TASNodeHandler(mgr))
        mgr.controllers["kueue-tas-topology-ungater"] = (
            b("kueue-tas-topology-ungater")
            .describe("Kueue's TopologyUngater")
            .for_(
                Workload,
                predicate_func(
                    admitted_by_tas_not_variant if mgr.settings.on("ConcurrentAdmission") else admitted_by_tas
                ),
            )
            .watches(Pod, PodWorkload())
            .complete(TopologyUngater(ctx, elastic=mgr.settings.on("ElasticJobsViaWorkloadSlicesWithTAS")))
        )
        if mgr.settings.on("TASFailedNodeReplacement"):
            mgr.controllers["kueue-tas-node-failure"] = (
                b("kueue-tas-node-failure")
                .describe("Kueue's TAS node controller: failed nodes of TAS Workloads")
                .for_(Node, NodeFailureEvents(mgr.settings.on("TASReplaceNodeOnNodeTaints")))
                .watches(Pod, PodNode())
                .complete(NodeFailureController(mgr))
            )
    setup_provisioning(mgr)  # admissionchecks/provisioning: when ProvisioningRequests are served
    if mgr.settings.on("MultiKueue"):
        from kbatch.controllers.kueue import multikueue

        multikueue.setup(mgr)
    if mgr.settings.on("ConcurrentAdmission"):
        from kbatch.controllers.kueue import concurrent_admission

        concurrent_admission.setup(mgr)
    informers = ctx.cache
    informers.informer_for(Workload).add_event_handler(WorkloadHandler(mgr))
    informers.informer_for(ClusterQueue).add_event_handler(ClusterQueueHandler(mgr))
    informers.informer_for(LocalQueue).add_event_handler(LocalQueueHandler(mgr))
    informers.informer_for(Cohort).add_event_handler(CohortHandler(mgr))
    informers.informer_for(ResourceFlavor).add_event_handler(FlavorHandler(mgr))
    informers.informer_for(AdmissionCheck).add_event_handler(CheckHandler(mgr))
    informers.informer_for(Namespace).add_event_handler(NamespaceHandler(mgr))
    informers.informer_for(LimitRange).add_event_handler(LimitRangeHandler(mgr))
    informers.informer_for(RuntimeClass).add_event_handler(RuntimeClassHandler(mgr))
    if mgr.dra.enabled:  # the workload controller reads templates through the cache (claims.go)
        informers.informer_for(ResourceClaimTemplate)
        informers.informer_for(DeviceClass)  # and DeviceClasses and ResourceSlices (selector checks)
        informers.informer_for(ResourceSlice)
        if mgr.dra.gates.extended:  # deviceClassHandler
            informers.informer_for(DeviceClass).add_event_handler(DeviceClassHandler(mgr))
        if mgr.dra.drivers:  # ResourceSliceReconciler: it ignores every other driver's slices
            informers.informer_for(ResourceSlice).add_event_handler(ResourceSliceHandler(mgr))
    return mgr
