"""``kbatch apply`` prints the pod warnings of a write on stderr, as kubectl does: a Pod's
(pkg/registry/core/pod/strategy.go ``WarningsOnCreate`` -> pkg/api/pod/warnings.go) and a Job
template's (pkg/api/job/warnings.go ``WarningsForJobSpec``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Kbatch

POD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]
  containers: [{name: c, image: busybox}]
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      volumes: [{name: v, gitRepo: {repository: "https://example.com/r.git"}}]
      containers: [{name: c, image: busybox}]
"""


def test_apply_prints_a_pods_warnings(kb: Kbatch, tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(POD)
    res = kb("apply", "-f", str(manifest))
    assert (res.code, res.out, res.err) == (
        0, "pod/p created\n",
        "Warning: spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching "
        "no pod\n")


def test_apply_prints_a_job_templates_warnings(kb: Kbatch, tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    res = kb("apply", "-f", str(manifest))
    assert (res.code, res.out, res.err) == (
        0, "job.batch/j created\n", "Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11\n")
    again = kb("apply", "-f", str(manifest))
    assert (again.out, again.err) == ("job.batch/j unchanged\n", "")
