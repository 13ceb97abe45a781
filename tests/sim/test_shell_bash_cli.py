"""A Job whose init container's ``bash -c`` counts with an associative array and ``(( ))`` and writes a
report into an ``emptyDir`` that the main container's command reads, through the ``kbatch`` CLI,
each command its own process: ``kbatch logs`` shows what bash prints (tests/sim/test_shell_declare.py,
test_shell_arith_command.py and test_shell_trace.py compare each construct with bash)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok

COUNT = """\
declare -A seen
for word in b a b c b a; do (( seen[$word]++ )); done
total=0
for key in "${!seen[@]}"; do (( total += seen[$key] )); echo "$key=${seen[$key]}"; done > /shared/report
(( total == 6 )) && echo "total $total" >> /shared/report
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: count}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      volumes: [{name: shared, emptyDir: {}}]
      initContainers:
      - name: count
        image: bash
        volumeMounts: [{name: shared, mountPath: /shared}]
        command: [bash, -xc]
        args:
        - |
""" + "".join(f"          {line}\n" for line in COUNT.splitlines()) + """\
      containers:
      - name: main
        image: busybox
        volumeMounts: [{name: shared, mountPath: /shared}]
        command: [sh, -c, "sort /shared/report; wc -l < /shared/report"]
"""


def test_a_job_counts_with_an_associative_array_and_reads_it_back(tmp_path: Path) -> None:
    state = tmp_path / "state"
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    kbatch_ok(state, "nodes", "add")
    kbatch_ok(state, "apply", "-f", str(manifest))
    kbatch_ok(state, "advance", "10s")
    pod = kbatch_ok(state, "get", "pods", "-l", "job-name=count", "-o", "jsonpath={.items[0].metadata.name}")
    assert kbatch_ok(state, "logs", pod, "-c", "main") == "a=2\nb=3\nc=1\ntotal 6\n4\n"
    trace = kbatch_ok(state, "logs", pod, "-c", "count").splitlines()
    assert trace[:2] == ["+ declare -A seen", "+ for word in b a b c b a"]
    assert "+ ((  total == 6  ))" in trace
    assert kbatch_ok(state, "get", "job", "count", "-o", "jsonpath={.status.succeeded}") == "1"
