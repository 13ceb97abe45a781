"""What each workload kind says about itself: the :class:`WorkloadKind` protocol and its registry.

A kind tells, from its own object only, when it was created, admitted and finished, how it ended and
how many pods it runs at once. Pods are found for it by ownership (``ownerReferences`` with
``controller: true``, followed upwards: pod → Job → JobSet) or, for kinds that pods join by name
(:meth:`WorkloadKind.member`: a label, a field of the pod's spec), by that name. A workload owned
by another known workload is folded into it. An :class:`AdmissionSource` (Kueue's ``Workload``)
adds the admission time to the object that owns it rather than being a workload of its own.

A kind whose objects write no terminal state of their own sets ``terminal_state = False`` (an
optional attribute, default ``True``): its workloads end when all their pods have
(:attr:`~kbatch.reporting.workloads.WorkloadRecord.terminal`, what ``kbatch experiment``'s early stop
waits for). New kinds plug in with :meth:`KindRegistry.register`; nothing here imports their models, so a
kind read from ``kubectl get -o json`` of a real cluster is reported the same way. Sources:

* Job: k8s.io/api ``batch/v1/types.go`` — ``status.startTime`` is set when the Job controller starts
  the Job and cleared while it is suspended (KEP-2232), so it is the moment the Job was let run; the
  ``Complete`` / ``Failed`` conditions end it, ``status.failed`` counts failed pods.
* JobSet: kubernetes-sigs/jobset ``api/jobset/v1alpha2/jobset_types.go`` — ``Completed`` / ``Failed``.
* PodGroup (coscheduling): kubernetes-sigs/scheduler-plugins ``apis/scheduling/v1alpha1/types.go`` —
  pods join with the ``scheduling.x-k8s.io/pod-group`` label, ``spec.minMember`` of them go together,
  phases ``Finished`` / ``Failed`` end it.
* PodGroup (Kubernetes' own, KEP-4671): k8s.io/api ``scheduling/v1beta1/types.go`` — pods join with
  ``spec.schedulingGroup.podGroupName``; ``spec.schedulingPolicy.gang.minCount`` of them go together;
  it has no terminal state of its own, so its pods decide. One a Job owns is folded into the Job.
* Kueue Workload: kubernetes-sigs/kueue ``apis/kueue/v1beta2/workload_types.go`` — ``QuotaReserved``
  then ``Admitted``; ``status.admission.clusterQueue`` names its ClusterQueue. Until then it waits in
  the LocalQueue ``spec.queueName`` of its namespace, whose ``spec.clusterQueue``
  (``localqueue_types.go``) is the ClusterQueue it waits for (:meth:`KueueWorkload.waiting_in`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Protocol, runtime_checkable

from kbatch.reporting.wire import Obj, condition_time, labels, meta, time_at, times

__all__ = [
    "AdmissionSource",
    "KindRegistry",
    "KueueWorkload",
    "Outcome",
    "SelfFacts",
    "WorkloadKind",
    "default_kinds",
]


class Outcome:
    """How a workload stands: the values of :attr:`SelfFacts.outcome`."""

    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    RUNNING = "Running"
    PENDING = "Pending"
    SUSPENDED = "Suspended"


@dataclass(frozen=True, slots=True)
class SelfFacts:
    """What a workload's own object says; ``None`` where it says nothing."""

    created: datetime | None
    admitted: datetime | None
    finished: datetime | None
    outcome: str | None  # None: decide from the pods
    parallelism: int = 1  # how many pods make it "all running"
    failures: int | None = None  # None: count failed pods
    queue: str | None = None


@runtime_checkable
class WorkloadKind(Protocol):
    @property
    def group(self) -> str: ...

    @property
    def kind(self) -> str: ...

    def facts(self, obj: Obj) -> SelfFacts: ...

    def member(self, pod: Obj) -> str | None:
        """The name of the workload of this kind (in the pod's namespace) that ``pod`` joins by name,
        if pods join this kind that way (ownership needs nothing here)."""
        ...


def _no_members(pod: Obj) -> str | None:
    return None


@runtime_checkable
class AdmissionSource(Protocol):
    """An object that records when its owner was admitted (Kueue's Workload for its Job)."""

    @property
    def group(self) -> str: ...

    @property
    def kind(self) -> str: ...

    def admitted(self, obj: Obj) -> tuple[datetime | None, str | None]:
        """(admission time, queue name) — each ``None`` when unknown."""
        ...


def _created(obj: Obj) -> datetime | None:
    return time_at(meta(obj).get("creationTimestamp"))


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(frozen=True, slots=True)
class JobKind:
    group: str = "batch"
    kind: str = "Job"

    def member(self, pod: Obj) -> str | None:
        return _no_members(pod)

    def facts(self, obj: Obj) -> SelfFacts:
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        complete, failed = condition_time(obj, "Complete"), condition_time(obj, "Failed")
        finished = complete or failed
        if complete:
            outcome: str | None = Outcome.SUCCEEDED
        elif failed:
            outcome = Outcome.FAILED
        elif spec.get("suspend"):
            outcome = Outcome.SUSPENDED
        else:
            outcome = None
        parallelism = _int(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        if isinstance(completions, int) and not isinstance(completions, bool):
            parallelism = min(parallelism, completions)
        return SelfFacts(created=_created(obj), admitted=time_at(status.get("startTime")), finished=finished,
                         outcome=outcome, parallelism=max(parallelism, 1),
                         failures=_int(status.get("failed"), 0))


@dataclass(frozen=True, slots=True)
class JobSetKind:
    group: str = "jobset.x-k8s.io"
    kind: str = "JobSet"

    def member(self, pod: Obj) -> str | None:
        return _no_members(pod)

    def facts(self, obj: Obj) -> SelfFacts:
        done, failed = condition_time(obj, "Completed"), condition_time(obj, "Failed")
        outcome = Outcome.SUCCEEDED if done else Outcome.FAILED if failed else (
            Outcome.SUSPENDED if (obj.get("spec") or {}).get("suspend") else None)
        pods = 0
        for rjob in (obj.get("spec") or {}).get("replicatedJobs") or ():
            tmpl = ((rjob.get("template") or {}).get("spec")) or {}
            pods += _int(rjob.get("replicas"), 1) * _int(tmpl.get("parallelism"), 1)
        return SelfFacts(created=_created(obj), admitted=None, finished=done or failed, outcome=outcome,
                         parallelism=max(pods, 1))


@dataclass(frozen=True, slots=True)
class PodGroupKind:
    group: str = "scheduling.x-k8s.io"
    kind: str = "PodGroup"

    def member(self, pod: Obj) -> str | None:
        return labels(pod).get("scheduling.x-k8s.io/pod-group") or None

    def facts(self, obj: Obj) -> SelfFacts:
        phase = (obj.get("status") or {}).get("phase")
        outcome = {"Finished": Outcome.SUCCEEDED, "Failed": Outcome.FAILED}.get(phase or "")
        return SelfFacts(created=_created(obj), admitted=None, finished=None, outcome=outcome,
                         parallelism=max(_int((obj.get("spec") or {}).get("minMember"), 1), 1))


@dataclass(frozen=True, slots=True)
class NativePodGroupKind:
    group: str = "scheduling.k8s.io"
    kind: str = "PodGroup"
    terminal_state: ClassVar[bool] = False  # no Finished/Failed of its own: its pods decide

    def member(self, pod: Obj) -> str | None:
        found = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
        return str(found) if found else None

    def facts(self, obj: Obj) -> SelfFacts:
        gang = (((obj.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")) or {}
        return SelfFacts(created=_created(obj), admitted=None, finished=None, outcome=None,
                         parallelism=max(_int(gang.get("minCount"), 1), 1))


@dataclass(frozen=True, slots=True)
class KueueWorkload:
    group: str = "kueue.x-k8s.io"
    kind: str = "Workload"

    def admitted(self, obj: Obj) -> tuple[datetime | None, str | None]:
        found = times([condition_time(obj, "QuotaReserved"), condition_time(obj, "Admitted")])
        admission = (obj.get("status") or {}).get("admission") or {}
        queue = admission.get("clusterQueue") or (obj.get("spec") or {}).get("queueName")
        return (found[-1] if found else None), queue

    def waiting_in(self, obj: Obj) -> str | None:
        """The LocalQueue (of the Workload's namespace) it waits in: ``spec.queueName`` while no
        ClusterQueue admitted it; the report names that LocalQueue's ClusterQueue when it has it."""
        if ((obj.get("status") or {}).get("admission") or {}).get("clusterQueue"):
            return None
        found = (obj.get("spec") or {}).get("queueName")
        return str(found) if found else None


class KindRegistry:
    """Workload kinds and admission sources by (group, kind)."""

    def __init__(self) -> None:
        self._kinds: dict[tuple[str, str], WorkloadKind] = {}
        self._admission: dict[tuple[str, str], AdmissionSource] = {}

    def register(self, entry: WorkloadKind | AdmissionSource) -> None:
        key = (entry.group, entry.kind)
        if key in self._kinds or key in self._admission:
            raise ValueError(f"{entry.kind}.{entry.group} is already registered")
        if isinstance(entry, WorkloadKind):
            self._kinds[key] = entry
        else:
            self._admission[key] = entry

    def kind(self, group: str, kind: str) -> WorkloadKind | None:
        return self._kinds.get((group, kind))

    def admission(self, group: str, kind: str) -> AdmissionSource | None:
        return self._admission.get((group, kind))

    def __iter__(self) -> Iterator[WorkloadKind]:
        return iter(self._kinds[k] for k in sorted(self._kinds))

    def keys(self) -> list[tuple[str, str]]:
        """Every (group, kind) a report reads, workloads and admission sources, sorted."""
        return sorted({*self._kinds, *self._admission})


def default_kinds() -> KindRegistry:
    reg = KindRegistry()
    reg.register(JobKind())
    reg.register(JobSetKind())
    reg.register(PodGroupKind())
    reg.register(NativePodGroupKind())
    reg.register(KueueWorkload())
    return reg
