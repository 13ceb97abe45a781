"""A Job whose ``sh -c`` script defines a function, writes a file from a ``{ }`` group and reads it
back in a ``( )`` subshell, through the ``kbatch`` CLI, each command its own process: ``kbatch logs``
shows what bash and dash print for such a script (tests/sim/test_shell_groups.py and
test_shell_functions.py compare each construct with them)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok

SCRIPT = """\
log() { echo "[$1] $2"; }
{ echo "rank ${HOSTNAME##*-}"; log info ready; } > /tmp/report
(cd /tmp && while read -r line; do log read "$line"; done < report)
set -- a b c
log args "$# $*"
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: report}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: [sh, -c]
        args:
        - |
""" + "".join(f"          {line}\n" for line in SCRIPT.splitlines())


def test_a_job_s_function_group_and_subshell_through_the_cli(tmp_path: Path) -> None:
    state = tmp_path / "state"
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    kbatch_ok(state, "nodes", "add")
    kbatch_ok(state, "apply", "-f", str(manifest))
    kbatch_ok(state, "advance", "10s")
    pod = kbatch_ok(state, "get", "pods", "-l", "job-name=report", "-o", "jsonpath={.items[0].metadata.name}")
    rank = pod.rsplit("-", 1)[1]
    assert kbatch_ok(state, "logs", pod) == (f"[read] rank {rank}\n[read] [info] ready\n[args] 3 a b c\n")
    assert kbatch_ok(state, "get", "job", "report", "-o", "jsonpath={.status.succeeded}") == "1"
