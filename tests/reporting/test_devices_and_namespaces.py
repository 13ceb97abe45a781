"""DRA devices as utilisation resources (devices/<driver>), and ``-n``: a namespace's workloads on
every node."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kbatch
from kbatch.reporting import build_report
from kbatch.reporting.devices import device_capacity, device_use
from kbatch.reporting.render import render
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.sim.devices import DeviceTemplate
from tests.reporting.builders import T0, custom, job, node, pod

GPU_POD = (Path(__file__).resolve().parents[2] / "examples" / "dra" / "gpu-pod.yaml").read_text()


def _slice(node_name: str, devices: int, generation: int = 1, pool: str | None = None) -> dict[str, Any]:
    spec = {"driver": "gpu.example.com", "nodeName": node_name,
            "pool": {"name": pool or node_name, "generation": generation, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}"} for i in range(devices)]}
    return custom("resource.k8s.io/v1", "ResourceSlice", f"{node_name}-g{generation}", -10, spec=spec, ns="")


def _claim(name: str, devices: int) -> dict[str, Any]:
    results = [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-0", "device": f"gpu-{i}"}
               for i in range(devices)]
    return custom("resource.k8s.io/v1", "ResourceClaim", name, 0,
                  status={"allocation": {"devices": {"results": results}}})


def _using(p: dict[str, Any], *claims: str) -> dict[str, Any]:
    p["status"]["resourceClaimStatuses"] = [{"name": c, "resourceClaimName": c} for c in claims]
    return p


def test_devices_used_over_devices_published() -> None:
    objs = [node("node-0"), _slice("node-0", 4, 1), _slice("node-0", 8, 2), _claim("a", 2), _claim("b", 1),
            _using(pod("p0", 0, scheduled=0, started=0, finished=50), "a"),
            _using(pod("p1", 0, scheduled=0, started=0, finished=100), "b")]
    assert device_capacity(objs) == {"node-0": {"devices/gpu.example.com": 8.0}}  # the newest generation
    report = build_report(objs)
    [devices] = [u for u in report.utilisation if u.resource == "devices/gpu.example.com"]
    assert [(s.t, s.value) for s in devices.used] == [(0, 3), (50, 1)]  # to the end (100 s)
    assert devices.mean == pytest.approx((3 * 50 + 1 * 50) / (8 * 100))


@given(st.integers(1, 6), st.integers(1, 8))
def test_a_shared_claim_counts_once(users: int, devices: int) -> None:
    pods = [_using(pod(f"p{i}", 0, scheduled=0, started=0), "shared") for i in range(users)]
    use = device_use([_claim("shared", devices), *pods]).held
    assert sum(u["devices/gpu.example.com"] for u in use.values()) == pytest.approx(devices)


def test_a_running_dra_pod_on_a_control_plane() -> None:
    cp = kbatch.ControlPlane(trace=False)
    create_nodes(cp, 2, NodeTemplate(devices=DeviceTemplate(driver="gpu.example.com", count=4)))
    cp.apply(GPU_POD.replace('"30"', '"300"'))
    cp.advance(100)
    report = kbatch.report(cp)
    [devices] = [u for u in report.utilisation if u.resource == "devices/gpu.example.com"]
    assert devices.capacity[-1].value == 8 and devices.used[-1].value == 1
    assert devices.ratio[-1].value == pytest.approx(1 / 8)


def test_namespace_filter_keeps_cluster_scoped_objects() -> None:
    objs = [node("node-0", gpu=8), job("a", 0, started=0, complete=10, ns="team-a"),
            pod("pa", 0, owner=None, ns="team-a", scheduled=0, started=0, finished=9, requests={"cpu": "1"}),
            job("b", 0, started=0, complete=20, ns="team-b"),
            pod("pb", 0, ns="team-b", scheduled=0, started=0, finished=19, requests={"cpu": "2"})]
    whole = kbatch.report(objs)
    only_a = kbatch.report(objs, namespace="team-a")
    assert {w.namespace for w in whole.workloads} == {"team-a", "team-b"}
    assert {(w.namespace, w.name) for w in only_a.workloads} == {("team-a", "a"), ("team-a", "pa")}
    [cpu] = [u for u in only_a.utilisation if u.resource == "cpu"]
    assert max(s.value for s in cpu.used) == 1 and cpu.capacity[-1].value == 4  # the node stays



@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 90)), min_size=1, max_size=4))
def test_a_workloads_device_seconds_are_its_pods(held: list[tuple[int, int]]) -> None:
    """``-o json``/``-o csv`` give each workload its pods' device-seconds summed; a workload without
    devices gets 0 in the CSV's ``device_seconds[R]`` column and ``{}`` in JSON."""
    owner, idle = job("train", 0, started=0), job("idle", 0, started=0)
    objs: list[dict[str, Any]] = [node("node-0"), _slice("node-0", 8), owner, idle,
                                  pod("idle-p", 0, owner=idle, scheduled=0, started=0, finished=100)]
    for i, (devices, seconds) in enumerate(held):
        objs += [_claim(f"c{i}", devices), _using(pod(f"p{i}", 0, owner=owner, scheduled=0, started=0,
                                                      finished=seconds), f"c{i}")]
    report = build_report(objs, end=T0 + timedelta(seconds=100))
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(render(report, "csv")))}
    expected = sum(d * s for d, s in held)
    assert float(rows["train"]["device_seconds[devices/gpu.example.com]"]) == pytest.approx(expected)
    assert float(rows["idle"]["device_seconds[devices/gpu.example.com]"]) == 0
    doc = {w["name"]: w for w in json.loads(render(report, "json"))["workloads"]}
    assert doc["train"]["device_seconds"] == {"devices/gpu.example.com": pytest.approx(expected)}
    assert doc["idle"]["device_seconds"] == {}
    pod_sum = sum(p["device_seconds"].get("devices/gpu.example.com", 0)
                  for p in json.loads(render(report, "json"))["pods"])
    assert pod_sum == pytest.approx(expected)
