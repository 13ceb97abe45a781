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


def test_get_without_a_type_prints_kubectls_lines(tmp_path: Path) -> None:
    """``kubectl get`` alone (k8s.io/kubectl ``pkg/cmd/get/get.go`` ``Complete``): kubectl's lines, the
    hints naming the running program as cobra's ``CommandPath`` does; with ``-w`` the resource
    builder's error instead (kubectl 1.32 on this machine prints both so)."""
    cli = processes(tmp_path)
    done = cli.runner.run("get")
    assert (done.code, done.out) == (1, "")
    assert done.err == (
        'You must specify the type of resource to get. Use "kbatch api-resources" for a complete list of '
        "supported resources.\n\n"
        "error: Required resource not specified.\n"
        'Use "kbatch explain <resource>" for a detailed description of that resource (e.g. kbatch explain '
        "pods).\n"
        "See 'kbatch get -h' for help and examples\n")
    watched = cli.runner.run("get", "-w")
    assert (watched.code, watched.out) == (1, "")
    assert watched.err.startswith("error: You must provide one or more resources by argument or filename.\n"
                                  "Example resource specifications include:\n")
