"""Topology-aware scheduling behind a ProvisioningRequest check as a user runs it: ``kbatch``
commands in separate processes over one state directory (examples/kueue/tas/queues.yaml and
provisioning.yaml). A rack-required Job gets its quota, its topology delayed; the simulated
cluster-autoscaler finds no capacity until nodes are added ("provisioned"), then the check is Ready,
the scheduler's second pass places the pods in one rack of the new nodes and the Job runs there.
(Upstream: kubernetes-sigs/kueue v0.19.2 test/integration/singlecluster/tas/tas_test.go,
"ProvisioningRequest is used"; pkg/scheduler/flavorassigner/tas_flavorassigner.go.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
PROVISIONING = EXAMPLES / "kueue" / "tas" / "provisioning.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-required.yaml"
RACK = "cloud.provider.com/topology-rack"


def _items(state: Path, kind: str) -> list[dict[str, Any]]:
    return json.loads(_run(state, "get", kind, "-o", "json"))["items"]  # type: ignore[no-any-return]


def _provision(state: Path, rack: str) -> None:
    _run(state, "nodes", "add", "--count", "2", "--cpu", "2", "--prefix", rack,
         "--label", "cloud.provider.com/node-group=tas-group",
         "--label", "cloud.provider.com/topology-block=b1", "--label", f"{RACK}={rack}")


def test_a_job_gets_quota_then_its_nodes_provisioned_then_its_topology(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _run(state, "apply", "-f", str(QUEUES))
    created = _run(state, "apply", "-f", str(PROVISIONING))
    assert "admissioncheck.kueue.x-k8s.io/tas-prov created" in created
    job = tmp_path / "job.yaml"
    job.write_text(JOB.read_text().replace("tas-user-queue", "tas-prov-queue"))
    _run(state, "create", "-f", str(job))
    _run(state, "advance", "2s")

    (wl,) = _items(state, "workloads")
    (psa,) = wl["status"]["admission"]["podSetAssignments"]
    assert psa["delayedTopologyRequest"] == "Pending" and "topologyAssignment" not in psa
    assert not any(c["type"] == "Admitted" for c in wl["status"]["conditions"])
    (pr,) = _items(state, "provreq")
    assert [(c["type"], c["status"], c["reason"]) for c in pr["status"]["conditions"]] == [
        ("Accepted", "True", "Accepted"),
        ("Provisioned", "False", "CapacityIsNotFound"),
    ]
    assert _items(state, "pods") == []  # the Job stays suspended

    _provision(state, "r1")  # the autoscaler's new nodes: one rack of two 2-cpu hosts
    for _ in range(4):  # its next loop finds them; the second pass follows a second later (each step
        _run(state, "advance", "3s")  # a process of its own: the second-pass queue lives in the image)

    (wl,) = _items(state, "workloads")
    (psa,) = wl["status"]["admission"]["podSetAssignments"]
    assert psa["delayedTopologyRequest"] == "Ready"
    assert psa["topologyAssignment"] == {
        "levels": ["kubernetes.io/hostname"],
        "slices": [{"domainCount": 2, "podCounts": {"universal": 2},
                    "valuesPerLevel": [{"individual": {"prefix": "r1-", "roots": ["0", "1"]}}]}],
    }
    assert any(c["type"] == "Admitted" and c["status"] == "True" for c in wl["status"]["conditions"])
    pods = _items(state, "pods")
    assert len(pods) == 4 and all(p["status"]["phase"] == "Running" for p in pods)
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["r1-0", "r1-0", "r1-1", "r1-1"]
    for pod in pods:
        assert pod["metadata"]["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"] == (
            pr["metadata"]["name"]
        )
    events = _run(state, "get", "events", "--field-selector", f"involvedObject.name={wl['metadata']['name']}")
    assert "Admitted by ClusterQueue tas-prov-cluster-queue" in events
