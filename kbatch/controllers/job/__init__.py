"""The batch/v1 Job controller: a pure decision core (``sync_job``) and its wiring on the runtime.

Upstream: kubernetes/kubernetes pkg/controller/job (every Job feature gate on, Kubernetes 1.34).
See docs/job.md for what is implemented and every deliberate difference.
"""

from kbatch.controllers.job.actions import Event, PodCreate, PodDelete, SyncPlan
from kbatch.controllers.job.backoff import BackoffRecord
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.sync import complete_sync, sync_job, sync_job_fully
from kbatch.controllers.job.views import (
    ContainerInfo,
    ExitCodesRule,
    JobCondition,
    JobInfo,
    JobStatusInfo,
    PodConditionInfo,
    PodFailurePolicyRule,
    PodInfo,
    SuccessPolicyRule,
)
from kbatch.controllers.job.wiring import setup

__all__ = [
    "BackoffRecord",
    "ContainerInfo",
    "Event",
    "ExitCodesRule",
    "JobCondition",
    "JobInfo",
    "JobStatusInfo",
    "PodConditionInfo",
    "PodCreate",
    "PodDelete",
    "PodFailurePolicyRule",
    "PodInfo",
    "SuccessPolicyRule",
    "SyncConfig",
    "SyncPlan",
    "complete_sync",
    "setup",
    "sync_job",
    "sync_job_fully",
]
