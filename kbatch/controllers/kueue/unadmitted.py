"""Pure decisions of the workload controller about a workload without quota.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller.go``
(``resolveGranularUnadmittedQuotaReservedCondition``, ``mayUpdateConditionForAdmissionGatedBy``)
and ``pkg/workload/workload.go`` (``AdmissionChecksForWorkload``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.jobframework.construct import ADMISSION_GATED_BY
from kbatch.controllers.kueue.model.clusterqueue import admission_check_rules, applicable_checks

__all__ = ["ADMISSION_GATED", "checks_for", "gate_reported", "granular_unadmitted"]

ADMISSION_GATED = Reason.ADMISSION_GATED

# QuotaReserved=False reasons the scheduler sets and the controller keeps until the next cycle
# (``schedulerSetReasons``; Suspended and Misconfigured are re-evaluated instead)
_SCHEDULER_REASONS = frozenset(
    {
        Reason.WAITING_FOR_QUOTA,
        Reason.NO_MATCHING_FLAVOR,
        Reason.EXCEEDS_MAX_QUOTA,
        "TopologyPlacementFailed",
        Reason.WAITING_FOR_PREEMPTED,
        Reason.WAITING_FOR_PODS_READY,
        Reason.PENDING_EVALUATION,
    }
)


def gate_reported(wl: Workload, status: WorkloadStatus, gated_by: bool) -> bool:
    """Whether QuotaReserved already says ``AdmissionGated`` for a gate still on the workload. kbatch
    keeps that condition over the queue blocker: upstream writes both in turn (the gate step runs
    first and rewrites its condition whenever the blocker replaced it), which never settles."""
    cond = W.find(status, Cond.QUOTA_RESERVED)
    return (
        gated_by
        and cond is not None
        and cond.reason == ADMISSION_GATED
        and bool((wl.metadata.annotations or {}).get(ADMISSION_GATED_BY))
    )


def granular_unadmitted(
    wl: Workload, status: WorkloadStatus, blocker: tuple[str, str] | None, explicit: bool, gated_by: bool
) -> tuple[str, str] | None:
    """``resolveGranularUnadmittedQuotaReservedCondition`` (workload_controller.go, v0.19.2;
    ``UnadmittedWorkloadsObservability`` on): the QuotaReserved=False reason and message of a
    workload without quota, or ``None`` to leave the condition alone. Not modelled: the
    admissibility check (namespace selector) and ``SchedulingEquivalenceHashing``."""
    cond = W.find(status, Cond.QUOTA_RESERVED)
    if wl.spec is not None and wl.spec.active is False:
        return Reason.DEACTIVATED, "The workload is deactivated"
    if cond is not None and cond.reason == Reason.ON_HOLD:
        return cond.reason, cond.message or ""
    if blocker is not None:
        return blocker
    gate = (wl.metadata.annotations or {}).get(ADMISSION_GATED_BY)
    if gated_by and gate:
        return ADMISSION_GATED, f"Admission is gated by: {gate}"
    if cond is not None and cond.reason in _SCHEDULER_REASONS:
        return cond.reason, cond.message or ""
    if cond is None and not explicit:
        return None
    return Reason.PENDING_EVALUATION, "Workload is pending evaluation in the scheduling queue"


def checks_for(cq: ClusterQueue, admission: Any) -> list[str]:
    """The checks a workload of ``cq`` with ``admission`` (None: no quota yet) needs, from the API
    object (:func:`~kbatch.controllers.kueue.model.clusterqueue.applicable_checks`)."""
    spec = cq.spec
    every = frozenset(
        f.name or "" for rg in (spec.resource_groups if spec else None) or () for f in rg.flavors or ()
    )
    return applicable_checks(admission_check_rules(spec), every, admission)
