"""Kueue's ``TestFindTopologyAssignmentsMultiLayerReplacement`` (kubernetes-sigs/kueue v0.19.2
``pkg/cache/scheduler/tas_cache_test.go``), translated: the replacement of a NotReady host (it is
not in the snapshot) for a pod set with podset slices, through
:func:`~kbatch.controllers.kueue.tas.replacement.find_replacement` over a snapshot holding only the
nodes (as upstream's table: the Workload's own usage is not charged). The two rows that seed
another flavor's usage (``TASHandleOverlappingFlavors``) are not translated here: that sharing is
the cycle's (``TASCycle.snapshot``), tested in test_upstream_tas_overlapping_flavors.py."""

from __future__ import annotations

import pytest

from kbatch.controllers.kueue.tas.replacement import find_replacement
from kbatch.controllers.kueue.tas.snapshot import HOSTNAME, PodSetTASRequest, TASFlavorSnapshot, TASNode

BLOCK, RACK, SWITCH = "cloud.com/topology-block", "cloud.com/topology-rack", "cloud.com/topology-switch"
LEVELS = (BLOCK, RACK, HOSTNAME)
Host = tuple[str, dict[str, str], int, bool]  # name, labels above the host, millicores, ready


def _host(block: str, rack: str, name: str, cpu: int, ready: bool = True, switch: str | None = None) -> Host:
    labels = {BLOCK: block, RACK: rack, **({SWITCH: switch} if switch else {})}
    return name, labels, cpu, ready


def _snapshot(levels: tuple[str, ...], hosts: list[Host]) -> TASFlavorSnapshot:
    nodes = [TASNode(name, {**labels, HOSTNAME: name}, {"cpu": cpu, "pods": 10})
             for name, labels, cpu, ready in hosts if ready]
    return TASFlavorSnapshot("default", levels, nodes)


ROWS = {
    "replace unhealthy node in incomplete rack slice": dict(
        hosts=[_host("b1", "r1", "x1", 1000), _host("b1", "r1", "x2", 1000),
               _host("b1", "r2", "x3", 1000, ready=False), _host("b1", "r2", "x4", 1000),
               _host("b1", "r2", "x5", 2000)],
        existing=[("x1", 1), ("x2", 1), ("x3", 1), ("x4", 1)], unhealthy="x3", layers=((RACK, 2),), count=4,
        want=[("x1", 1), ("x2", 1), ("x4", 2)]),
    "replacement fails when no capacity in incomplete slice domain": dict(
        hosts=[_host("b1", "r1", "x1", 1000), _host("b1", "r1", "x2", 1000),
               _host("b1", "r2", "x3", 1000, ready=False), _host("b1", "r2", "x4", 500)],
        existing=[("x1", 1), ("x2", 1), ("x3", 1), ("x4", 1)], unhealthy="x3", layers=((RACK, 2),), count=4,
        reason='topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 3; excluded: '
               'resource "cpu": 1, topologyDomain: 2'),
    "3-layer: innermost broken domain confines replacement to correct switch": dict(
        levels=(BLOCK, RACK, SWITCH, HOSTNAME),
        hosts=[_host("b1", "r1", "x1", 4000, switch="s1"), _host("b1", "r1", "x2", 4000, switch="s1"),
               _host("b1", "r1", "x3", 4000, ready=False, switch="s2"),
               _host("b1", "r1", "x4", 8000, switch="s2"),
               _host("b1", "r2", "x5", 4000, switch="s3"), _host("b1", "r2", "x6", 4000, switch="s3"),
               _host("b1", "r2", "x7", 4000, switch="s4"), _host("b1", "r2", "x8", 4000, switch="s4")],
        existing=[(f"x{i}", 2) for i in range(1, 9)], unhealthy="x3",
        layers=((RACK, 8), (SWITCH, 4), (HOSTNAME, 2)), count=16,
        want=[("x1", 2), ("x2", 2), ("x4", 4), ("x5", 2), ("x6", 2), ("x7", 2), ("x8", 2)]),
    "2-layer: sliceSize=2 prevents scattered single-pod placement across hosts": dict(
        hosts=[_host("b1", "r1", "x1", 2000), _host("b1", "r1", "x2", 2000),
               _host("b1", "r2", "x3", 2000, ready=False), _host("b1", "r2", "x4", 1000),
               _host("b1", "r2", "x5", 1000)],
        existing=[("x1", 2), ("x2", 2), ("x3", 2), ("x4", 2)], unhealthy="x3",
        layers=((RACK, 4), (HOSTNAME, 2)), count=8,
        reason='topology "default" doesn\'t allow to fit any of 1 slice(s). Total nodes: 4; excluded: '
               "topologyDomain: 2"),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_find_topology_assignments_multi_layer_replacement(name: str) -> None:
    row = ROWS[name]
    levels = row.get("levels", LEVELS)
    snap = _snapshot(levels, row["hosts"])
    req = PodSetTASRequest("main", row["count"], {"cpu": 1000}, required=BLOCK, slice_layers=row["layers"])
    existing = tuple(((h,), c) for h, c in row["existing"])
    got = find_replacement(snap, req, (HOSTNAME,), existing, row["unhealthy"], {})
    if "reason" in row:
        assert got.failure == row["reason"]
        return
    assert got.failure == ""
    assert [(values[-1], count) for values, count in got.result.domains] == row["want"]
