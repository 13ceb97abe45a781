"""The job framework: one protocol every queueable workload kind implements (Kueue's ``GenericJob``).

Kueue admits whole workloads at once by suspending them at creation and unsuspending them once quota
is reserved; it talks to Job, JobSet, plain pods and pod groups through one interface
(kubernetes-sigs/kueue ``pkg/controller/jobframework/interface.go``). kbatch's families implement
:class:`GenericJob` with an adapter over their object (declared as a
:class:`kbatch.families.JobIntegration`), so a queueing controller never special-cases a kind.

An adapter wraps a *private* copy of the object (the caller copied it for editing); the mutating
methods (:meth:`~GenericJob.suspend`, :meth:`~GenericJob.run_with_pod_sets_info`,
:meth:`~GenericJob.restore_pod_sets_info`) change that copy only; the caller writes it.

Optional capabilities are small protocols of their own, as Kueue's ``JobWith...`` interfaces:
:class:`JobWithPriorityClass`, :class:`JobWithManagedBy`, :class:`JobWithReclaimablePods` and
:class:`JobWithCustomStop`.

:func:`merge_info` and :func:`restore_template` are Kueue's ``podset.Merge`` and
``podset.RestorePodSpec`` (``pkg/podset/podset.go``): admission's node selector, labels and
annotations are added to a pod template (a key already there with another value is a conflict, a
permanent error: :class:`PodSetInfoError`), tolerations and scheduling gates appended when missing;
restoring puts back exactly what :func:`info_from_template` recorded before admission.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kbatch.api.core_v1 import PodTemplateSpec, Toleration
from kbatch.api.meta import Resource

__all__ = [
    "GenericJob",
    "JobWithCustomStop",
    "JobWithManagedBy",
    "JobWithPriorityClass",
    "JobWithReclaimablePods",
    "PodSet",
    "PodSetInfo",
    "PodSetInfoError",
    "TopologySource",
    "info_from_template",
    "merge_info",
    "restore_template",
]


@dataclass(frozen=True, slots=True)
class PodSet:
    """A group of identical pods a workload needs (Kueue ``PodSet``): ``count`` pods of ``template``;
    ``min_count`` the fewest it can run with (partial admission), ``None`` when it needs all."""

    name: str
    count: int
    template: PodTemplateSpec
    min_count: int | None = None
    topology: TopologySource | None = None


@dataclass(frozen=True, slots=True)
class TopologySource:
    """Where a pod set's topology request comes from when it is not its template's annotations
    with the integration's pod index label (Kueue's ``NewPodSetTopologyRequest(meta)
    .PodIndexLabel(..).SubGroup(..)`` of each integration's ``PodSets``): the annotations read
    (``None``: the template's), the pod index label, and the sub-group index label with the number
    of sub-groups (JobSet: ``jobset.sigs.k8s.io/job-index`` and the replicated job's replicas)."""

    annotations: Mapping[str, str] | None = None
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None


@dataclass(frozen=True, slots=True)
class PodSetInfo:
    """What admission injects into one pod set (Kueue ``podset.PodSetInfo``): the flavors' node
    selectors and tolerations, labels, annotations, scheduling gates, and the admitted count."""

    name: str
    count: int
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    scheduling_gates: tuple[str, ...] = ()


@runtime_checkable
class GenericJob(Protocol):
    """A queueable workload, as Kueue's ``GenericJob``."""

    @property
    def object(self) -> Resource:
        """The wrapped (private) object."""
        ...

    def is_suspended(self) -> bool: ...

    def suspend(self) -> None:
        """Suspend the workload (in the wrapped object)."""
        ...

    def run_with_pod_sets_info(self, infos: list[PodSetInfo]) -> None:
        """Inject what admission decided into the pod templates, then unsuspend."""
        ...

    def restore_pod_sets_info(self, infos: list[PodSetInfo]) -> bool:
        """Put back the pod templates as they were before admission; whether anything changed."""
        ...

    def finished(self) -> tuple[str, bool, bool]:
        """``(message, success, finished)``."""
        ...

    def pod_sets(self) -> list[PodSet]: ...

    def is_active(self) -> bool:
        """Whether any of its pods still run."""
        ...

    def pods_ready(self) -> bool:
        """Whether all the pods it needs are ready (Kueue's waitForPodsReady)."""
        ...


@runtime_checkable
class JobWithPriorityClass(Protocol):
    def priority_class(self) -> str:
        """The pod priority class name the workload's priority comes from ("" when none)."""
        ...


@runtime_checkable
class JobWithManagedBy(Protocol):
    def managed_by(self) -> str | None: ...

    def set_managed_by(self, value: str | None) -> None: ...


@runtime_checkable
class JobWithReclaimablePods(Protocol):
    def reclaimable_pods(self) -> list[tuple[str, int]]:
        """``(pod set name, count)`` of pods the workload no longer needs (Kueue ``ReclaimablePods``)."""
        ...


@runtime_checkable
class JobWithCustomStop(Protocol):
    def stop(self, client: Any, infos: list[PodSetInfo]) -> bool:
        """Stop the workload through ``client`` (writes of its own, e.g. a status reset between two
        updates), restoring ``infos``; whether it was running until now (Kueue ``JobWithCustomStop``)."""
        ...


class PodSetInfoError(ValueError):
    """A pod set info that cannot be applied (Kueue's ``ErrInvalidPodsetInfo`` /
    ``ErrInvalidPodSetUpdate``): a permanent error, the workload is finished with ``FailedToStart``."""


def info_from_template(name: str, count: int, template: PodTemplateSpec) -> PodSetInfo:
    """``podset.FromPodSet``: what a pod template carries before admission changes it."""
    meta = template.metadata
    spec = template.spec
    return PodSetInfo(
        name,
        count,
        dict(spec.node_selector or {}),
        tuple(spec.tolerations or ()),
        dict((meta.labels if meta else None) or {}),
        dict((meta.annotations if meta else None) or {}),
        tuple(g.name for g in spec.scheduling_gates or ()),
    )


def _conflict(what: str, have: dict[str, str], new: dict[str, str]) -> None:
    for k in have:
        if k in new and have[k] != new[k]:
            raise PodSetInfoError(
                f"invalid podset infos: conflict for {what}: conflict for key={k}, "
                f"value1={have[k]}, value2={new[k]}"
            )


_SLICE_NAME = "kueue.x-k8s.io/workload-slice-name"
_WORKLOAD = "kueue.x-k8s.io/workload"


def _overridable(info: PodSetInfo) -> tuple[str, ...]:
    """``overrideableAnnotations`` (kueue ``pkg/podset/podset.go``): an elastic admission (its info
    names the slice chain) overwrites a stale slice name and Workload name instead of conflicting."""
    return (_SLICE_NAME, _WORKLOAD) if _SLICE_NAME in info.annotations else ()


def merge_info(template: PodTemplateSpec, info: PodSetInfo) -> None:
    """``podset.Merge`` into ``template`` (the caller's private copy)."""
    from kbatch.api.core_v1 import PodSchedulingGate
    from kbatch.api.meta import ObjectMeta

    meta: Any = template.metadata
    if meta is None:
        meta = template.metadata = ObjectMeta()
    spec = template.spec
    labels, annotations = dict(meta.labels or {}), dict(meta.annotations or {})
    selector = dict(spec.node_selector or {})
    for key in _overridable(info):
        annotations.pop(key, None)
    _conflict("annotations", annotations, info.annotations)
    _conflict("labels", labels, info.labels)
    _conflict("nodeSelector", selector, info.node_selector)
    if info.annotations:
        meta.annotations = {**annotations, **info.annotations}
    if info.labels:
        meta.labels = {**labels, **info.labels}
    if info.node_selector:
        spec.node_selector = {**selector, **info.node_selector}
    if info.tolerations:
        have = list(spec.tolerations or ())
        spec.tolerations = have + [t for t in info.tolerations if t not in have]
    if info.scheduling_gates:
        gates = list(spec.scheduling_gates or ())
        names = {g.name for g in gates}
        spec.scheduling_gates = gates + [
            PodSchedulingGate(name=n) for n in info.scheduling_gates if n not in names
        ]


def restore_template(template: PodTemplateSpec, info: PodSetInfo) -> bool:
    """``podset.RestorePodSpec``: annotations, labels, node selector, tolerations and scheduling gates
    back to ``info``'s; whether anything changed."""
    from kbatch.api.core_v1 import PodSchedulingGate
    from kbatch.api.meta import ObjectMeta

    meta: Any = template.metadata
    if meta is None:
        meta = template.metadata = ObjectMeta()
    spec = template.spec
    changed = False
    if dict(meta.annotations or {}) != info.annotations:
        meta.annotations, changed = dict(info.annotations) or None, True
    if dict(meta.labels or {}) != info.labels:
        meta.labels, changed = dict(info.labels) or None, True
    if dict(spec.node_selector or {}) != info.node_selector:
        spec.node_selector, changed = dict(info.node_selector) or None, True
    if tuple(spec.tolerations or ()) != info.tolerations:
        spec.tolerations, changed = list(info.tolerations) or None, True
    if tuple(g.name for g in spec.scheduling_gates or ()) != info.scheduling_gates:
        spec.scheduling_gates = [PodSchedulingGate(name=n) for n in info.scheduling_gates] or None
        changed = True
    return changed
