"""What the concurrent-admission controller writes, as values, and the status changes they make.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/concurrentadmission/controller.go``
(``clearWorkloadAdmission``, ``activateWl``/``deactivateWl``, ``syncFinished``, ``syncPodsReadyCond``,
``syncAdmissionStatus``, ``openPreemptionGate``, ``syncVariantEvictionStatus``), with
``workloadevict.SetEvictedCondition``, ``workload.SetQuotaReservation``/``SetAdmittedCondition``/
``UnsetQuotaReservationWithCondition``/``SetRequeuedCondition``/``OpenPreemptionGate``.

Each effect names the Workload it writes. :func:`mutate_status` changes a private copy of a status,
saying whether anything changed; the planner (:mod:`.plan`) runs it on its copies to see what the
next step would see, and the controller runs it inside its write (retried on conflict from the
stored object), so a change is defined once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kbatch.api import edit
from kbatch.api.kueue_v1beta2 import Admission, Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.api.meta import Condition
from kbatch.controllers.kueue import preemption_gates as gates
from kbatch.controllers.kueue import workloads as W

__all__ = [
    "AdmitParent",
    "ClearVariant",
    "CreateVariant",
    "DeleteVariant",
    "Effect",
    "EvictParent",
    "FinishVariant",
    "OpenGate",
    "SetActive",
    "StatusEffect",
    "SyncPodsReady",
    "event_of",
    "mutate_status",
]


@dataclass(frozen=True)
class CreateVariant:
    # the Variant to create, without a status: upstream copies the parent's into its create, which the
    # API server drops (the Workload has a status subresource), so the Variant starts without one
    workload: Workload
    flavor: str


@dataclass(frozen=True)
class DeleteVariant:
    name: str
    flavor: str


@dataclass(frozen=True)
class SetActive:
    """``activateWl``/``deactivateWl``: ``spec.active`` and a ``(De)ActivatedVariant`` event."""

    name: str
    active: bool
    message: str


@dataclass(frozen=True)
class EvictParent:
    """``SetEvictedCondition`` on the parent (``VariantEvicted`` or ``ConcurrentAdmission``)."""

    name: str
    reason: str
    message: str


@dataclass(frozen=True)
class ClearVariant:
    """``clearWorkloadAdmission``: an evicted Variant gives its quota up and is requeued."""

    name: str
    evicted_reason: str
    evicted_message: str


@dataclass(frozen=True)
class FinishVariant:
    name: str
    reason: str
    message: str


@dataclass(frozen=True)
class SyncPodsReady:
    """``syncPodsReadyCond``: the parent's PodsReady condition copied to the admitted Variant."""

    name: str
    condition: Condition


@dataclass(frozen=True)
class AdmitParent:
    """The admitted Variant's admission copied to the parent (QuotaReserved and Admitted)."""

    name: str
    admission: Admission
    variant: str


@dataclass(frozen=True)
class OpenGate:
    """``OpenPreemptionGate`` of the concurrent-admission gate on a Variant."""

    name: str


StatusEffect = EvictParent | ClearVariant | FinishVariant | SyncPodsReady | AdmitParent | OpenGate
Effect = CreateVariant | DeleteVariant | SetActive | StatusEffect


def _clear(
    status: WorkloadStatus, e: ClearVariant, gen: int | None, now: datetime, obs: bool, explicit: bool
) -> bool:
    requeued = e.evicted_reason in (Reason.PREEMPTED, Reason.NODE_FAILURES)
    changed = W.set_requeued(status, e.evicted_reason, e.evicted_message, requeued, gen, now)
    # ``UnadmittedWorkloadReasonWithFallback(PendingEvaluation, Pending)``
    reason = Reason.PENDING_EVALUATION if obs else Reason.PENDING
    return W.unset_quota_reservation(status, reason, e.evicted_message, gen, now, obs, explicit) or changed


def _admit(status: WorkloadStatus, e: AdmitParent, gen: int | None, now: datetime) -> bool:
    W.set_quota_reservation(status, edit(e.admission), gen, now)
    W.set_condition(
        status, Cond.ADMITTED, True, Reason.ADMITTED, f"The variant {e.variant} is admitted", gen, now
    )
    return True


def _pods_ready(status: WorkloadStatus, cond: Condition, now: datetime) -> bool:
    return W.set_condition(
        status,
        Cond.PODS_READY,
        cond.status or "False",
        cond.reason or "",
        cond.message or "",
        cond.observed_generation,
        now,
        cond.last_transition_time,
    )


def mutate_status(
    e: StatusEffect,
    status: WorkloadStatus,
    wl: Workload,
    now: datetime,
    observability: bool = False,
    explicit: bool = False,
) -> bool:
    """The status change of ``e`` on ``status`` (a private copy of ``wl``'s); ``observability`` and
    ``explicit``: the ``UnadmittedWorkloadsObservability``/``…ExplicitStatus`` gates."""
    gen = wl.metadata.generation
    if isinstance(e, EvictParent):
        return W.set_condition(status, Cond.EVICTED, True, e.reason, W.truncate(e.message), gen, now)
    if isinstance(e, ClearVariant):
        return _clear(status, e, gen, now, observability, explicit)
    if isinstance(e, FinishVariant):
        return W.finish(status, e.reason, e.message, gen, now)
    if isinstance(e, SyncPodsReady):
        return _pods_ready(status, e.condition, now)
    if isinstance(e, AdmitParent):
        return _admit(status, e, gen, now)
    return gates.set_position(wl, status, gates.CONCURRENT_ADMISSION_GATE, gates.OPEN, now)


def event_of(e: Effect, parent: Workload) -> tuple[str, str, str] | None:
    """The Normal event upstream records for ``e``: (the Workload it is about, reason, message);
    ``None`` for the status effects that record none."""
    namespace, pname = parent.metadata.namespace, parent.metadata.name or ""
    if isinstance(e, CreateVariant):
        key = f"{namespace}/{e.workload.metadata.name}"
        return pname, "CreatedVariant", f'Variant Workload "{key}" created'
    if isinstance(e, DeleteVariant):
        key = f"{namespace}/{e.name}"
        message = f'Variant Workload "{key}" deleted; flavor "{e.flavor}" no longer in ClusterQueue'
        return pname, "DeletedVariant", message
    if isinstance(e, SetActive):
        verb = "activated" if e.active else "deactivated"
        return e.name, f"{verb.capitalize()}Variant", f"Variant Workload {verb} due to {e.message}"
    if isinstance(e, OpenGate):
        message = f'Opened preemption gate for variant workload "{namespace}/{e.name}"'
        return e.name, "PreemptionUngatedVariant", message
    return None
