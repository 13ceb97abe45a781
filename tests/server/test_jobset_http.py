"""JobSets through ``kbatch serve``: the real kubectl (apply, get with the CRD's columns, describe,
-o yaml/json, a webhook's refusal) and the official ``kubernetes`` Python client (CustomObjectsApi),
with virtual time moved through the server's clock."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from kbatch.server.process import ServeProcess

KUBECTL = shutil.which("kubectl")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "jobset.yaml"
GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    state = tmp_path_factory.mktemp("serve-jobset")
    subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), "nodes", "add", "--count",
                    "3"], check=True, capture_output=True, timeout=60)
    server = ServeProcess(state).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def advance(server: Any, seconds: int) -> None:
    httpx.post(f"{server.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": f"{seconds}s"},
               timeout=30).raise_for_status()


def kubectl(server: ServeProcess, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    out = subprocess.run([KUBECTL, *args], env=server.env(), capture_output=True, text=True, timeout=30)
    if check and out.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed: {out.stderr}")
    return out


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_runs_a_jobset(server: ServeProcess) -> None:
    assert "jobset.jobset.x-k8s.io/training created" in kubectl(server, "apply", "-f", str(EXAMPLE)).stdout
    table = kubectl(server, "get", "jobsets").stdout.splitlines()
    assert table[0].split() == ["NAME", "TERMINALSTATE", "RESTARTS", "COMPLETED", "SUSPENDED", "AGE"]
    advance(server, 1)  # the driver is ready: the workers that depend on it are created
    assert table[1].split()[0] == "training"
    names = kubectl(server, "get", "jobs", "-o", "name").stdout.split()
    assert names == ["job.batch/training-driver-0", "job.batch/training-workers-0",
                     "job.batch/training-workers-1"]
    assert "service/training" in kubectl(server, "get", "svc", "-o", "name").stdout
    advance(server, 60)
    done = json.loads(kubectl(server, "get", "jobset", "training", "-o", "json").stdout)
    assert done["status"]["terminalState"] == "Completed"
    row = kubectl(server, "get", "jobsets", "--no-headers").stdout.split()
    assert row[:4] == ["training", "Completed", "0", "True"]
    assert "kind: JobSet" in kubectl(server, "get", "jobset/training", "-o", "yaml").stdout
    described = kubectl(server, "describe", "jobset", "training").stdout
    assert "Name:" in described and "training" in described


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_shows_the_webhooks_refusal(server: ServeProcess) -> None:
    manifest = json.dumps({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                           "metadata": {"name": "bad"}, "spec": {"replicatedJobs": [{
                               "name": "rj", "dependsOn": [{"name": "x", "status": "Ready"}],
                               "template": {"spec": {"template": {"spec": {
                                   "containers": [{"name": "c", "image": "busybox"}]}}}}}]}})
    out = subprocess.run([KUBECTL or "kubectl", "apply", "-f", "-"], env=server.env(), input=manifest,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    # kubectl lists an Invalid status's causes (here the webhook's)
    assert out.stderr.splitlines() == [
        'The JobSet "bad" is invalid: ',
        "* <nil>: Internal error: DependsOn can't be set for the first ReplicatedJob",
        "* <nil>: Internal error: replicatedJob: rj cannot depend on replicatedJob: x"]


def test_the_python_client_creates_suspends_and_resumes(server: ServeProcess) -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes.client.rest import ApiException

    api_client = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
    custom = kubernetes.client.CustomObjectsApi(api_client)
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "JobSet", "metadata": {"name": "py"},
            "spec": {"suspend": True, "replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {
                "parallelism": 1, "completions": 1, "template": {"spec": {"containers": [
                    {"name": "c", "image": "busybox", "command": ["sleep", "5"]}]}}}}}]}}
    created = custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, body)
    assert created["spec"]["successPolicy"] == {"operator": "All"}  # mjobset.kb.io's defaults
    listed = custom.list_namespaced_custom_object(GROUP, VERSION, "default", PLURAL)["items"]
    assert "py" in [i["metadata"]["name"] for i in listed]
    advance(server, 1)
    got = custom.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py")
    assert [c["type"] for c in got["status"]["conditions"]] == ["Suspended"]
    custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py",
                                          {"spec": {"suspend": False}})
    advance(server, 30)
    got = custom.get_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "py")
    assert got["status"]["terminalState"] == "Completed"
    with pytest.raises(ApiException) as refused:
        custom.patch_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "py",
                                              {"spec": {"managedBy": "example.com/other"}})
    assert refused.value.status == 422 and "field is immutable" in refused.value.body
