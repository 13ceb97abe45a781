"""Preferred node affinity steering topology-aware scheduling as a user runs it
(``TASRespectNodeAffinityPreferred``, alpha, off): ``kbatch`` commands in separate processes over one
state directory. Eight 2-cpu nodes in two blocks of two racks of two hosts, the hosts of rack b2-r2
labelled ``tier=gold``; upstream's TAS queues (examples/kueue/tas/queues.yaml) and its 4-pod Job
requiring one rack, with a preferred node affinity for ``tier=gold``. Without the gate BestFit takes
the first of four equal racks (b1-r1, tests/cli/test_kueue_tas_cli.py); with it the preferred rack
outranks the policy and the pods land on b2-r2. (Upstream: kubernetes-sigs/kueue v0.19.2
pkg/cache/scheduler/tas_flavor_snapshot.go ``sortedDomains``, KEP 2724 "Support for Preferred Node
Affinity".)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-required.yaml"
BLOCK, RACK = "cloud.provider.com/topology-block", "cloud.provider.com/topology-rack"
AFFINITY = """      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 10
            preference:
              matchExpressions:
              - {key: tier, operator: In, values: [gold]}
      containers:
"""


def test_a_preferred_node_affinity_picks_the_rack_of_its_nodes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    job = tmp_path / "job.yaml"
    job.write_text(JOB.read_text().replace("      containers:\n", AFFINITY, 1))
    gates = "TASRespectNodeAffinityPreferred=true"
    for i, (block, rack) in enumerate((b, r) for b in ("b1", "b2") for r in ("r1", "r2")):
        tier = ("--label", "tier=gold") if (block, rack) == ("b2", "r2") else ()
        _run(state, *(("--feature-gates", gates) if i == 0 else ()), "nodes", "add", "--count", "2",
             "--cpu", "2", "--prefix", f"{block}-{rack}",
             "--label", "cloud.provider.com/node-group=tas-group",
             "--label", f"{BLOCK}={block}", "--label", f"{RACK}={block}-{rack}", *tier)
    _run(state, "apply", "-f", str(QUEUES), "-f", str(job))
    _run(state, "advance", "2s")

    pods = json.loads(_run(state, "get", "pods", "-o", "json"))["items"]
    assert len(pods) == 4 and all(p["status"].get("phase") == "Running" for p in pods)
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["b2-r2-0", "b2-r2-0", "b2-r2-1", "b2-r2-1"]
    wl = json.loads(_run(state, "get", "workloads", "-o", "json"))["items"][0]
    ta = wl["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]
    assert ta["slices"][0]["valuesPerLevel"] == [{"individual": {"prefix": "b2-r2-", "roots": ["0", "1"]}}]
