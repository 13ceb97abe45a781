"""``kbatch apply``/``create``/``patch`` print a write's ``Warning:`` texts on stderr, as kubectl does
(k8s.io/client-go ``rest.WarningHandler``): here a Job name that is no DNS label
(pkg/registry/batch/job/strategy.go ``WarningsOnCreate``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Kbatch

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: my.job}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""
WARNING = ("Warning: metadata.name: this is used in Pod names and hostnames, which can result in surprising "
           "behavior; a DNS label is recommended: [must not contain dots]\n")


def test_apply_prints_the_warning(kb: Kbatch, tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    res = kb("apply", "-f", str(manifest))
    assert (res.code, res.out, res.err) == (0, "job.batch/my.job created\n", WARNING)
    again = kb("apply", "-f", str(manifest))
    assert (again.out, again.err) == ("job.batch/my.job unchanged\n", "")


def test_server_side_apply_and_create_print_it_too(kb: Kbatch, tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    assert kb("create", "-f", str(manifest)).err == WARNING
    kb.ok("delete", "job", "my.job")
    kb.ok("advance", "1s")
    assert kb("apply", "--server-side", "-f", str(manifest)).err == WARNING
