"""scheduling.x-k8s.io/v1alpha1 PodGroup: the scheduler-plugins Coscheduling API.

As kubernetes-sigs/scheduler-plugins HEAD (``apis/scheduling/v1alpha1/types.go``, the CRD
``config/crd/bases/scheduling.x-k8s.io_podgroups.yaml``): ``spec.minMember`` (minimum 1; absent is
Go's 0, which every check treats as "no quorum"), ``spec.minResources``, ``spec.scheduleTimeoutSeconds``;
status ``phase`` (Pending, Scheduling, Running, Unknown, Finished, Failed; ``PreScheduling`` and
``Scheduled`` were removed upstream in 2023, PR #574), ``occupiedBy``, ``running``, ``succeeded``,
``failed``, ``scheduleStartTime``. Pods join a group with the label
``scheduling.x-k8s.io/pod-group: <name>`` (same namespace). Short names ``pg``, ``pgs``.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1.common import ResourceList
from kbatch.api.meta import Resource

__all__ = [
    "FAILED",
    "FINISHED",
    "PENDING",
    "POD_GROUP_LABEL",
    "RUNNING",
    "SCHEDULING",
    "UNKNOWN",
    "PodGroup",
    "PodGroupSpec",
    "PodGroupStatus",
]

GROUP = "scheduling.x-k8s.io"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"  # v1alpha1.PodGroupLabel

PENDING, SCHEDULING, RUNNING = "Pending", "Scheduling", "Running"
UNKNOWN, FINISHED, FAILED = "Unknown", "Finished", "Failed"


class PodGroupSpec(KubeModel):
    min_member: int | None = None
    min_resources: ResourceList | None = None
    schedule_timeout_seconds: int | None = None


class PodGroupStatus(KubeModel):
    phase: str | None = None
    occupied_by: str | None = None
    running: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    schedule_start_time: Time | None = None


class PodGroup(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP, version="v1alpha1", kind="PodGroup", plural="podgroups", namespaced=True,
        short_names=("pg", "pgs"), singular="podgroup",
    )

    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus | None = None

    @property
    def min_member(self) -> int:
        """``spec.minMember`` as Go reads it (absent is 0)."""
        return self.spec.min_member or 0
