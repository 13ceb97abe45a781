"""A batch user's scripts through the CLI, each command a separate ``python -m kbatch`` process: an
Indexed Job whose script reads its ConfigMap and the service account volume, loops over a count,
branches on its completion index with ``case`` and exits by arithmetic runs to the logs and the
durations docs/simulation.md documents, and ``kbatch apply`` no longer warns about it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from tests.cli.runners import ROOT

MANIFESTS = """
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {rounds: "3", greeting: "hello from the config"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: rounds}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        volumeMounts: [{name: config, mountPath: /etc/config}]
        command:
        - sh
        - -c
        - |
          echo "$(cat /etc/config/greeting) in $(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)"
          [ -f /var/run/secrets/kubernetes.io/serviceaccount/token ] && echo token mounted
          n=$(cat /etc/config/rounds)
          i=0
          while [ $i -lt $n ]; do
            echo "index $JOB_COMPLETION_INDEX round $i"
            sleep 10
            i=$((i+1))
          done
          case $JOB_COMPLETION_INDEX in
            0) echo leader done;;
            *) echo worker done;;
          esac
          exit $((JOB_COMPLETION_INDEX % 2))
      volumes: [{name: config, configMap: {name: settings}}]
"""


def _kbatch(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES", "KBATCH_SCHEDULER_CONFIG"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    assert done.returncode == 0, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
    return done


def _seconds(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def test_an_indexed_job_loops_reads_its_config_map_and_exits_by_index(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(MANIFESTS)
    _kbatch(tmp_path, "nodes", "add", "--count", "1")
    applied = _kbatch(tmp_path, "apply", "-f", "job.yaml")
    assert "Warning" not in applied.stderr  # while, case, cat and $(( )) are all modelled
    _kbatch(tmp_path, "advance", "15s")
    pods = json.loads(_kbatch(tmp_path, "get", "pods", "-o", "json").stdout)["items"]
    index_key = "batch.kubernetes.io/job-completion-index"
    by_index = {p["metadata"]["annotations"][index_key]: p["metadata"]["name"] for p in pods}
    assert sorted(by_index) == ["0", "1"]
    # running: only the lines printed so far (rounds 0 and 1, at 0 s and 10 s)
    assert _kbatch(tmp_path, "logs", by_index["1"]).stdout == (
        "hello from the config in default\ntoken mounted\nindex 1 round 0\nindex 1 round 1\n")
    _kbatch(tmp_path, "advance", "30s")
    for index, last, code in (("0", "leader done", 0), ("1", "worker done", 1)):
        logs = _kbatch(tmp_path, "logs", by_index[index]).stdout.splitlines()
        assert logs == ["hello from the config in default", "token mounted",
                        *(f"index {index} round {r}" for r in range(3)), last]
        pod = json.loads(_kbatch(tmp_path, "get", "pod", by_index[index], "-o", "json").stdout)
        term = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        assert term["exitCode"] == code and _seconds(term["startedAt"], term["finishedAt"]) == 30
    job = json.loads(_kbatch(tmp_path, "get", "job", "rounds", "-o", "json").stdout)
    assert job["status"].get("succeeded") == 1 and job["status"].get("failed") == 1
