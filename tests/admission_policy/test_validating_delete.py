"""ValidatingAdmissionPolicy on DELETE: upstream runs the validating admission chain on deletes
(generic registry ``Store.Delete``, ``deleteValidation``) with ``object`` null and ``oldObject`` the
stored object (``plugin/cel/activation.go``); a denied delete leaves the object where it was.
"""

from __future__ import annotations

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import StatusError

PROTECT = ValidatingAdmissionPolicy.model_validate(
    {
        "metadata": {"name": "protect"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["DELETE"],
                        "resources": ["configmaps"],
                    }
                ]
            },
            "validations": [
                {
                    "expression": "object == null && oldObject.metadata.?labels.protected.orValue('') != "
                    "'yes'",
                    "messageExpression": "'configmap ' + oldObject.metadata.name + ' is protected'",
                }
            ],
        },
    }
)
BINDING = ValidatingAdmissionPolicyBinding.model_validate(
    {"metadata": {"name": "protect"}, "spec": {"policyName": "protect", "validationActions": ["Deny"]}}
)


def _cm(name: str, protected: bool) -> ConfigMap:
    labels = {"protected": "yes"} if protected else {}
    return ConfigMap.model_validate({"metadata": {"name": name, "namespace": "default", "labels": labels}})


@pytest.fixture
def cp() -> ControlPlane:
    cp = ControlPlane()
    cp.server.create(PROTECT)
    cp.server.create(BINDING)
    return cp


def test_a_denied_delete_keeps_the_object(cp: ControlPlane) -> None:
    cp.server.create(_cm("keep", True))
    with pytest.raises(StatusError) as caught:
        cp.server.delete(ConfigMap, "keep", "default")
    assert (caught.value.code, caught.value.reason) == (422, "Invalid")
    assert caught.value.message == (
        "configmaps \"keep\" is forbidden: ValidatingAdmissionPolicy 'protect' with "
        "binding 'protect' denied request: configmap keep is protected"
    )
    assert cp.server.get(ConfigMap, "keep", "default").name == "keep"
    with pytest.raises(StatusError):  # a dry run is judged too
        cp.server.delete(ConfigMap, "keep", "default", dry_run=True)


def test_an_admitted_delete_goes_through(cp: ControlPlane) -> None:
    cp.server.create(_cm("go", False))
    cp.server.delete(ConfigMap, "go", "default")
    assert [c.name for c in cp.server.list(ConfigMap, "default").items if c.name == "go"] == []


def test_create_and_update_rules_do_not_judge_deletes() -> None:
    cp = ControlPlane()
    deny_all = ValidatingAdmissionPolicy.model_validate(
        {
            "metadata": {"name": "protect"},
            "spec": {
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["UPDATE"],
                            "resources": ["configmaps"],
                        }
                    ]
                },
                "validations": [{"expression": "false"}],
            },
        }
    )
    cp.server.create(_cm("x", True))
    cp.server.create(deny_all)
    cp.server.create(BINDING)
    cp.server.delete(ConfigMap, "x", "default")
