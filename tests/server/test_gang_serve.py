"""Gang scheduling over ``kbatch serve`` (docs/gang.md): the real kubectl applies both PodGroup kinds
and their pods, resolves ``podgroups`` as it does on a cluster serving both (Kubernetes' own group
first, ``podgroups.scheduling.x-k8s.io`` for the CRD), prints the CRD's columns and describes them;
the official ``kubernetes`` client reads and writes the native kind and its status."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")

GANGS = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: native}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: cosched}
spec: {minMember: 2, scheduleTimeoutSeconds: 30}
"""


def _pod(name: str, *, group: str = "", xgroup: str = "") -> str:
    labels = f"labels: {{scheduling.x-k8s.io/pod-group: {xgroup}}}" if xgroup else ""
    joins = f"  schedulingGroup: {{podGroupName: {group}}}\n" if group else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, {labels}}}\nspec:\n"
            f"  restartPolicy: Never\n{joins}"
            "  containers: [{name: c, image: busybox, command: [sh, -c, 'sleep 600'],"
            " resources: {limits: {nvidia.com/gpu: '4'}}}]\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A server with the native API on (GenericWorkload is beta and off by default, as upstream)."""
    server = ServeProcess(tmp_path_factory.mktemp("gang-serve"), "--feature-gates",
                          "GenericWorkload=true").start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _kubectl(served: Any, *args: str, input_: str | None = None) -> str:
    out = subprocess.run([KUBECTL, *args], env=served.env(), capture_output=True, text=True, timeout=30,
                         input=input_)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _advance(served: Any, duration: str) -> None:
    """Move the server's virtual clock (docs/serve.md, the clock extension)."""
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}, timeout=30)
    assert reply.status_code == 200, reply.text


def _nodes(served: Any, names: list[str]) -> dict[str, str | None]:
    items = json.loads(_kubectl(served, "get", "pods", "-o", "json"))["items"]
    return {p["metadata"]["name"]: p["spec"].get("nodeName") for p in items if p["metadata"]["name"] in names}


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_runs_both_kinds_of_gang(served: Any) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add",
                       json={"count": 2, "gpu": 8, "prefix": "gang"}, timeout=30)
    assert reply.status_code == 200, reply.text
    _kubectl(served, "apply", "-f", "-", input_=GANGS)
    first = _pod("n0", group="native") + "---\n" + _pod("c0", xgroup="cosched")
    _kubectl(served, "apply", "-f", "-", input_=first)
    _advance(served, "5s")
    assert set(_nodes(served, ["n0", "c0"]).values()) == {None}  # one member each: below the quorum
    second = _pod("n1", group="native") + "---\n" + _pod("c1", xgroup="cosched")
    _kubectl(served, "apply", "-f", "-", input_=second)
    _advance(served, "5s")
    members = ["n0", "n1", "c0", "c1"]
    placed = _nodes(served, members)
    assert all(placed.values()) and len(set(placed.values())) == 2, placed  # 4 GPUs each, 2 nodes of 8

    native = _kubectl(served, "get", "podgroups").splitlines()  # kube's own group first
    assert native[0].split() == ["NAME", "AGE"] and native[1].split()[0] == "native"
    crd = _kubectl(served, "get", "podgroups.scheduling.x-k8s.io").splitlines()
    assert crd[0].split() == ["NAME", "PHASE", "MINMEMBER", "RUNNING", "SUCCEEDED", "FAILED", "AGE"]
    assert _kubectl(served, "get", "pg", "cosched", "-o", "jsonpath={.status.phase}") == "Running"
    conditions = json.loads(_kubectl(served, "get", "podgroups.scheduling.k8s.io", "native", "-o",
                                     "json"))["status"]["conditions"]
    assert [(c["type"], c["status"]) for c in conditions] == [("PodGroupInitiallyScheduled", "True")]
    described = _kubectl(served, "describe", "podgroups.scheduling.x-k8s.io", "cosched")
    assert "cosched" in described and "2" in described


def test_python_client_writes_the_native_pod_group(served: Any) -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    api = client.SchedulingV1beta1Api(api_client)
    body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "py"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}}}
    created = api.create_namespaced_pod_group("default", body)
    assert created.metadata.finalizers == ["scheduling.k8s.io/podgroup-protection"]
    assert created.spec.scheduling_policy.gang.min_count == 3
    api.patch_namespaced_pod_group("py", "default", {"spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})
    assert api.read_namespaced_pod_group("py", "default").spec.scheduling_policy.gang.min_count == 2
    with pytest.raises(kubernetes.client.rest.ApiException) as err:
        api.create_namespaced_pod_group("default", {**body, "metadata": {"name": "bad"},
                                                    "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}})
    assert err.value.status == 422 and "minCount" in err.value.body
    custom = client.CustomObjectsApi(api_client)
    custom.create_namespaced_custom_object("scheduling.x-k8s.io", "v1alpha1", "default", "podgroups", {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "pyx"},
        "spec": {"minMember": 2}})
    listed = custom.list_namespaced_custom_object("scheduling.x-k8s.io", "v1alpha1", "default", "podgroups")
    assert "pyx" in [item["metadata"]["name"] for item in listed["items"]]
    api.delete_namespaced_pod_group("py", "default")  # no pod uses it: the finalizer goes, then the group
    _advance(served, "1s")
    assert "py" not in [g.metadata.name for g in api.list_namespaced_pod_group("default").items]
