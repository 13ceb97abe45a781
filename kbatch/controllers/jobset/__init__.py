"""The JobSet controller (jobset.x-k8s.io/v1alpha2): a pure decision (:func:`sync_jobset`), its
effects (:class:`JobSetReconciler`), the webhooks as admission plugins and the exclusive-placement
pod controller.

Upstream: kubernetes-sigs/jobset v0.12.0 ``pkg/controllers``, ``pkg/webhooks``. See docs/jobset.md
for what is implemented and every deliberate difference.
"""

from kbatch.controllers.jobset.actions import Event, JobCreate, JobResume, JobScale, Plan
from kbatch.controllers.jobset.build import build_claims, build_job, build_service, merge_for_resume
from kbatch.controllers.jobset.controller import JobSetReconciler, ReconcileError
from kbatch.controllers.jobset.names import coordinator_endpoint, job_key, job_name, pvc_name
from kbatch.controllers.jobset.sync import sync_jobset
from kbatch.controllers.jobset.views import (
    ChildJob,
    Cond,
    FailureRule,
    Gates,
    JobSetView,
    PodView,
    RJob,
    RJobStatus,
    Status,
)
from kbatch.controllers.jobset.wiring import POD_CONTROLLER, setup

__all__ = [
    "POD_CONTROLLER",
    "ChildJob",
    "Cond",
    "Event",
    "FailureRule",
    "Gates",
    "JobCreate",
    "JobResume",
    "JobScale",
    "JobSetReconciler",
    "JobSetView",
    "Plan",
    "PodView",
    "RJob",
    "RJobStatus",
    "ReconcileError",
    "Status",
    "build_claims",
    "build_job",
    "build_service",
    "coordinator_endpoint",
    "job_key",
    "job_name",
    "merge_for_resume",
    "pvc_name",
    "setup",
    "sync_jobset",
]
