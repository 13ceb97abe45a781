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


usage_value = st.one_of(st.builds(lambda m: f"{m}m", st.integers(0, 8000)),
                        st.builds(lambda m: f"{m}Mi", st.integers(0, 8192)),
                        st.sampled_from(["nope", "-1", "", "1.5", "2Gi"]))


maybe_usage = st.one_of(st.none(), usage_value)


Spec = tuple[int, str | None, str | None]


@given(st.lists(st.tuples(st.integers(0, 3), maybe_usage, maybe_usage), min_size=1, max_size=6))
def test_declared_usage_replaces_requests_per_container(specs: list[Spec]) -> None:
    """KWOK's usage-from-annotation: a valid, non-negative annotation is each container's usage;
    otherwise the container's request counts. The node sums what its pods' containers use."""
    pods = []
    expected_cpu, expected_memory = Quantity(0), Quantity(0)
    for i, (containers, cpu, memory) in enumerate(specs):
        pod = _pod(f"p{i}", "n0", "Running", 100, 64)
        pod["spec"]["containers"] = pod["spec"]["containers"] * (containers + 1)
        annotations = {k: v for k, v in (("kwok.x-k8s.io/usage-cpu", cpu),
                                         ("kwok.x-k8s.io/usage-memory", memory)) if v is not None}
        pod["metadata"]["annotations"] = annotations
        pods.append(pod)

        def used(value: str | None, request: str) -> Quantity:
            try:
                declared = Quantity(value) if value is not None else None
            except ValueError:
                declared = None
            return declared if declared is not None and declared.sign() >= 0 else Quantity(request)

        cpu_each, memory_each = used(cpu, "100m"), used(memory, "64Mi")
        metrics = pod_metrics(pod, NOW)
        assert metrics is not None
        assert [Quantity(c["usage"]["cpu"]) for c in metrics["containers"]] == [cpu_each] * (containers + 1)
        memories = [Quantity(c["usage"]["memory"]) for c in metrics["containers"]]
        assert memories == [memory_each] * (containers + 1)
        for _ in range(containers + 1):  # quantities add exactly; rounding happens when printed
            expected_cpu, expected_memory = expected_cpu.add(cpu_each), expected_memory.add(memory_each)
    usage = node_metrics({"metadata": {"name": "n0"}}, pods, NOW)["usage"]
    assert Quantity(usage["cpu"]).cmp(expected_cpu) == 0
    assert Quantity(usage["memory"]).cmp(expected_memory) == 0


def test_declared_usage_example() -> None:
    pod = _pod("p", "n0", "Running", 100, 64)
    pod["metadata"]["annotations"] = {"kwok.x-k8s.io/usage-cpu": "1500m",
                                      "kwok.x-k8s.io/usage-memory": "bad"}
    metrics = pod_metrics(pod, NOW)
    assert metrics is not None and metrics["containers"][0]["usage"] == {"cpu": "1500m", "memory": "64Mi"}
