"""A report as plain records: JSON-ready dicts and flat rows (``-o json``, ``-o csv``, the library).

Times are RFC 3339 in UTC (``Z``); durations are seconds (floats); each workload row also carries
its milestones as offsets from the report's origin (``*_s`` columns), so a tool can plot them
without parsing times. ``pods`` lists every pod with its node, requests, milestones (offsets) and
DRA device-seconds; ``admin_access`` every device under admin access (admin_access.py).
Series are ``[[t, value], ...]`` step points, ``t`` in seconds since origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kbatch.reporting.admin_access import AdminAccessRecord
from kbatch.reporting.pods import PodFacts
from kbatch.reporting.series import UtilisationSeries
from kbatch.reporting.workloads import DURATIONS, WorkloadRecord

if TYPE_CHECKING:
    from kbatch.reporting.report import Report

__all__ = ["MILESTONES", "WORKLOAD_COLUMNS", "admin_access_row", "device_resources", "iso", "pod_row",
           "report_dict", "workload_device_seconds", "workload_row", "workload_rows"]

MILESTONES = ("created", "admitted", "first_scheduled", "all_running", "finished")
WORKLOAD_COLUMNS = ("kind", "namespace", "name", "queue", "outcome", "pods", "restarts", "failures",
                    *MILESTONES, *DURATIONS)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    text = value.astimezone(UTC).replace(tzinfo=None).isoformat()
    return text + "Z"


def _num(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def workload_device_seconds(record: WorkloadRecord, pods: Mapping[str, PodFacts]) -> dict[str, float]:
    """Per DRA resource, the device-seconds of the workload's pods (``pods`` by uid; each pod's
    ``device_seconds`` summed: shares of shared claims included, admin access not)."""
    total: dict[str, float] = {}
    for uid in record.pod_uids:
        pod = pods.get(uid)
        for name, seconds in pod.device_seconds.items() if pod is not None else ():
            total[name] = total.get(name, 0.0) + seconds
    return {name: round(total[name], 6) for name in sorted(total)}


def device_resources(rows: list[dict[str, Any]]) -> list[str]:
    """The DRA resources any of the workload rows held devices of, sorted."""
    return sorted({name for row in rows for name in row.get("device_seconds", ())})


def workload_row(record: WorkloadRecord, origin: datetime | None = None,
                 device_seconds: Mapping[str, float] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"kind": record.kind, "namespace": record.namespace, "name": record.name,
                           "queue": record.queue, "outcome": record.outcome, "pods": record.pods,
                           "restarts": record.restarts, "failures": record.failures}
    for name in MILESTONES:
        row[name] = iso(getattr(record, name))
    for name in DURATIONS:
        row[name] = _num(getattr(record, name))
    if origin is not None:
        for name in MILESTONES:
            at = getattr(record, name)
            row[f"{name}_s"] = _num((at - origin).total_seconds()) if at is not None else None
    row["labels"] = dict(sorted(record.labels.items()))
    if device_seconds is not None:
        row["device_seconds"] = dict(device_seconds)
    return row


def workload_rows(report: Report, origin: datetime | None = None) -> list[dict[str, Any]]:
    """Every workload's row, with its pods' device-seconds."""
    pods = {p.uid: p for p in report.pods if p.uid}
    return [workload_row(r, origin, workload_device_seconds(r, pods)) for r in report.workloads]


def pod_row(pod: PodFacts, origin: datetime) -> dict[str, Any]:
    def offset(at: datetime | None) -> float | None:
        return _num((at - origin).total_seconds()) if at is not None else None

    return {"namespace": pod.namespace, "name": pod.name, "node": pod.node, "phase": pod.phase,
            "restarts": pod.restarts, "requests": dict(pod.requests), "created_s": offset(pod.created),
            "scheduled_s": offset(pod.scheduled), "started_s": offset(pod.started),
            "finished_s": offset(pod.finished), "device_seconds": dict(pod.device_seconds)}


def admin_access_row(record: AdminAccessRecord, origin: datetime) -> dict[str, Any]:
    """A device under admin access: which, where, by whom, when (``[[from_s, to_s], ...]``) and how long."""
    spans = [[_num(a), _num(b)] for a, b in record.offsets(origin)]
    return {"driver": record.driver, "pool": record.pool, "device": record.device, "node": record.node,
            "namespace": record.namespace, "claim": record.claim, "pods": list(record.pods), "spans": spans,
            "seconds": _num(record.seconds)}


def _steps(steps: Any) -> list[list[float | None]]:
    return [[_num(s.t), _num(s.value)] for s in steps]


def _utilisation(u: UtilisationSeries) -> dict[str, Any]:
    return {"mean": _num(u.mean), "ratio": _steps(u.ratio), "used": _steps(u.used),
            "capacity": _steps(u.capacity)}


def report_dict(report: Report) -> dict[str, Any]:
    groups = []
    for g in report.groups:
        entry = asdict(g)
        entry["makespan"] = _num(g.makespan)
        entry["throughput_per_min"] = _num(g.throughput_per_min)
        entry["durations"] = {k: {f: _num(v) if f != "count" else v for f, v in asdict(s).items()}
                              for k, s in g.durations.items()}
        groups.append(entry)
    return {
        "origin": iso(report.origin), "end": iso(report.end), "by": report.by,
        "workloads": workload_rows(report, report.origin),
        "pods": [pod_row(p, report.origin) for p in report.pods],
        "summary": groups,
        "cluster": {
            "makespan": _num(report.makespan),
            "utilisation": {u.resource: _utilisation(u) for u in report.utilisation},
            "node_group": report.node_group,
            "utilisation_by_node_group": {group: {u.resource: _utilisation(u) for u in series}
                                          for group, series in report.utilisation_by_node_group},
            "utilisation_by_flavor": {flavor: {u.resource: _utilisation(u) for u in series}
                                      for flavor, series in report.utilisation_by_flavor},
            "pending_pods": _steps(report.pending_pods),
            "pending_workloads": _steps(report.pending_workloads),
            "admin_access": {u.resource: _utilisation(u) for u in report.admin_access_utilisation},
            "admin_access_by_node_group": {group: {u.resource: _utilisation(u) for u in series}
                                           for group, series in report.admin_access_by_node_group},
        },
        "admin_access": [admin_access_row(r, report.origin) for r in report.admin_access],
    }
