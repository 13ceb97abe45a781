"""MultiKueue (KEP 693, Kueue v0.19.2, gate ``MultiKueue``, beta, on): one manager cluster queues and
admits a Workload on its own quota, then dispatches it to worker clusters and follows the one that
admits it; the job runs on that worker and its status is copied back.

Upstream: kubernetes-sigs/kueue ``pkg/controller/admissionchecks/multikueue/`` (``controllers.go``
wires these). Controllers of the ``kueue`` manager (the ClusterQueue one only with the alpha gate
``MultiKueueManagerQuotaAutomation``):

==========================================  ====================================================
``kueue-multikueue-cluster``                :class:`.clusters.Clusters` — clients, ``Active``
``kueue-multikueue-admissioncheck``         :class:`.admissioncheck.ACReconciler` — the check's ``Active``
``kueue-multikueue-workload``               :class:`.workload.WorkloadReconciler` — dispatch and sync
``kueue-multikueue-incremental-dispatcher`` :class:`.dispatcher.IncrementalDispatcher` (``dispatcherName``)
``kueue-multikueue-clusterqueue``           :class:`.quota_reconciler.QuotaReconciler` — quota automation
(handlers)                                  :mod:`.quota_events` — what requeues it, workers' queues too
(timer)                                     :class:`.gc.GarbageCollector` — orphans, every ``gcInterval``
(handler)                                   :class:`.config_events.ConfigWorkloads` — config edits → Workloads
(stepper)                                   :class:`.inbox.RemoteInbox` — HTTP workers' watch events
==========================================  ====================================================

Workers are reached through :class:`.remote.RemoteCluster`: over HTTP (:mod:`.http_remote`, watched
by :mod:`.watch_stream`) or, for tests, in the same process (:mod:`.inprocess`, server
``kbatch+inprocess://NAME``). :mod:`.metrics` counts dispatches and admissions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.api.core_v1 import Secret
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    MultiKueueCluster,
    MultiKueueConfig,
    Workload,
)
from kbatch.api.multicluster_v1alpha1 import ClusterProfile
from kbatch.controllers.kueue.multikueue.adapters import JobAdapter, JobSetAdapter, MultiKueueAdapter
from kbatch.controllers.kueue.multikueue.admissioncheck import (
    ACReconciler,
    ActiveChanged,
    ClustersChanged,
    checks_using_cluster,
    checks_using_config,
)
from kbatch.controllers.kueue.multikueue.clusters import CLUSTER_PROFILE_GATE, QUOTA_AUTOMATION_GATE, Clusters
from kbatch.controllers.kueue.multikueue.config_events import ConfigWorkloads
from kbatch.controllers.kueue.multikueue.context import (
    AC_CONTROLLER,
    CLUSTER_CONTROLLER,
    MULTIKUEUE,
    WORKLOAD_CONTROLLER,
    MultiKueueContext,
)
from kbatch.controllers.kueue.multikueue.dispatcher import IncrementalDispatcher
from kbatch.controllers.kueue.multikueue.gc import GarbageCollector
from kbatch.controllers.kueue.multikueue.inprocess import attach_worker, set_reachable
from kbatch.controllers.kueue.multikueue.options import INCREMENTAL, options_from
from kbatch.controllers.kueue.multikueue.pod_adapter import PodAdapter
from kbatch.controllers.kueue.multikueue.profile_access import profiles_served
from kbatch.controllers.kueue.multikueue.quota_events import local_event_handlers
from kbatch.controllers.kueue.multikueue.quota_reconciler import QUOTA_CONTROLLER, QuotaReconciler
from kbatch.controllers.kueue.multikueue.workload import DeletedWorkloads, WorkloadReconciler, has_checks
from kbatch.runtime.predicate import GenerationChanged, predicate_func
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["MULTIKUEUE", "attach_worker", "set_reachable", "setup"]

DISPATCHER = "kueue-multikueue-incremental-dispatcher"


class _ConfigChecks:
    """MultiKueueConfig events → the checks naming it (``mkConfigHandler``, filtered by
    :class:`.admissioncheck.ClustersChanged`); an update maps one name (``oldMKC.Name``, the new's)."""

    maps_old_on_update = False

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, config: MultiKueueConfig) -> list[Request]:
        return [Request("", n) for n in checks_using_config(self.cache, config.metadata.name or "")]


class _ClusterChecks:
    """MultiKueueCluster events → the checks of the configs naming it (``mkClusterHandler``, filtered by
    :class:`.admissioncheck.ActiveChanged`); an update maps the new object only (``queue(newMKC)``)."""

    maps_old_on_update = False

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, cluster: MultiKueueCluster) -> list[Request]:
        return [Request("", n) for n in checks_using_cluster(self.cache, cluster.metadata.name or "")]


class _ClustersNaming:
    """Events of an object in Kueue's namespace → the MultiKueueClusters whose source names it
    (``secretHandler`` for kubeconfig Secrets, ``clusterProfileHandler`` for ClusterProfiles)."""

    def __init__(self, cache: Any, namespace: str, names: Callable[[Any], str | None]) -> None:
        self.cache, self.namespace, self.names = cache, namespace, names

    def __call__(self, obj: Any) -> list[Request]:
        if obj.metadata.namespace != self.namespace:
            return []
        name = obj.metadata.name
        out = []
        for cluster in self.cache.list(MultiKueueCluster):
            source = cluster.spec.cluster_source if cluster.spec else None
            if source is not None and self.names(source) == name:
                out.append(Request("", cluster.metadata.name or ""))
        return out


def _kubeconfig_secret(source: Any) -> str | None:
    """The Secret a cluster source's kubeconfig is read from, if it is read from one."""
    ref = source.kube_config
    return ref.location if ref is not None and (ref.location_type or "Secret") == "Secret" else None


def _profile(source: Any) -> str | None:
    ref = source.cluster_profile_ref
    return ref.name if ref is not None else None


def adapters_for(mgr: KueueManager) -> dict[str, MultiKueueAdapter]:
    """The adapters of the enabled integrations (``batch/job``, ``jobset.x-k8s.io/jobset``, ``pod``)."""
    ctx = mgr.ctx
    out: dict[str, MultiKueueAdapter] = {}
    frameworks = mgr.settings.frameworks
    ids = mgr.settings.on("WorkloadIdentifierAnnotations")
    if "batch/job" in frameworks:
        on = mgr.settings.on
        elastic, short = on("ElasticJobsViaWorkloadSlices"), on("ShortWorkloadNames")
        job = JobAdapter(ctx.client, ctx.clock.now_datetime, ids, elastic, short)
        out[job.gvk] = job
    if "jobset.x-k8s.io/jobset" in frameworks:
        jobset = JobSetAdapter(ctx.client, ids)
        out[jobset.gvk] = jobset
    if "pod" in frameworks:
        pod = PodAdapter(ctx.client, ctx.cache, ids)
        out[pod.gvk] = pod
    return out


def setup(mgr: KueueManager) -> MultiKueueContext:
    ctx = mgr.ctx
    mk = MultiKueueContext(mgr, options_from(mgr.settings.config.multi_kueue), adapters_for(mgr))
    mk.clusters = Clusters(mk)
    b = ctx.build
    namespace = mgr.settings.config.namespace
    clusters = (
        b(CLUSTER_CONTROLLER)
        .describe("MultiKueue's clusters: remote clients and their Active condition")
        .for_(MultiKueueCluster)
        .watches(Secret, _ClustersNaming(ctx.cache, namespace, _kubeconfig_secret))
    )
    if mgr.settings.on(CLUSTER_PROFILE_GATE) and profiles_served(ctx.registry):  # upstream: with the gate
        clusters = clusters.watches(ClusterProfile, _ClustersNaming(ctx.cache, namespace, _profile))
    mgr.controllers[CLUSTER_CONTROLLER] = clusters.complete(mk.clusters)
    mgr.controllers[AC_CONTROLLER] = (
        b(AC_CONTROLLER)
        .describe("MultiKueue's admission checks: Active from their clusters")
        .for_(AdmissionCheck)
        .watches(MultiKueueConfig, _ConfigChecks(ctx.cache), ClustersChanged())
        .watches(MultiKueueCluster, _ClusterChecks(ctx.cache), ActiveChanged())
        .complete(ACReconciler(mk))
    )
    if mgr.settings.on(QUOTA_AUTOMATION_GATE):  # controllers.go: newCQReconciler, with the gate
        mgr.controllers[QUOTA_CONTROLLER] = (
            b(QUOTA_CONTROLLER)
            .describe("MultiKueue manager quota automation: ClusterQueue quotas from the workers'")
            .for_(ClusterQueue, GenerationChanged())
            .complete(QuotaReconciler(mk))
        )
        for kind, handler in local_event_handlers(mk):
            ctx.cache.informer_for(kind).add_event_handler(handler)
    deleted = DeletedWorkloads()
    ctx.cache.informer_for(Workload).add_event_handler(deleted)
    ctx.cache.informer_for(MultiKueueConfig).add_event_handler(ConfigWorkloads(mk))
    mgr.controllers[WORKLOAD_CONTROLLER] = (
        b(WORKLOAD_CONTROLLER)
        .describe("MultiKueue's workloads: dispatch to workers, follow the admitting one")
        .for_(Workload, predicate_func(has_checks))
        .complete(WorkloadReconciler(mk, deleted))
    )
    if mk.options.dispatcher_name == INCREMENTAL:
        mgr.controllers[DISPATCHER] = (
            b(DISPATCHER)
            .describe("MultiKueue's Incremental dispatcher: workers nominated a few at a time")
            .for_(Workload, predicate_func(has_checks))
            .complete(IncrementalDispatcher(mk, mk.options.step_size))
        )
    GarbageCollector(mk).start()
    ctx.published.put(MULTIKUEUE, mk)
    return mk
