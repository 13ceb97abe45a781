"""An elastic Job with topology-aware scheduling as a user runs it (``ElasticJobsViaWorkloadSlicesWithTAS``,
alpha, off): ``kbatch`` commands in separate processes over one state directory. Eight 2-cpu nodes
in two blocks of two racks of two hosts, upstream's TAS queues (examples/kueue/tas/queues.yaml) and
examples/kueue/tas/elastic-job.yaml (2 pods of 1 cpu, unconstrained topology). Scaled to 4, the new
slice keeps the two running pods on their host and puts the two new ones on the next host of the
same rack, where upstream's delta placement (``handleScaleUp``: the unconstrained search for the
new pods only, the kept pods counted as used) puts them. (Upstream: kubernetes-sigs/kueue v0.19.2
pkg/cache/scheduler/tas_elastic_workloads.go, KEP-77 "Topology Aware Scheduling Integration".)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "elastic-job.yaml"
BLOCK, RACK = "cloud.provider.com/topology-block", "cloud.provider.com/topology-rack"


def _pods(state: Path) -> dict[str, tuple[str | None, str, list[str]]]:
    items = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    return {p["metadata"]["name"]: (p["spec"].get("nodeName"), p["status"].get("phase", ""),
                                    [g["name"] for g in p["spec"].get("schedulingGates") or []])
            for p in items}


def test_a_scaled_up_elastic_tas_job_keeps_its_pods_and_lands_the_new_ones_in_the_same_rack(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    gates = "ElasticJobsViaWorkloadSlicesWithTAS=true"
    for i, (block, rack) in enumerate((b, r) for b in ("b1", "b2") for r in ("r1", "r2")):
        _run(state, *(("--feature-gates", gates) if i == 0 else ()), "nodes", "add", "--count", "2",
             "--cpu", "2", "--prefix", f"{block}-{rack}",
             "--label", "cloud.provider.com/node-group=tas-group",
             "--label", f"{BLOCK}={block}", "--label", f"{RACK}={block}-{rack}")
    _run(state, "apply", "-f", str(QUEUES), "-f", str(JOB))
    _run(state, "advance", "2s")
    before = _pods(state)
    assert sorted(node for node, _, _ in before.values()) == ["b1-r1-0", "b1-r1-0"]

    _run(state, "patch", "job", "tas-elastic", "-p", '{"spec": {"parallelism": 4}}')
    _run(state, "advance", "3s")
    after = _pods(state)
    assert len(after) == 4 and all(phase == "Running" and not g for _, phase, g in after.values())
    assert {name: after[name][0] for name in before} == {name: before[name][0] for name in before}
    new_nodes = sorted(after[name][0] or "" for name in after if name not in before)
    assert new_nodes == ["b1-r1-1", "b1-r1-1"]  # the same block and rack as the running pods

    workloads = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
    newest = next(w for w in workloads if "kueue.x-k8s.io/workload-slice-replacement-for"
                  in (w["metadata"].get("annotations") or {}))
    ta = newest["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]
    assert ta == {"levels": ["kubernetes.io/hostname"],
                  "slices": [{"domainCount": 2, "podCounts": {"universal": 2},
                              "valuesPerLevel": [{"individual": {"prefix": "b1-r1-", "roots": ["0", "1"]}}]}]}
