"""The resourcequota controller's decision: a quota's status from the namespace's objects (pure).

Upstream (semantics only): kubernetes ``pkg/controller/resourcequota/resource_quota_controller.go``
``syncResourceQuota`` and ``staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go``
``CalculateUsage``: ``status.hard`` is ``spec.hard``; ``status.used`` keeps the previous
observation for resources no evaluator counts, and every resource some evaluator accounts is the
sum over the objects the quota's scopes select (zero when none), limited to ``spec.hard``'s names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from kbatch.api.core_v1 import ResourceQuota, ResourceQuotaStatus
from kbatch.api.meta import Resource
from kbatch.api.quantity import Quantity
from kbatch.api.quota_usage import matching_resources, selected, usage

__all__ = ["RESYNC_PERIOD", "quota_status"]

RESYNC_PERIOD = 300.0  # kube-controller-manager --resource-quota-sync-period (5m0s)


def _total(rq: ResourceQuota, resource: str, objects: Iterable[Resource], names: list[str],
           now: datetime) -> dict[str, Quantity]:
    total = {name: Quantity(0) for name in names}
    for obj in objects:
        if not selected(rq, obj):
            continue
        for name, q in usage(resource, obj, now).items():
            if name in total:
                total[name] = total[name].add(q)
    return total


def quota_status(rq: ResourceQuota, objects: Mapping[str, Iterable[Resource]],
                 now: datetime) -> ResourceQuotaStatus:
    """The status ``rq`` should have; ``objects`` are the namespace's objects by ``group_resource``
    for every kind it can count (kinds not given keep their previous ``used``)."""
    hard = dict((rq.spec.hard if rq.spec else None) or {})
    used = dict((rq.status.used if rq.status else None) or {})
    for resource in sorted(objects):
        names = matching_resources(resource, hard)
        if names:
            used.update(_total(rq, resource, objects[resource], names, now))
    return ResourceQuotaStatus(hard=hard, used={n: used[n] for n in sorted(used) if n in hard})
