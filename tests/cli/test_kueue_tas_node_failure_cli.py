"""TAS node failure replacement as a user sees it: ``kbatch`` commands in separate processes over
one state directory. A rack-required Indexed Job (examples/kueue/tas/job-required.yaml) runs its 4
pods on two hosts of a rack; ``kbatch node down`` takes one of them down. The node lifecycle
controller taints it, the taint manager evicts its pods after their 300 s toleration, Kueue's TAS
node controller then records the node in the Workload's ``status.unhealthyNodes``, and the
scheduler's second pass moves those pods' share of the topology assignment to a free host of the
same rack, where the Job's replacement pods run. With no free host in the rack,
``TASFailedNodeReplacementFailFast`` evicts the Workload (reason ``NodeFailures``), which is
requeued and admitted again elsewhere.

Upstream: kubernetes-sigs/kueue v0.19.2 KEP 2724 "Node failure", test/e2e/tas/ (node failure),
test/integration/singlecluster/tas/tas_test.go ("should update workload TopologyAssignment after a
node becomes unavailable", "should evict the workload when no replacement is found")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-required.yaml"
RACK = "cloud.provider.com/topology-rack"


def _cluster(state: Path, hosts_per_rack: int) -> None:
    for rack in ("r1", "r2"):
        _run(state, "nodes", "add", "--count", str(hosts_per_rack), "--cpu", "2", "--prefix", f"b1-{rack}",
             "--label", "cloud.provider.com/node-group=tas-group",
             "--label", "cloud.provider.com/topology-block=b1", "--label", f"{RACK}=b1-{rack}")
    _run(state, "apply", "-f", str(QUEUES))
    _run(state, "apply", "-f", str(JOB))
    _run(state, "advance", "2s")


def _running(state: Path) -> dict[str, str]:
    """Running, not terminating pods: name -> node."""
    pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods
            if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")}


def _workload(state: Path) -> dict[str, Any]:
    items = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
    assert len(items) == 1
    return items[0]


def _hosts(wl: dict[str, Any]) -> dict[str, Any]:
    return wl["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]


def test_a_failed_node_is_replaced_by_a_free_host_of_the_same_rack(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _cluster(state, hosts_per_rack=3)
    assert sorted(_running(state).values()) == ["b1-r1-0", "b1-r1-0", "b1-r1-1", "b1-r1-1"]

    _run(state, "node", "down", "b1-r1-0")
    _run(state, "advance", "4m")  # the pods still tolerate the unreachable taint: nothing moves
    assert _workload(state)["status"].get("unhealthyNodes") is None
    _run(state, "advance", "2m")  # evicted at 300 s; the node is then unhealthy, and replaced

    wl = _workload(state)
    assert wl["status"].get("unhealthyNodes") is None  # cleared by the second pass
    assert _hosts(wl) == {
        "levels": ["kubernetes.io/hostname"],
        "slices": [{"domainCount": 2, "podCounts": {"universal": 2},
                    "valuesPerLevel": [{"individual": {"prefix": "b1-r1-", "roots": ["1", "2"]}}]}],
    }
    assert not any(c["type"] == "Evicted" and c["status"] == "True" for c in wl["status"]["conditions"])
    running = _running(state)
    by_index = sorted((name.rsplit("-", 2)[1], node) for name, node in running.items())
    assert by_index == [("0", "b1-r1-2"), ("1", "b1-r1-2"), ("2", "b1-r1-1"), ("3", "b1-r1-1")]


def test_with_no_free_host_in_the_rack_the_workload_is_evicted_and_admitted_again(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _cluster(state, hosts_per_rack=2)
    assert sorted(_running(state).values()) == ["b1-r1-0", "b1-r1-0", "b1-r1-1", "b1-r1-1"]

    _run(state, "node", "down", "b1-r1-0")
    _run(state, "advance", "6m")

    message = "Workload was evicted as there was no replacement for unhealthy node(s): b1-r1-0"
    wl = _workload(state)
    name = wl["metadata"]["name"]
    events = _run(state, "get", "events", "--field-selector", f"involvedObject.name={name}")
    assert "EvictedDueToNodeFailures" in events and message in events
    requeued = next(c for c in wl["status"]["conditions"] if c["type"] == "Requeued")
    assert (requeued["status"], requeued["reason"], requeued["message"]) == ("True", "NodeFailures", message)
    assert wl["status"]["schedulingStats"]["evictions"] == [
        {"count": 1, "reason": "NodeFailures", "underlyingCause": ""}]
    assert wl["status"].get("unhealthyNodes") is None  # the eviction reset it
    # requeued, admitted again on the other rack, where the Job's pods run
    assert sorted(_running(state).values()) == ["b1-r2-0", "b1-r2-0", "b1-r2-1", "b1-r2-1"]
