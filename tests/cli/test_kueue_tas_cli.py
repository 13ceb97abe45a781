"""Topology-aware scheduling as a user runs it: ``kbatch`` commands in separate processes over one
state directory. Eight nodes in two blocks of two racks of two hosts; a Topology with block, rack
and host levels, a TAS flavor and queue (examples/kueue/tas/queues.yaml, upstream's
sample-queues.yaml). A 4-pod Indexed Job that requires one rack lands its pods on the two hosts of
one rack, two each, rank by rank; a 6-pod one that no rack can hold stays pending with Kueue's
message. (Upstream: kubernetes-sigs/kueue v0.19.2 site/content/en/docs/concepts/topology_aware_scheduling.md,
test/e2e/tas/job_test.go.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-required.yaml"
RACK = "cloud.provider.com/topology-rack"


def _six_pods(tmp_path: Path) -> Path:
    text = JOB.read_text().replace("tas-sample-required", "tas-six")
    text = text.replace("parallelism: 4", "parallelism: 6")
    path = tmp_path / "six.yaml"
    path.write_text(text.replace("completions: 4", "completions: 6"))
    return path


def test_a_job_requiring_a_rack_lands_in_one_rack_and_one_too_big_for_any_rack_waits(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for block in ("b1", "b2"):
        for rack in ("r1", "r2"):
            _run(state, "nodes", "add", "--count", "2", "--cpu", "2", "--prefix", f"{block}-{rack}",
                 "--label", "cloud.provider.com/node-group=tas-group",
                 "--label", f"cloud.provider.com/topology-block={block}",
                 "--label", f"{RACK}={block}-{rack}")
    created = _run(state, "apply", "-f", str(QUEUES))
    assert "resourceflavor.kueue.x-k8s.io/tas-flavor created" in created
    _run(state, "apply", "-f", str(JOB))
    _run(state, "advance", "2s")

    wide = _run(state, "get", "pods", "-o", "wide").splitlines()
    at = wide[0].index(" NODE ") + 1  # the column, by position: "NOMINATED NODE" has a space
    rows = [(line.split()[0], line.split()[2], line[at:].split()[0]) for line in wide[1:]]
    assert len(rows) == 4 and all(status == "Running" for _, status, _ in rows)
    nodes = {name.rsplit("-", 1)[0]: node for name, _, node in rows}  # tas-sample-required-<index>
    racks = {n.rsplit("-", 1)[0] for n in nodes.values()}
    assert len(racks) == 1, nodes  # one rack: the best fit among four equal racks is the first
    # rank order: indexes 0 and 1 on the rack's first host, 2 and 3 on its second
    by_index = [nodes[f"tas-sample-required-{i}"] for i in range(4)]
    assert by_index == ["b1-r1-0", "b1-r1-0", "b1-r1-1", "b1-r1-1"]

    pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    for pod in pods:
        assert not pod["spec"].get("schedulingGates")  # the TopologyUngater removed kueue.x-k8s.io/topology
        assert pod["spec"]["nodeSelector"]["kubernetes.io/hostname"] == pod["spec"]["nodeName"]
    wl = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"][0]
    psa = wl["status"]["admission"]["podSetAssignments"][0]
    assert psa["topologyAssignment"] == {
        "levels": ["kubernetes.io/hostname"],
        "slices": [{"domainCount": 2, "podCounts": {"universal": 2},
                    "valuesPerLevel": [{"individual": {"prefix": "b1-r1-", "roots": ["0", "1"]}}]}],
    }

    old = json.loads(_run(state, "get", "workloads.v1beta1.kueue.x-k8s.io", "-o", "json"))["items"][0]
    assert old["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] == {  # v1beta1: domains
        "levels": ["kubernetes.io/hostname"],
        "domains": [{"values": ["b1-r1-0"], "count": 2}, {"values": ["b1-r1-1"], "count": 2}],
    }

    _run(state, "apply", "-f", str(_six_pods(tmp_path)))
    _run(state, "advance", "2s")
    six = next(w for w in json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
               if w["metadata"]["name"].startswith("job-tas-six-"))
    reserved = next(c for c in six["status"]["conditions"] if c["type"] == "QuotaReserved")
    assert reserved["status"] == "False"
    assert reserved["message"] == (
        'couldn\'t assign flavors to pod set main: topology "default" allows to fit only 4 out of 6 pod(s). '
        'Total nodes: 8; excluded: resource "cpu": 2')
    assert "admission" not in six["status"]
    assert [p for p in json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
            if p["metadata"]["name"].startswith("tas-six")] == []
    assert json.loads(_run(state, "get", "jobs", "tas-six", "-o", "json"))["spec"]["suspend"] is True
