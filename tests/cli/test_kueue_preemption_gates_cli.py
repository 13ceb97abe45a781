"""Workload preemption gates through the CLI, each command its own process over one state directory
(:mod:`tests.cli.processes`): with ``MultiKueueOrchestratedPreemption`` a high-priority Workload
whose gate is closed leaves the low-priority holder alone and says ``BlockedOnPreemptionGates``;
opening the gate with a status patch lets it preempt (kubernetes-sigs/kueue v0.19.2
``pkg/scheduler/scheduler.go`` ``processEntry``, ``pkg/cache/queue/cluster_queue.go``
``PushOrUpdate``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.processes import kbatch_ok

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "2"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""


def _workload(name: str, priority: int, gate: str | None) -> str:
    gates = f"\n  preemptionGates: [{{name: {gate}}}]" if gate else ""
    return f"""\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: default}}
spec:
  queueName: lq
  priority: {priority}{gates}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "2"}}}}}}]
"""


def _conditions(state: Path, name: str) -> dict[str, tuple[str, str]]:
    wl = json.loads(kbatch_ok(state, "get", "workload", name, "-o", "json"))
    return {c["type"]: (c["status"], c["reason"]) for c in wl["status"].get("conditions", [])}


def test_a_closed_gate_blocks_preemption_until_opened(tmp_path: Path) -> None:
    state = tmp_path / "state"
    files = {"queues": QUEUES, "low": _workload("low", 0, None),
             "high": _workload("high", 10, "ops/approval")}
    for name, text in files.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    kbatch_ok(state, "--feature-gates", "MultiKueueOrchestratedPreemption=true",
              "apply", "-f", str(tmp_path / "queues.yaml"), "-f", str(tmp_path / "low.yaml"))
    kbatch_ok(state, "advance", "1s")
    kbatch_ok(state, "apply", "-f", str(tmp_path / "high.yaml"))
    kbatch_ok(state, "advance", "3s")
    assert _conditions(state, "high")["BlockedOnPreemptionGates"] == ("True", "PreemptionGated")
    assert _conditions(state, "low")["QuotaReserved"] == ("True", "QuotaReserved")
    described = kbatch_ok(state, "describe", "workload", "high")
    assert "Workload requires preemption, but it's gated" in described
    gates = json.loads(kbatch_ok(state, "get", "workload", "high", "-o", "json"))["status"]["preemptionGates"]
    assert [(g["name"], g["position"]) for g in gates] == [("ops/approval", "Closed")]
    opened = {"status": {"preemptionGates": [
        {"name": "ops/approval", "position": "Open", "lastTransitionTime": gates[0]["lastTransitionTime"]}]}}
    kbatch_ok(state, "patch", "workload", "high", "--subresource", "status", "--type", "merge",
              "-p", json.dumps(opened))
    kbatch_ok(state, "advance", "2s")
    assert _conditions(state, "low")["Preempted"] == ("True", "InClusterQueue")
    assert _conditions(state, "low")["Evicted"][0] == "True"
