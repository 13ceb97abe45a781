"""Kueue quota by ResourceFlavor: admitted usage per flavor over the ClusterQueues' nominal quota."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.reporting import build_report
from kbatch.reporting.render import render_table
from tests.reporting.builders import cond, custom, job, ts


def _cq(name: str, quotas: dict[str, dict[str, Any]]) -> dict[str, Any]:
    flavors = [{"name": f, "resources": [{"name": r, "nominalQuota": q} for r, q in rs.items()]}
               for f, rs in quotas.items()]
    group = {"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": flavors}
    return custom("kueue.x-k8s.io/v1beta2", "ClusterQueue", name, -5, ns="", spec={"resourceGroups": [group]})


def _wl(name: str, owner: dict[str, Any], reserved: float, finished: float | None,
        assignments: list[dict[str, Any]]) -> dict[str, Any]:
    conditions = [cond("QuotaReserved", reserved)] + ([cond("Finished", finished)] if finished else [])
    return custom("kueue.x-k8s.io/v1beta2", "Workload", name, 0, owner=owner,
                  status={"conditions": conditions, "admission": {"clusterQueue": "cq",
                                                                  "podSetAssignments": assignments}})


def test_admitted_quota_per_flavor() -> None:
    a, b = job("a", 0, started=0, complete=60), job("b", 0, started=30, complete=90)
    objs = [_cq("cq-1", {"h100": {"nvidia.com/gpu": 16, "cpu": "8"}, "a100": {"nvidia.com/gpu": 8}}),
            _cq("cq-2", {"h100": {"nvidia.com/gpu": 16}}), a, b,
            _wl("wa", a, 0, 60, [{"name": "main", "count": 2,
                                  "flavors": {"nvidia.com/gpu": "h100", "cpu": "h100"},
                                  "resourceUsage": {"nvidia.com/gpu": "16", "cpu": "2"}}]),
            _wl("wb", b, 30, 90, [{"name": "main", "flavors": {"nvidia.com/gpu": "a100"},
                                   "resourceUsage": {"nvidia.com/gpu": "8"}},
                                  {"name": "extra", "flavors": {"nvidia.com/gpu": "h100"},
                                   "resourceUsage": {"nvidia.com/gpu": "8"}}]),
            _wl("evicted", a, 0, None, [])]
    objs[-1]["status"]["conditions"][0] |= {"status": "False", "lastTransitionTime": ts(40)}
    report = build_report(objs)
    flavors = {f: {u.resource: u for u in series} for f, series in report.utilisation_by_flavor}
    assert sorted(flavors) == ["a100", "h100"]
    h100 = flavors["h100"]["nvidia.com/gpu"]
    assert [(s.t, s.value) for s in h100.capacity] == [(0, 32)]  # both ClusterQueues' nominal quota
    assert [(s.t, s.value) for s in h100.used] == [(0, 16), (30, 24), (60, 8)]  # to the end, 90 s
    assert h100.mean == pytest.approx((16 * 30 + 24 * 30 + 8 * 30) / (32 * 90))
    assert [(s.t, s.value) for s in flavors["a100"]["nvidia.com/gpu"].ratio] == [(0, 0), (30, 1)]
    assert flavors["h100"]["cpu"].used[0].value == 2
    text = render_table(report, workloads=False)
    assert "nvidia.com/gpu quota admitted [flavor=h100]" in text
    assert set(report.to_dict()["cluster"]["utilisation_by_flavor"]) == {"a100", "h100"}
