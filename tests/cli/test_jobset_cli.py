"""JobSets at the command line, one ``kbatch --state DIR`` command at a time (the control plane is
saved between them): apply, get with the CRD's columns, -o wide/yaml/json, describe, events, wait,
a refusal in one line, delete."""

from __future__ import annotations

import json
from typing import Any

from .conftest import EXAMPLES

JOBSET = str(EXAMPLES / "jobset.yaml")


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip()]


def test_a_jobset_runs_across_separate_commands(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "3")
    assert kb.ok("apply", "-f", JOBSET).strip() == "jobset.jobset.x-k8s.io/training created"
    assert kb.ok("apply", "-f", JOBSET).strip() == "jobset.jobset.x-k8s.io/training unchanged"
    header, row = _rows(kb.ok("get", "jobsets"))
    assert header == ["NAME", "TERMINALSTATE", "RESTARTS", "COMPLETED", "SUSPENDED", "AGE"]
    assert row == ["training", "0", "0s"]  # blank cells, as kubectl prints the CRD's absent values
    assert _rows(kb.ok("get", "jobsets", "-o", "wide"))[0] == header
    jobs = [r[0] for r in _rows(kb.ok("get", "jobs", "--no-headers"))]
    assert jobs == ["training-driver-0", "training-workers-0", "training-workers-1"]
    described = kb.ok("describe", "jobset", "training")
    assert "Replicated Jobs:" in described
    assert "workers: 2 x Job (group default), after driver Ready" in described
    assert kb.ok("wait", "jobset/training", "--for", "condition=Completed", "--timeout", "5m").strip() == \
        "jobset.jobset.x-k8s.io/training condition met"
    row = _rows(kb.ok("get", "jobset", "training", "--no-headers"))[0]
    assert row[:4] == ["training", "Completed", "0", "True"]
    as_json = json.loads(kb.ok("get", "jobset", "training", "-o", "json"))
    assert as_json["status"]["terminalState"] == "Completed" and as_json["kind"] == "JobSet"
    assert "terminalState: Completed" in kb.ok("get", "jobsets", "-o", "yaml")
    assert "AllJobsCompleted" in kb.ok("describe", "jobset", "training")  # its events
    assert "jobset/training" in kb.ok("events")
    kb.ok("delete", "jobset", "training")
    kb.ok("advance", "1m")
    assert "No resources found" in kb("get", "jobs").err


def test_a_refused_jobset_is_one_line(kb: Any) -> None:
    manifest = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "x"},
                "spec": {"failurePolicy": {"rules": [{"name": "r", "action": "RestartJob"}]},
                         "replicatedJobs": [{"name": "rj", "template": {"spec": {"template": {"spec": {
                             "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}
    res = kb("apply", "-f", "-", input_=json.dumps(manifest))
    assert res.code == 1 and len(res.err.strip().splitlines()) == 1
    assert 'admission webhook "vjobset.kb.io" denied the request' in res.err
    assert "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed" in res.err
    assert "No resources found" in kb("get", "jobsets").err  # nothing stored
