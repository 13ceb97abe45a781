"""The real kubectl's ``apply`` of a changed admission policy against ``kbatch serve``: kube-apiserver
takes a strategic merge patch for every built-in kind (only custom resources answer 415,
``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go``; the CRD handler lists the patch
types without it), merging lists by the Go types' ``patchStrategy``/``patchMergeKey`` tags
(k8s.io/api ``admissionregistration/v1/types.go``: ``matchConditions`` and ``variables`` merge on
``name``; a policy's ``status.conditions`` carries no tag and is replaced)."""

from __future__ import annotations

import json
from typing import Any

from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: smp-policy}
spec:
  failurePolicy: %s
  matchConstraints:
    resourceRules: [{apiGroups: [batch], apiVersions: [v1], operations: [CREATE], resources: [jobs]}]
  matchConditions:
  - {name: %s, expression: "true"}
  validations:
  - expression: "object.metadata.name != 'forbidden'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: smp-binding}
spec:
  policyName: smp-policy
  validationActions: [%s]
"""


def test_kubectl_apply_changed_policy_and_binding(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=POLICY % ("Fail", "first", "Deny"))
    changed = kubectl(served, "apply", "-f", "-", input_=POLICY % ("Ignore", "second", "Warn"))
    assert changed.stdout.splitlines() == [
        "validatingadmissionpolicy.admissionregistration.k8s.io/smp-policy configured",
        "validatingadmissionpolicybinding.admissionregistration.k8s.io/smp-binding configured"]
    policy = json.loads(kubectl(served, "get", "validatingadmissionpolicy", "smp-policy",
                                "-o", "json").stdout)
    assert policy["spec"]["failurePolicy"] == "Ignore"
    # the apply patch deletes "first" by its merge key and adds "second"
    assert [c["name"] for c in policy["spec"]["matchConditions"]] == ["second"]
    binding = json.loads(kubectl(served, "get", "validatingadmissionpolicybinding", "smp-binding",
                                 "-o", "json").stdout)
    assert binding["spec"]["validationActions"] == ["Warn"]


def test_kubectl_strategic_patch_merges_match_conditions_by_name(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=POLICY.replace("smp-", "keyed-") % ("Fail", "a", "Deny"))
    kubectl(served, "patch", "validatingadmissionpolicy", "keyed-policy", "-p",
            '{"spec":{"matchConditions":[{"name":"b","expression":"true"}]}}')
    policy = json.loads(kubectl(served, "get", "validatingadmissionpolicy", "keyed-policy",
                                "-o", "json").stdout)
    # merged on the key; a new item goes before the live ones (kbatch.apiserver.element_order)
    assert [c["name"] for c in policy["spec"]["matchConditions"]] == ["b", "a"]


def test_kubectl_strategic_patch_of_a_custom_resource_is_415(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_="""apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: smp-flavor}
""")
    refused = kubectl(served, "patch", "resourceflavor", "smp-flavor", "--type=strategic", "-p",
                      '{"metadata":{"labels":{"a":"b"}}}', check=False)
    assert refused.returncode != 0
    assert "UnsupportedMediaType" in refused.stderr or "unknown format" in refused.stderr, refused.stderr
