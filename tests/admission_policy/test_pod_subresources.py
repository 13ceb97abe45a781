"""ValidatingAdmissionPolicy on ``pods/eviction`` and ``pods/binding``: upstream's handlers run the
admission chain on these creates with resource ``pods``, the subresource, and the Eviction or Binding as
``object`` (``pkg/registry/core/pod/storage``; ``request.kind`` is the object's kind); a policy matching
``pods`` alone does not match them (``matching.go``: a subresource must be named)."""

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
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.requester import acting_as
from kbatch.authz.user import UserInfo


def _policy(resources: list[str]) -> ValidatingAdmissionPolicy:
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": resources}
    check = (
        "request.resource.resource == 'pods' && object.metadata.name != 'keep' && "
        "request.kind.kind in ['Eviction', 'Binding']"
    )
    return ValidatingAdmissionPolicy.model_validate(
        {
            "metadata": {"name": "guard"},
            "spec": {
                "matchConstraints": {"resourceRules": [rule]},
                "validations": [
                    {
                        "expression": check,
                        "messageExpression": "request.subResource + ' of ' + object.metadata.name",
                    }
                ],
            },
        }
    )


POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec: {containers: [{name: c, image: i}]}\n"


def _cluster(resources: list[str]) -> Any:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    for name in ("keep", "free"):
        cp.apply(POD % name)
    cp.server.create(_policy(resources))
    cp.server.create(
        ValidatingAdmissionPolicyBinding.model_validate(
            {"metadata": {"name": "guard"}, "spec": {"policyName": "guard", "validationActions": ["Deny"]}}
        )
    )
    return cp


def test_a_policy_on_the_subresources_judges_evictions_and_bindings() -> None:
    cp = _cluster(["pods/eviction", "pods/binding"])
    client = cp.server.client()
    with pytest.raises(StatusError) as denied:
        client.bind("keep", "default", "n1")
    assert "binding of keep" in str(denied.value)
    client.bind("free", "default", "n1")
    with pytest.raises(StatusError) as denied:
        client.evict("keep", "default")
    assert "eviction of keep" in str(denied.value)
    client.evict("free", "default")
    assert cp.client.get(Pod, "keep", "default").spec.node_name is None


def test_a_policy_on_pods_alone_does_not_match_them() -> None:
    cp = _cluster(["pods"])
    client = cp.server.client()
    client.bind("keep", "default", "n1")
    client.evict("keep", "default")


# -- MutatingAdmissionPolicy: the create handler's mutating admission runs on these creates too -----------
# (k8s.io/apiserver ``pkg/endpoints/handlers/create.go`` calls ``mutatingAdmission.Admit`` for every create,
# a subresource's included, before ``BindingREST``/``EvictionREST`` act on the object it mutated)


def _mutating(name: str, resource: str, expression: str) -> list[Any]:
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": [resource]}
    spec = {"matchConstraints": {"resourceRules": [rule]}, "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}]}
    return [MutatingAdmissionPolicy.model_validate({"metadata": {"name": name}, "spec": spec}),
            MutatingAdmissionPolicyBinding.model_validate({"metadata": {"name": name},
                                                           "spec": {"policyName": name}})]


def _mutated_cluster(*objects: Any) -> ControlPlane:
    cp = ControlPlane(seed=0, controllers="")
    cp.apply("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    cp.apply(POD % "p")
    for obj in objects:
        cp.server.create(obj)
    return cp


def test_a_mutating_policy_on_pods_binding_changes_the_binding_the_pod_gets() -> None:
    """``BindingREST.setPodNodeAndMetadata`` copies the Binding's annotations onto the pod."""
    cp = _mutated_cluster(*_mutating("stamp", "pods/binding",
                                     "[JSONPatch{op: 'add', path: '/metadata/annotations', "
                                     "value: {'bound-by': request.userInfo.username}}]"))
    binding = Binding.model_validate({"metadata": {"name": "p", "namespace": "default"},
                                      "target": {"kind": "Node", "name": "n1"}})
    before = binding.model_dump()
    with acting_as(UserInfo("system:kube-scheduler", ("system:authenticated",))):
        cp.server.bind(binding, "default")
    pod = cp.client.get(Pod, "p", "default")
    assert (pod.spec.node_name, (pod.metadata.annotations or {}).get("bound-by")) == (
        "n1", "system:kube-scheduler")
    assert binding.model_dump() == before  # the caller's object is not the one admission changed


def test_a_mutating_policy_on_pods_eviction_changes_the_delete_it_makes() -> None:
    """An Eviction's ``deleteOptions`` are the delete's: a policy making it a dry run keeps the pod."""
    cp = _mutated_cluster(*_mutating("dry", "pods/eviction",
                                     "[JSONPatch{op: 'add', path: '/deleteOptions', "
                                     "value: Object.deleteOptions{dryRun: ['All']}}]"))
    cp.server.client().evict("p", "default")
    assert cp.client.get(Pod, "p", "default").metadata.deletion_timestamp is None


def test_a_mutating_policy_on_pods_does_not_match_its_subresources() -> None:
    cp = _mutated_cluster(*_mutating("stamp", "pods",
                                     "[JSONPatch{op: 'add', path: '/metadata/annotations', "
                                     "value: {'x': 'y'}}]"))
    cp.server.client().bind("p", "default", "n1")
    assert "x" not in (cp.client.get(Pod, "p", "default").metadata.annotations or {})
