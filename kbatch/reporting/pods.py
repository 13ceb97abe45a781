"""A pod's life as a report sees it: created, scheduled, running from when to when, what it held.

* **scheduled**: the ``PodScheduled`` condition's ``lastTransitionTime`` once it is ``True`` (set by the
  scheduler's binding, kubernetes ``pkg/scheduler/schedule_one.go``); a pod bound by hand
  (``spec.nodeName`` at creation) never gets it from a scheduler, so its start stands in.
* **started**: the earliest ``startedAt`` among its containers' current and last states (the kubelet's
  container statuses, ``ContainerStateRunning`` / ``ContainerStateTerminated``), else ``status.startTime``
  when the pod got past ``Pending``.
* **finished**: for a terminal pod (``Succeeded``/``Failed``) the latest container ``finishedAt``, else
  the ``Ready=False`` transition; for a pod being deleted, its ``deletionTimestamp``; else open.
* **requests**: upstream's ``PodRequests`` (containers by the init/sidecar rule, pod-level requests,
  overhead; the scheduler's own :func:`~kbatch.api.pod_resources.pod_requests`), with
  cpu in cores and everything else in base units.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.api.pod_resources import ContainerRequests, pod_requests
from kbatch.api.quantity import Quantity, QuantityError
from kbatch.reporting.wire import Obj, condition_time, meta, time_at, times, uid

__all__ = ["PodFacts", "in_units", "node_allocatable", "pod_facts", "quantities"]

TERMINAL = ("Succeeded", "Failed")


@dataclass(frozen=True, slots=True)
class PodFacts:
    namespace: str
    name: str
    uid: str
    node: str | None
    phase: str
    created: datetime | None
    scheduled: datetime | None
    started: datetime | None
    finished: datetime | None
    restarts: int
    requests: Mapping[str, float] = field(default_factory=dict)
    owner_uid: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    device_seconds: Mapping[str, float] = field(default_factory=dict)  # DRA device-seconds

    @property
    def failed(self) -> bool:
        return self.phase == "Failed"


def quantities(resources: Mapping[str, Any] | None, *, cpu_milli: bool = True) -> dict[str, int]:
    """Quantities as integers: cpu in millicores, everything else in base units (rounded up)."""
    out: dict[str, int] = {}
    for name, text in (resources or {}).items():
        try:
            q = Quantity.parse(text)
        except QuantityError:
            continue
        out[name] = q.milli_value() if name == "cpu" and cpu_milli else q.value()
    return out


def _container(c: Mapping[str, Any]) -> dict[str, int]:
    res = c.get("resources") or {}
    merged = dict(res.get("limits") or {})  # requests default to limits (core/v1 defaults.go)
    merged.update(res.get("requests") or {})
    return quantities(merged)


def in_units(amounts: Mapping[str, int]) -> dict[str, float]:
    """:func:`quantities`' integers in the report's units: cpu in cores, the rest as they are."""
    return {k: (v / 1000 if k == "cpu" else float(v)) for k, v in sorted(amounts.items())}


def _requests(spec: Mapping[str, Any]) -> dict[str, float]:
    containers = [_container(c) for c in spec.get("containers") or ()]
    inits = [ContainerRequests(_container(c), restartable=c.get("restartPolicy") == "Always")
             for c in spec.get("initContainers") or ()]
    pod_level = quantities((spec.get("resources") or {}).get("requests"))
    total = pod_requests(containers, inits, pod_level or None, quantities(spec.get("overhead")) or None)
    return in_units(total)


def _container_states(status: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    states = []
    for key in ("initContainerStatuses", "containerStatuses"):
        for cs in status.get(key) or ():
            for which in ("state", "lastState"):
                for state in ((cs.get(which) or {}).get("running"), (cs.get(which) or {}).get("terminated")):
                    if isinstance(state, Mapping):
                        states.append(state)
    return states


def _restarts(status: Mapping[str, Any]) -> int:
    return sum(int(cs.get("restartCount") or 0) for key in ("initContainerStatuses", "containerStatuses")
               for cs in status.get(key) or ())


def pod_facts(pod: Obj) -> PodFacts:
    m, spec, status = meta(pod), pod.get("spec") or {}, pod.get("status") or {}
    phase = str(status.get("phase") or "Pending")
    states = _container_states(status)
    started_at = times(time_at(s.get("startedAt")) for s in states)
    started = started_at[0] if started_at else None
    if started is None and phase != "Pending":
        started = time_at(status.get("startTime"))
    finished = None
    if phase in TERMINAL:
        ends = times(time_at(s.get("finishedAt")) for s in states)
        finished = ends[-1] if ends else condition_time(pod, "Ready", "False")
    if finished is None and m.get("deletionTimestamp"):
        finished = time_at(m.get("deletionTimestamp"))
    created = time_at(m.get("creationTimestamp"))
    node = spec.get("nodeName") or None
    scheduled = condition_time(pod, "PodScheduled")
    if scheduled is None and node:
        scheduled = started or created
    owner = next((r.get("uid") for r in m.get("ownerReferences") or () if r.get("controller")), None)
    return PodFacts(namespace=str(m.get("namespace") or ""), name=str(m.get("name") or ""), uid=uid(pod),
                    node=node, phase=phase, created=created, scheduled=scheduled, started=started,
                    finished=finished, restarts=_restarts(status), requests=_requests(spec),
                    owner_uid=owner, labels=dict(m.get("labels") or {}))


def node_allocatable(node: Obj) -> dict[str, float]:
    """``status.allocatable`` (``capacity`` when a node reports none), cpu in cores."""
    status = node.get("status") or {}
    return in_units(quantities(status.get("allocatable") or status.get("capacity")))
