"""Workload timelines: each workload's milestones, from its own object and its pods' time stamps.

Milestones (``None`` when they have not happened or the objects do not say):

=================  ==========================================================================
created            the workload's ``creationTimestamp``
admitted           when it was let run: Kueue's admission of its Workload, else its own record
                   (a Job's ``status.startTime``), else (a bare pod) its creation
first_scheduled    the earliest ``PodScheduled`` of its pods
all_running        the first instant at which ``parallelism`` of its pods ran at once
finished           its ``Complete``/``Failed`` (or the kind's) condition; a bare pod's last exit
=================  ==========================================================================

Durations, in seconds: ``queueing_delay = first_scheduled - created``; ``scheduling_latency =
first_scheduled - first pod created`` (time in the scheduler's queue); ``admission_delay = admitted -
created``; ``run_time = finished - first_scheduled``; ``completion_time = finished - created``. So
``queueing_delay + run_time = completion_time`` exactly. A Job's ``finished`` is its condition's time,
which the Job controller writes after its batching period (1 s upstream, ``syncJobBatchPeriod`` in
``pkg/controller/job/job_controller.go``): a one-pod ``sleep 72`` Job completes in 73 s.

A group that only pods of another workload join (a Job's pods labelled into a scheduler-plugins
PodGroup, seed 002's coscheduling study) is that workload's gang, not a workload of its own: it is
left out, as a native PodGroup its Job owns is folded into the Job.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.reporting.kinds import AdmissionSource, KindRegistry, Outcome, SelfFacts, WorkloadKind
from kbatch.reporting.pods import PodFacts
from kbatch.reporting.wire import Obj, controller_ref, labels, meta, reading, ref_of, times, uid

__all__ = ["DURATIONS", "WorkloadRecord", "build_workloads", "peak_reached"]

DURATIONS = ("completion_time", "queueing_delay", "scheduling_latency", "admission_delay", "run_time")


@dataclass(frozen=True, slots=True)
class WorkloadRecord:
    kind: str
    namespace: str
    name: str
    created: datetime | None
    admitted: datetime | None
    first_scheduled: datetime | None
    all_running: datetime | None
    finished: datetime | None
    outcome: str
    pods: int
    restarts: int
    failures: int
    queue: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    first_pod_created: datetime | None = None
    pod_uids: tuple[str, ...] = ()
    # its end as its kind defines it: the kind's own terminal state (a Job's Complete/Failed, ...), or,
    # for a kind without one (a bare pod, a native PodGroup), every pod ended. ``finished`` may be set
    # earlier (derived from the pods while a Job's condition is still to be written): not terminal yet.
    terminal: bool = False

    def _between(self, start: datetime | None, end: datetime | None) -> float | None:
        return (end - start).total_seconds() if start is not None and end is not None else None

    @property
    def completion_time(self) -> float | None:
        return self._between(self.created, self.finished)

    @property
    def queueing_delay(self) -> float | None:
        return self._between(self.created, self.first_scheduled)

    @property
    def scheduling_latency(self) -> float | None:
        return self._between(self.first_pod_created, self.first_scheduled)

    @property
    def admission_delay(self) -> float | None:
        return self._between(self.created, self.admitted)

    @property
    def run_time(self) -> float | None:
        return self._between(self.first_scheduled, self.finished)


def peak_reached(pods: Sequence[PodFacts], wanted: int) -> datetime | None:
    """The first instant at which ``wanted`` pods were running at once (starts before ends at a tie:
    a pod ending exactly as another starts does not count with it)."""
    edges = sorted([(p.started, 1) for p in pods if p.started is not None]
                   + [(p.finished, -1) for p in pods if p.started is not None and p.finished is not None],
                   key=lambda e: (e[0], e[1]))
    running = 0
    for at, step in edges:
        running += step
        if running >= wanted:
            return at
    return None


class _Index:
    """Objects by uid, and the topmost workload above each object by controller references."""

    def __init__(self, objects: Iterable[Obj], kinds: KindRegistry) -> None:
        self.kinds = kinds
        self.by_uid = {uid(o): o for o in objects if uid(o)}
        self._kind = {u: kinds.kind(*ref_of(o)[:2]) for u, o in self.by_uid.items()}

    def kind_of(self, obj: Obj) -> WorkloadKind | None:
        known = uid(obj)
        if known in self._kind:
            return self._kind[known]
        group, kind, _, _ = ref_of(obj)
        return self.kinds.kind(group, kind)

    def top(self, start_uid: str | None) -> str | None:
        """The uid of the topmost workload on the controller chain from ``start_uid`` (itself included)."""
        found, seen, current = None, set(), start_uid
        while current and current not in seen and current in self.by_uid:
            seen.add(current)
            obj = self.by_uid[current]
            if self._kind[current] is not None:
                found = current
            ref = controller_ref(obj)
            current = ref.get("uid") if ref else None
        return found


def _derived_outcome(pods: Sequence[PodFacts]) -> str:
    if pods and all(p.phase in ("Succeeded", "Failed") for p in pods):
        return Outcome.FAILED if any(p.failed for p in pods) else Outcome.SUCCEEDED
    if any(p.started is not None and p.finished is None for p in pods):
        return Outcome.RUNNING
    return Outcome.PENDING


_ENDED = (Outcome.SUCCEEDED, Outcome.FAILED)


def _record(kind: str, obj: Obj, facts: SelfFacts, pods: Sequence[PodFacts],
            admission: tuple[datetime | None, str | None] | None, own_end: bool = True) -> WorkloadRecord:
    """``own_end``: the kind writes a terminal state of its own (``WorkloadKind.terminal_state``)."""
    m = meta(obj)
    outcome = facts.outcome or _derived_outcome(pods)
    scheduled, created_pods = times(p.scheduled for p in pods), times(p.created for p in pods)
    admitted = (admission[0] if admission and admission[0] else None) or facts.admitted
    finished = facts.finished
    if finished is None and facts.outcome is None and outcome in (Outcome.SUCCEEDED, Outcome.FAILED):
        ends = times(p.finished for p in pods)
        finished = ends[-1] if ends else None
    failures = facts.failures if facts.failures is not None else sum(p.failed for p in pods)
    return WorkloadRecord(
        kind=kind, namespace=str(m.get("namespace") or ""), name=str(m.get("name") or ""),
        created=facts.created, admitted=admitted, first_scheduled=scheduled[0] if scheduled else None,
        all_running=peak_reached(pods, facts.parallelism), finished=finished, outcome=outcome,
        pods=len(pods), restarts=sum(p.restarts for p in pods), failures=failures,
        queue=(admission[1] if admission else None) or facts.queue, labels=dict(labels(obj)),
        first_pod_created=created_pods[0] if created_pods else None, pod_uids=tuple(p.uid for p in pods),
        terminal=facts.outcome in _ENDED or (not own_end and finished is not None and outcome in _ENDED))


def _joined(pod_obj: Obj | None, pod: PodFacts, kinds: Sequence[WorkloadKind],
            by_name: Mapping[tuple[Any, ...], str]) -> str | None:
    """The workload a pod joins by name (:meth:`WorkloadKind.member`), in its namespace."""
    if pod_obj is None:
        return None
    for kind in kinds:
        name = kind.member(pod_obj)
        found = by_name.get(((kind.group, kind.kind), pod.namespace, name)) if name else None
        if found is not None:
            return found
    return None


def _bare_pod(pod: PodFacts) -> tuple[str, SelfFacts]:
    return "Pod", SelfFacts(created=pod.created, admitted=pod.created, finished=None, outcome=None)


def local_queue_routes(objects: Iterable[Obj]) -> dict[tuple[str, str], str]:
    """(namespace, LocalQueue) → the ClusterQueue it submits to (kueue ``localqueue_types.go``
    ``spec.clusterQueue``), for the LocalQueues among ``objects``."""
    routes: dict[tuple[str, str], str] = {}
    for obj in objects:
        if ref_of(obj)[:2] == ("kueue.x-k8s.io", "LocalQueue"):
            target = (obj.get("spec") or {}).get("clusterQueue")
            if target:
                m = meta(obj)
                routes[(str(m.get("namespace") or ""), str(m.get("name") or ""))] = str(target)
    return routes


def _routed(source: AdmissionSource, obj: Obj, routes: Mapping[tuple[str, str], str]
            ) -> tuple[datetime | None, str | None]:
    """``source.admitted(obj)``, its queue the ClusterQueue behind the LocalQueue a not yet admitted
    object waits in (an optional ``waiting_in(obj)`` of the source), when that LocalQueue is known."""
    admitted, queue = source.admitted(obj)
    waiting_in = getattr(source, "waiting_in", None)
    local = waiting_in(obj) if waiting_in is not None else None
    routed = routes.get((str(meta(obj).get("namespace") or ""), local)) if local else None
    return admitted, routed or queue


def build_workloads(objects: Sequence[Obj], pods: Mapping[str, PodFacts],
                    kinds: KindRegistry) -> list[WorkloadRecord]:
    """Every top-level workload among ``objects``, with the pods (by uid in ``pods``) that belong to it;
    ordered by creation, then namespace and name."""
    index = _Index(objects, kinds)
    tops = {u for u, o in index.by_uid.items() if index.kind_of(o) is not None and index.top(u) == u}
    members: dict[str, list[PodFacts]] = {u: [] for u in tops}
    by_name = {(ref_of(index.by_uid[u])[:2], *ref_of(index.by_uid[u])[2:]): u for u in sorted(tops)}
    joinable = [k for k in kinds if any(key[0] == (k.group, k.kind) for key in by_name)]
    bare: list[PodFacts] = []
    grouped: set[str] = set()  # groups that pods of another workload join: that workload's gang
    for pod_uid in sorted(pods):
        pod = pods[pod_uid]
        owner = index.top(pod.owner_uid)
        joined = _joined(index.by_uid.get(pod.uid), pod, joinable, by_name) if joinable else None
        if owner is not None and joined is not None and joined != owner:
            grouped.add(joined)
        owner = owner or joined
        if owner is not None:
            members[owner].append(pod)
        elif pod.owner_uid is None:
            bare.append(pod)
    tops -= {u for u in grouped if not members[u]}  # e.g. a Job's pods in a scheduler-plugins PodGroup
    admissions: dict[str, tuple[datetime | None, str | None]] = {}
    routes = local_queue_routes(objects)
    for obj in objects:
        group, kind_name, _, _ = ref_of(obj)
        source = kinds.admission(group, kind_name)
        ref = controller_ref(obj)
        target = index.top(ref.get("uid")) if source is not None and ref else None
        if source is not None and target is not None:
            with reading(obj):
                admissions[target] = _routed(source, obj, routes)
    records = []
    for u in tops:
        obj = index.by_uid[u]
        kind = index.kind_of(obj)
        assert kind is not None
        with reading(obj):
            records.append(_record(kind.kind, obj, kind.facts(obj), members[u], admissions.get(u),
                                   bool(getattr(kind, "terminal_state", True))))
    for pod in bare:
        kind_name, facts = _bare_pod(pod)
        pod_obj = index.by_uid.get(pod.uid) or {"metadata": {"namespace": pod.namespace, "name": pod.name}}
        records.append(_record(kind_name, pod_obj, facts, [pod], None, own_end=False))
    far = datetime.max.replace(tzinfo=None)
    return sorted(records, key=lambda r: (r.created.replace(tzinfo=None) if r.created else far,
                                          r.namespace, r.kind, r.name))
