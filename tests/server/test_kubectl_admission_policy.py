"""The real kubectl against ``kbatch serve`` with a ValidatingAdmissionPolicy: a ``Warn`` binding's
failure is printed as kubectl's ``Warning:`` line and the Job is created; a ``Deny`` binding's
failure is kubectl's error and the Job is not created (staging apiserver
``pkg/admission/plugin/policy/validating/dispatcher.go``); ``kubectl get`` shows the kinds' columns
(``pkg/printers/internalversion/printers.go``)."""

from __future__ import annotations

from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: queue-label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [batch], apiVersions: [v1], operations: [CREATE], resources: [jobs]}]
  validations:
  - expression: "'kueue.x-k8s.io/queue-name' in object.metadata.?labels.orValue({})"
    messageExpression: "'job ' + object.metadata.name + ' has no queue-name label'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: queue-label-%s}
spec:
  policyName: queue-label
  validationActions: [%s]
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: %s, namespace: %s}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def test_kubectl_prints_warn_and_refuses_deny(served: Any) -> None:
    kubectl(served, "create", "namespace", "vap-warn")
    kubectl(served, "create", "namespace", "vap-deny")
    kubectl(served, "apply", "-f", "-", input_=POLICY % ("warn", "Warn", "vap-warn"))
    kubectl(served, "apply", "-f", "-", input_=(POLICY % ("deny", "Deny", "vap-deny")).split("---\n")[1])
    warned = kubectl(served, "apply", "-f", "-", input_=JOB % ("w", "vap-warn"))
    assert warned.stdout == "job.batch/w created\n"
    assert warned.stderr == (
        "Warning: Validation failed for ValidatingAdmissionPolicy 'queue-label' with "
        "binding 'queue-label-warn': job w has no queue-name label\n"
    )
    refused = kubectl(served, "apply", "-f", "-", input_=JOB % ("d", "vap-deny"), check=False)
    # kubectl prints an Invalid status by its causes (one, without a field), as the Kubernetes docs'
    # ValidatingAdmissionPolicy page shows: ``The deployments "nginx" is invalid: : ...``
    assert refused.stderr == (
        "The jobs \"d\" is invalid: : ValidatingAdmissionPolicy 'queue-label' with binding "
        "'queue-label-deny' denied request: job d has no queue-name label\n"
    )
    assert kubectl(served, "get", "job", "d", "-n", "vap-deny", check=False).returncode != 0
    table = kubectl(served, "get", "validatingadmissionpolicies").stdout.splitlines()
    assert table[0].split() == ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"]
    assert table[1].split()[:3] == ["queue-label", "1", "<unset>"]
    bindings = kubectl(served, "get", "validatingadmissionpolicybindings").stdout.splitlines()
    assert bindings[0].split() == ["NAME", "POLICYNAME", "PARAMREF", "AGE"]
    assert bindings[1].split()[:3] == ["queue-label-deny", "queue-label", "<unset>"]
