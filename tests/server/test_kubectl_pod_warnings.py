"""The real kubectl prints the pod warnings ``kbatch serve`` sends (pkg/api/pod/warnings.go via
pkg/registry/core/pod/strategy.go ``WarningsOnCreate`` and pkg/api/job/warnings.go
``WarningsForJobSpec``): one ``Warning:`` line each, on stderr."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {scheduler.alpha.kubernetes.io/critical-pod: "true"}
spec:
  nodeSelector: {beta.kubernetes.io/arch: amd64}
  containers:
  - name: c
    image: busybox
    env: [{name: A, value: "1"}, {name: A, value: "2"}]
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: -1
      containers: [{name: c, image: busybox, resources: {requests: {memory: 100m}}}]
"""


def test_kubectl_prints_the_pod_warnings(served: Any) -> None:
    created = kubectl(served, "apply", "-f", "-", input_=POD)
    assert created.stdout == "pod/p created\n"
    assert created.stderr == (
        'Warning: spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use '
        '"kubernetes.io/arch" instead\n'
        "Warning: metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in "
        'v1.16+; use the "priorityClassName" field instead\n'
        'Warning: spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when '
        "using apply\n")
    labelled = kubectl(served, "label", "pod", "p", "a=b")
    assert (labelled.stdout, labelled.stderr) == ("pod/p labeled\n", "")  # no warnings on a pod update


def test_kubectl_prints_the_job_template_warnings(served: Any) -> None:
    created = kubectl(served, "create", "-f", "-", input_=JOB)
    assert created.stdout == "job.batch/j created\n"
    assert created.stderr == (
        'Warning: spec.template.spec.containers[0].resources.requests[memory]: fractional byte value "100m" '
        "is invalid, must be an integer\n"
        "Warning: spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are "
        "invalid and will be treated as 1\n")
