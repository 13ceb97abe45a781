"""The real kubectl against ``kbatch serve`` with a MutatingAdmissionPolicy: ``kubectl apply`` a policy
and its binding, then ``kubectl create`` and ``kubectl run`` a pod and see the mutation (a label by
JSON patch, an init container by apply configuration; staging apiserver
``pkg/admission/plugin/policy/mutating``); a failing mutation is kubectl's error and writes nothing;
``kubectl get`` shows the kinds' columns (``pkg/printers/internalversion/printers.go``). The binding
selects this test's namespace only: the served process is shared with other tests."""

from __future__ import annotations

import json
from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: map-sidecar}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions:
  - name: no-sidecar-yet
    expression: >
      !has(object.spec.initContainers) || !object.spec.initContainers.exists(c, c.name == 'mesh-proxy')
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{initContainers: [Object.spec.initContainers{
          name: "mesh-proxy", image: "mesh/proxy:v1.0.0", restartPolicy: "Always"}]}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/mesh"),
                   value: "injected"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: map-sidecar}
spec:
  policyName: map-sidecar
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: map-e2e}}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: map-e2e, labels: {app: web}}
spec:
  containers: [{name: c, image: busybox}]
"""
BROKEN = """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: map-broken}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{data: {'x': object.data.missing}}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: map-broken}
spec:
  policyName: map-broken
  matchResources:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: map-e2e}}
"""


def _pod(served: Any, name: str) -> dict[str, Any]:
    return json.loads(kubectl(served, "get", "pod", name, "-n", "map-e2e", "-o", "json").stdout)  # type: ignore[no-any-return]


def test_kubectl_apply_a_policy_then_create_a_pod(served: Any) -> None:
    kubectl(served, "create", "namespace", "map-e2e")
    applied = kubectl(served, "apply", "-f", "-", input_=POLICY)
    assert applied.stdout == (
        "mutatingadmissionpolicy.admissionregistration.k8s.io/map-sidecar created\n"
        "mutatingadmissionpolicybinding.admissionregistration.k8s.io/map-sidecar created\n"
    )
    try:
        assert kubectl(served, "create", "-f", "-", input_=POD % "web").stdout == "pod/web created\n"
        kubectl(served, "run", "ran", "-n", "map-e2e", "--image=busybox", "--restart=Never")
        for name in ("web", "ran"):
            pod = _pod(served, name)
            assert pod["metadata"]["labels"]["example.com/mesh"] == "injected"
            assert [(c["name"], c["image"]) for c in pod["spec"]["initContainers"]] == [
                ("mesh-proxy", "mesh/proxy:v1.0.0")
            ]
        table = kubectl(served, "get", "mutatingadmissionpolicies").stdout.splitlines()
        assert table[0].split() == ["NAME", "MUTATIONS", "PARAMKIND", "AGE"]
        assert [line.split()[:3] for line in table[1:]] == [["map-sidecar", "2", "<unset>"]]
        bindings = kubectl(served, "get", "mutatingadmissionpolicybindings").stdout.splitlines()
        assert bindings[0].split() == ["NAME", "POLICYNAME", "PARAMREF", "AGE"]
        assert bindings[1].split()[:3] == ["map-sidecar", "map-sidecar", "<unset>"]
    finally:
        kubectl(served, "delete", "-f", "-", input_=POLICY)


def test_kubectl_shows_a_failing_mutation_and_nothing_is_written(served: Any) -> None:
    kubectl(served, "create", "namespace", "map-e2e", check=False)
    kubectl(served, "apply", "-f", "-", input_=BROKEN)
    try:
        refused = kubectl(
            served, "create", "configmap", "cm", "-n", "map-e2e", "--from-literal=a=1", check=False
        )
        assert refused.returncode == 1
        assert refused.stderr == (
            "error: failed to create configmap: policy 'map-broken' with binding 'map-broken' denied "
            "request: "
            "expression 'Object{data: {'x': object.data.missing}}' resulted in error: no such key: missing\n"
        )
        assert kubectl(served, "get", "configmap", "cm", "-n", "map-e2e", check=False).returncode == 1
    finally:
        kubectl(served, "delete", "-f", "-", input_=BROKEN)
