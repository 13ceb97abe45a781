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
:class:`JobWithPriorityClass` and :class:`JobWithManagedBy`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kbatch.api.core_v1 import PodTemplateSpec, Toleration
from kbatch.api.meta import Resource

__all__ = ["GenericJob", "JobWithManagedBy", "JobWithPriorityClass", "PodSet", "PodSetInfo"]


@dataclass(frozen=True, slots=True)
class PodSet:
    """A group of identical pods a workload needs (Kueue ``PodSet``): ``count`` pods of ``template``;
    ``min_count`` the fewest it can run with (partial admission), ``None`` when it needs all."""

    name: str
    count: int
    template: PodTemplateSpec
    min_count: int | None = None


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


def inject(template: PodTemplateSpec, info: PodSetInfo) -> None:
    """Merge ``info`` into ``template`` (Kueue ``podset.Merge``): node selector, labels and annotations
    added (a conflicting value is an error there; here the admitted value is applied), tolerations
    and scheduling gates appended when missing. ``template`` is the caller's private copy."""
    meta: Any = template.metadata
    if meta is None:
        from kbatch.api.meta import ObjectMeta

        meta = template.metadata = ObjectMeta()
    if info.labels:
        meta.labels = {**(meta.labels or {}), **info.labels}
    if info.annotations:
        meta.annotations = {**(meta.annotations or {}), **info.annotations}
    spec = template.spec
    if info.node_selector:
        spec.node_selector = {**(spec.node_selector or {}), **info.node_selector}
    if info.tolerations:
        have = list(spec.tolerations or ())
        spec.tolerations = have + [t for t in info.tolerations if t not in have]
    if info.scheduling_gates:
        from kbatch.api.core_v1 import PodSchedulingGate

        gates = list(spec.scheduling_gates or ())
        names = {g.name for g in gates}
        spec.scheduling_gates = gates + [PodSchedulingGate(name=n) for n in info.scheduling_gates
                                         if n not in names]
