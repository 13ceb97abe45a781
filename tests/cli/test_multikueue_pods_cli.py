"""A pod group through MultiKueue, as a user runs it: the manager is ``kbatch`` commands on a state
directory (each command its own process), the worker a ``kbatch serve`` process.

examples/multikueue/pod-group.yaml's two pods are admitted on the manager as one Workload, created on
the worker together (kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_multikueue_adapter.go``),
run there while the manager's pods stay gated, and the group finishes on the manager with the worker
pods' status (``test/e2e/multikueue/e2e_test.go``, "Should run a pod group on worker if admitted").
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from kbatch.server.process import ServeProcess
from tests.cli.conftest import EXAMPLES
from tests.cli.multikueue_worker import set_up_worker, worker_secret
from tests.cli.processes import kbatch_ok as _run

SETUP = EXAMPLES / "multikueue" / "manager-setup.yaml"
GROUP = EXAMPLES / "multikueue" / "pod-group.yaml"


def _worker_pods(url: str) -> dict[str, dict]:
    reply = httpx.get(f"{url}/api/v1/namespaces/default/pods", timeout=60)
    assert reply.is_success, reply.text
    return {p["metadata"]["name"]: p for p in reply.json()["items"]}


def test_a_pod_group_runs_on_the_worker(tmp_path: Path) -> None:
    with ServeProcess(tmp_path / "worker") as worker:
        set_up_worker(worker.url)
        state = tmp_path / "manager"
        _run(state, "apply", "-f", str(SETUP))
        _run(state, "apply", "-f", str(worker_secret(tmp_path / "secret.json", worker.url)))
        _run(state, "apply", "-f", str(GROUP))
        seen: dict[str, dict] = {}
        for _ in range(30):
            _run(state, "advance", "2s")
            httpx.post(f"{worker.url}/apis/kbatch.dev/v1alpha1/clock", json={"advance": "2s"}, timeout=60)
            seen.update(_worker_pods(worker.url))
            wl = json.loads(_run(state, "get", "workload", "sample-group", "-o", "json"))
            if any(c["type"] == "Finished" for c in wl["status"].get("conditions", [])):
                break
        else:
            raise AssertionError(f"the group never finished on the manager: {wl['status']}")
        # both members were created on the worker, naming the manager's Workload
        assert sorted(seen) == ["sample-group-0", "sample-group-1"]
        for remote in seen.values():
            annotations = remote["metadata"]["annotations"]
            assert annotations["kueue.x-k8s.io/prebuilt-workload-name"] == "sample-group"
            assert remote["metadata"]["labels"]["kueue.x-k8s.io/multikueue-origin"] == "multikueue"
        assert wl["status"]["clusterName"] == "multikueue-test-worker2"
        finished = next(c for c in wl["status"]["conditions"] if c["type"] == "Finished")
        assert (finished["reason"], finished["message"]) == ("Succeeded", "Pods succeeded: 2/2.")
        pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
        assert sorted(p["metadata"]["name"] for p in pods) == ["sample-group-0", "sample-group-1"]
        for p in pods:
            assert p["status"]["phase"] == "Succeeded"
            assert "nodeName" not in p["spec"]  # never run on the manager
            assert {"name": "kueue.x-k8s.io/admission"} in p["spec"]["schedulingGates"]
