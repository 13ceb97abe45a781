"""The ``authorizer`` variable of admission policies (k8s.io/apiserver ``pkg/cel/library/authz.go``):
checks go to the server's authorizer chain (``system:masters``, then the Node authorizer and RBAC over
the stored roles and bindings, as ``--authorization-mode=Node,RBAC``), for the requester or a service
account; ``authorizer.requestResource`` is the request's own resource. Upstream's docs example: a policy
that lets only those allowed a verb on a resource through.
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
from kbatch.apiserver.requester import acting_as
from kbatch.authz.chain import RBAC_ONLY
from kbatch.authz.user import UserInfo
from tests.server.test_kubectl_authorizer_chain import OBJECTS as KUBELET_OBJECTS

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


# -- the chain is the server's: the Node authorizer answers for a kubelet -------------------------------

KUBELET = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
SECRET_CHECK = ("authorizer.group('').resource('secrets').namespace('default').name(object.data.secret)"
                ".check('get')")
NODE_OBJECTS = KUBELET_OBJECTS  # n1, secrets s1 and s2, the pod p1 on n1 that references s1


def _node_world() -> ControlPlane:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply(NODE_OBJECTS)
    for obj in _vap(f"{SECRET_CHECK}.allowed()", f"'no: ' + {SECRET_CHECK}.reason()"):
        cp.server.create(obj)
    return cp


def _cm_as_kubelet(cp: ControlPlane, name: str, secret: str) -> str | None:
    cm = ConfigMap.model_validate({"metadata": {"name": name, "namespace": "default"},
                                   "data": {"secret": secret}})
    try:
        with acting_as(KUBELET):
            cp.server.create(cm)
    except StatusError as err:
        return err.message
    return None


def test_a_kubelets_check_answers_from_the_node_authorizer() -> None:
    """Node,RBAC by default: n1 may read the secret its pod references, not another; RBAC grants it
    nothing (no binding of ``system:node``), so the reason is the Node authorizer's alone."""
    cp = _node_world()
    assert _cm_as_kubelet(cp, "a", "s1") is None
    refused = _cm_as_kubelet(cp, "b", "s2")
    assert refused is not None
    assert refused.endswith(
        "denied request: no: node: no relationship found between node 'n1' and this object")
    # the graph follows the store: a pod of n1 that references s2 makes it readable
    cp.apply(NODE_OBJECTS.split("---")[-1].replace("p1", "p2").replace("s1", "s2"))
    assert _cm_as_kubelet(cp, "c", "s2") is None


def test_with_rbac_alone_the_kubelet_gets_nothing() -> None:
    """``--authorization-mode=RBAC``: the same check has no Node authorizer to ask."""
    cp = _node_world()
    cp.server.authorizer = RBAC_ONLY
    refused = _cm_as_kubelet(cp, "a", "s1")
    assert refused is not None and refused.endswith("denied request: no:")
