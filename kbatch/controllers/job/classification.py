"""How the Job controller classifies its Pods: active, terminating, failed, their index and finish time.

Upstream: pkg/controller/job/job_controller.go (``isPodFailed``, ``onlyReplaceFailedPods``,
``pastBackoffLimitOnFailure``), indexed_job_utils.go (``getCompletionIndex``), backoff_utils.go
(``getFinishedTime``) and pkg/controller/controller_utils.go (``ActivePods`` ordering,
``CountTerminatingPods``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from kbatch.api.batch_constants import (
    JOB_INDEX_FAILURE_COUNT_ANNOTATION,
    JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
)
from kbatch.controllers.job.views import UNKNOWN_INDEX, ContainerInfo, JobInfo, PodInfo, parse_int

__all__ = [
    "UNKNOWN_INDEX",
    "active_removal_key",
    "annotation_count",
    "completion_index",
    "finish_time",
    "is_active",
    "is_considered_failed",
    "is_terminating",
    "restart_count_sum",
    "sidecar_names",
    "valid_index",
]

_EPOCH = datetime.min.replace(tzinfo=UTC)


def completion_index(pod: PodInfo) -> int:
    """The pod's completion index from its annotation, or UNKNOWN_INDEX if absent/invalid/negative."""
    return pod.index


def valid_index(pod: PodInfo, completions: int | None) -> int | None:
    """The index if it is within ``[0, completions)``, else None."""
    ix = pod.index
    if ix == UNKNOWN_INDEX or completions is None or ix >= completions:
        return None
    return ix


_MAX_INT32 = 2**31 - 1


def annotation_count(pod: PodInfo, ignored: bool = False) -> int:
    """The per-index failure count annotations as upstream's ``parseInt32`` reads them
    (indexed_job_utils.go): 0 when absent, when ``strconv.Atoi`` fails, or when the value is
    negative or above ``math.MaxInt32``."""
    key = JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION if ignored else JOB_INDEX_FAILURE_COUNT_ANNOTATION
    value = parse_int(pod.annotations.get(key))
    return value if value is not None and 0 <= value <= _MAX_INT32 else 0


def is_active(pod: PodInfo) -> bool:
    return not pod.terminal and pod.deletion_timestamp is None


def is_terminating(pod: PodInfo) -> bool:
    return pod.deletion_timestamp is not None and not pod.terminal


def is_considered_failed(pod: PodInfo, job: JobInfo) -> bool:
    """Phase Failed; or, unless only failed pods are replaced, deleted while not Succeeded."""
    if pod.phase == "Failed":
        return True
    if job.only_replace_failed_pods:
        return False
    return pod.deletion_timestamp is not None and pod.phase != "Succeeded"


def restart_count_sum(pods: list[PodInfo]) -> int:
    """Container + init container restarts over Pending/Running pods (OnFailure backoff)."""
    total = 0
    for pod in pods:
        if pod.phase in ("Pending", "Running"):
            total += sum(c.restart_count for c in pod.containers)
            total += sum(c.restart_count for c in pod.init_containers)
    return total


def sidecar_names(job: JobInfo) -> frozenset[str]:
    """The template's restartable init containers (``restartPolicy: Always``, sidecars: KEP-753)."""
    inits = (job.template.get("spec") or {}).get("initContainers")
    if not inits:
        return frozenset()
    return frozenset(c.get("name") for c in inits if c.get("restartPolicy") == "Always")


def _latest_end(prev: datetime | None, statuses: Iterable[ContainerInfo]) -> datetime | None:
    """``latestFinishTime``: the latest end over ``statuses`` and ``prev``; None as soon as one of
    them has not terminated (an empty list keeps ``prev``)."""
    end = prev
    for c in statuses:
        if c.finished_at is None:
            return None
        if end is None or end < c.finished_at:
            end = c.finished_at
    return end


def finish_time(pod: PodInfo, sidecars: frozenset[str] = frozenset()) -> datetime:
    """When the pod finished (backoff_utils.go ``getFinishedTime``): the latest container end when
    all containers terminated — sidecars (restartable init containers) included, which end last —
    else the Ready=False transition, else deletion time minus grace period, else creation time."""
    end = _latest_end(None, pod.containers)
    if sidecars:  # getFinishTimeFromContainers, SidecarContainers (GA 1.33)
        end = _latest_end(end, (c for c in pod.init_containers if c.name in sidecars))
    if end is not None:
        return end
    ready = pod.condition("Ready")
    if ready is not None and ready.status == "False" and ready.last_transition_time is not None:
        return ready.last_transition_time
    if pod.deletion_timestamp is not None:
        return pod.deletion_timestamp - timedelta(seconds=pod.deletion_grace_period_seconds or 0)
    return pod.creation_timestamp or _EPOCH


_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}


def _ready_time(pod: PodInfo) -> float:
    cond = pod.condition("Ready")
    if cond is None or cond.last_transition_time is None:
        return float("-inf")  # a "zero" ready time sorts first (deleted first)
    return -cond.last_transition_time.timestamp()


def active_removal_key(pod: PodInfo) -> tuple:
    """Sort key putting the pod to delete first (controller_utils.go ``ActivePods.Less``):
    unscheduled, then Pending < Unknown < Running, not ready, more recently ready, more restarts,
    newer (empty creation time first); the name breaks remaining ties deterministically."""
    ready = pod.ready
    restarts = max((c.restart_count for c in pod.containers), default=0)
    created = pod.creation_timestamp
    return (
        bool(pod.node_name),
        _PHASE_RANK.get(pod.phase, 0),  # Go's podPhaseToOrdinal map: any other phase ("") is 0
        ready,
        _ready_time(pod) if ready else 0.0,
        -restarts,
        0 if created is None else 1,
        -(created.timestamp()) if created is not None else 0.0,
        pod.name,
    )
