"""Kueue's ProvisioningRequest admission check (``kueue.x-k8s.io/provisioning-request``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/`` and the site
page ``site/content/en/docs/admission-check-controllers/provisioning.md``. For a Workload holding
quota whose ClusterQueue names such a check, it asks the cluster-autoscaler for capacity with a
ProvisioningRequest (autoscaling.x-k8s.io/v1) per check and attempt, and turns the answer into the
check's state: Ready (with pod set updates that make the job's pods consume the request), Retry
(the Workload is evicted and requeued with back-off, then a new attempt is made) or Rejected (the
Workload is deactivated).

=================================  ===========================================================
``kueue-provisioning-workload``    :class:`.controller.ProvisioningController` (Workloads)
``kueue-provisioning-check``       :class:`.admissioncheck.CheckActivator` (the checks' Active)
=================================  ===========================================================

The pure parts: :mod:`.naming`, :mod:`.podsets`, :mod:`.checkstate`, :mod:`.config`, :mod:`.templates`.
Both controllers run when the ProvisioningRequest kind is served (upstream:
``ServerSupportsProvisioningRequest``); in kbatch the autoscaling family serves it and its simulated
autoscaler answers (:mod:`kbatch.sim.provisioner`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ProvisioningRequestConfig, Workload
from kbatch.controllers.kueue.provisioning.admissioncheck import (
    CheckActivator,
    CheckWorkloads,
    ConfigChecks,
    ConfigEvents,
    HasChecks,
)
from kbatch.controllers.kueue.provisioning.controller import ProvisioningController

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["setup"]

def setup(mgr: KueueManager) -> None:
    """Adds both controllers to ``mgr`` when ProvisioningRequests are served."""
    ctx = mgr.ctx
    if ProvisioningRequest not in ctx.registry:
        return
    b, cache = ctx.build, ctx.cache
    mgr.controllers["kueue-provisioning-workload"] = (
        b("kueue-provisioning-workload")
        .describe("Kueue's ProvisioningRequest admission check: Workloads")
        .for_(Workload, HasChecks())
        .owns(ProvisioningRequest)
        .watches(AdmissionCheck, CheckWorkloads(cache))
        .watches(ProvisioningRequestConfig, ConfigChecks(cache, True), ConfigEvents())
        .complete(ProvisioningController(mgr))
    )
    mgr.controllers["kueue-provisioning-check"] = (
        b("kueue-provisioning-check")
        .describe("Kueue's ProvisioningRequest admission check: the checks' Active condition")
        .for_(AdmissionCheck)
        .watches(ProvisioningRequestConfig, ConfigChecks(cache, False))
        .complete(CheckActivator(mgr))
    )
