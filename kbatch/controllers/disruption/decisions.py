"""Pure decisions of the disruption controller (upstream ``pkg/controller/disruption/disruption.go``).

* :func:`expected_pod_count` — ``getExpectedPodCount``: ``maxUnavailable`` (int or percent) and a
  percent ``minAvailable`` need the pods' controllers' scale (``getExpectedScale``: the sum of the
  distinct controllers' replicas); an int ``minAvailable`` uses the number of selected pods. Percents
  round *up* for both fields (``GetScaledValueFromIntOrPercent(..., roundUp=true)``), so
  ``maxUnavailable: 50%`` of 3 allows 2 down and ``minAvailable: 50%`` of 3 wants 2 healthy. Pods
  without a controller are *unmanaged*: skipped, reported by an event. A controller that has no scale
  is an error (:class:`SyncError`): every kbatch kind lacks the scale subresource (``jobs.batch does
  not implement the scale subresource``) and kinds kbatch does not serve (ReplicaSet, StatefulSet…)
  have no REST mapping (``no matches for kind "ReplicaSet" in version "apps/v1"``).
* :func:`build_disrupted_pod_map` — ``buildDisruptedPodMap``: keep an entry while its pod exists,
  is not yet terminating and ``DeletionTimeout`` (2 min) has not passed; report the expired ones.
* :func:`count_healthy` — ``countHealthyPods``: Ready pods not terminating and not recently evicted.
* :func:`disruptions_allowed` — ``currentHealthy - desiredHealthy``, 0 when negative or when no pod
  is expected (a PDB matching nothing is safe when its first pods appear).
* :func:`stale_disruption_wait` — ``nonTerminatingPodHasStaleDisruptionCondition``: a pod that is
  not terminating and not terminal, with ``DisruptionTarget=True`` not set by the kubelet, has its
  condition reset to False ``stalePodDisruptionTimeout`` (2 min) after it was set.

kbatch difference: an entry whose deadline is exactly now counts as expired (virtual time does not
move while work is pending, so "strictly before now" would re-check forever at the same instant).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

__all__ = [
    "DELETION_TIMEOUT",
    "STALE_POD_DISRUPTION_TIMEOUT",
    "DisruptedPods",
    "SyncError",
    "build_disrupted_pod_map",
    "count_healthy",
    "disruptions_allowed",
    "expected_pod_count",
    "scaled_value",
    "stale_disruption_wait",
]

DELETION_TIMEOUT = timedelta(minutes=2)
STALE_POD_DISRUPTION_TIMEOUT = timedelta(minutes=2)
TERMINATION_BY_KUBELET = "TerminationByKubelet"

# (controller uid, replicas) for an owner reference, or raises SyncError; None: no such controller.
ScaleFinder = Callable[[Any, str], "tuple[str, int] | None"]


class SyncError(Exception):
    """A sync failure that the controller turns into the ``SyncFailed`` condition (``failSafe``)."""


def scaled_value(value: int | str, total: int) -> int:
    """``intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)``."""
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise SyncError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:
        percent = int(value[:-1])
    except ValueError:
        raise SyncError(f'invalid value for IntOrString: invalid value "{value}": strconv.Atoi: parsing '
                        f'"{value[:-1]}": invalid syntax') from None
    return math.ceil(percent * total / 100)


def _expected_scale(pods: Iterable[Any], find_scale: ScaleFinder) -> tuple[int, list[str]]:
    scales: dict[str, int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        ref = pod.metadata.controller_ref()
        if ref is None:
            unmanaged.append(pod.metadata.name)
            continue
        if ref.uid in scales:
            continue
        found = find_scale(ref, pod.metadata.namespace or "")
        if found is None:
            raise SyncError(f'found no controllers for pod "{pod.metadata.name}"')
        scales[found[0]] = found[1]
    return sum(scales.values()), unmanaged


def expected_pod_count(spec: Any, pods: list[Any], find_scale: ScaleFinder) -> tuple[int, int, list[str]]:
    """(expectedCount, desiredHealthy, unmanaged pod names) for a PDB spec over its pods."""
    if spec.max_unavailable is not None:
        expected, unmanaged = _expected_scale(pods, find_scale)
        return expected, max(0, expected - scaled_value(spec.max_unavailable, expected)), unmanaged
    if spec.min_available is not None:
        if isinstance(spec.min_available, int):
            return len(pods), spec.min_available, []
        expected, unmanaged = _expected_scale(pods, find_scale)
        return expected, scaled_value(spec.min_available, expected), unmanaged
    return 0, 0, []


@dataclass(frozen=True, slots=True)
class DisruptedPods:
    kept: dict[str, datetime]
    recheck: datetime | None  # the earliest deadline of a kept entry
    expired: list[str]  # pods that were expected to be deleted but were not


def build_disrupted_pod_map(pods: Iterable[Any], disrupted: Mapping[str, datetime] | None,
                            now: datetime) -> DisruptedPods:
    kept: dict[str, datetime] = {}
    expired: list[str] = []
    recheck: datetime | None = None
    for pod in pods:
        name = pod.metadata.name
        if pod.metadata.deletion_timestamp is not None or not disrupted or name not in disrupted:
            continue
        when = disrupted[name]
        deadline = when + DELETION_TIMEOUT
        if deadline <= now:
            expired.append(name)
            continue
        recheck = deadline if recheck is None or deadline < recheck else recheck
        kept[name] = when
    return DisruptedPods(kept, recheck, expired)


def count_healthy(pods: Iterable[Any], disrupted: Mapping[str, datetime], now: datetime,
                  is_ready: Callable[[Any], bool]) -> int:
    healthy = 0
    for pod in pods:
        if pod.metadata.deletion_timestamp is not None:
            continue
        when = disrupted.get(pod.metadata.name)
        if when is not None and when + DELETION_TIMEOUT > now:
            continue
        healthy += is_ready(pod)
    return healthy


def disruptions_allowed(current_healthy: int, desired_healthy: int, expected: int) -> int:
    allowed = current_healthy - desired_healthy
    return 0 if expected <= 0 or allowed <= 0 else allowed


def stale_disruption_wait(pod: Any, now: datetime, timeout: timedelta = STALE_POD_DISRUPTION_TIMEOUT,
                          ) -> float | None:
    """Seconds until the pod's DisruptionTarget condition is stale (0: now), None when it never is."""
    if pod.metadata.deletion_timestamp is not None:
        return None
    status = pod.status
    if status is not None and status.phase in ("Succeeded", "Failed"):
        return None
    cond = next((c for c in (status.conditions if status else None) or () if c.type == "DisruptionTarget"),
                None)
    if cond is None or cond.status != "True" or cond.reason == TERMINATION_BY_KUBELET:
        return None
    since = cond.last_transition_time or now
    return max(0.0, (timeout - (now - since)).total_seconds())
