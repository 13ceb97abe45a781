"""Kueue through the CLI as separate commands over one state directory: each command loads the saved
control plane (Kueue's queues, cache and timers included) and saves it after. A queued Job is
admitted, its pods run across two ``advance`` commands and finish, the quota comes back; a second
Job waits for it; ``get``/``describe`` show upstream's columns and why a workload waits; a v1beta1
manifest is served by conversion; a bad ClusterQueue is a one-line error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import EXAMPLES, Kbatch
from tests.cli.processes import kbatch_ok as _run

QUEUES = str(EXAMPLES / "kueue" / "queues.yaml")
JOB = str(EXAMPLES / "kueue" / "job.yaml")


def _get(kb: Kbatch, kind: str, name: str) -> dict:
    return json.loads(kb.ok("get", kind, name, "-o", "json"))


def _cond(obj: dict, kind: str) -> str | None:
    return next((c["status"] for c in obj.get("status", {}).get("conditions", []) if c["type"] == kind), None)


def _second_job(tmp_path: Path) -> str:
    text = (EXAMPLES / "kueue" / "job.yaml").read_text().replace("name: sample-job", "name: second-job")
    path = tmp_path / "second.yaml"
    path.write_text(text)
    return str(path)


def test_a_queued_job_runs_across_commands_and_frees_its_quota(kb: Kbatch, tmp_path: Path) -> None:
    kb.ok("nodes", "add", "--count", "2")
    kb.ok("apply", "-f", QUEUES)
    kb.ok("apply", "-f", JOB, "-f", _second_job(tmp_path))
    workloads = kb.ok("get", "workloads").splitlines()
    assert workloads[0].split() == ["NAME", "QUEUE", "RESERVED", "IN", "ADMITTED", "FINISHED", "AGE"]
    rows = {line.split()[0]: line.split() for line in workloads[1:]}
    first = next(n for n in rows if n.startswith("job-sample-job-"))
    second = next(n for n in rows if n.startswith("job-second-job-"))
    assert rows[first][1:4] == ["user-queue", "cluster-queue", "True"]
    assert rows[second][1] == "user-queue" and len(rows[second]) == 3  # not reserved: nothing else set
    described = kb.ok("describe", "workload", second)
    assert "insufficient unused quota for cpu in flavor default-flavor, 2 more needed" in described

    kb.ok("advance", "10s")  # the pods run (sleep 30) ...
    pods = kb.ok("get", "pods").splitlines()[1:]
    assert len(pods) == 3 and all("Running" in p for p in pods)
    assert _get(kb, "jobs", "second-job")["spec"]["suspend"] is True

    kb.ok("advance", "25s")  # ... and finish in the next command; the second Job is admitted
    assert _get(kb, "jobs", "sample-job")["status"]["succeeded"] == 3
    assert _cond(_get(kb, "workload", first), "Finished") == "True"
    assert _get(kb, "jobs", "second-job")["spec"]["suspend"] is False
    cq = kb.ok("get", "clusterqueues", "-o", "wide").splitlines()
    assert cq[0].split() == ["NAME", "COHORT", "STRATEGY", "PENDING", "WORKLOADS", "ADMITTED", "WORKLOADS"]
    assert cq[1].split() == ["cluster-queue", "BestEffortFIFO", "0", "1"]
    kb.ok("advance", "40s")
    assert _get(kb, "jobs", "second-job")["status"]["succeeded"] == 3
    lq = kb.ok("get", "localqueues").splitlines()
    assert lq[1].split() == ["user-queue", "cluster-queue", "0", "0"]


def test_queue_status_follows_a_batch_period_later_in_the_next_command(kb: Kbatch) -> None:
    """Kueue writes a queue's status a batch period (1 s) after its workloads change, as upstream's
    ``AddAfter(UpdatesBatchPeriod)``: the apply's command ends before it; the waiting reconcile is
    saved with the control plane and runs in the next command's ``advance``."""
    kb.ok("nodes", "add", "--count", "2")
    kb.ok("apply", "-f", QUEUES)
    kb.ok("advance", "1s")
    kb.ok("apply", "-f", JOB)
    assert _cond(_get(kb, "workload", _only_workload(kb)), "Admitted") == "True"
    lq = kb.ok("get", "localqueues").splitlines()
    assert lq[1].split() == ["user-queue", "cluster-queue", "0", "0"]  # not written yet
    kb.ok("advance", "1s")
    lq = kb.ok("get", "localqueues").splitlines()
    assert lq[1].split() == ["user-queue", "cluster-queue", "0", "1"]


def _only_workload(kb: Kbatch) -> str:
    [row] = kb.ok("get", "workloads").splitlines()[1:]
    return row.split()[0]


def test_v1beta1_manifests_and_bad_queues(kb: Kbatch, tmp_path: Path) -> None:
    v1 = tmp_path / "v1.yaml"
    v1.write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: old}\n"
                  "spec:\n  cohort: team\n  namespaceSelector: {}\n  resourceGroups:\n"
                  "  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n"
                  "      - {name: cpu, nominalQuota: 2}\n")
    res = kb("apply", "-f", str(v1))
    assert res.code == 0 and res.out.strip() == "clusterqueue.kueue.x-k8s.io/old created"
    # kubectl prints the served version's Warning header (the CRD's deprecationWarning) on stderr
    assert res.err.strip() == "Warning: This version is deprecated. Use v1beta2 instead."
    old = _get(kb, "clusterqueue", "old")
    assert (old["apiVersion"], old["spec"]["cohortName"]) == ("kueue.x-k8s.io/v1beta2", "team")
    served = _get(kb, "clusterqueues.v1beta1.kueue.x-k8s.io", "old")  # read back in v1beta1, converted
    assert (served["apiVersion"], served["spec"]["cohort"]) == ("kueue.x-k8s.io/v1beta1", "team")
    assert kb.ok("apply", "-f", str(v1)).strip() == "clusterqueue.kueue.x-k8s.io/old unchanged"
    bad = tmp_path / "bad.yaml"
    bad.write_text(v1.read_text().replace("name: old", "name: bad").replace("name: cpu", "name: memory"))
    res = kb("apply", "-f", str(bad))
    assert res.code != 0 and "Traceback" not in res.err
    warning, error = res.err.strip().splitlines()  # the warning, then a one-line error (as kubectl)
    assert warning.startswith("Warning: ") and "must match the name in coveredResources" in error


def test_separate_processes_continue_kueue(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _run(state, "nodes", "add")
    _run(state, "apply", "-f", QUEUES, "-f", JOB)
    _run(state, "advance", "10s")
    assert "Running" in _run(state, "get", "pods")
    _run(state, "advance", "25s")
    assert json.loads(_run(state, "get", "jobs", "sample-job", "-o", "json"))["status"]["succeeded"] == 3
    assert "kueue configuration: the shipped default" in _run(state, "controllers")


def test_kueue_config_is_recorded_by_the_state_and_acts(kb: Kbatch, tmp_path: Path) -> None:
    config = tmp_path / "kueue.yaml"
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                      "manageJobsWithoutQueueName: true\n")
    assert "manageJobsWithoutQueueName: true" in kb.ok("--kueue-config", str(config), "controllers")
    kb.ok("--kueue-config", str(config), "nodes", "add")
    kb.ok("apply", "-f", QUEUES)  # a later command without the flag continues with the recorded one
    shown = kb.ok("controllers")
    assert "as recorded in" in shown and "manageJobsWithoutQueueName: true" in shown
    unlabelled = (EXAMPLES / "kueue" / "job.yaml").read_text().replace(
        "  labels:\n    kueue.x-k8s.io/queue-name: user-queue\n", "")
    job = tmp_path / "unlabelled.yaml"
    job.write_text(unlabelled)
    kb.ok("apply", "-f", str(job))
    assert _get(kb, "jobs", "sample-job")["spec"]["suspend"] is True  # managed, though it names no queue

    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                   "waitForPodsReady: {timeout: -5s}\n")
    res = kb("--kueue-config", str(bad), "get", "pods")
    assert res.code != 0 and "Traceback" not in res.err and res.err.startswith("error: --kueue-config")


def test_a_queued_pod_and_a_pod_group_across_separate_processes(tmp_path: Path) -> None:
    """The pod integration through ``python -m kbatch --state DIR`` commands, each its own process:
    the pod is gated until admitted, then runs; the group gets one Workload named after it."""
    state = tmp_path / "state"
    _run(state, "nodes", "add")
    _run(state, "apply", "-f", QUEUES, "-f", str(EXAMPLES / "kueue" / "pod.yaml"))
    pod = json.loads(_run(state, "get", "pod", "kueue-sleep", "-o", "json"))
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/managed"] == "true"
    rows = [line.split() for line in _run(state, "get", "workloads").splitlines()[1:]]
    assert rows[0][0].startswith("pod-kueue-sleep-")
    assert rows[0][1:4] == ["user-queue", "cluster-queue", "True"]
    _run(state, "advance", "10s")
    pod = json.loads(_run(state, "get", "pod", "kueue-sleep", "-o", "json"))
    assert pod["status"]["phase"] == "Succeeded" and not pod["metadata"].get("finalizers")

    _run(state, "apply", "-f", str(EXAMPLES / "kueue" / "pod-group.yaml"))
    group = json.loads(_run(state, "get", "workload", "sample-group", "-o", "json"))
    assert _cond(group, "Admitted") == "True"
    _run(state, "advance", "10s")
    group = json.loads(_run(state, "get", "workload", "sample-group", "-o", "json"))
    assert _cond(group, "Finished") == "True"


def test_every_verb_on_a_deprecated_version_prints_its_warning_once(kb: Kbatch) -> None:
    """kube-apiextensions-apiserver answers every request to a deprecated CRD version with its
    deprecationWarning (customresource_handler.go), and kubectl prints it once per command: a get,
    describe, patch, wait or delete of ``clusterqueues.v1beta1.kueue.x-k8s.io`` says so, as apply
    does; the v1beta2 (storage) version stays quiet."""
    kb.ok("apply", "-f", str(EXAMPLES / "kueue" / "queues.yaml"))
    v1 = "clusterqueues.v1beta1.kueue.x-k8s.io"
    warning = "Warning: This version is deprecated. Use v1beta2 instead.\n"
    for args in (("get", v1), ("get", f"{v1},localqueues.v1beta1.kueue.x-k8s.io"),
                 ("get", v1, "cluster-queue", "-o", "yaml"), ("describe", v1, "cluster-queue"),
                 ("patch", v1, "cluster-queue", "--type", "merge", "-p", '{"metadata":{"labels":{"a":"b"}}}'),
                 ("wait", f"{v1}/cluster-queue", "--for", "condition=Active", "--timeout", "1s")):
        res = kb(*args)
        assert res.code == 0 and res.err == warning, (args, res.err)
    res = kb("get", "clusterqueues")
    assert res.code == 0 and res.err == ""
    res = kb("delete", v1, "cluster-queue")
    assert res.err == warning
