"""The effects a Job sync asks for, as values: pods to create and delete, events, the plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch.controllers.job.backoff import BackoffRecord
from kbatch.controllers.job.pod_template import build_pod
from kbatch.controllers.job.views import JobCondition, JobInfo, JobStatusInfo, PodInfo

__all__ = ["Event", "PodCreate", "PodDelete", "SyncPlan"]


@dataclass(frozen=True, slots=True)
class PodCreate:
    """A pod to create: Job ``job``'s pod for completion index ``index`` (None: NonIndexed) from
    ``template`` (``spec.template`` in wire form, with the index env var when Indexed), carrying the
    per-index ``failure_counts`` when the Job has backoffLimitPerIndex. :attr:`pod` is its wire form
    (the API server fills the name from ``generateName``); it is built on demand, since the
    controller's edge builds most pods of a Job by copying its first (``pod_factory.py``)."""

    index: int | None
    job: JobInfo
    template: dict[str, Any]
    failure_counts: tuple[int, int] | None = None

    @property
    def pod(self) -> dict[str, Any]:
        return build_pod(self.job, self.index, self.failure_counts, template=self.template)


@dataclass(frozen=True, slots=True)
class PodDelete:
    """A pod to delete. ``remove_finalizer`` strips the tracking finalizer first, so the pod is not
    counted (scale-down, suspend); pods deleted because the Job is failing keep it."""

    name: str
    uid: str
    remove_finalizer: bool
    ready: bool = False


@dataclass(frozen=True, slots=True)
class Event:
    type: str  # Normal | Warning
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """Everything one sync decided. Apply in order: creates (slow-start batches) and deletes, then
    write ``status`` if ``flush_first``, then remove ``finalizers_to_remove``, then write
    :func:`kbatch.controllers.job.sync.complete_sync`'s status."""

    skip: str | None = None
    creates: tuple[PodCreate, ...] = ()
    deletes: tuple[PodDelete, ...] = ()
    finalizers_to_remove: tuple[PodInfo, ...] = ()
    status: JobStatusInfo | None = None
    flush_first: bool = False
    finished_condition: JobCondition | None = None
    events: tuple[Event, ...] = ()
    requeue_after: float | None = None
    backoff: BackoffRecord | None = None
    with_finalizer: frozenset[str] = field(default_factory=frozenset)
    cap_reached: bool = False
    # For the metrics (kbatch.controllers.job.metrics): the sync's action label, the reason label of
    # the creations, and the podFailurePolicy actions applied to newly recorded failed pods.
    action: str = "reconciling"
    creation_reason: str = "new"
    policy_actions: tuple[tuple[str, int], ...] = ()
