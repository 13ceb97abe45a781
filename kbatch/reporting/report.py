"""A whole report from a collection of objects: workloads, their aggregates, the cluster over time.

:func:`build_report` is pure: the same objects and end give the same report. The end of the report
(``end``) closes what is still open: a control plane's current time, else the latest time stamp among
the objects. The origin (``t = 0`` of every series) is the earliest creation among workloads and
pods (nodes do not move it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kbatch.reporting.admin_access import AdminAccessRecord
from kbatch.reporting.dra_use import DraUse, dra_use
from kbatch.reporting.flavors import flavor_quota, flavor_use
from kbatch.reporting.kinds import KindRegistry, default_kinds
from kbatch.reporting.metrics import GroupSummary, group_key, summarise_group
from kbatch.reporting.pods import PodFacts, node_allocatable, pod_facts
from kbatch.reporting.series import Interval, Step, UtilisationSeries, count_series, utilisation
from kbatch.reporting.wire import Obj, labels, meta, reading, ref_of, time_at, times
from kbatch.reporting.workloads import WorkloadRecord, build_workloads

__all__ = ["BASE_RESOURCES", "Report", "build_report"]

BASE_RESOURCES = ("cpu", "memory", "nvidia.com/gpu")
_NOT_REPORTED = ("pods", "ephemeral-storage")


@dataclass(frozen=True, slots=True)
class Report:
    origin: datetime
    end: datetime
    by: str | None
    workloads: tuple[WorkloadRecord, ...]
    groups: tuple[GroupSummary, ...]
    utilisation: tuple[UtilisationSeries, ...]
    pending_pods: tuple[Step, ...]
    pending_workloads: tuple[Step, ...]
    pods: tuple[PodFacts, ...]
    node_group: str | None = None
    utilisation_by_node_group: tuple[tuple[str, tuple[UtilisationSeries, ...]], ...] = ()
    utilisation_by_flavor: tuple[tuple[str, tuple[UtilisationSeries, ...]], ...] = ()  # Kueue quota
    admin_access: tuple[AdminAccessRecord, ...] = ()  # DRA devices under admin access (no use)
    admin_access_utilisation: tuple[UtilisationSeries, ...] = ()  # those devices over the capacity
    admin_access_by_node_group: tuple[tuple[str, tuple[UtilisationSeries, ...]], ...] = ()  # per node group

    @property
    def makespan(self) -> float | None:
        """First workload created to last finished (to the end while any is unfinished)."""
        return summarise_group("all", self.workloads, self.end).makespan

    def to_dict(self) -> dict[str, Any]:
        """Plain records (JSON-ready): what ``kbatch report -o json`` prints."""
        from kbatch.reporting.records import report_dict

        return report_dict(self)


def _origin_and_end(workload_times: Sequence[datetime], objects: Sequence[Obj],
                    end: datetime | None) -> tuple[datetime, datetime]:
    everything = _all_times(objects) if end is None or not workload_times else []
    origin = workload_times[0] if workload_times else (everything[0] if everything else None)
    last = end or (everything[-1] if everything else None)
    if origin is None or last is None:
        zero = time_at("1970-01-01T00:00:00Z")
        assert zero is not None
        return (origin or last or zero), (last or origin or zero)
    return origin, max(origin, last)


def _all_times(objects: Iterable[Obj]) -> list[datetime]:
    """Every time stamp in the objects' metadata and status (the default end of the report)."""
    found: list[datetime | None] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and (key.endswith(("Time", "Timestamp", "At")) or key == "time"):
            found.append(time_at(value))

    for obj in objects:
        walk({"metadata": dict(meta(obj)), "status": obj.get("status") or {}})
    return times(found)


def _pod(obj: Obj) -> PodFacts:
    with reading(obj):
        return pod_facts(obj)


def _resources(nodes: Sequence[Interval], pods: Sequence[PodFacts], dra: DraUse) -> list[str]:
    offered = {k for n in nodes for k, v in n.amounts.items() if v}
    wanted = {k for p in pods for k in p.requests} | {k for _n, iv in dra.shared for k in iv.amounts}
    wanted |= {k for _n, iv in dra.admin_intervals for k in iv.amounts}  # 0% used, shown beside admin access
    extra = sorted((offered & wanted) - set(BASE_RESOURCES) - set(_NOT_REPORTED))
    return [r for r in BASE_RESOURCES if r in offered] + extra


def _group_members(node_objs: Sequence[Obj], label: str) -> list[tuple[str, list[int], set[str]]]:
    """Per value of the node label ``label`` (nodes without it: ``<none>``), by value: the indices
    of its nodes and their names."""
    members: dict[str, list[int]] = {}
    for i, n in enumerate(node_objs):
        members.setdefault(str(labels(n).get(label, "<none>")), []).append(i)
    return [(group, found, {str(meta(node_objs[i]).get("name")) for i in found})
            for group, found in sorted(members.items())]


def _node_groups(node_objs: Sequence[Obj], intervals: Sequence[Interval], pods: Sequence[PodFacts],
                 shared: Sequence[tuple[str, Interval]], label: str, resources: Sequence[str],
                 origin: datetime, stop: datetime,
                 window: float | None) -> tuple[tuple[str, tuple[UtilisationSeries, ...]], ...]:
    """Utilisation per value of the node label ``label`` (nodes without it: ``<none>``)."""
    out = []
    for group, members, names in _group_members(node_objs, label):
        series = utilisation([p for p in pods if p.node in names], [intervals[i] for i in members],
                             resources, origin, stop, window, [iv for n, iv in shared if n in names])
        out.append((group, tuple(series)))
    return tuple(out)


def _admin_access_by_node_group(node_objs: Sequence[Obj], intervals: Sequence[Interval], dra: DraUse,
                                label: str, origin: datetime, stop: datetime, window: float | None
                                ) -> tuple[tuple[str, tuple[UtilisationSeries, ...]], ...]:
    """Devices under admin access per node group, over the group's devices (groups with any)."""
    out = []
    for group, members, names in _group_members(node_objs, label):
        held = [(n, iv) for n, iv in dra.admin_intervals if n in names]
        if held:
            out.append((group, _admin_access(held, [intervals[i] for i in members], origin, stop, window)))
    return tuple(out)


def _by_flavor(objects: Sequence[Obj], origin: datetime, stop: datetime,
               window: float | None) -> tuple[tuple[str, tuple[UtilisationSeries, ...]], ...]:
    """Kueue quota admitted per ResourceFlavor over its nominal quota (flavors.py)."""
    quotas = flavor_quota(objects, origin)
    spans = flavor_use(objects) if quotas else []
    out = []
    for name, quota in quotas.items():
        mine = [s for s in spans if s.node == name]
        out.append((name, tuple(utilisation(mine, [quota], sorted(quota.amounts), origin, stop, window))))
    return tuple(out)


def build_report(objects: Iterable[Obj], *, end: datetime | None = None, by: str | None = None,
                 kinds: KindRegistry | None = None, node_group: str | None = None,
                 history: Iterable[Obj] = ()) -> Report:
    """The report of ``objects``; ``by`` groups the aggregates (:func:`group_key`), ``node_group`` names
    a node label to break utilisation down by (e.g. a Kueue ResourceFlavor's node label); ``history``
    holds earlier versions of ResourceClaims, oldest first (claim_history.py): the devices of pods
    whose claims are gone."""
    objects = [o for o in objects if isinstance(o, dict) and meta(o).get("name")]
    kinds = kinds or default_kinds()
    key = group_key(by)  # refuses a bad --by before any work
    pod_objs = [o for o in objects if ref_of(o)[:2] == ("", "Pod")]
    pods = {(pod.uid or f"{pod.namespace}/{pod.name}"): pod for pod in map(_pod, pod_objs)}
    node_objs = [o for o in objects if ref_of(o)[:2] == ("", "Node")]
    records = build_workloads(objects, pods, kinds)
    origin, stop = _origin_and_end(times([r.created for r in records] + [p.created for p in pods.values()]),
                                   objects, end)
    dra = dra_use(objects, pods, history, stop)  # DRA devices per driver and class, admin access apart
    node_ivs = [Interval(time_at(meta(n).get("creationTimestamp")) or origin,
                         time_at(meta(n).get("deletionTimestamp")),
                         {**node_allocatable(n), **dra.capacity.get(str(meta(n).get("name")), {})})
                for n in node_objs]
    pod_list = [dra.pods[k] for k in sorted(dra.pods)]
    groups: dict[str, list[WorkloadRecord]] = {}
    for r in records:
        groups.setdefault(key(r), []).append(r)
    summaries = [summarise_group(g, groups[g], stop) for g in sorted(groups)]
    overall = summarise_group("all", records, stop)
    if by is not None and records:
        summaries.append(overall)
    window = overall.makespan if overall.makespan else None  # utilisation's mean: over the makespan
    resources = _resources(node_ivs, pod_list, dra)
    by_node_group = (_node_groups(node_objs, node_ivs, pod_list, dra.shared, node_group, resources, origin,
                                  stop, window) if node_group else ())
    return Report(
        origin=origin, end=stop, by=by, workloads=tuple(records), groups=tuple(summaries),
        utilisation=tuple(utilisation(pod_list, node_ivs, resources, origin, stop, window,
                                      [iv for _n, iv in dra.shared])),
        node_group=node_group, utilisation_by_node_group=by_node_group,
        utilisation_by_flavor=_by_flavor(objects, origin, stop, window),
        pending_pods=tuple(count_series(((p.created, p.scheduled or p.finished) for p in pod_list),
                                        origin, stop)),
        pending_workloads=tuple(count_series(((r.created, r.first_scheduled or r.finished) for r in records),
                                             origin, stop)),
        pods=tuple(pod_list), admin_access=dra.admin_access,
        admin_access_utilisation=_admin_access(dra.admin_intervals, node_ivs, origin, stop, window),
        admin_access_by_node_group=(_admin_access_by_node_group(node_objs, node_ivs, dra, node_group, origin,
                                                                stop, window) if node_group else ()))


def _admin_access(admin_intervals: Sequence[tuple[str | None, Interval]], node_ivs: Sequence[Interval],
                  origin: datetime, stop: datetime, window: float | None) -> tuple[UtilisationSeries, ...]:
    """Devices under admin access over the devices published, per resource that has any."""
    names = sorted({r for _n, iv in admin_intervals for r in iv.amounts})
    held = [iv for _n, iv in admin_intervals]
    return tuple(utilisation((), node_ivs, names, origin, stop, window, held))
