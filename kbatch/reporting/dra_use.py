"""The DRA part of a report, assembled: the devices the pods held (whole-run shares merged into
their requests, shared claims per instant as extra intervals), each pod's device-seconds, the
devices the nodes publish, and the devices under admin access (kept apart from use).

Pure: :func:`dra_use` reads objects and pod facts and returns new ones; see devices.py, sharing.py,
admin_access.py and device_classes.py for the rules and their upstream sources.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from kbatch.reporting.admin_access import AdminAccessRecord, admin_access_intervals, admin_access_records
from kbatch.reporting.device_classes import CLASS_PREFIX, DeviceClasses
from kbatch.reporting.devices import device_capacity, device_use, published_devices
from kbatch.reporting.pods import PodFacts
from kbatch.reporting.series import Interval
from kbatch.reporting.sharing import pod_run, shared_intervals
from kbatch.reporting.wire import Obj

__all__ = ["DraUse", "dra_use", "is_device_resource"]


def is_device_resource(name: str) -> bool:
    return name.startswith(("devices/", CLASS_PREFIX))


@dataclass(frozen=True, slots=True)
class DraUse:
    pods: dict[str, PodFacts]  # by uid: requests with the devices held over the whole run, device_seconds
    capacity: Mapping[str, Mapping[str, float]]  # node → devices/<driver>, deviceclass/<name> → count
    shared: tuple[tuple[str, Interval], ...]  # (node, a pod's share of a shared claim over a span)
    admin_access: tuple[AdminAccessRecord, ...]
    admin_intervals: tuple[tuple[str | None, Interval], ...]  # (node, a device under admin access)


def _device_seconds(pod: PodFacts, shares: Iterable[Interval], end: datetime) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    run = pod_run(pod, end)
    if run is not None:
        for resource, amount in pod.requests.items():
            if is_device_resource(resource):
                out[resource] += amount * (run.end - run.start).total_seconds()
    for iv in shares:
        assert iv.end is not None
        for resource, amount in iv.amounts.items():
            out[resource] += amount * (iv.end - iv.start).total_seconds()
    return {r: round(v, 6) for r, v in sorted(out.items())}


def dra_use(objects: Sequence[Obj], pods: Mapping[str, PodFacts], history: Iterable[Obj],
            end: datetime) -> DraUse:
    """The DRA figures of ``objects`` up to ``end``; ``history``: earlier claim versions, oldest first."""
    published = published_devices(objects)
    classes = DeviceClasses(objects, published)
    use = device_use(objects, history, classes)
    merged = {k: replace(p, requests={**p.requests, **use.held[k]}) if k in use.held else p
              for k, p in pods.items()}
    shared = shared_intervals(use.shared, merged, end)
    shares: dict[str, list[Interval]] = defaultdict(list)
    for _node, pod_uid, iv in shared:
        shares[pod_uid].append(iv)
    merged = {k: replace(p, device_seconds=_device_seconds(p, shares.get(k, ()), end))
              for k, p in merged.items()}
    admin = admin_access_records(use.admin, merged, published, end)
    return DraUse(merged, device_capacity(objects, classes, published),
                  tuple((node, iv) for node, _pod, iv in shared), admin,
                  tuple(admin_access_intervals(admin, classes)))
