"""Concurrent admission through the CLI, each command its own process over one state directory
(:mod:`tests.cli.processes`). With ``--feature-gates ConcurrentAdmission=true`` a Job queued to a
ClusterQueue with a ``concurrentAdmissionPolicy`` gets a parent Workload and one Variant per flavor;
the Variant on the preferred flavor that fits is admitted, the parent takes its admission and the
Job is unsuspended with that flavor's node selector (kubernetes-sigs/kueue v0.19.2
``pkg/controller/concurrentadmission/controller.go``, ``pkg/scheduler/flavorassigner/
flavorassigner.go``, KEP ``keps/8691-concurrent-admission``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.processes import kbatch_ok

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: reserved}
spec: {nodeLabels: {pool: reserved}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec: {nodeLabels: {pool: spot}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  concurrentAdmissionPolicy:
    migration: {mode: TryPreferredFlavors}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: reserved, resources: [{name: cpu, nominalQuota: "2"}]}
    - {name: spot, resources: [{name: cpu, nominalQuota: "8"}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, args: [sleep, "60"], resources: {requests: {cpu: "1"}}}
"""


def _json(state: Path, *args: str) -> dict:
    return json.loads(kbatch_ok(state, "get", *args, "-o", "json"))


def test_a_job_is_admitted_on_the_preferred_flavor_through_a_variant(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (tmp_path / "queues.yaml").write_text(QUEUES)
    (tmp_path / "job.yaml").write_text(JOB)
    kbatch_ok(
        state,
        "--feature-gates",
        "ConcurrentAdmission=true",
        "apply",
        "-f",
        str(tmp_path / "queues.yaml"),
        "-f",
        str(tmp_path / "job.yaml"),
    )
    kbatch_ok(state, "advance", "2s")

    workloads = _json(state, "workloads")["items"]
    parents = [
        w
        for w in workloads
        if w["metadata"].get("labels", {}).get("kueue.x-k8s.io/concurrent-admission-parent") == "true"
    ]
    assert [p["metadata"]["name"] for p in parents] == [
        next(
            n
            for n in (w["metadata"]["name"] for w in workloads)
            if n.startswith("job-train-") and "-variant-" not in n
        )
    ]
    parent = parents[0]
    variants = {
        w["metadata"]["annotations"]["kueue.x-k8s.io/workload-allowed-resource-flavors"]: w
        for w in workloads
        if w["metadata"].get("ownerReferences", [{}])[0].get("kind") == "Workload"
    }
    assert sorted(variants) == ["reserved", "spot"]
    preferred = variants["reserved"]
    conditions = {c["type"]: c for c in preferred["status"]["conditions"]}
    assert conditions["Admitted"]["status"] == "True"
    assert preferred["status"]["admission"]["podSetAssignments"][0]["flavors"] == {"cpu": "reserved"}
    assert parent["status"]["admission"] == preferred["status"]["admission"]
    admitted = next(c for c in parent["status"]["conditions"] if c["type"] == "Admitted")
    assert admitted["message"] == f"The variant {preferred['metadata']['name']} is admitted"
    assert variants["spot"]["spec"]["active"] is False

    job = _json(state, "job", "train")
    assert job["spec"]["suspend"] is False
    assert job["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "reserved"}
    described = kbatch_ok(state, "describe", "workload", parent["metadata"]["name"])
    assert "CreatedVariant" in described
    cq = _json(state, "clusterqueue", "cq")
    usage = {f["name"]: f["resources"][0]["total"] for f in cq["status"]["flavorsReservation"]}
    assert usage == {"reserved": "2", "spot": "0"}  # the Variant's reservation, not the parent's copy too
