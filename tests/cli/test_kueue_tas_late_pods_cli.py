"""A late pod as a user meets it: ``kbatch`` commands in separate processes over one state
directory. A rack-required Indexed Job (examples/kueue/tas/job-required.yaml) runs on two hosts of
rack r1. With kube-scheduler stopped (``--controllers '*,-scheduler'``, so that an ungated pod waits
unbound), index 0 fails and its replacement is ungated onto its host ``b1-r1-0`` by node selector;
then that node is deleted: the TAS node controller records it as unhealthy and the scheduler's
second pass moves the assignment to ``b1-r1-1`` and ``b1-r1-2``. The replacement pod still names
``b1-r1-0``: a late pod. When a node of that name registers again, Kueue's TAS node controller
fails the pod (``TerminatedByKueue``, reason ``UnschedulableOnAssignedNode``, event
``PodTerminatedByKueue``) instead of letting kube-scheduler bind it outside the Workload's
assignment; the Job replaces it, and every pod then runs inside the assignment.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/tas/node_controller.go`` (late pods,
``podTerminatedByKueueConditionReason``), KEP 2724 "Node failure"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

QUEUES = EXAMPLES / "kueue" / "tas" / "queues.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-required.yaml"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"
NO_SCHEDULER = ("--controllers", "*,-scheduler")


def _add_nodes(state: Path, rack: str, count: int, *extra: str) -> None:
    _run(state, *extra, "nodes", "add", "--count", str(count), "--cpu", "2", "--prefix", f"b1-{rack}",
         "--label", "cloud.provider.com/node-group=tas-group",
         "--label", "cloud.provider.com/topology-block=b1", "--label", f"{RACK}=b1-{rack}")


def _pods(state: Path, *extra: str) -> list[dict[str, Any]]:
    return list(json.loads(_run(state, *extra, "get", "pods", "-o", "json"))["items"])


def _index(pod: dict[str, Any]) -> str:
    return str(pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"])


def _hosts(state: Path) -> list[str]:
    wl = json.loads(_run(state, *NO_SCHEDULER, "get", "workloads", "-o", "json"))["items"][0]
    ta = wl["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]
    values = ta["slices"][0]["valuesPerLevel"][0]["individual"]
    return [values["prefix"] + root for root in values["roots"]]


def test_a_pod_sent_to_a_node_its_workload_no_longer_names_is_failed_by_kueue(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for rack in ("r1", "r2"):
        _add_nodes(state, rack, 3)
    _run(state, "apply", "-f", str(QUEUES))
    _run(state, "apply", "-f", str(JOB))
    _run(state, "advance", "2s")
    first = next(p for p in _pods(state) if _index(p) == "0")
    assert first["spec"]["nodeName"] == "b1-r1-0"

    _run(state, *NO_SCHEDULER, "fail", "pod", first["metadata"]["name"])
    _run(state, *NO_SCHEDULER, "advance", "15s")  # the Job's back-off, then its replacement pod
    late = next(p for p in _pods(state, *NO_SCHEDULER)
                if _index(p) == "0" and p["status"]["phase"] == "Pending")
    assert late["spec"]["nodeSelector"][HOST] == "b1-r1-0" and not late["spec"].get("nodeName")

    _run(state, *NO_SCHEDULER, "delete", "node", "b1-r1-0")
    _run(state, *NO_SCHEDULER, "advance", "1m")
    assert _hosts(state) == ["b1-r1-1", "b1-r1-2"]  # replaced; the late pod still names b1-r1-0

    _add_nodes(state, "r1", 1, *NO_SCHEDULER)  # b1-r1-0 registers again
    name = late["metadata"]["name"]
    pod = json.loads(_run(state, *NO_SCHEDULER, "get", "pod", name, "-o", "json"))
    assert pod["status"]["phase"] == "Failed" and not pod["spec"].get("nodeName")
    cond = next(c for c in pod["status"]["conditions"] if c["type"] == "TerminatedByKueue")
    assert (cond["status"], cond["reason"], cond["message"]) == (
        "True", "UnschedulableOnAssignedNode", "Pod terminated by Kueue NodeController due to node taint")
    events = _run(state, *NO_SCHEDULER, "get", "events", "--field-selector", f"involvedObject.name={name}")
    assert "PodTerminatedByKueue" in events

    _run(state, "--controllers", "*", "advance", "1m")  # kube-scheduler back
    running = sorted((_index(p), p["spec"]["nodeName"]) for p in _pods(state)
                     if p["status"]["phase"] == "Running")
    assert running == [("0", "b1-r1-2"), ("1", "b1-r1-2"), ("2", "b1-r1-1"), ("3", "b1-r1-1")]
