"""kbatch's CLI and the real kubectl against one ``kbatch serve``: the same commands print the same.

kubectl is the reference for the output formats (issue 23): ``get all``, ``-o jsonpath=…``,
``-o custom-columns=…``, ``--sort-by``, ``-L``, ``--show-labels``, ``top`` (kubectl reads the
``metrics.k8s.io`` kbatch serves) and ``describe node``'s "Non-terminated Pods" and "Allocated
resources" blocks are compared line for line.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

GPU_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "trainer", "labels": {"app": "train", "tier": "gpu"}},
    "spec": {
        "restartPolicy": "Never",
        "initContainers": [{"name": "fetch", "image": "busybox", "command": ["sleep", "1"],
                            "resources": {"requests": {"cpu": "2"}}}],
        "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "3600"],
                        "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "2"},
                                      "limits": {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "2"}}}]},
}


def kbatch(served: Any, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    try:
        main(["--server", served.url, *args])
    except SystemExit as exit_:
        assert not exit_.code, capsys.readouterr().err
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    main_args = ["--server", served.url]
    for args in (["nodes", "add", "--count", "1", "--gpu", "4", "--label", "rack=r1"],
                 ["nodes", "add", "--count", "2", "--prefix", "cpu", "--label", "rack=r2"]):
        try:
            main([*main_args, *args])
        except SystemExit as exit_:
            assert not exit_.code
    kubectl(served, "create", "-f", "-", input_=json.dumps(GPU_POD))
    for name in ("job-10", "job-9", "job-100"):
        kubectl(served, "create", "job", name, "--image=busybox", "--", "sleep", "3600")
    try:
        main([*main_args, "advance", "5s"])
    except SystemExit as exit_:
        assert not exit_.code
    return served


@pytest.mark.parametrize("args", [
    ("get", "all"),
    ("get", "all", "-o", "name"),
    ("get", "jobs", "-o", "jsonpath={.items[*].metadata.name}"),
    ("get", "pods", "-o", 'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}'),
    ("get", "pod", "trainer", "-o", "jsonpath={.metadata.labels}"),
    ("get", "pod", "trainer", "-o", "jsonpath={.spec.containers[0].resources}"),
    ("get", "nodes", "-o", 'jsonpath={.items[?(@.metadata.labels.rack=="r2")].metadata.name}'),
    ("get", "nodes", "-o", r"jsonpath={.items[0].metadata.labels.kubernetes\.io/hostname}"),
    ("get", "jobs", "--sort-by=.metadata.name", "-o", "name"),
    ("get", "jobs", "--sort-by={.metadata.name}"),
    ("get", "nodes", "--sort-by=.metadata.labels.rack", "-o",
     "custom-columns=NAME:.metadata.name,RACK:.metadata.labels.rack,GPU:.status.allocatable.nvidia\\.com/gpu"),
    ("get", "pods", "-o", "custom-columns=POD:metadata.name,IMAGES:.spec.containers[*].image,X:.spec.nope",
     "--no-headers"),
    ("get", "nodes", "-L", "rack", "-L", "kubernetes.io/os"),
    ("get", "nodes", "--show-labels"),
    ("get", "jobs", "-L", "job-name", "--show-labels", "-o", "wide"),
    ("top", "nodes"),
    ("top", "node", "node-0"),
    ("top", "pods"),
    ("top", "pods", "-A", "--containers"),
    ("top", "pod", "trainer"),
])
def test_get_prints_what_kubectl_prints(cluster: Any, capsys: pytest.CaptureFixture[str],
                                        args: tuple[str, ...]) -> None:
    theirs = kubectl(cluster, *args).stdout
    assert theirs.strip(), f"kubectl printed nothing for {args}"
    assert kbatch(cluster, capsys, *args) == theirs


def _block(text: str, title: str) -> list[list[str]]:
    """The rows of one describe block, split into cells on runs of two or more spaces."""
    import re

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = [lines[start].split(":", 1)[1].strip()]
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        rows.append(line)
    return [re.split(r"\s{2,}", row.strip()) for row in rows]


def test_describe_node_allocations_match_kubectl(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    ours = kbatch(cluster, capsys, "describe", "node", "node-0")
    theirs = kubectl(cluster, "describe", "node", "node-0").stdout
    assert _block(ours, "Allocated resources") == _block(theirs, "Allocated resources")
    # kubectl computes ages from the wall clock, kbatch from the virtual one: compare all but Age
    assert [r[:-1] for r in _block(ours, "Non-terminated Pods")] == \
        [r[:-1] for r in _block(theirs, "Non-terminated Pods")]
    allocated = _block(ours, "Allocated resources")
    assert ["cpu", "2 (50%)", "1 (25%)"] in allocated  # the init container's 2 cpus win (max rule)
    assert ["memory", "1Gi (6%)", "2Gi (12%)"] in allocated
    assert ["nvidia.com/gpu", "2", "2"] in allocated
    pods = _block(ours, "Non-terminated Pods")
    assert pods[0] == ["(1 in total)"] or pods[0][0].startswith("(")
    assert any(r[:2] == ["default", "trainer"] for r in pods)


def test_top_reports_what_running_containers_request(cluster: Any) -> None:
    nodes = kubectl(cluster, "top", "nodes", "--no-headers").stdout.split("\n")
    gpu_node = next(line.split() for line in nodes if line.startswith("node-0 "))
    assert gpu_node == ["node-0", "500m", "12%", "1024Mi", "6%"]  # trainer's main container: 500m, 1Gi
    pod = kubectl(cluster, "top", "pod", "trainer", "--containers", "--no-headers").stdout.split()
    assert pod == ["trainer", "main", "500m", "1024Mi"]  # the finished init container is not running
    missing = kubectl(cluster, "top", "pod", "nope", check=False)
    assert missing.returncode != 0 and "not found" in missing.stderr


def test_kube_public_and_cluster_info(cluster: Any) -> None:
    namespaces = kubectl(cluster, "get", "ns", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert {"default", "kube-system", "kube-public"} <= set(namespaces)
    text = kubectl(cluster, "get", "configmap", "cluster-info", "-n", "kube-public", "-o",
                   "jsonpath={.data.kubeconfig}").stdout
    assert json.loads(text)["clusters"][0]["cluster"]["server"] == cluster.url
