"""JobSets at the command line, one ``kbatch --state DIR`` command at a time (the control plane is
saved between them): apply, get with the CRD's columns, -o wide/yaml/json, describe, events, wait,
a refusal in one line, delete; and the same in separate processes, continuing exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from kbatch.runtime.image import read_header

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
    assert jobs == ["training-driver-0"]  # the workers depend on the driver being Ready
    kb.ok("advance", "2s")
    jobs = [r[0] for r in _rows(kb.ok("get", "jobs", "--no-headers"))]
    assert jobs == ["training-driver-0", "training-workers-0", "training-workers-1"]
    described = kb.ok("describe", "jobset", "training")
    assert "Replicated Jobs:" in described  # kubectl's generic page: the fields as a tree
    assert "    Depends On:\n      Name:      driver\n      Status:    Ready\n" in described
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
    assert res.err.startswith('The JobSet "x" is invalid: <nil>: Internal error: ')  # as kubectl prints it
    assert "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed" in res.err
    assert "No resources found" in kb("get", "jobsets").err  # nothing stored


def _command(state: Path, *args: str) -> str:
    """One ``python -m kbatch.cli --state DIR ...`` process: nothing carries over but the state dir."""
    out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), *args],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"kbatch {' '.join(args)}: {out.stderr}"
    return out.stdout


def _pods(state: Path) -> dict[str, str]:
    return {row[0].rsplit("-", 1)[0]: row[2] for row in _rows(_command(state, "get", "pods", "--no-headers"))}


def test_a_busy_jobset_controller_continues_exactly_across_processes(tmp_path: Path) -> None:
    """The control plane is saved with pods running and the JobSet controller mid-way (the workers
    created once the driver was ready); the next processes finish the pods and complete the JobSet,
    and the run is the very run one ``advance`` makes (the same trace digest and store revision)."""
    split, whole = tmp_path / "split", tmp_path / "whole"
    for state in (split, whole):
        _command(state, "nodes", "add", "--count", "3")
        _command(state, "apply", "-f", JOBSET)
    _command(split, "advance", "5s")
    assert set(_pods(split).values()) == {"Running"} and len(_pods(split)) == 5  # driver and 2 x 2 workers
    assert _rows(_command(split, "get", "jobset", "training", "--no-headers"))[0][:2] == ["training", "0"]
    _command(split, "advance", "10s")  # the workers (sleep 10) have finished, the driver (sleep 20) runs
    pods = _pods(split)
    assert pods.pop("training-driver-0-0") == "Running" and set(pods.values()) == {"Completed"}
    _command(split, "advance", "30s")
    assert _rows(_command(split, "get", "jobset", "training", "--no-headers"))[0][:4] == \
        ["training", "Completed", "0", "True"]
    _command(whole, "advance", "45s")
    first, second = read_header(split / "state.kbatch"), read_header(whole / "state.kbatch")
    assert (first.now, first.revision, first.digest) == (second.now, second.revision, second.digest)
