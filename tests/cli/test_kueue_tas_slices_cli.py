"""Podset slices as a user runs them: ``kbatch`` commands in separate processes over one state
directory. Eight nodes of 3 CPUs in two blocks of two racks of two hosts (a rack holds 6 one-CPU
pods); an Indexed Job of 8 pods requiring one block in slices of 4 pods per rack
(examples/kueue/tas/job-slices.yaml) lands 4 + 4 on the two racks of one block, where without
slices it would take 6 + 2; a slice size above the pod count is refused by the Job webhook with
Kueue's message. (Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_flavor_snapshot.go``,
``pkg/controller/jobframework/tas_validation.go``.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run
from tests.cli.processes import kbatch_process

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-slices.yaml"
RACK = "cloud.provider.com/topology-rack"


def test_slices_of_four_land_whole_on_two_racks_of_one_block(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for block in ("b1", "b2"):
        for rack in ("r1", "r2"):
            _run(state, "nodes", "add", "--count", "2", "--cpu", "3", "--prefix", f"{block}-{rack}",
                 "--label", "cloud.provider.com/node-group=tas-group",
                 "--label", f"cloud.provider.com/topology-block={block}",
                 "--label", f"{RACK}={block}-{rack}")
    _run(state, "apply", "-f", str(QUEUES))
    _run(state, "apply", "-f", str(JOB))
    _run(state, "advance", "2s")

    pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    assert len(pods) == 8 and all(p["status"]["phase"] == "Running" for p in pods)
    node_of = {int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]):
               p["spec"]["nodeName"] for p in pods}
    racks = [node_of[i].rsplit("-", 1)[0] for i in range(8)]
    assert racks == ["b1-r1"] * 4 + ["b1-r2"] * 4  # each slice of 4 whole in one rack, both in block b1
    assert [node_of[i] for i in range(8)] == ["b1-r1-0"] * 3 + ["b1-r1-1"] + ["b1-r2-0"] * 3 + ["b1-r2-1"]

    wl = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"][0]
    ps = wl["spec"]["podSets"][0]
    assert ps["topologyRequest"]["podSetSliceRequiredTopology"] == RACK
    assert ps["topologyRequest"]["podSetSliceSize"] == 4
    old = json.loads(_run(state, "get", "workloads.v1beta1.kueue.x-k8s.io", "-o", "json"))["items"][0]
    assert old["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"] == {
        "levels": ["kubernetes.io/hostname"],
        "domains": [{"values": ["b1-r1-0"], "count": 3}, {"values": ["b1-r1-1"], "count": 1},
                    {"values": ["b1-r2-0"], "count": 3}, {"values": ["b1-r2-1"], "count": 1}],
    }


def test_a_slice_larger_than_the_job_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _run(state, "apply", "-f", str(QUEUES))
    big = tmp_path / "big.yaml"
    big.write_text(JOB.read_text().replace('podset-slice-size: "4"', 'podset-slice-size: "9"'))
    out = kbatch_process(state, "apply", "-f", str(big))
    assert out.returncode != 0
    assert ('spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: Invalid value: "9": '
            "must not be greater than pod set count 8") in out.stderr
    assert "Traceback" not in out.stderr
    assert json.loads(_run(state, "get", "jobs", "-o", "json"))["items"] == []
