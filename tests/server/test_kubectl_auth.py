"""``kubectl auth can-i`` and ``--as`` against ``kbatch serve``, and the official ``kubernetes`` client's
AuthorizationV1Api: the reviews (kubectl sends them as protobuf), impersonation decided by RBAC, and
the bootstrap ``view``/``edit`` roles filled by the aggregation controller."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def test_can_i_as_the_caller_and_as_jane(served: Any) -> None:
    assert kubectl(served, "auth", "can-i", "create", "jobs").stdout.strip() == "yes"
    denied = kubectl(served, "auth", "can-i", "get", "pods", "--as=jane", "-n", "authz-x", check=False)
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    forbidden = kubectl(served, "get", "pods", "-n", "authz-x", "--as=jane", check=False)
    assert forbidden.returncode == 1
    assert ('Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" '
            'in API group "" in the namespace "authz-x"') in forbidden.stderr


def test_binding_view_lets_jane_read_and_not_write(served: Any) -> None:
    kubectl(served, "create", "namespace", "authz-v")
    kubectl(served, "create", "rolebinding", "jane-view", "--clusterrole=view", "--user=jane",
            "-n", "authz-v")
    yes = kubectl(served, "auth", "can-i", "list", "jobs.batch", "--as=jane", "-n", "authz-v")
    assert yes.stdout.strip() == "yes"
    no = kubectl(served, "auth", "can-i", "create", "jobs.batch", "--as=jane", "-n", "authz-v", check=False)
    assert no.stdout.strip() == "no"
    assert kubectl(served, "get", "jobs", "-n", "authz-v", "--as=jane").returncode == 0
    listing = kubectl(served, "auth", "can-i", "--list", "--as=jane", "-n", "authz-v").stdout
    assert any(line.split()[0] == "jobs.batch" and "[get list watch]" in line
               for line in listing.splitlines())


def test_a_service_account_bound_to_edit_creates_a_job(served: Any) -> None:
    kubectl(served, "create", "namespace", "authz-e")
    kubectl(served, "create", "rolebinding", "bot-edit", "--clusterrole=edit",
            "--serviceaccount=authz-e:bot", "-n", "authz-e")
    sa = "--as=system:serviceaccount:authz-e:bot"
    can = kubectl(served, "auth", "can-i", "create", "jobs.batch", sa, "-n", "authz-e")
    assert can.stdout.strip() == "yes"
    kubectl(served, "create", "job", "j", "--image=busybox", "-n", "authz-e", sa)
    job = json.loads(kubectl(served, "get", "job", "j", "-n", "authz-e", "-o", "json").stdout)
    assert job["metadata"]["name"] == "j"
    other = kubectl(served, "get", "pods", "-n", "default", sa, check=False)
    assert 'User "system:serviceaccount:authz-e:bot" cannot list resource "pods"' in other.stderr


def test_the_python_client_asks_the_same_questions(served: Any) -> None:
    kubernetes = pytest.importorskip("kubernetes", reason="the official Python client")
    from kubernetes import client, config

    api = client.AuthorizationV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))
    attributes = client.V1ResourceAttributes(namespace="authz-p", verb="get", resource="pods")
    mine = api.create_self_subject_access_review(client.V1SelfSubjectAccessReview(
        spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes)))
    assert mine.status.allowed is True
    jane = api.create_subject_access_review(client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(user="jane", groups=["system:authenticated"],
                                              resource_attributes=attributes)))
    assert jane.status.allowed is False
    rules = api.create_self_subject_rules_review(client.V1SelfSubjectRulesReview(
        spec=client.V1SelfSubjectRulesReviewSpec(namespace="authz-p")))
    assert {"verbs": ["*"], "api_groups": ["*"], "resources": ["*"], "resource_names": None} in \
        [r.to_dict() for r in rules.status.resource_rules]
    assert kubernetes.__version__


def test_whoami_as_the_caller_and_as_jane(served: Any) -> None:
    """``kubectl auth whoami`` posts an authentication.k8s.io/v1 SelfSubjectReview
    (``pkg/registry/authentication/selfsubjectreview/rest.go``)."""
    me = kubectl(served, "auth", "whoami").stdout.split("\n")
    assert me[1].split() == ["Username", "kubernetes-admin"]
    assert me[2].split(None, 1) == ["Groups", "[system:masters system:authenticated]"]
    jane = json.loads(kubectl(served, "auth", "whoami", "--as=jane", "--as-group=dev", "-o", "json").stdout)
    assert jane["status"]["userInfo"] == {"username": "jane", "groups": ["dev", "system:authenticated"]}


def test_jane_may_bind_only_what_she_holds(served: Any) -> None:
    """The policy-based binding storage (``pkg/registry/rbac/rolebinding/policybased/storage.go``):
    kubectl's protobuf create of a RoleBinding by an impersonated user is checked for escalation."""
    kubectl(served, "create", "namespace", "authz-b")
    kubectl(served, "create", "role", "rb-writer", "--verb=create,get",
            "--resource=rolebindings.rbac.authorization.k8s.io", "-n", "authz-b")
    kubectl(served, "create", "rolebinding", "jane-rb", "--role=rb-writer", "--user=jane", "-n", "authz-b")
    refused = kubectl(served, "create", "rolebinding", "bob-admin", "--clusterrole=cluster-admin",
                      "--user=bob", "-n", "authz-b", "--as=jane", check=False)
    assert refused.returncode == 1
    assert ('rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "jane" '
            '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
            '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}') \
        in refused.stderr
    kubectl(served, "create", "role", "pods-get", "--verb=get", "--resource=pods", "-n", "authz-b")
    kubectl(served, "create", "rolebinding", "jane-pods", "--role=pods-get", "--user=jane", "-n", "authz-b")
    kubectl(served, "create", "rolebinding", "bob-pods", "--role=pods-get", "--user=bob", "-n", "authz-b",
            "--as=jane")
