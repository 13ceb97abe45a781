"""``$HOSTNAME`` in an Indexed Job's pods, every command a separate ``kbatch`` process: each pod
reads its own ``<job>-<index>`` (the Job controller's ``spec.hostname``, the runtime's ``HOSTNAME``;
tests/controllers/kubelet/test_kubelet_hostname.py has the rules)."""

from __future__ import annotations

from pathlib import Path

from .processes import kbatch_ok

INDEXED = """
apiVersion: batch/v1
kind: Job
metadata: {name: rank}
spec:
  completionMode: Indexed
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: bash:5, command: [bash, -c, 'echo "rank-host=$HOSTNAME"']}
"""


def test_an_indexed_jobs_pods_are_named_by_index_in_separate_commands(tmp_path: Path) -> None:
    state = tmp_path / "state"
    kbatch_ok(state, "nodes", "add", "--count", "1")
    (tmp_path / "job.yaml").write_text(INDEXED)
    kbatch_ok(state, "apply", "-f", str(tmp_path / "job.yaml"))
    kbatch_ok(state, "advance", "30s")
    pods = kbatch_ok(state, "get", "pods", "-o", "name").split()
    logs = sorted(kbatch_ok(state, "logs", pod).strip() for pod in pods)
    assert logs == ["rank-host=rank-0", "rank-host=rank-1"]
