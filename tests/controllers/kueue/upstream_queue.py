"""Fixtures for upstream's queue-manager tests (kubernetes-sigs/kueue v0.19.2
``pkg/cache/queue/{cluster_queue,manager}_test.go``, ``pkg/workload/workload_test.go``).

Upstream's tests drive the ClusterQueue heap (``newClusterQueueImpl``) and the ``Manager``
directly; kbatch has the same structures (:class:`ClusterQueueQueue`, :class:`QueueManager`), so
these helpers build Workloads as ``utiltestingapi.MakeWorkload`` does and hand them to those.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.selectors import Selector, selector_from_set
from kbatch.controllers.kueue.model.info import InfoOptions, WorkloadInfo
from kbatch.controllers.kueue.queues import ClusterQueueQueue
from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

KUEUE = "kueue.x-k8s.io/v1beta2"
NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def cond(type_: str, status: str, reason: str = "Reason", at: datetime = NOW, message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": stamp(at)}


EVICTED_PODS_READY = cond("Evicted", "True", "PodsReadyTimeout")
REQUEUED_FALSE = cond("Requeued", "False", "PodsReadyTimeout")
REQUEUED_TRUE = cond("Requeued", "True", "BackoffFinished")


def make_wl(
    name: str,
    namespace: str = "default",
    *,
    queue: str = "",
    created: datetime | None = None,
    priority: int | None = None,
    conditions: list[dict] | tuple[dict, ...] = (),
    requeue: tuple[int | None, datetime | None] | None = None,
    generation: int | None = None,
    cpu: str | None = None,
    count: int = 1,
    reclaimable: int | None = None,
    resource_version: str | None = None,
    uid: str | None = None,
) -> Workload:
    """``MakeWorkload(name, ns)`` and its wrappers (``Queue``, ``Creation``, ``Priority``,
    ``Condition``, ``RequeueState``, ``Generation``, ``Request``, ``ReclaimablePods``)."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or f"{namespace}-{name}"}
    if created is not None:
        meta["creationTimestamp"] = stamp(created)
    if generation is not None:
        meta["generation"] = generation
    if resource_version is not None:
        meta["resourceVersion"] = resource_version
    requests = {"cpu": cpu} if cpu is not None else {}
    spec: dict[str, Any] = {"podSets": [{"name": "main", "count": count, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}]}}}]}
    if queue:
        spec["queueName"] = queue
    if priority is not None:
        spec["priority"] = priority
    status: dict[str, Any] = {}
    if conditions:
        status["conditions"] = list(conditions)
    if requeue is not None:
        rs: dict[str, Any] = {}
        if requeue[0] is not None:
            rs["count"] = requeue[0]
        if requeue[1] is not None:
            rs["requeueAt"] = stamp(requeue[1])
        status["requeueState"] = rs
    if reclaimable is not None:
        status["reclaimablePods"] = [{"name": "main", "count": reclaimable}]
    body: dict[str, Any] = {"apiVersion": KUEUE, "kind": "Workload", "metadata": meta, "spec": spec}
    if status:
        body["status"] = status
    return Workload.model_validate(body)


def info(wl: Workload, requeuing_timestamp: str = "Eviction") -> WorkloadInfo:
    """``workload.NewInfo`` under ``workload.Ordering{PodsReadyRequeuingTimestamp: ...}``."""
    return WorkloadInfo.of(wl, InfoOptions(requeuing_timestamp=requeuing_timestamp,
                                           equivalence_hashing=False))


class Clock:
    """``testingclock.FakeClock``."""

    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def new_cq(strategy: str = "BestEffortFIFO", selector: Selector | None = None,
           clock: Clock | None = None, name: str = "cq") -> ClusterQueueQueue:
    """``newClusterQueueImpl`` / ``newClusterQueue`` (everything selected unless told)."""
    return ClusterQueueQueue(name, strategy, selector if selector is not None else selector_from_set({}),
                             clock or Clock())


def requeue_if_not_present(cq: ClusterQueueQueue, wi: WorkloadInfo, immediate: bool) -> bool:
    """Upstream's ``requeueIfNotPresent(log, wInfo, immediate, RequeueReasonGeneric, "")``: kbatch
    derives ``immediate`` from the reason, so pick a reason that means the same for both strategies
    and that sets no preemptor."""
    reason = RequeueReason.FAILED_AFTER_NOMINATION if immediate else RequeueReason.NAMESPACE_MISMATCH
    return cq.requeue(wi, reason, "", False, False)


def active(cq: ClusterQueueQueue) -> list[str]:
    """``Dump``: the heap's workloads, sorted (``cmpDump``)."""
    return sorted(cq.in_heap)


def inadmissible(cq: ClusterQueueQueue) -> list[str]:
    """``DumpInadmissible``."""
    return sorted(cq.inadmissible)
