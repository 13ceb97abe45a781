"""The ``endpoints.kubernetes.io/last-change-trigger-time`` annotation (k8s.io/endpointslice
``util/trigger_time_tracker.go`` ``TriggerTimeTracker``; KEP-1023 SLI "network programming latency").

Per Service the tracker remembers what the last sync saw: the Service's creation time and each
selected pod's trigger time, the last transition of its ``Ready`` condition. A sync's trigger time is
the Service's creation time the first time the Service is seen; afterwards the earliest of the
trigger times that moved since the last sync, or none (the annotation is then removed). Like
upstream's, the state lives in the controller's memory: a restarted controller sees every Service
anew.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.base import format_nano_time

__all__ = ["TriggerTimeTracker", "format_trigger_time"]


def _pod_trigger(pod: Any) -> datetime | None:
    status = pod.status
    for cond in (status.conditions if status is not None else None) or ():
        if cond.type == "Ready":
            return cond.last_transition_time  # type: ignore[no-any-return]
    return None


format_trigger_time = format_nano_time  # the annotation's value: Go's RFC3339Nano


class TriggerTimeTracker:
    """``ComputeEndpointLastChangeTriggerTime`` and ``DeleteService`` (module docstring)."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], tuple[datetime | None, dict[str, datetime]]] = {}

    def compute(self, service: Any, pods: list[Any]) -> datetime | None:
        key = (service.metadata.namespace or "", service.metadata.name or "")
        known = key in self.states
        last_service, last_pods = self.states.get(key, (None, {}))
        changed: list[datetime] = []
        pod_times: dict[str, datetime] = {}
        for pod in pods:
            when = _pod_trigger(pod)
            if when is None:
                continue
            pod_times[pod.metadata.name or ""] = when
            before = last_pods.get(pod.metadata.name or "")
            if before is None or when > before:
                changed.append(when)
        created = service.metadata.creation_timestamp
        if created is not None and (last_service is None or created > last_service):
            changed.append(created)
        self.states[key] = (created, pod_times)
        if not known:
            return created  # type: ignore[no-any-return]
        return min(changed) if changed else None

    def delete_service(self, namespace: str, name: str) -> None:
        self.states.pop((namespace, name), None)
