"""DRA devices under admin access (KEP-5018): no utilisation, reported apart — which devices, on which
node, by which claim and pods, for how long; per resource over time, each device once. Also through
``kbatch report`` in separate processes on a state directory (text, JSON, plots, HTML)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbatch.reporting import build_report
from kbatch.reporting.plots import utilisation_figure
from kbatch.reporting.render import render_table
from tests.cli.processes import kbatch_ok
from tests.reporting.builders import custom, node, pod
from tests.reporting.test_device_classes import CLASSES, DRIVER, slice_of, using

GPU = f"devices/{DRIVER}"
SCENARIO = Path(__file__).with_name("data") / "admin_and_shared.yaml"


def _claim(name: str, devices: list[int], *, admin: bool = False, ns: str = "default") -> dict[str, Any]:
    results = [{"request": "r", "driver": DRIVER, "pool": "node-0", "device": f"gpu-{i}"} for i in devices]
    if admin:
        results = [r | {"adminAccess": True} for r in results]
    return custom("resource.k8s.io/v1", "ResourceClaim", name, 0, ns=ns,
                  status={"allocation": {"devices": {"results": results}}})


def _world() -> list[dict[str, Any]]:
    # a monitor holds all four GPUs in admin mode 0-100 s, a second one gpu-0 again 50-80 s; a trainer
    # uses gpu-0 (exclusively: admin access does not take it) 10-40 s
    return [*CLASSES, node("node-0"), slice_of("node-0", ["A100", "A100", "H100", "H100"]),
            _claim("all", [0, 1, 2, 3], admin=True, ns="mon"), _claim("one", [0], admin=True, ns="mon"),
            _claim("train", [0]),
            using(pod("monitor", 0, scheduled=0, started=0, finished=100, ns="mon"), "all"),
            using(pod("probe", 50, scheduled=50, started=50, finished=80, ns="mon"), "one"),
            using(pod("trainer", 10, scheduled=10, started=10, finished=40), "train")]


def _series(series: Any, resource: str, field: str = "used") -> list[tuple[float, float]]:
    [u] = [u for u in series if u.resource == resource]
    return [(s.t, s.value) for s in getattr(u, field)]


def test_admin_access_is_not_use() -> None:
    report = build_report(_world())
    assert _series(report.utilisation, GPU) == [(0, 0), (10, 1), (40, 0)]  # the trainer alone
    assert _series(report.utilisation, "deviceclass/h100") == [(0, 0)]  # no pod used an H100
    assert {p.name: dict(p.device_seconds) for p in report.pods}["monitor"] == {}
    # under admin access: all four, gpu-0 once although two admin claims hold it 50-80 s
    assert _series(report.admin_access_utilisation, GPU) == [(0, 4)]  # to the end (100 s)
    assert _series(report.admin_access_utilisation, "deviceclass/h100") == [(0, 2)]
    assert _series(report.admin_access_utilisation, GPU, "ratio") == [(0, 1)]


def test_records_say_which_device_where_by_whom_how_long() -> None:
    rows = build_report(_world()).to_dict()["admin_access"]
    assert [(r["device"], r["claim"], r["pods"], r["spans"], r["seconds"]) for r in rows] == [
        ("gpu-0", "all", ["monitor"], [[0, 100]], 100), ("gpu-0", "one", ["probe"], [[50, 80]], 30),
        ("gpu-1", "all", ["monitor"], [[0, 100]], 100), ("gpu-2", "all", ["monitor"], [[0, 100]], 100),
        ("gpu-3", "all", ["monitor"], [[0, 100]], 100)]
    assert rows[0] == {"driver": DRIVER, "pool": "node-0", "device": "gpu-0", "node": "node-0",
                       "namespace": "mon", "claim": "all", "pods": ["monitor"], "spans": [[0, 100]],
                       "seconds": 100}


def test_devices_only_under_admin_access_read_as_unused_beside_it() -> None:
    world = [o for o in _world() if o["metadata"]["name"] not in ("trainer", "train")]
    report = build_report(world)
    assert _series(report.utilisation, GPU) == [(0, 0)] and _series(report.admin_access_utilisation, GPU) == [
        (0, 4)]
    labels = [line.get_label() for line in utilisation_figure(report).axes[0].lines]
    assert f"{GPU} under admin access" in labels


def test_a_claim_mixing_admin_and_ordinary_requests_counts_only_the_ordinary_ones() -> None:
    claim = _claim("mixed", [0, 1])
    claim["status"]["allocation"]["devices"]["results"][1]["adminAccess"] = True
    report = build_report([node("node-0"), slice_of("node-0", ["A100", "A100"]), claim,
                           using(pod("p", 0, scheduled=0, started=0, finished=10), "mixed")])
    assert _series(report.utilisation, GPU) == [(0, 1)]  # to the end (10 s)
    assert [(r.device, r.seconds) for r in report.admin_access] == [("gpu-1", 10)]


def test_text_json_and_plot_show_it_apart() -> None:
    report = build_report(_world())
    text = render_table(report, workloads=False)
    assert "devices/gpu.example.com under admin access" in text and "Devices under admin access" in text
    assert "gpu.example.com/node-0/gpu-3" in text
    doc = report.to_dict()
    assert set(doc["cluster"]["admin_access"]) == {GPU, "deviceclass/a100", "deviceclass/any",
                                                   "deviceclass/big", "deviceclass/h100"}
    assert set(doc["cluster"]["admin_access"][GPU]) == {"mean", "ratio", "used", "capacity"}
    labels = [line.get_label() for line in utilisation_figure(report).axes[0].lines]
    assert f"{GPU} under admin access" in labels and GPU in labels
    assert build_report([node("node-0"), pod("p", 0, scheduled=0, started=0)]).to_dict()["admin_access"] == []


def test_kbatch_report_in_separate_processes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    kbatch_ok(state, "nodes", "add", "--count", "1", "--gpu", "4", "--gpu-driver", DRIVER)
    kbatch_ok(state, "apply", "-f", str(SCENARIO))  # monitor (admin, 100 s) and pod a (shared, 20 s)
    kbatch_ok(state, "advance", "10s")
    kbatch_ok(state, "apply", "-f", str(SCENARIO.with_name("shared_b.yaml")))  # pod b (shared, 40 s)
    kbatch_ok(state, "advance", "2m")
    doc = json.loads(kbatch_ok(state, "report", "-o", "json"))
    gpu = doc["cluster"]["utilisation"][GPU]
    assert gpu["used"] == [[0, 1], [50, 0]]  # the shared GPU, once, while a or b ran; not the admin ones
    assert gpu["mean"] == pytest.approx(50 / (4 * 100))
    held = {p["name"]: p["device_seconds"].get(GPU) for p in doc["pods"]}
    assert held == {"a": 15, "b": 35, "monitor": None}  # 10 + 10/2 and 10/2 + 30 device-seconds
    assert doc["cluster"]["admin_access"][GPU]["used"] == [[0, 4], [100, 0]]
    rows = [(r["device"], r["node"], r["namespace"], r["claim"], r["pods"], r["seconds"])
            for r in doc["admin_access"]]
    assert rows == [(f"gpu-{i}", "node-0", "monitoring", "all-gpus", ["monitor"], 100) for i in range(4)]
    text = kbatch_ok(state, "report", "--summary")
    assert "Devices under admin access" in text and "gpu.example.com/node-0/gpu-0" in text
    kbatch_ok(state, "report", "--html", str(tmp_path / "r.html"))
    assert "Devices under admin access" in (tmp_path / "r.html").read_text()


def test_kbatch_report_through_kbatch_serve(tmp_path: Path) -> None:
    """``--server``: no history, the live claims only. While both sharers run, the live claim lists
    both in ``reservedFor``: per instant; once a is done it is gone from it: 1/n over each whole run."""
    from kbatch.server.process import ServeProcess

    proc = ServeProcess(tmp_path / "served").start()
    try:
        def kb(*args: str) -> str:
            return kbatch_ok(tmp_path / "unused", "--server", proc.url, *args)

        kb("nodes", "add", "--count", "1", "--gpu", "4", "--gpu-driver", DRIVER)
        kb("apply", "-f", str(SCENARIO))
        kb("advance", "10s")
        kb("apply", "-f", str(SCENARIO.with_name("shared_b.yaml")))
        kb("advance", "5s")
        doc = json.loads(kb("report", "-o", "json"))
        assert doc["cluster"]["utilisation"][GPU]["used"] == [[0, 1]]
        assert len(doc["admin_access"]) == 4 and doc["cluster"]["admin_access"][GPU]["used"] == [[0, 4]]
        kb("advance", "10s")  # a is done (20 s): the live claim is reserved for b alone
        doc = json.loads(kb("report", "-o", "json"))
        assert doc["cluster"]["utilisation"][GPU]["used"] == [[0, 0.5], [10, 1], [20, 0.5]]
    finally:
        assert proc.stop() == 0, "".join(proc.output)
    assert not (tmp_path / "unused").exists()


def test_admin_access_per_node_group() -> None:
    """``--node-group rack``: devices under admin access over each rack's devices; racks without any
    are left out, as the cluster-wide record leaves out resources without any."""
    world = [o for o in _world() if o.get("kind") != "Node"]
    racks = [node("node-0"), node("node-1")]
    for n, rack in zip(racks, ("a", "b"), strict=True):
        n["metadata"]["labels"] = {"rack": rack}
    report = build_report([*world, *racks, slice_of("node-1", ["A100", "A100", "H100", "H100"])],
                          node_group="rack")
    assert _series(report.admin_access_utilisation, GPU, "ratio") == [(0, 0.5)]  # 4 of 8 devices
    groups = dict(report.admin_access_by_node_group)
    assert list(groups) == ["a"]
    assert _series(groups["a"], GPU, "ratio") == [(0, 1)] and _series(groups["a"], GPU) == [(0, 4)]
    doc = report.to_dict()["cluster"]["admin_access_by_node_group"]
    assert doc["a"][GPU]["mean"] == pytest.approx(1) and set(doc) == {"a"}
