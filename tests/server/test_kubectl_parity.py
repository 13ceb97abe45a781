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

# KWOK's usage-from-annotation: each running container uses what the pod's annotations declare
DECLARED_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "declared", "annotations": {"kwok.x-k8s.io/usage-cpu": "1500m",
                                                     "kwok.x-k8s.io/usage-memory": "3Gi"}},
    "spec": {"restartPolicy": "Never", "nodeSelector": {"kubernetes.io/hostname": "cpu-1"},
             "containers": [{"name": name, "image": "busybox", "command": ["sleep", "3600"],
                             "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}
                            for name in ("a", "b")]},
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
    kubectl(served, "create", "-f", "-", input_=json.dumps(DECLARED_POD))
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
    ("top", "pod", "declared", "--containers"),
    ("top", "node", "cpu-1"),
    ("top", "nodes", "--sort-by=cpu"),
    ("top", "nodes", "--sort-by=memory", "--show-capacity", "--no-headers"),
    ("top", "pods", "--sum"),
    ("top", "pods", "-A", "--sort-by=memory", "--sum"),
    ("top", "pods", "-A", "--containers", "--sum", "--no-headers"),
    ("top", "pods", "--containers", "--sort-by=cpu"),
    ("get", "nodes", "-o", "jsonpath={.items[*]['metadata.name', 'status.capacity.cpu']}"),
    ("get", "nodes", "-o", "jsonpath={.items[0].metadata['name', 'labels.rack']}"),
    ("get", "nodes", "-o",
     "jsonpath={.items[0].metadata.labels['kubernetes.io/os']}{.items[0].metadata.name}"),
    ("get", "nodes", "-o", "jsonpath-as-json={range .items[*]}{.metadata.name}{.status.capacity}{end}"),
    ("get", "pod", "trainer", "-o", 'jsonpath-as-json=x{.spec.nope}{"\\n"}{.metadata.labels}'),
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


DRA_OBJECTS = [
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
     "metadata": {"name": "two-gpus", "namespace": "default"},
     "spec": {"spec": {"devices": {"requests": [
         {"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": 2}}]}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dra-trainer", "namespace": "default"},
     "spec": {"restartPolicy": "Never", "nodeSelector": {"kubernetes.io/hostname": "dra-0"},
              "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "two-gpus"}],
              "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"],
                              "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "gpus"}]}}]}},
]


@pytest.fixture(scope="module")
def dra_cluster(cluster: Any) -> Any:
    """The cluster plus a node whose simulated driver publishes 4 GPUs, 2 of them held by one pod."""
    for args in (["nodes", "add", "--count", "1", "--prefix", "dra", "--gpu", "4", "--gpu-driver",
                  "gpu.example.com"],):
        try:
            main(["--server", cluster.url, *args])
        except SystemExit as exit_:
            assert not exit_.code
    kubectl(cluster, "create", "-f", "-", input_=json.dumps({"apiVersion": "v1", "kind": "List",
                                                             "items": DRA_OBJECTS}))
    try:
        main(["--server", cluster.url, "advance", "5s"])
    except SystemExit as exit_:
        assert not exit_.code
    return cluster


def _page_parts(text: str) -> tuple[list[str], list[list[str]]]:
    """The page before ``Events:`` with each pod row's age (its last cell) cut, and the event rows
    without their Age cells: kubectl's ages come from the wall clock, kbatch's from the virtual one."""
    import re

    head, _, events = text.partition("\nEvents:")
    lines = head.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Non-terminated Pods:"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Allocated resources:"))
    lines[start + 3:end] = [line.rstrip().rsplit(" ", 1)[0] for line in lines[start + 3:end]]
    rows = [re.split(r"\s{2,}", row.strip()) for row in events.splitlines()[1:]]
    return lines, [r[:2] + r[3:] if len(r) > 3 else r for r in rows]


def _cut(lines: list[str], title: str) -> list[str]:
    """``lines`` without the block titled ``title``: its line and the indented lines below it."""
    if title not in lines:
        return lines
    start = stop = lines.index(title)
    while stop + 1 < len(lines) and lines[stop + 1].startswith("  "):
        stop += 1
    return lines[:start] + lines[stop + 1:]


@pytest.mark.parametrize("node", ["node-0", "cpu-0", "dra-0"])
def test_describe_node_prints_kubectl_page(dra_cluster: Any, capsys: pytest.CaptureFixture[str],
                                           node: str) -> None:
    """The whole page byte for byte (one tabwriter, kubectl's columns), but for the ages and what
    kubectl 1.32 on this machine prints differently from the 1.37 kbatch follows: its ``Kube-Proxy
    Version`` line, no "Node-Local ResourceSlices" block, and kbatch's own DRA rows."""
    ours, our_events = _page_parts(kbatch(dra_cluster, capsys, "describe", "node", node))
    theirs, their_events = _page_parts(kubectl(dra_cluster, "describe", "node", node).stdout)
    theirs = [line for line in theirs if not line.startswith("  Kube-Proxy Version:")]
    ours = _cut(_cut(ours, "Node-Local ResourceSlices:"),
                "  DRA devices (allocated to these pods' ResourceClaims):")
    assert ours == theirs
    assert our_events == their_events


def test_describe_node_allocations(dra_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    allocated = _block(kbatch(dra_cluster, capsys, "describe", "node", "node-0"), "Allocated resources")
    assert ["cpu", "2 (50%)", "1 (25%)"] in allocated  # the init container's 2 cpus win (max rule)
    assert ["memory", "1Gi (6%)", "2Gi (12%)"] in allocated
    assert ["nvidia.com/gpu", "2", "2"] in allocated
    pods = _block(kbatch(dra_cluster, capsys, "describe", "node", "node-0"), "Non-terminated Pods")
    assert any(r[:2] == ["default", "trainer"] for r in pods)


def test_resourceslices_list_by_node_as_kubectl_describe_node_does(dra_cluster: Any) -> None:
    """kubectl 1.37's describe node lists ``resourceslices`` with ``spec.nodeName=NODE``."""
    mine = kubectl(dra_cluster, "get", "resourceslices", "--field-selector", "spec.nodeName=dra-0",
                   "-o", "jsonpath={.items[*].spec.nodeName}").stdout.split()
    assert mine == ["dra-0"]
    assert kubectl(dra_cluster, "get", "resourceslices", "--field-selector", "spec.driver=gpu.example.com",
                   "-o", "name").stdout.strip()
    assert not kubectl(dra_cluster, "get", "resourceslices", "--field-selector", "spec.nodeName=node-0",
                       "-o", "name").stdout.strip()


def test_describe_node_shows_dra_devices(dra_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    page = kbatch(dra_cluster, capsys, "describe", "node", "dra-0")
    lines = page.splitlines()
    title = lines.index("  DRA devices (allocated to these pods' ResourceClaims):")
    assert lines[title - 1].split()[0] == "ephemeral-storage"  # below kubectl's own table
    assert lines[title + 1].split() == ["Device", "Class", "Driver", "Devices"]
    assert lines[title + 3].split() == ["gpu", "gpu.example.com", "2"]  # one claim of two devices
    slices = _block(page, "Node-Local ResourceSlices")
    assert slices[1:] == [["Driver", "Pool", "Slices", "Devices"], ["------", "----", "------", "-------"],
                          ["gpu.example.com", "dra-0", "1", "4"]]
    assert "DRA devices" not in kbatch(dra_cluster, capsys, "describe", "node", "node-0")


def test_top_reports_what_running_containers_request(cluster: Any) -> None:
    nodes = kubectl(cluster, "top", "nodes", "--no-headers").stdout.split("\n")
    gpu_node = next(line.split() for line in nodes if line.startswith("node-0 "))
    assert gpu_node == ["node-0", "500m", "12%", "1024Mi", "6%"]  # trainer's main container: 500m, 1Gi
    pod = kubectl(cluster, "top", "pod", "trainer", "--containers", "--no-headers").stdout.split()
    assert pod == ["trainer", "main", "500m", "1024Mi"]  # the finished init container is not running
    missing = kubectl(cluster, "top", "pod", "nope", check=False)
    assert missing.returncode != 0 and "not found" in missing.stderr


def test_top_reports_declared_usage(cluster: Any) -> None:
    pod = kubectl(cluster, "top", "pod", "declared", "--containers", "--no-headers").stdout.split("\n")
    assert [line.split() for line in pod if line] == [["declared", "a", "1500m", "3072Mi"],
                                                      ["declared", "b", "1500m", "3072Mi"]]
    node = kubectl(cluster, "top", "node", "cpu-1", "--no-headers").stdout.split()
    assert node == ["cpu-1", "3000m", "75%", "6144Mi", "37%"]  # 4 cpus, 16Gi allocatable


@pytest.mark.parametrize(("kind", "files"), [
    ("jsonpath-file", ['{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}']),
    ("custom-columns-file", ["NAME   NODE  PHASE\n.metadata.name  {.spec.nodeName} status.phase\n"]),
])
def test_template_files_print_what_kubectl_prints(cluster: Any, capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Any, kind: str, files: list[str]) -> None:
    for i, text in enumerate(files):
        path = tmp_path / f"template-{i}"
        path.write_text(text)
        for extra in ((), ("--no-headers",)):  # kubectl prints a columns file's headers regardless
            args = ("get", "pods", "-o", f"{kind}={path}", *extra)
            theirs = kubectl(cluster, *args).stdout
            assert theirs.strip()
            assert kbatch(cluster, capsys, *args) == theirs


@pytest.mark.parametrize("args", [
    ("get", "pods", "-o", "jsonpath-file=/nonexistent/template"),
    ("get", "pods", "-o", "custom-columns-file=/nonexistent/template"),
    ("get", "pods", "-o", "jsonpath-as-json="),
    ("top", "pods", "--sort-by=name"),
    ("top", "nodes", "--sort-by=pods"),
])
def test_output_errors_read_as_kubectl(cluster: Any, capsys: pytest.CaptureFixture[str],
                                       args: tuple[str, ...]) -> None:
    theirs = kubectl(cluster, *args, check=False)
    assert theirs.returncode != 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["--server", cluster.url, *args])
    assert exit_.value.code
    ours = capsys.readouterr().err
    assert ours.strip() == theirs.stderr.strip()


def test_go_templates_are_refused_with_a_reason(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (("-o", "go-template={{.kind}}"), ("-o", "go-template-file=x"), ("--template", "{{.kind}}")):
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            main(["--server", cluster.url, "get", "pods", *args])
        assert exit_.value.code
        err = capsys.readouterr().err
        assert "does not print Go templates" in err and "jsonpath" in err


def test_kube_public_and_cluster_info(cluster: Any) -> None:
    namespaces = kubectl(cluster, "get", "ns", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert {"default", "kube-system", "kube-public"} <= set(namespaces)
    text = kubectl(cluster, "get", "configmap", "cluster-info", "-n", "kube-public", "-o",
                   "jsonpath={.data.kubeconfig}").stdout
    assert json.loads(text)["clusters"][0]["cluster"]["server"] == cluster.url
