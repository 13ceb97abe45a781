"""Kueue v0.19's manager on kbatch's runtime: one catalog entry (``kueue``), several controllers.

Upstream: kubernetes-sigs/kueue ``cmd/kueue/main.go`` and ``pkg/controller/core``,
``pkg/scheduler``, ``pkg/controller/jobframework`` (v0.19.2). The pure decision code lives in
:mod:`.scheduling` (snapshot, flavor assigner, preemptor, ordering, the cycle) and :mod:`.model`
(quota tree, workload info); :mod:`.workloads` holds the status transitions. The effectful parts are
thin controllers over them, wired by :mod:`.wiring` (one function per group) and the optional groups'
own ``setup``:

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
``kueue-elastic-job-…``   :class:`.workloadslicing.ungater.ElasticJobUngater` (ElasticJobsViaWorkloadSlices)
``kueue-tas-topology-…``  :class:`.tas.ungater.TopologyUngater` (TopologyAwareScheduling)
``kueue-tas-node-…``      :class:`.tas.node_failure.NodeFailureController` (TASFailedNodeReplacement)
``kueue-provisioning-…``  :mod:`.provisioning`: the ProvisioningRequest admission check
``kueue-multikueue-…``    :mod:`.multikueue`: clusters, admission checks, workloads (MultiKueue)
``kueue-concurrent-…``    :mod:`.concurrent_admission`: a parent's Variants (ConcurrentAdmission)
========================  ==================================================================

Informer handlers keep the queue manager and the cache current (:mod:`.manager`'s ``…Handler``
classes, :func:`.wiring.queue_handlers`). The webhooks are admission plugins (:mod:`.webhooks`), so
they work whatever controllers run.
"""

from __future__ import annotations

from kbatch.controllers.kueue import metrics, wiring
from kbatch.controllers.kueue.manager import KUEUE_MANAGER, KueueManager
from kbatch.controllers.kueue.provisioning import setup as setup_provisioning
from kbatch.runtime.context import ControllerContext

__all__ = ["KueueManager", "setup"]


def setup(ctx: ControllerContext) -> KueueManager:
    """The ``kueue`` catalog entry: the manager, published for the API server's views, and its
    controllers and handlers (:mod:`.wiring`; the order is the informers' handler order)."""
    mgr = KueueManager(ctx)
    ctx.published.put(KUEUE_MANAGER, mgr)
    metrics.install(mgr)
    mgr.integrations = wiring.enabled_integrations(mgr)
    wiring.core(mgr)
    wiring.job_integrations(mgr)
    wiring.elastic_jobs(mgr)
    wiring.tas(mgr)
    setup_provisioning(mgr)  # admissionchecks/provisioning: when ProvisioningRequests are served
    if mgr.settings.on("MultiKueue"):
        from kbatch.controllers.kueue import multikueue

        multikueue.setup(mgr)
    if mgr.settings.on("ConcurrentAdmission"):
        from kbatch.controllers.kueue import concurrent_admission

        concurrent_admission.setup(mgr)
    wiring.queue_handlers(mgr)
    wiring.dra_informers(mgr)
    return mgr
