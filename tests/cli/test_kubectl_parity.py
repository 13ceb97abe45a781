"""Small kubectl habits through separate ``kbatch`` processes: what a user who knows kubectl types."""

from __future__ import annotations

from pathlib import Path

from .test_upstream_examples import processes

# a mapping key given twice: kubectl's YAMLToJSONDecoder (apimachinery pkg/util/yaml/decoder.go) reads
# with sigs.k8s.io/yaml's non-strict Unmarshal, go-yaml v2 keeps the last value and says nothing
DUPLICATED = """apiVersion: batch/v1
kind: Job
metadata:
  name: first
  name: dup
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sh, -c, echo one], command: [sh, -c, echo two]}]
"""


def test_apply_a_manifest_with_a_repeated_key_keeps_the_last_value(tmp_path: Path) -> None:
    cli = processes(tmp_path)
    cli.ok("nodes", "add")
    done = cli.runner.run("apply", "-f", cli.file("dup.yaml", DUPLICATED))
    assert (done.code, done.out, done.err) == (0, "job.batch/dup created\n", "")
    cli.ok("wait", "job/dup", "--for", "condition=Complete", "--timeout", "1m")
    assert cli.ok("logs", "job/dup") == "two\n"
