"""``metrics.k8s.io`` as a Table, as metrics-server converts it (kbatch.server.metrics_table): its
unit tests translated (kubernetes-sigs/metrics-server ``pkg/api/table_test.go``), the HTTP edge, and
kubectl against ``kbatch serve`` printing metrics-server's columns."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.server.metrics_table import metrics_table
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_zero_times import _kbatch

TABLE = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}


def _node(name: str, usage: dict[str, str], window: str) -> dict[str, Any]:
    return {"kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1", "metadata": {"name": name},
            "window": window, "usage": usage}


def _pod(name: str, containers: list[dict[str, str]], window: str) -> dict[str, Any]:
    return {"kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": {"name": name, "namespace": "default"}, "window": window,
            "containers": [{"name": f"c{i}", "usage": u} for i, u in enumerate(containers)]}


def _cells(table: dict[str, Any]) -> list[list[Any]]:
    return [row["cells"] for row in table["rows"]]


def test_node_list_table_as_upstreams_table_test() -> None:
    # TestNodeList_ConvertToTable: one resource "res1", the window as Go prints a Duration
    nodes = [_node("node1", {"res1": "10m"}, "1µs"), _node("node2", {"res1": "5Mi"}, "2µs"),
             _node("node3", {"res1": "1"}, "3µs")]
    table = metrics_table({"kind": "NodeMetricsList", "metadata": {}, "items": nodes}, "Metadata")
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "res1", "Window"]
    assert _cells(table) == [["node1", "10m", "1µs"], ["node2", "5Mi", "2µs"], ["node3", "1", "3µs"]]
    assert table["rows"][0]["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                          "metadata": {"name": "node1"}}


def test_pod_list_table_sums_containers_as_upstreams_table_test() -> None:
    # TestPodList_ConvertToTable: columns cpu, memory (sorted), a pod's usage summed over containers
    pods = [_pod("pod1", [{"cpu": "10m", "memory": "5Mi"}], "1µs"),
            _pod("pod2", [{"cpu": "10m", "memory": "5Mi"}, {"cpu": "10m", "memory": "10Mi"}], "2µs"),
            _pod("pod3", [{"memory": "20Mi", "cpu": "10m"}, {"cpu": "10m", "memory": "5Mi"}], "3µs")]
    table = metrics_table({"kind": "PodMetricsList", "metadata": {}, "items": pods}, "None")
    columns = table["columnDefinitions"]
    assert [(c["name"], c["format"]) for c in columns] == [
        ("Name", "name"), ("cpu", "quantity"), ("memory", "quantity"), ("Window", "duration")]
    assert columns[0]["description"] == "Name of the resource"
    assert _cells(table) == [["pod1", "10m", "5Mi", "1µs"], ["pod2", "20m", "15Mi", "2µs"],
                             ["pod3", "20m", "25Mi", "3µs"]]
    assert all("object" not in row for row in table["rows"])


def test_single_object_and_empty_list() -> None:
    one = metrics_table(_node("n", {"cpu": "250m", "memory": "1Gi"}, "15s"), "Object")
    assert _cells(one) == [["n", "250m", "1Gi", "15s"]] and one["rows"][0]["object"]["kind"] == "NodeMetrics"
    empty = metrics_table({"kind": "NodeMetricsList", "metadata": {}, "items": []}, "Metadata")
    assert empty["columnDefinitions"] is None and empty["rows"] is None


@given(st.lists(st.dictionaries(st.sampled_from(["cpu", "memory", "gpu"]), st.integers(0, 5000)),
                min_size=1, max_size=5))
def test_columns_come_from_the_first_item_and_missing_usage_is_zero(usages: list[dict[str, int]]) -> None:
    nodes = [_node(f"n{i}", {k: f"{v}m" for k, v in u.items()}, "15s") for i, u in enumerate(usages)]
    table = metrics_table({"kind": "NodeMetricsList", "metadata": {}, "items": nodes}, "None")
    names = sorted(usages[0])
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", *names, "Window"]
    for row, usage in zip(table["rows"], usages, strict=True):
        assert len(row["cells"]) == len(names) + 2
        for name, cell in zip(names, row["cells"][1:-1], strict=True):
            assert (cell == "0") == (usage.get(name, 0) == 0)


def test_the_http_edge_answers_a_table_only_to_who_asks(api: Any) -> None:
    plain = api.get("/apis/metrics.k8s.io/v1beta1/nodes").json()
    assert plain["kind"] == "NodeMetricsList"
    table = api.get("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", headers=TABLE).json()
    assert table["kind"] == "Table" and table["rows"] is None
    bad = api.get("/apis/metrics.k8s.io/v1beta1/nodes?includeObject=All", headers=TABLE)
    assert bad.status_code == 400 and bad.json()["reason"] == "BadRequest"


def _container(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {"name": name, "image": "busybox", "command": ["sleep", "3600"],
            "resources": {"requests": {"cpu": cpu, "memory": memory}}}


CONTAINERS = [_container("main", "250m", "64Mi"), _container("side", "50m", "16Mi")]
JOB = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "busy"}, "spec": {
    "template": {"spec": {"containers": CONTAINERS, "restartPolicy": "Never"}}}})


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_get_metrics_prints_metrics_servers_columns(served: Any) -> None:
    _kbatch(served, "nodes", "add", "--count", "1")
    kubectl(served, "apply", "-f", "-", input_=JOB)
    _kbatch(served, "advance", "10s")
    nodes = kubectl(served, "get", "nodes.metrics.k8s.io").stdout.splitlines()
    assert nodes[0].split() == ["NAME", "CPU", "MEMORY", "WINDOW"]
    assert nodes[1].split()[1:] == ["300m", "80Mi", "15s"]
    pods = kubectl(served, "get", "pods.metrics.k8s.io", "-A").stdout.splitlines()
    assert pods[0].split() == ["NAMESPACE", "NAME", "CPU", "MEMORY", "WINDOW"]
    assert pods[1].split()[0] == "default" and pods[1].split()[2:] == ["300m", "80Mi", "15s"]
