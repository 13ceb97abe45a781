"""TAS-aware preemption as a user runs it: ``kbatch`` commands in separate processes over one state
directory (examples/kueue/tas/preemption.yaml, job-rack-priority.yaml).

Rack r1 has two 2-cpu hosts, rack r2 one. A 2-pod ``filler`` job (the lowest priority) takes r2, a
4-pod ``low`` job that requires a rack fills r1. A 4-pod ``high`` job that requires a rack fits
only r1: the preemptor removes candidates lowest priority first (the filler, then ``low``) until
the topology is found, then puts back those not needed, so only ``low`` is preempted — the
filler keeps running — and ``high`` lands on r1 once ``low``'s pods are gone. (Upstream:
kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption.go`` ``workloadFits`` with
the TAS requests, ``fillBackWorkloads``; ``test/e2e/tas`` preemption cases.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES
from tests.cli.processes import kbatch_ok as _run

SETUP = EXAMPLES / "kueue" / "tas" / "preemption.yaml"
JOB = EXAMPLES / "kueue" / "tas" / "job-rack-priority.yaml"
RACK = "cloud.provider.com/topology-rack"


def _job(tmp_path: Path, name: str, priority: str, pods: int) -> Path:
    text = JOB.read_text().replace("tas-rack-low", name)
    text = text.replace("priority-class: low", f"priority-class: {priority}")
    text = text.replace("parallelism: 4", f"parallelism: {pods}")
    text = text.replace("completions: 4", f"completions: {pods}")
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def _pods(state: Path) -> dict[str, list[str]]:
    """Each job's running pods' nodes, sorted."""
    out: dict[str, list[str]] = {}
    for pod in json.loads(_run(state, "get", "pods", "-o", "json"))["items"]:
        if pod["status"].get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp"):
            job = pod["metadata"]["labels"]["job-name"]
            out.setdefault(job, []).append(pod["spec"]["nodeName"])
    return {job: sorted(nodes) for job, nodes in out.items()}


def _workload(state: Path, job: str) -> dict:  # type: ignore[type-arg]
    return next(w for w in json.loads(_run(state, "get", "workloads", "-o", "json"))["items"]
                if w["metadata"]["name"].startswith(f"job-{job}-"))


def test_a_high_priority_job_needing_the_full_rack_preempts_the_job_there_not_the_lowest(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    for rack, count in (("r1", "2"), ("r2", "1")):
        _run(state, "nodes", "add", "--count", count, "--cpu", "2", "--prefix", rack,
             "--label", "cloud.provider.com/node-group=tas-group", "--label", f"{RACK}={rack}")
    _run(state, "apply", "-f", str(SETUP))
    _run(state, "apply", "-f", str(_job(tmp_path, "filler", "filler", 2)))
    _run(state, "advance", "2s")
    _run(state, "apply", "-f", str(_job(tmp_path, "low", "low", 4)))
    _run(state, "advance", "2s")
    assert _pods(state) == {"filler": ["r2-0", "r2-0"], "low": ["r1-0", "r1-0", "r1-1", "r1-1"]}

    _run(state, "apply", "-f", str(_job(tmp_path, "high", "high", 4)))
    _run(state, "advance", "1s")
    low = _workload(state, "low")
    preempted = next(c for c in low["status"]["conditions"] if c["type"] == "Preempted")
    high_uid = _workload(state, "high")["metadata"]["uid"]
    assert preempted["reason"] == "InClusterQueue"
    assert preempted["message"].startswith(f"Preempted to accommodate a workload (UID: {high_uid}, JobUID: ")
    assert preempted["message"].endswith(
        "due to prioritization in the ClusterQueue; preemptor path: /tas-preempting; "
        "preemptee path: /tas-preempting")
    assert not any(c["type"] == "Preempted" for c in _workload(state, "filler")["status"]["conditions"])

    _run(state, "advance", "10s")  # low's job is suspended, its pods go, its quota is released
    assert _pods(state) == {"filler": ["r2-0", "r2-0"], "high": ["r1-0", "r1-0", "r1-1", "r1-1"]}
    assert json.loads(_run(state, "get", "jobs", "low", "-o", "json"))["spec"]["suspend"] is True
    events = _run(state, "get", "events")
    assert "PreemptedWorkload" in events
