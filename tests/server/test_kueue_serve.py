"""Kueue over ``kbatch serve`` (virtual clock, moved through the clock extension): the real kubectl
applies the queues and a Job, sees upstream's columns, both served versions in discovery, v1beta1
answers converted with the deprecation warning; the official ``kubernetes`` client reads and writes
both versions through ``CustomObjectsApi``."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kueue"
GROUP = "kueue.x-k8s.io"


@pytest.fixture(scope="module")
def kueue_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("kueue-serve")).start()
    try:
        reply = httpx.post(f"{server.url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 2},
                           timeout=30)
        assert reply.status_code == 200, reply.text
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def _kubectl(served: Any, *args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([KUBECTL, *args], env=served.env(), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out


def _advance(served: Any, duration: str) -> None:
    reply = httpx.post(f"{served.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": duration}, timeout=60)
    assert reply.status_code == 200, reply.text


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_runs_a_queued_job_and_reads_both_versions(kueue_served: Any) -> None:
    versions = _kubectl(kueue_served, "api-versions").stdout.split()
    assert f"{GROUP}/v1beta2" in versions and f"{GROUP}/v1beta1" in versions
    resources = _kubectl(kueue_served, "api-resources", "--api-group", GROUP).stdout
    assert "clusterqueues" in resources and "workloads" in resources

    _kubectl(kueue_served, "apply", "-f", str(EXAMPLES / "queues.yaml"))
    _kubectl(kueue_served, "apply", "-f", str(EXAMPLES / "job.yaml"))
    table = _kubectl(kueue_served, "get", "workloads").stdout.splitlines()
    assert table[0].split() == ["NAME", "QUEUE", "RESERVED", "IN", "ADMITTED", "FINISHED", "AGE"]
    assert table[1].startswith("job-sample-job-") and table[1].split()[1:4] == ["user-queue", "cluster-queue",
                                                                               "True"]
    _advance(kueue_served, "40s")
    job = json.loads(_kubectl(kueue_served, "get", "job", "sample-job", "-o", "json").stdout)
    assert job["status"]["succeeded"] == 3
    wl = json.loads(_kubectl(kueue_served, "get", "workloads", "-o", "json").stdout)["items"][0]
    assert wl["apiVersion"] == f"{GROUP}/v1beta2"  # the preferred version
    assert {c["type"]: c["status"] for c in wl["status"]["conditions"]}["Finished"] == "True"

    old = _kubectl(kueue_served, "get", f"clusterqueues.v1beta1.{GROUP}", "cluster-queue", "-o", "json")
    assert json.loads(old.stdout)["apiVersion"] == f"{GROUP}/v1beta1"
    assert "deprecated" in old.stderr.lower()  # kubectl prints the Warning header
    cq = _kubectl(kueue_served, "get", "clusterqueues", "-o", "wide").stdout.splitlines()
    assert cq[0].split() == ["NAME", "COHORT", "STRATEGY", "PENDING", "WORKLOADS", "ADMITTED", "WORKLOADS"]
    described = _kubectl(kueue_served, "describe", "workload", wl["metadata"]["name"]).stdout
    assert "user-queue" in described


def test_python_client_reads_and_writes_both_versions(kueue_served: Any) -> None:
    pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes import client, config

    api = client.CustomObjectsApi(config.new_client_from_config(config_file=str(kueue_served.kubeconfig)))
    body = {"apiVersion": f"{GROUP}/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "py-old"},
            "spec": {"cohort": "py-team", "namespaceSelector": {}, "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [
                    {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}]}}
    created = api.create_cluster_custom_object(GROUP, "v1beta1", "clusterqueues", body)
    assert created["apiVersion"] == f"{GROUP}/v1beta1" and created["spec"]["cohort"] == "py-team"
    stored = api.get_cluster_custom_object(GROUP, "v1beta2", "clusterqueues", "py-old")
    assert stored["spec"]["cohortName"] == "py-team" and "cohort" not in stored["spec"]
    listed = api.list_cluster_custom_object(GROUP, "v1beta1", "clusterqueues")
    assert {i["apiVersion"] for i in listed["items"]} == {f"{GROUP}/v1beta1"}
    with pytest.raises(client.rest.ApiException) as err:
        api.create_cluster_custom_object(GROUP, "v1beta2", "clusterqueues", {
            **body, "apiVersion": f"{GROUP}/v1beta2", "metadata": {"name": "py-bad"},
            "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                {"name": "f", "resources": [{"name": "memory", "nominalQuota": "1"}]}]}]}})
    assert err.value.status in (400, 403, 422) and "coveredResources" in err.value.body
    api.delete_cluster_custom_object(GROUP, "v1beta2", "clusterqueues", "py-old")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_runs_a_queued_pod_and_a_pod_group(kueue_served: Any) -> None:
    """The pod integration through the real kubectl: the pod webhook's gate, label and finalizer on
    what kubectl reads back, the Workloads' names, the pods ungated and run, finalizers released."""
    _kubectl(kueue_served, "apply", "-f", str(EXAMPLES / "queues.yaml"))
    _advance(kueue_served, "60s")  # whatever another test queued is done
    _kubectl(kueue_served, "apply", "-f", str(EXAMPLES / "pod.yaml"))
    pod = json.loads(_kubectl(kueue_served, "get", "pod", "kueue-sleep", "-o", "json").stdout)
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/managed"] == "true"
    assert "kueue.x-k8s.io/managed" in pod["metadata"]["finalizers"]
    names = _kubectl(kueue_served, "get", "workloads", "-o", "name").stdout.split()
    assert any(n.startswith("workload.kueue.x-k8s.io/pod-kueue-sleep-") for n in names)
    _advance(kueue_served, "10s")
    pod = json.loads(_kubectl(kueue_served, "get", "pod", "kueue-sleep", "-o", "json").stdout)
    assert pod["status"]["phase"] == "Succeeded" and not pod["spec"].get("schedulingGates")
    assert not pod["metadata"].get("finalizers")

    _kubectl(kueue_served, "apply", "-f", str(EXAMPLES / "pod-group.yaml"))
    group = json.loads(_kubectl(kueue_served, "get", "workload", "sample-group", "-o", "json").stdout)
    assert [ps["count"] for ps in group["spec"]["podSets"]] == [2]
    owners = sorted(r["name"] for r in group["metadata"]["ownerReferences"])
    assert owners == ["sample-leader", "sample-worker"]
    _advance(kueue_served, "10s")
    group = json.loads(_kubectl(kueue_served, "get", "workload", "sample-group", "-o", "json").stdout)
    finished = {c["type"]: c for c in group["status"]["conditions"]}["Finished"]
    assert (finished["status"], finished["message"]) == ("True", "Pods succeeded: 2/2.")
    phases = _kubectl(kueue_served, "get", "pods", "sample-leader", "sample-worker", "-o",
                      "jsonpath={.items[*].status.phase}").stdout.split()
    assert phases == ["Succeeded", "Succeeded"]
