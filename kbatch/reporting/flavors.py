"""Kueue quota by ResourceFlavor: the usage admitted to each flavor over the flavor's nominal quota.

* **use**: a Kueue Workload's ``status.admission.podSetAssignments[]`` — for each resource of
  ``resourceUsage``, the flavor ``flavors[resource]`` (kubernetes-sigs/kueue ``apis/kueue/v1beta2``
  ``workload_types.go``, ``PodSetAssignment``) — held from its ``QuotaReserved`` transition until
  it ``Finished`` (open while it runs). A workload evicted since (``QuotaReserved`` now ``False``)
  has lost the time it held quota from and is not counted.
* **quota**: the sum over ClusterQueues of ``spec.resourceGroups[].flavors[].resources[].nominalQuota``
  per flavor and resource (``clusterqueue_types.go``), from each ClusterQueue's creation.

Quota, not nodes: a flavor's ratio reads how much of what the queues may admit without borrowing is
admitted; borrowing inside a cohort moves quota between ClusterQueues but never above the sum.
Units as elsewhere in the report: cpu in cores, everything else in base units.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from kbatch.reporting.pods import PodFacts, in_units, quantities
from kbatch.reporting.series import Interval
from kbatch.reporting.wire import Obj, condition_time, meta, ref_of, time_at, uid

__all__ = ["flavor_quota", "flavor_use"]

GROUP = "kueue.x-k8s.io"


def flavor_quota(objects: Iterable[Obj], origin: datetime) -> dict[str, Interval]:
    """Flavor → its nominal quota as one interval per flavor (ClusterQueues summed; from the earliest)."""
    totals: dict[str, dict[str, float]] = {}
    since: dict[str, datetime] = {}
    for cq in (o for o in objects if ref_of(o)[:2] == (GROUP, "ClusterQueue")):
        created = time_at(meta(cq).get("creationTimestamp")) or origin
        for group in (cq.get("spec") or {}).get("resourceGroups") or ():
            for flavor in group.get("flavors") or ():
                name = str(flavor.get("name"))
                amounts = in_units(quantities({str(r.get("name")): r.get("nominalQuota")
                                                for r in flavor.get("resources") or ()}))
                into = totals.setdefault(name, {})
                for resource, amount in amounts.items():
                    into[resource] = into.get(resource, 0.0) + amount
                since[name] = min(since.get(name, created), created)
    return {name: Interval(since[name], None, totals[name]) for name in sorted(totals)}


def flavor_use(objects: Iterable[Obj]) -> list[PodFacts]:
    """Each admitted workload's use of each flavor, as a span on the flavor's row (``node`` = flavor)."""
    out = []
    for wl in (o for o in objects if ref_of(o)[:2] == (GROUP, "Workload")):
        start = condition_time(wl, "QuotaReserved")
        if start is None:
            continue
        end = condition_time(wl, "Finished")
        per_flavor: dict[str, dict[str, float]] = {}
        admission = (wl.get("status") or {}).get("admission") or {}
        for assignment in admission.get("podSetAssignments") or ():
            flavors = assignment.get("flavors") or {}
            for resource, amount in in_units(quantities(assignment.get("resourceUsage"))).items():
                if resource in flavors:
                    into = per_flavor.setdefault(str(flavors[resource]), {})
                    into[resource] = into.get(resource, 0.0) + amount
        m = meta(wl)
        for flavor, usage in sorted(per_flavor.items()):
            out.append(PodFacts(namespace=str(m.get("namespace") or ""), name=str(m.get("name") or ""),
                                uid=f"{uid(wl)}/{flavor}", node=flavor, phase="Running", created=start,
                                scheduled=start, started=start, finished=end, restarts=0,
                                requests=usage))
    return out
