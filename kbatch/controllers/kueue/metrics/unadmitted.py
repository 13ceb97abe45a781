"""``kueue_unadmitted_workloads`` and ``kueue_local_queue_unadmitted_workloads``
(``UnadmittedWorkloadsObservability``, beta, off), counted when ``/metrics`` is scraped.

Upstream (kueue v0.19.2 ``pkg/cache/queue/unadmitted_workloads.go``) keeps, per workload the queue
manager tracks, its ``unadmittedWorkloadStatus`` and counts them per (ClusterQueue, reason, underlying
cause) and per LocalQueue: a workload that is not admitted, not finished and not being deleted; the
reason is its ``Admitted`` condition's (``NoReservation`` without one), the underlying cause its
``QuotaReserved`` condition's reason when false (``""`` when true, ``PendingEvaluation`` without one);
the ClusterQueue is its LocalQueue's (``ClusterQueueNameForWorkload``). A series exists while its
count is above 0; the LocalQueue one only for an existing LocalQueue the LocalQueue metrics expose.
kbatch reads the same from the informer's Workloads at scrape time (one pass over them; nothing at
all with the gate off).
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterable, Mapping

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue.concurrent_admission.variants import is_variant
from kbatch.controllers.kueue.metrics.custom_labels import NONE, CustomLabels
from kbatch.controllers.kueue.metrics.families import ROLE
from kbatch.runtime.metrics import Gauge

__all__ = ["report_unadmitted", "unadmitted_status"]


def unadmitted_status(wl: Workload) -> tuple[str, str] | None:
    """``getUnadmittedWorkloadStatus``'s (reason, underlying cause), ``None`` for a workload that is
    not unadmitted; a concurrent-admission Variant is never counted (its parent is)."""
    if wl.metadata.deletion_timestamp is not None or is_variant(wl):
        return None
    conds = {c.type: c for c in (wl.status.conditions if wl.status else None) or ()}
    admitted, finished = conds.get(Cond.ADMITTED), conds.get(Cond.FINISHED)
    if any(c is not None and c.status == "True" for c in (admitted, finished)):
        return None
    reason = (admitted.reason or "") if admitted is not None else Reason.NO_RESERVATION
    reserved = conds.get(Cond.QUOTA_RESERVED)
    if reserved is None:
        cause = Reason.PENDING_EVALUATION
    else:
        cause = "" if reserved.status == "True" else reserved.reason or ""
    return reason, cause


def report_unadmitted(workloads: Iterable[Workload], cluster_queue_of: Mapping[str, str], cq: Gauge,
                      lq: Gauge | None, lq_exposed: Callable[[str], bool],
                      custom: CustomLabels = NONE) -> None:
    """Sets both gauges; ``cluster_queue_of`` maps a LocalQueue key (``ns/name``) to its
    ClusterQueue, for the LocalQueues that exist; ``custom``: the ClusterQueue's and the
    LocalQueue's custom labels."""
    cq.clear()
    if lq is not None:
        lq.clear()
    per_cq: Tally[tuple[str, str, str]] = Tally()
    per_lq: Tally[tuple[str, str, str, str, str]] = Tally()
    for wl in workloads:
        status = unadmitted_status(wl)
        if status is None:
            continue
        namespace, queue = wl.metadata.namespace or "", (wl.spec.queue_name if wl.spec else None) or ""
        cq_name = cluster_queue_of.get(f"{namespace}/{queue}", "")
        if not cq_name:
            continue
        per_cq[(cq_name, *status)] += 1
        per_lq[(queue, namespace, cq_name, *status)] += 1
    for key, count in sorted(per_cq.items()):
        cq.labels(*key, ROLE, *custom.cluster_queue(key[0])).set(count)
    if lq is None:
        return
    for lq_key, count in sorted(per_lq.items()):
        if lq_exposed(f"{lq_key[1]}/{lq_key[0]}"):
            lq.labels(*lq_key, ROLE, *custom.local_queue(lq_key[1], lq_key[0])).set(count)
