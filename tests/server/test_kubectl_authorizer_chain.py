"""The API server's own authorization questions, as kubectl meets them against ``kbatch serve``
(``--authorization-mode Node,RBAC``), impersonating a kubelet or a user:

* NodeRestriction's audience rule: a kubelet's token for an audience its pod does not reference is
  refused with upstream's message until RBAC grants ``request-serviceaccounts-token-audience``
  (``plugin/pkg/admission/noderestriction/admission.go``, ``test/integration/auth/node_test.go``);
* RBAC's escalation check: a user writes a Role with rules it does not hold only with ``escalate``
  (``pkg/registry/rbac/escalation_check.go``);
* a ValidatingAdmissionPolicy's ``authorizer`` for a kubelet answers from the Node authorizer, which
  allows it the secret its pod references and nothing else (k8s.io/apiserver ``pkg/cel/library/authz.go``
  over the server's authorizer)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
AS_N1 = ("--as=system:node:n1", "--as-group=system:nodes")
OBJECTS = """
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Secret
metadata: {name: s1}
stringData: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: s2}
stringData: {k: v}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  nodeName: n1
  restartPolicy: Never
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    env: [{name: X, valueFrom: {secretKeyRef: {name: s1, key: k}}}]
    volumeMounts: [{name: vault, mountPath: /var/run/vault}]
  volumes:
  - name: vault
    projected: {sources: [{serviceAccountToken: {audience: vault, path: token}}]}
"""


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    kubectl(served, "apply", "-f", "-", input_=OBJECTS)
    return served


def _as_n1(served: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return kubectl(served, *args, *AS_N1, check=False)


# -- the audience of a kubelet's token -------------------------------------------------------------------

def _token(served: Any, audience: str) -> subprocess.CompletedProcess[str]:
    uid = kubectl(served, "get", "pod", "p1", "-o", "jsonpath={.metadata.uid}").stdout
    return _as_n1(served, "create", "token", "default", "--bound-object-kind=Pod", "--bound-object-name=p1",
                  f"--bound-object-uid={uid}", f"--audience={audience}")


AUDIENCE_GRANT = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: registry-audience}
rules:
- {apiGroups: [""], resources: [registry.example], verbs: [request-serviceaccounts-token-audience]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: registry-audience}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: registry-audience}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:nodes"}]
"""


def test_a_kubelets_token_is_for_an_audience_its_pod_uses_or_rbac_grants(cluster: Any) -> None:
    assert _token(cluster, "vault").returncode == 0  # the pod's projected volume names it
    foreign = _token(cluster, "registry.example")
    assert (foreign.returncode, foreign.stderr) == (
        1,
        'error: failed to create token: serviceaccounts "default" is forbidden: audience '
        '"registry.example" not found in pod spec volume, system:node:n1 is not authorized to request '
        "tokens for this audience\n",
    )
    kubectl(cluster, "apply", "-f", "-", input_=AUDIENCE_GRANT)  # the credential-provider grant
    assert _token(cluster, "registry.example").returncode == 0
    assert _token(cluster, "other.example").returncode == 1


# -- escalate ----------------------------------------------------------------------------------------------

WRITER = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-writer}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [create, get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-writes-roles}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-writer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
"""
ESCALATE = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-escalator}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [escalate]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-escalates}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-escalator}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
"""


def test_a_user_with_escalate_creates_a_role_with_rules_it_does_not_hold(cluster: Any) -> None:
    kubectl(cluster, "apply", "-f", "-", input_=WRITER)

    def create(name: str) -> subprocess.CompletedProcess[str]:
        return kubectl(cluster, "create", "role", name, "--verb=get", "--resource=secrets", "--as=alice",
                       check=False)

    refused = create("secret-reader")
    assert (refused.returncode, refused.stderr) == (
        1,
        'Error from server (Forbidden): roles.rbac.authorization.k8s.io "secret-reader" is forbidden: '
        'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not '
        'currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}\n',
    )
    kubectl(cluster, "apply", "-f", "-", input_=ESCALATE)
    made = create("secret-reader")
    assert (made.returncode, made.stdout) == (0, "role.rbac.authorization.k8s.io/secret-reader created\n")


# -- an admission policy's authorizer for a kubelet ------------------------------------------------------

def _policy(secret: str) -> str:
    check = f"authorizer.group('').resource('secrets').namespace('default').name('{secret}').check('get')"
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["pods/status"]}
    probe = {"name": "probe", "expression": "has(object.status.message) && object.status.message == 'probe'"}
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": "kubelet-reads"},
              "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [rule]},
                       "matchConditions": [probe],
                       "validations": [{"expression": f"{check}.allowed()",
                                        "messageExpression": f"'needs {secret}: ' + {check}.reason()"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": "kubelet-reads"},
               "spec": {"policyName": "kubelet-reads", "validationActions": ["Deny"]}}
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [policy, binding]})


def test_a_policys_authorizer_answers_for_a_kubelet_from_the_node_authorizer(cluster: Any,
                                                                             tmp_path: Path) -> None:
    """The kubelet's status write is a PUT of ``pods/status`` (the Node authorizer lets a node update a
    pod's status, not read it through the subresource, so ``kubectl patch --subresource`` is refused)."""
    pod = json.loads(kubectl(cluster, "get", "pod", "p1", "-o", "json").stdout)
    pod["status"]["message"] = "probe"
    body = tmp_path / "status.json"
    body.write_text(json.dumps(pod))

    def probe() -> subprocess.CompletedProcess[str]:
        return _as_n1(cluster, "replace", "--raw", "/api/v1/namespaces/default/pods/p1/status",
                      "-f", str(body))

    kubectl(cluster, "apply", "-f", "-", input_=_policy("s2"))
    refused = probe()
    assert (refused.returncode, refused.stderr) == (
        1,
        "The pods \"p1\" is invalid: : ValidatingAdmissionPolicy 'kubelet-reads' with binding "
        "'kubelet-reads' denied request: needs s2: node: no relationship found between node 'n1' and "
        "this object\n",
    )
    # the secret p1 references (replaced, not applied: kbatch takes no strategic merge patch of a policy)
    kubectl(cluster, "replace", "-f", "-", input_=_policy("s1"))
    allowed = probe()
    assert allowed.returncode == 0
    assert json.loads(allowed.stdout)["status"]["message"] == "probe"
