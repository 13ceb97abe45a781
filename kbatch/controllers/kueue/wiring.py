"""How the ``kueue`` manager wires its controllers and handlers onto kbatch's runtime, one function per
group; :func:`kbatch.controllers.kueue.setup` calls them in a fixed order (informer handlers run in
the order they were added, so the order is part of a run's determinism).

Upstream: kubernetes-sigs/kueue v0.19.2 ``cmd/kueue/main.go`` (``setupControllers``),
``pkg/controller/core/core.go`` (``SetupControllers``), ``pkg/controller/jobframework/setup.go``,
``pkg/controller/tas/controllers.go``, ``pkg/controller/elasticjobs``. The optional groups that have a
package of their own wire themselves: :func:`.provisioning.setup`, :func:`.multikueue.setup`,
:func:`.concurrent_admission.setup`; :func:`.metrics.install` registers the metrics.
"""

from __future__ import annotations

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
from kbatch.controllers.kueue.admissionchecks import AdmissionCheckFinalizer
from kbatch.controllers.kueue.dra_handlers import DeviceClassHandler, ResourceSliceHandler
from kbatch.controllers.kueue.jobframework.reconciler import JobReconciler
from kbatch.controllers.kueue.jobframework.watches import ChildJobs
from kbatch.controllers.kueue.manager import (
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
from kbatch.families.family import JobIntegration
from kbatch.runtime.builder import Builder
from kbatch.runtime.predicate import Funcs, predicate_func
from kbatch.runtime.reconcile import Reconciler

__all__ = ["core", "dra_informers", "elastic_jobs", "enabled_integrations", "job_integrations",
           "queue_handlers", "tas"]

_NO_DELETES = Funcs(delete=False)


def _add(mgr: KueueManager, builder: Builder, reconciler: Reconciler) -> None:
    controller = builder.complete(reconciler)
    mgr.controllers[controller.name] = controller


def core(mgr: KueueManager) -> None:
    """The scheduler, the inadmissible requeuer and the core reconcilers (``core.SetupControllers``)."""
    b = mgr.ctx.build
    _add(mgr, b("kueue-scheduler").describe("Kueue's scheduler"), Scheduler(mgr))
    _add(mgr, b("kueue-requeue").describe("requeues inadmissible workloads"), InadmissibleRequeuer(mgr))
    _add(mgr, b("kueue-workload").for_(Workload), WorkloadReconciler(mgr))
    _add(mgr, b("kueue-clusterqueue").for_(ClusterQueue), ClusterQueueStatus(mgr))
    _add(mgr, b("kueue-localqueue").for_(LocalQueue), LocalQueueStatus(mgr))
    _add(mgr, b("kueue-cohort").for_(Cohort, COHORT_EVENTS), CohortStatus(mgr))
    _add(mgr, b("kueue-resourceflavor").for_(ResourceFlavor, FLAVOR_EVENTS), ResourceFlavorFinalizer(mgr))
    _add(mgr, b("kueue-admissioncheck").for_(AdmissionCheck, CHECK_EVENTS), AdmissionCheckFinalizer(mgr))
    priority_classes = b("kueue-priorityclass").for_(WorkloadPriorityClass, PRIORITY_CLASS_EVENTS)
    _add(mgr, priority_classes, PriorityClassPropagator(mgr))


def enabled_integrations(mgr: KueueManager) -> list[JobIntegration]:
    """The composition's job integrations that the configuration's ``integrations.frameworks`` enables,
    each once, in the composition's order."""
    enabled = set(mgr.settings.frameworks)
    seen: set[str] = set()
    out = []
    for integ in mgr.ctx.composition.job_integrations:
        if integ.name in enabled and integ.name not in seen:
            seen.add(integ.name)
            out.append(integ)
    return out


def job_integrations(mgr: KueueManager) -> None:
    """One ``kueue-job-<name>`` controller per enabled integration (``jobframework.SetupControllers``):
    the job kind and the Workloads it owns; batch/v1 Jobs also follow their parent's Workload
    (``parentWorkloadHandler``); plain pods and pod groups have a controller of their own
    (:mod:`.podintegration`)."""
    for integ in mgr.integrations:
        name = f"kueue-job-{integ.name.replace('/', '-').replace('.', '-')}"
        if integ.name == "pod":
            mgr.controllers[name] = build_pod_controller(mgr, integ, name)
            continue
        builder = (
            mgr.ctx.build(name)
            .describe(f"Kueue's {integ.name} integration")
            .for_(integ.model)
            .owns(Workload)  # EnqueueRequestForOwner: group and kind
        )
        if integ.name == "batch/job":
            builder = builder.watches(Workload, ChildJobs(mgr.ctx.cache), _NO_DELETES)
        _add(mgr, builder, JobReconciler(mgr, integ))


def elastic_jobs(mgr: KueueManager) -> None:
    """The ElasticJobUngater, with ``ElasticJobsViaWorkloadSlices`` (``pkg/controller/elasticjobs``)."""
    if not mgr.settings.on("ElasticJobsViaWorkloadSlices"):
        return
    ctx = mgr.ctx
    active = ActiveSlice(ctx.cache, True)
    builder = ctx.build("kueue-elastic-job-ungater").describe("Kueue's ElasticJobUngater")
    _add(mgr, builder.watches(Workload, active).watches(Pod, active), ElasticJobUngater(ctx, active))


def tas(mgr: KueueManager) -> None:
    """With ``TopologyAwareScheduling`` (``tas.SetupControllers``): the Node handler feeding the TAS
    cache, the TopologyUngater (Variants left out with ``ConcurrentAdmission``) and, with
    ``TASFailedNodeReplacement``, the node failure controller."""
    on = mgr.settings.on
    if not on("TopologyAwareScheduling"):
        return
    ctx = mgr.ctx
    ctx.cache.informer_for(Node).add_event_handler(TASNodeHandler(mgr))
    admitted = admitted_by_tas_not_variant if on("ConcurrentAdmission") else admitted_by_tas
    ungater = (
        ctx.build("kueue-tas-topology-ungater")
        .describe("Kueue's TopologyUngater")
        .for_(Workload, predicate_func(admitted))
        .watches(Pod, PodWorkload())
    )
    _add(mgr, ungater, TopologyUngater(ctx, elastic=on("ElasticJobsViaWorkloadSlicesWithTAS")))
    if on("TASFailedNodeReplacement"):
        nodes = (
            ctx.build("kueue-tas-node-failure")
            .describe("Kueue's TAS node controller: failed nodes of TAS Workloads")
            .for_(Node, NodeFailureEvents(on("TASReplaceNodeOnNodeTaints")))
            .watches(Pod, PodNode())
        )
        _add(mgr, nodes, NodeFailureController(mgr))


def queue_handlers(mgr: KueueManager) -> None:
    """The informer handlers that keep the queue manager and the cache current (upstream: the core
    reconcilers' event methods, ``WorkloadReconciler.Create``, ``ClusterQueueReconciler.Create``, …,
    in ``pkg/controller/core``)."""
    informers = mgr.ctx.cache
    informers.informer_for(Workload).add_event_handler(WorkloadHandler(mgr))
    informers.informer_for(ClusterQueue).add_event_handler(ClusterQueueHandler(mgr))
    informers.informer_for(LocalQueue).add_event_handler(LocalQueueHandler(mgr))
    informers.informer_for(Cohort).add_event_handler(CohortHandler(mgr))
    informers.informer_for(ResourceFlavor).add_event_handler(FlavorHandler(mgr))
    informers.informer_for(AdmissionCheck).add_event_handler(CheckHandler(mgr))
    informers.informer_for(Namespace).add_event_handler(NamespaceHandler(mgr))
    informers.informer_for(LimitRange).add_event_handler(LimitRangeHandler(mgr))
    informers.informer_for(RuntimeClass).add_event_handler(RuntimeClassHandler(mgr))


def dra_informers(mgr: KueueManager) -> None:
    """With DRA: the workload controller reads ResourceClaimTemplates, DeviceClasses and ResourceSlices
    through the cache (``claims.go``, selector checks); with extended resources the DeviceClass handler
    (``deviceClassHandler``), with configured drivers the ResourceSliceReconciler's (every other driver's
    slices ignored)."""
    if not mgr.dra.enabled:
        return
    informers = mgr.ctx.cache
    informers.informer_for(ResourceClaimTemplate)
    informers.informer_for(DeviceClass)
    informers.informer_for(ResourceSlice)
    if mgr.dra.gates.extended:
        informers.informer_for(DeviceClass).add_event_handler(DeviceClassHandler(mgr))
    if mgr.dra.drivers:
        informers.informer_for(ResourceSlice).add_event_handler(ResourceSliceHandler(mgr))
