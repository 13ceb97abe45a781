"""The ``authorizer`` variable of admission policies (k8s.io/apiserver ``pkg/cel/library/authz.go``):
checks go to kbatch's authorizer chain (``system:masters``, then RBAC over the stored roles and
bindings), for the requester or a service account; ``authorizer.requestResource`` is the request's own
resource. Upstream's docs example: a policy that lets only those allowed a verb on a resource through.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import (
    MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding,
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
)
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import StatusError
from kbatch.api.rbac_v1 import Role, RoleBinding

CONFIGMAPS = [
    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
]
ROBOT = "authorizer.serviceAccount('default', 'robot').group('').resource('secrets').namespace('default')"
MARK_ROBOT = ("Object{metadata: Object.metadata{labels: {'robot-reads': string(" + ROBOT
              + ".check('get').allowed())}}}")


def _vap(expression: str, message: str = "'no'") -> tuple[Any, Any]:
    policy = ValidatingAdmissionPolicy.model_validate(
        {
            "metadata": {"name": "authz"},
            "spec": {
                "matchConstraints": {"resourceRules": CONFIGMAPS},
                "validations": [{"expression": expression, "messageExpression": message}],
            },
        }
    )
    binding = ValidatingAdmissionPolicyBinding.model_validate(
        {"metadata": {"name": "authz"}, "spec": {"policyName": "authz", "validationActions": ["Deny"]}}
    )
    return policy, binding


def _cm(name: str) -> ConfigMap:
    return ConfigMap.model_validate({"metadata": {"name": name, "namespace": "default"}})


def _robot_may_read_secrets(cp: ControlPlane) -> None:
    cp.server.create(
        Role.model_validate(
            {
                "metadata": {"name": "reader", "namespace": "default"},
                "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}],
            }
        )
    )
    cp.server.create(
        RoleBinding.model_validate(
            {
                "metadata": {"name": "robot-reads", "namespace": "default"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
                "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}],
            }
        )
    )


def test_a_service_accounts_permissions_decide() -> None:
    cp = ControlPlane()
    for obj in _vap(f"{ROBOT}.check('get').allowed()"):
        cp.server.create(obj)
    with pytest.raises(StatusError) as caught:
        cp.server.create(_cm("before"))
    assert caught.value.message.endswith("denied request: no")
    _robot_may_read_secrets(cp)
    cp.server.create(_cm("after"))  # now allowed


def test_the_reason_is_rbacs() -> None:
    cp = ControlPlane()
    _robot_may_read_secrets(cp)
    policy, binding = _vap(f"!{ROBOT}.check('get').allowed()", f"'no: ' + {ROBOT}.check('get').reason()")
    cp.server.create(policy)
    cp.server.create(binding)
    with pytest.raises(StatusError) as caught:
        cp.server.create(_cm("x"))
    assert caught.value.message.endswith(
        'denied request: no: RBAC: allowed by RoleBinding "robot-reads/default" of Role "reader" to '
        'ServiceAccount "robot/default"'
    )


def test_request_resource_and_paths_for_the_requester() -> None:
    """kbatch's requester is in system:masters: every check is allowed, with no reason."""
    cp = ControlPlane()
    for obj in _vap(
        "authorizer.requestResource.check('create').allowed() && "
        "authorizer.path('/healthz').check('get').allowed() && "
        "!authorizer.requestResource.check('create').errored()"
    ):
        cp.server.create(obj)
    cp.server.create(_cm("ok"))


def test_a_mutating_policy_reads_the_authorizer() -> None:
    cp = ControlPlane()
    cp.server.create(
        MutatingAdmissionPolicy.model_validate(
            {
                "metadata": {"name": "mark"},
                "spec": {
                    "matchConstraints": {"resourceRules": CONFIGMAPS},
                    "reinvocationPolicy": "Never",
                    "mutations": [
                        {
                            "patchType": "ApplyConfiguration",
                            "applyConfiguration": {
                                "expression": MARK_ROBOT
                            },
                        }
                    ],
                },
            }
        )
    )
    cp.server.create(
        MutatingAdmissionPolicyBinding.model_validate(
            {"metadata": {"name": "mark"}, "spec": {"policyName": "mark"}}
        )
    )
    assert cp.server.create(_cm("a")).metadata.labels == {"robot-reads": "false"}
    _robot_may_read_secrets(cp)
    assert cp.server.create(_cm("b")).metadata.labels == {"robot-reads": "true"}
