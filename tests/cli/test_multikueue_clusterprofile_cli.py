"""A MultiKueue worker reached through a ClusterProfile, as a user sets it up with ``kbatch`` commands
(each its own process) and a real ``kbatch serve`` worker that requires a bearer token.

The manager runs with ``--feature-gates MultiKueueClusterProfile=true`` and a Kueue Configuration
whose ``multiKueue.clusterProfile.accessProviders`` names a credential plugin (a real subprocess,
tests/controllers/kueue/multikueue/profile_plugin.py, answering the token the profile's
``client.authentication.k8s.io/exec`` extension names, as upstream's e2e ``secretreader`` answers the
Secret's). Steps as kubernetes-sigs/kueue v0.19.2 ``test/e2e/multikueue/sequential/e2e_test.go``
"Connection via ClusterProfile": the cluster first names a profile with no access providers, then
the profile's status gets one with a wrong token (the worker refuses: ``ClientConnectionFailed``),
then the right one (``Active``), and a Job dispatched through it completes on the worker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import yaml

from kbatch.server.process import ServeProcess
from tests.cli.conftest import EXAMPLES
from tests.cli.multikueue_worker import set_up_worker
from tests.cli.processes import kbatch_ok as _run

TOKEN = "s3cret"
PLUGIN = Path(__file__).resolve().parents[1] / "controllers" / "kueue" / "multikueue" / "profile_plugin.py"
SETUP = EXAMPLES / "multikueue" / "manager-setup.yaml"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    """The Kueue Configuration and the manager's objects: examples/multikueue's setup with one
    worker, named by a ClusterProfile, and that profile (no status yet)."""
    config = tmp_path / "kueue-config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
        "multiKueue": {"clusterProfile": {"accessProviders": [{"name": "token-plugin", "execConfig": {
            "apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable, "args": [str(PLUGIN)],
            "provideClusterInfo": True, "interactiveMode": "Never"}}]}},
    }))
    docs = []
    for doc in yaml.safe_load_all(SETUP.read_text()):
        if doc["kind"] == "MultiKueueConfig":
            doc["spec"]["clusters"] = ["worker1"]
        if doc["kind"] == "MultiKueueCluster":
            continue
        docs.append(doc)
    docs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster",
                 "metadata": {"name": "worker1"},
                 "spec": {"clusterSource": {"clusterProfileRef": {"name": "worker1"}}}})
    docs.append({"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ClusterProfile",
                 "metadata": {"name": "worker1", "namespace": "kueue-system"},
                 "spec": {"clusterManager": {"name": "test"}, "displayName": "worker one"}})
    manifests = tmp_path / "manager.yaml"
    manifests.write_text(yaml.safe_dump_all(docs))
    return config, manifests


def _active(state: Path) -> tuple[str, str, str]:
    cluster = json.loads(_run(state, "get", "mkc", "worker1", "-o", "json"))
    (cond,) = cluster["status"]["conditions"]
    return cond["status"], cond["reason"], cond["message"]


def _access(state: Path, url: str, token: str) -> None:
    """The cluster manager's part: the profile's status names the access provider and the worker."""
    extension = {"name": "client.authentication.k8s.io/exec", "extension": {"token": token}}
    status = {"status": {"accessProviders": [
        {"name": "token-plugin", "cluster": {"server": url, "extensions": [extension]}}]}}
    _run(state, "patch", "clusterprofile", "worker1", "-n", "kueue-system", "--subresource", "status",
         "--type", "merge", "-p", json.dumps(status))


def test_a_worker_reached_through_a_cluster_profile(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "worker", "--token", TOKEN) as worker:
        set_up_worker(worker.url, TOKEN)
        state = tmp_path / "manager"
        config, manifests = _files(tmp_path)
        out = _run(state, "--feature-gates", "MultiKueueClusterProfile=true", "--kueue-config", str(config),
                   "apply", "-f", str(manifests))
        assert "clusterprofile.multicluster.x-k8s.io/worker1 created" in out
        assert _active(state) == ("False", "BadClusterProfile",
                                  'load client config failed: no matching cluster accessor found for cluster '
                                  'profile "worker1"')
        _access(state, worker.url, "wrong")
        status, reason, message = _active(state)
        assert (status, reason) == ("False", "ClientConnectionFailed")
        assert "Unauthorized" in message, message
        _access(state, worker.url, TOKEN)
        assert _active(state) == ("True", "Active", "Connected")
        table = _run(state, "get", "clusterprofiles", "-n", "kueue-system").splitlines()
        assert table[0].split() == ["NAME", "AGE"] and table[1].split()[0] == "worker1"

        _run(state, "apply", "-f", str(EXAMPLES / "multikueue" / "job.yaml"))
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for _ in range(30):
            _run(state, "advance", "2s")
            httpx.post(f"{worker.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"}, headers=auth,
                       timeout=60)
            job = json.loads(_run(state, "get", "job", "sample-job", "-o", "json"))
            if any(c["type"] == "Complete" for c in job["status"].get("conditions", [])):
                break
        else:
            raise AssertionError(f"the manager's Job never completed: {job['status']}")
        wl = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"][0]
        assert wl["status"]["clusterName"] == "worker1"


def test_a_profile_without_the_gate_is_not_served(tmp_path: Path) -> None:
    """Without the gate the kind is not served (upstream: the CRD not installed) and a cluster naming
    a profile reports the gate off."""
    from tests.cli.processes import kbatch_process

    state = tmp_path / "state"
    _config, manifests = _files(tmp_path)
    out = kbatch_process(state, "apply", "-f", str(manifests))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert 'no matches for kind "ClusterProfile" in version "multicluster.x-k8s.io/v1alpha1"' in out.stderr
    assert _active(state) == ("False", "MultiKueueClusterProfileFeatureDisabled",
                              "load client config failed: MultiKueueClusterProfile feature gate is disabled")
