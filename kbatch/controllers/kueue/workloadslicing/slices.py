"""The workload-slice rules, as pure functions of a job's Workloads.

Upstream: kubernetes-sigs/kueue ``pkg/workloadslicing/workloadslicing.go`` (v0.19.2) and
``pkg/workload/podsetscounts.go``. Every function here reads; the job reconciler
(:mod:`kbatch.controllers.kueue.jobframework.reconciler`) and the scheduler write what they decide.

* :func:`enabled`: the gate is on and the object is annotated ``kueue.x-k8s.io/elastic-job: "true"``
  (key and value both match: ``"True"`` does not enable it).
* :func:`not_finished` (``FindNotFinishedWorkloads``): a job's Workloads oldest first (creation time,
  then UID), without the finished ones.
* :func:`decide_slices` (``EnsureWorkloadSlices``): which slice the job continues with, and whether
  its counts change in place (not yet admitted, or a pure scale-down) or a new slice is needed
  (scale-up of an admitted slice); with two or more live slices, :func:`normalize_active_slices`
  first keeps the admitted one at the head of the chain and its pending replacement, and finishes
  the others (``WorkloadSliceReplaced`` when another slice replaces them, else ``OutOfSync``).
* :func:`replaced_workload_slice` / :func:`find_replaced_slice_target`: the scheduler's view of the
  slice a new one replaces (same ClusterQueue and namespace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from kbatch.api.kueue_v1beta2 import Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import (
    ELASTIC_JOB_ANNOTATION,
    WORKLOAD_SLICE_NAME_ANNOTATION,
    WORKLOAD_SLICE_REPLACEMENT_FOR,
    Cond,
    Reason,
)

__all__ = [
    "OUT_OF_SYNC_MESSAGE",
    "REPLACED_MESSAGE",
    "SliceDecision",
    "decide_slices",
    "enabled",
    "find_latest_active",
    "find_replaced_slice_target",
    "is_replaced",
    "normalize_active_slices",
    "not_finished",
    "pod_set_counts",
    "replaced_workload_slice",
    "replacement_for_key",
    "scaled_down",
    "scaled_up",
    "slice_name",
]

ENABLED_VALUE = "true"
REPLACED_MESSAGE = "Replaced to accommodate a new workload slice"
OUT_OF_SYNC_MESSAGE = "The workload slice is out of sync with its parent job"

Counts = Mapping[str, int]
T = TypeVar("T")


# --- the annotations ----------------------------------------------------------------------------------
def enabled(obj: Any, gate_on: bool) -> bool:
    """``workloadslicing.Enabled``: the gate, and the annotation's key and exact value."""
    if obj is None or not gate_on:
        return False
    return (obj.metadata.annotations or {}).get(ELASTIC_JOB_ANNOTATION) == ENABLED_VALUE


def replacement_for_key(wl: Workload) -> str | None:
    """``ReplacementForKey``: the ``namespace/name`` of the slice ``wl`` replaces (an empty value
    counts: upstream tests the key's presence)."""
    return (wl.metadata.annotations or {}).get(WORKLOAD_SLICE_REPLACEMENT_FOR)


def scaled_up(wl: Workload) -> bool:
    """``ScaledUp``: ``wl`` replaces another slice."""
    return replacement_for_key(wl) is not None


def slice_name(wl: Workload) -> str:
    """``SliceName``: the chain's first slice's name (the annotation), else the Workload's own."""
    return (wl.metadata.annotations or {}).get(WORKLOAD_SLICE_NAME_ANNOTATION, wl.metadata.name or "")


def key_of(wl: Workload) -> str:
    return f"{wl.metadata.namespace or ''}/{wl.metadata.name or ''}"


def _true(status: WorkloadStatus | None, kind: str) -> bool:
    return any(c.type == kind and c.status == "True" for c in (status.conditions if status else None) or ())


def reserved(wl: Workload) -> bool:
    return _true(wl.status, Cond.QUOTA_RESERVED)


def evicted(wl: Workload) -> bool:
    return _true(wl.status, Cond.EVICTED)


def is_replaced(status: WorkloadStatus | None) -> bool:
    """``IsReplaced``: ``Finished`` is true with reason ``WorkloadSliceReplaced``."""
    return any(
        c.type == Cond.FINISHED and c.status == "True" and c.reason == Reason.WORKLOAD_SLICE_REPLACED
        for c in (status.conditions if status else None) or ()
    )


# --- pod set counts (pkg/workload/podsetscounts.go) -----------------------------------------------------
def pod_set_counts(pod_sets: Sequence[Any] | None) -> dict[str, int]:
    """``ExtractPodSetCounts``: pod set name → count."""
    return {ps.name or "": ps.count if ps.count is not None else 1 for ps in pod_sets or ()}


def _fewer_replicas(c: Counts, other: Counts) -> bool:
    """``HasFewerReplicasThan``: some pod set of ``c`` counts less than the same one of ``other``."""
    return any(name in other and count < other[name] for name, count in c.items())


def scaled_down(old: Counts, new: Counts) -> bool:
    """``ScaledDown``: some pod set shrinks and none grows."""
    return _fewer_replicas(new, old) and not _fewer_replicas(old, new)


# --- the job's slices ----------------------------------------------------------------------------------
def not_finished(workloads: Sequence[Workload]) -> list[Workload]:
    """``FindNotFinishedWorkloads``: oldest first (a same-second tie broken by UID), finished dropped."""
    ordered = sorted(workloads, key=lambda w: (w.metadata.creation_timestamp, w.metadata.uid or ""))
    return [w for w in ordered if not _true(w.status, Cond.FINISHED)]


def find_latest_active(workloads: Sequence[Workload]) -> Workload | None:
    """``FindLatestActiveWorkload``: the newest live slice with a reservation that is not being
    evicted (eviction sets the condition before it releases the reservation)."""
    for wl in reversed(not_finished(workloads)):
        if reserved(wl) and not evicted(wl):
            return wl
    return None


@dataclass(frozen=True)
class Normalized:
    """What :func:`normalize_active_slices` keeps and finishes (with reason and message)."""

    selected: Workload | None
    finish: tuple[tuple[Workload, str, str], ...]


def normalize_active_slices(live: Sequence[Workload]) -> Normalized:
    """``normalizeActiveSlices`` over a job's live slices, oldest first: keep the admitted slice at
    the head of the replacement chain and its pending replacement (else the newest non-evicted
    slice); finish every other one, evicted ones included (they hold quota to give back)."""
    replacements: dict[str, Workload] = {}
    for wl in live:
        target = replacement_for_key(wl)
        if target is None or evicted(wl):
            continue
        have = replacements.get(target)
        if have is None or (not reserved(have) and reserved(wl)):
            replacements[target] = wl
    head: Workload | None = None
    latest: Workload | None = None
    for wl in live:
        if evicted(wl):
            continue
        latest = wl
        if not reserved(wl):
            continue
        repl = replacements.get(key_of(wl))
        if repl is not None and reserved(repl):
            continue
        head = wl
    pending = None
    if head is not None:
        repl = replacements.get(key_of(head))
        if repl is not None and not reserved(repl):
            pending = repl
    selected = pending or head or latest
    finish = []
    for wl in live:
        if wl is selected or wl is head:
            continue
        if key_of(wl) in replacements:
            finish.append((wl, Reason.WORKLOAD_SLICE_REPLACED, REPLACED_MESSAGE))
        else:
            finish.append((wl, Reason.OUT_OF_SYNC, OUT_OF_SYNC_MESSAGE))
    return Normalized(selected, tuple(finish))


@dataclass(frozen=True)
class SliceDecision:
    """``EnsureWorkloadSlices``' answer.

    ``workload``: the slice the job continues with (``None``: a new slice is to be created, when
    ``compatible``); ``compatible`` false: the pod sets changed shape, the job falls back to the
    ordinary one-Workload path; ``counts``: the job's counts to write into ``workload`` first;
    ``finish``: slices to finish before anything else (reason, message)."""

    workload: Workload | None
    compatible: bool
    counts: dict[str, int] | None = None
    finish: tuple[tuple[Workload, str, str], ...] = ()


def _against(job: Counts, wl: Workload, finish: tuple[tuple[Workload, str, str], ...]) -> SliceDecision:
    have = pod_set_counts(wl.spec.pod_sets if wl.spec else None)
    if set(have) != set(job):
        return SliceDecision(None, False, finish=finish)
    if dict(have) == dict(job):
        return SliceDecision(wl, True, finish=finish)
    if not reserved(wl) or scaled_down(have, job):
        return SliceDecision(wl, True, dict(job), finish)
    return SliceDecision(None, True, finish=finish)  # scale-up of a reserved slice: a new slice


def decide_slices(job_counts: Counts, workloads: Sequence[Workload]) -> SliceDecision:
    """``EnsureWorkloadSlices`` for the job's pod set counts and all its Workloads."""
    live = not_finished(workloads)
    if not live:
        return SliceDecision(None, True)
    if len(live) == 1:
        return _against(job_counts, live[0], ())
    normalized = normalize_active_slices(live)
    if normalized.selected is None:
        return SliceDecision(None, True, finish=normalized.finish)
    return _against(job_counts, normalized.selected, normalized.finish)


# --- the scheduler's view ---------------------------------------------------------------------------------
def replaced_workload_slice(
    replacement_key: str | None, namespace: str, cq_workloads: Mapping[str, T] | None,
    namespace_of: Callable[[T], str],
) -> T | None:
    """``ReplacedWorkloadSlice``: the slice a new one replaces, found among its ClusterQueue's
    workloads with a reservation, in the same namespace (a replacement across namespaces is refused)."""
    if replacement_key is None or cq_workloads is None:
        return None
    found = cq_workloads.get(replacement_key)
    if found is None or namespace_of(found) != namespace:
        return None
    return found


def find_replaced_slice_target(
    replacement_key: str | None, targets: Sequence[T], key: Callable[[T], str]
) -> tuple[list[T], T | None]:
    """``FindReplacedSliceTarget``: the preemption targets without the replaced slice, and it."""
    if replacement_key is None:
        return list(targets), None
    for i, t in enumerate(targets):
        if key(t) == replacement_key:
            return [*targets[:i], *targets[i + 1 :]], t
    return list(targets), None
