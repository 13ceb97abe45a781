"""Devices under admin access: which, on which node, by whom (claim and pods), for how long.

A request with ``adminAccess: true`` (KEP-5018 ``DRAAdminAccess``, GA in 1.36; k8s.io/api
``resource/v1/types.go`` ``ExactDeviceRequest.AdminAccess``, allowed only in namespaces labelled
``resource.kubernetes.io/admin-access: "true"``) is allocated devices without using them up: the
allocator does not count them as in use, so other claims get them too (its result carries
``adminAccess: true``). A monitoring pod holding every GPU in admin mode is therefore no utilisation;
the report shows such devices apart: one record per device and allocation, with the spans in which
at least one pod using the claim ran (the devices are held as a pod holds its cpu, from its first
container start to its last exit), and, per resource (``devices/<driver>``, ``deviceclass/<name>``),
the devices under admin access over time — each device once, however many admin claims hold it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from kbatch.reporting.device_classes import DeviceClasses, DeviceKey, PublishedDevice
from kbatch.reporting.devices import AdminUse, resource_name
from kbatch.reporting.pods import PodFacts
from kbatch.reporting.series import Interval
from kbatch.reporting.sharing import pod_run

__all__ = ["AdminAccessRecord", "admin_access_intervals", "admin_access_records"]

Span = tuple[datetime, datetime]


@dataclass(frozen=True, slots=True)
class AdminAccessRecord:
    driver: str
    pool: str
    device: str
    node: str | None  # the node whose slice publishes the device (None: not published any more)
    namespace: str
    claim: str
    pods: tuple[str, ...]  # names of the pods that used the claim
    spans: tuple[Span, ...]  # when at least one of them ran, closed at the report's end

    @property
    def seconds(self) -> float:
        return sum((b - a).total_seconds() for a, b in self.spans)

    def offsets(self, origin: datetime) -> list[tuple[float, float]]:
        """The spans as seconds from ``origin``."""
        return [((a - origin).total_seconds(), (b - origin).total_seconds()) for a, b in self.spans]


def _union(spans: Sequence[Span]) -> tuple[Span, ...]:
    out: list[Span] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


def admin_access_records(uses: Sequence[AdminUse], pods: Mapping[str, PodFacts],
                         published: Sequence[PublishedDevice],
                         end: datetime) -> tuple[AdminAccessRecord, ...]:
    """A record per device of every admin-access allocation a pod ran with before ``end``."""
    nodes = {(driver, pool, str(d.get("name"))): node for driver, pool, node, d in published}
    out = []
    for use in uses:
        runs = [r for r in (pod_run(pods[p], end) for p in use.pods if p in pods) if r is not None]
        if not runs:
            continue
        spans = _union([(r.start, r.end) for r in runs])
        names = tuple(sorted({pods[r.pod].name for r in runs}))
        out += [AdminAccessRecord(*key, nodes.get(key), use.namespace, use.claim, names, spans)
                for key in use.devices]
    return tuple(sorted(out, key=lambda r: (r.driver, r.pool, r.device, r.namespace, r.claim)))


def admin_access_intervals(records: Sequence[AdminAccessRecord],
                           classes: DeviceClasses | None) -> list[tuple[str | None, Interval]]:
    """(node, interval) per device and span under admin access, each device counted once at a time,
    as one of its driver's devices and of every class that accepts it."""
    spans: dict[tuple[DeviceKey, str | None], list[Span]] = defaultdict(list)
    for r in records:
        spans[((r.driver, r.pool, r.device), r.node)] += r.spans
    out = []
    for (key, node), device_spans in sorted(spans.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        amounts = {resource_name(key[0]): 1.0, **{c: 1.0 for c in (classes.of(key) if classes else ())}}
        out += [(node, Interval(a, b, amounts)) for a, b in _union(device_spans)]
    return out
