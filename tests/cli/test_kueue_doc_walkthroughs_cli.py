"""Kueue v0.19.2's documentation walkthroughs, with their example manifests as published, through
``kbatch --state DIR`` commands (one in-process run a command, the state kept on disk between them).

Each manifest names its upstream file (kubernetes-sigs/kueue v0.19.2 ``site/static/examples/``); the
page it is used on is named at each test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .runners import CliInProcess

# site/static/examples/sample-validating-policy.yaml, as published
QUEUE_NAME_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: sample-validating-admission-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["batch"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobs"]
    - apiGroups:   ["jobset.x-k8s.io"]
      apiVersions: ["v1alpha2"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobsets"]
  matchConditions:
  - name: exclude-jobset-owned
    expression: "!(has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, \
o.apiVersion=='jobset.x-k8s.io'&&o.kind=='JobSet'&&o.controller))"
  validations:
    - expression: "has(object.metadata.labels) && 'kueue.x-k8s.io/queue-name' in object.metadata.labels \
&& object.metadata.labels['kueue.x-k8s.io/queue-name'] != ''"
      message: "The label 'kueue.x-k8s.io/queue-name' is either missing or does not have a value set."
"""
# site/static/examples/sample-validating-policy-binding.yaml
QUEUE_NAME_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: sample-validating-admission-policy-binding
spec:
  policyName: sample-validating-admission-policy
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kueue-managed: "true"
"""
# site/static/examples/sample-enforce-requests-policy.yaml (its binding,
# sample-enforce-requests-policy-binding.yaml, is the one above with the names changed)
REQUESTS_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: sample-enforce-requests-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["batch"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["jobs"]
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments", "statefulsets", "daemonsets", "replicasets"]
  validations:
    - expression: >
        object.spec.template.spec.containers.all(c,
          (has(c.resources.requests) && size(c.resources.requests) > 0) ||
          (has(c.resources.limits) && size(c.resources.limits) > 0)
        )
      message: "Every container in the job/deployment must specify resource requests or limits."
"""
REQUESTS_BINDING = QUEUE_NAME_BINDING.replace(
    "sample-validating-admission-policy", "sample-enforce-requests-policy")

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: %s, namespace: team, labels: {%s}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sleep, "1"]%s}]
"""


class _Cli:
    """``kbatch --state DIR`` commands, each asserted to succeed unless told."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.runner = CliInProcess(tmp_path / "state")

    def file(self, name: str, text: str) -> str:
        path = self.tmp / name
        path.write_text(text)
        return str(path)

    def ok(self, *args: str) -> str:
        done = self.runner.run(*args)
        assert done.code == 0, f"kbatch {' '.join(args)}: {done.err}{done.out}"
        return done.out

    def refused(self, *args: str) -> str:
        done = self.runner.run(*args)
        assert done.code == 1, f"kbatch {' '.join(args)}: {done.out}"
        return str(done.err)

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "-o", "json"))


def test_job_admission_policies_refuse_what_the_page_says(tmp_path: Path) -> None:
    """tasks/manage/enforce_job_management/setup_job_admission_policy.md: in a ``kueue-managed``
    namespace a Job without the queue-name label, or whose container states neither requests nor
    limits, is refused with the policy's message. A container without ``resources`` is refused by
    the message, not by an evaluation error: the expressions read the object as
    ``runtime.DefaultUnstructuredConverter`` writes it, ``resources: {}`` included."""
    cli = _Cli(tmp_path)
    for name, text in (("q.yaml", QUEUE_NAME_POLICY), ("qb.yaml", QUEUE_NAME_BINDING),
                       ("r.yaml", REQUESTS_POLICY), ("rb.yaml", REQUESTS_BINDING)):
        cli.ok("create", "-f", cli.file(name, text))
    cli.ok("create", "namespace", "team")
    cli.ok("label", "namespace", "team", "kueue-managed=true")
    queued = "kueue.x-k8s.io/queue-name: user-queue"
    requests = ", resources: {requests: {cpu: 100m}}"
    no_requests = cli.refused("create", "-f", cli.file("a.yaml", JOB % ("a", queued, "")))
    assert ("ValidatingAdmissionPolicy 'sample-enforce-requests-policy' with binding "
            "'sample-enforce-requests-policy-binding' denied request: Every container in the "
            "job/deployment must specify resource requests or limits.") in no_requests
    no_queue = cli.refused("create", "-f", cli.file("b.yaml", JOB % ("b", "", requests)))
    assert ("ValidatingAdmissionPolicy 'sample-validating-admission-policy' with binding "
            "'sample-validating-admission-policy-binding' denied request: The label "
            "'kueue.x-k8s.io/queue-name' is either missing or does not have a value set.") in no_queue
    cli.ok("create", "-f", cli.file("c.yaml", JOB % ("c", queued, requests)))
    cli.ok("create", "-f", cli.file("d.yaml", (JOB % ("d", "", "")).replace("team", "default")))
