"""``metrics.k8s.io/v1beta1`` from the simulation: discovery, shapes, and usage = running requests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.quantity import Quantity
from kbatch.sim.metrics import node_metrics, pod_metrics

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _pod(name: str, node: str, phase: str, cpu_m: int, mem_mi: int) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node, "containers": [
                {"name": "c", "resources": {"requests": {"cpu": f"{cpu_m}m", "memory": f"{mem_mi}Mi"}}}]},
            "status": {"phase": phase}}


@given(st.lists(st.tuples(st.sampled_from(["n0", "n1"]), st.sampled_from(["Running", "Pending", "Succeeded"]),
                          st.integers(0, 4000), st.integers(0, 4096)), max_size=12))
def test_node_usage_is_the_sum_of_its_running_pods_requests(specs: list[tuple[str, str, int, int]]) -> None:
    pods = [_pod(f"p{i}", node, phase, cpu, mem) for i, (node, phase, cpu, mem) in enumerate(specs)]
    usage = node_metrics({"metadata": {"name": "n0"}}, pods, NOW)["usage"]
    running = [s for s in specs if s[0] == "n0" and s[1] == "Running"]
    assert Quantity(usage["cpu"]).milli_value() == sum(s[2] for s in running)
    assert Quantity(usage["memory"]).value() == sum(s[3] for s in running) * 1024 * 1024
    for pod, spec in zip(pods, specs, strict=True):
        assert (pod_metrics(pod, NOW) is None) == (spec[1] != "Running")


def test_sidecars_count_and_finished_init_containers_do_not() -> None:
    pod = _pod("p", "n0", "Running", 100, 10)
    pod["spec"]["initContainers"] = [
        {"name": "setup", "resources": {"requests": {"cpu": "2"}}},
        {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}]
    metrics = pod_metrics(pod, NOW)
    assert metrics is not None
    cpus = [(c["name"], c["usage"]["cpu"]) for c in metrics["containers"]]
    assert cpus == [("proxy", "50m"), ("c", "100m")]
    assert metrics["window"] == "15s" and metrics["timestamp"] == "2025-01-01T00:00:00Z"


def test_the_group_is_discovered_and_served(api: Any, backend: Any) -> None:
    groups = api.get("/apis").json()["groups"]
    assert any(g["name"] == "metrics.k8s.io" and g["preferredVersion"]["version"] == "v1beta1"
               for g in groups)
    resources = api.get("/apis/metrics.k8s.io/v1beta1").json()["resources"]
    assert {r["name"]: r["kind"] for r in resources} == {"nodes": "NodeMetrics", "pods": "PodMetrics"}
    assert api.get("/apis/metrics.k8s.io").json()["versions"][0]["groupVersion"] == "metrics.k8s.io/v1beta1"
    listed = api.get("/apis/metrics.k8s.io/v1beta1/nodes").json()
    assert listed["kind"] == "NodeMetricsList" and listed["items"] == []
    assert api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods").json()["kind"] == "PodMetricsList"
    assert api.get("/apis/metrics.k8s.io/v1beta1/nodes/missing").status_code == 404
    assert api.post("/apis/metrics.k8s.io/v1beta1/nodes", json={}).status_code == 405
