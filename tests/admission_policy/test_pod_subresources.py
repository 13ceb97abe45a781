"""ValidatingAdmissionPolicy on ``pods/eviction`` and ``pods/binding``: upstream's handlers run the
admission chain on these creates with resource ``pods``, the subresource, and the Eviction or Binding as
``object`` (``pkg/registry/core/pod/storage``; ``request.kind`` is the object's kind); a policy matching
``pods`` alone does not match them (``matching.go``: a subresource must be named)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import StatusError


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
