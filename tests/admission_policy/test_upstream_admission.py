"""Cases of upstream's ValidatingAdmissionPolicy plugin tests, translated one by one
(``k8s.io/apiserver/pkg/admission/plugin/policy/validating/admission_test.go``, apiserver master as
of the 1.37 cycle). Upstream fakes the compiler and the matcher; here each case is a real policy and
binding written through kbatch's API, and the request is a real create. Policy and binding names
are upstream's (``denypolicy.example.com``, ``denybinding.example.com``); a Job stands for
upstream's ConfigMap request where the kind does not matter.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ConfigMap, Namespace
from kbatch.api.errors import NotFound, StatusError

POLICY, BINDING = "denypolicy.example.com", "denybinding.example.com"
RULES = [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"], "resources": ["*"]}]


def policy(validations: list[dict[str, Any]] | None = None, **spec: Any) -> ValidatingAdmissionPolicy:
    body = {
        "matchConstraints": {"resourceRules": RULES},
        "validations": validations or [{"expression": "false", "message": "I'm sorry Dave"}],
        **spec,
    }
    return ValidatingAdmissionPolicy.model_validate({"metadata": {"name": POLICY}, "spec": body})


def binding(actions: tuple[str, ...] = ("Deny",), **spec: Any) -> ValidatingAdmissionPolicyBinding:
    body = {"policyName": POLICY, "validationActions": list(actions), **spec}
    return ValidatingAdmissionPolicyBinding.model_validate({"metadata": {"name": BINDING}, "spec": body})


def job(name: str = "pi", labels: dict[str, str] | None = None, completions: int = 1) -> Job:
    return Job.model_validate(
        {
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": {
                "completions": completions,
                "template": {
                    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
                },
            },
        }
    )


def world(*objects: Any) -> ControlPlane:
    cp = ControlPlane()
    for obj in objects:
        cp.server.create(obj)
    return cp


def refused(cp: ControlPlane, obj: Any) -> StatusError:
    with pytest.raises(StatusError) as caught:
        cp.server.create(obj)
    with pytest.raises(NotFound):  # nothing written
        cp.server.get(type(obj), obj.metadata.name, obj.metadata.namespace)
    return caught.value


def denied(detail: str) -> str:
    return f"ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}' denied request: {detail}"


def test_basic_policy_definition_failure() -> None:
    """``TestBasicPolicyDefinitionFailure``: a matching deny is a 422 Invalid naming policy and binding."""
    err = refused(world(policy(), binding()), job())
    assert (err.code, err.reason) == (422, "Invalid")
    assert err.message == 'jobs.batch "pi" is forbidden: ' + denied("I'm sorry Dave")
    assert err.status.details is not None and err.status.details.causes is not None
    assert err.status.details.causes[0].message == denied("I'm sorry Dave")


def test_definition_doesnt_match() -> None:
    """``TestDefinitionDoesntMatch``: a policy whose object selector does not select the object."""
    selective = policy(
        matchConstraints={"resourceRules": RULES, "objectSelector": {"matchLabels": {"shouldmatch": "true"}}}
    )
    cp = world(selective, binding())
    cp.server.create(job("other", {"shouldmatch": "false"}))
    assert refused(cp, job("matching", {"shouldmatch": "true"})).message.endswith("I'm sorry Dave")


def test_remove_definition_and_binding() -> None:
    """``TestRemoveDefinition`` / ``TestRemoveBinding``: without either, requests pass again."""
    cp = world(policy(), binding())
    refused(cp, job())
    cp.server.delete(ValidatingAdmissionPolicyBinding, BINDING)
    cp.server.create(job("after-binding"))
    cp.server.create(binding())
    cp.server.delete(ValidatingAdmissionPolicy, POLICY)
    cp.server.create(job("after-policy"))


def test_invalid_param_source_gvk() -> None:
    """``TestInvalidParamSourceGVK``: a paramKind the server does not serve is the policy's
    configuration error (failurePolicy Fail), reported without a binding."""
    cp = world(
        policy(paramKind={"apiVersion": "example.com/v1", "kind": "BadParamKind"}),
        binding(paramRef={"name": "replicas-test.example.com", "parameterNotFoundAction": "Deny"}),
    )
    assert refused(cp, job()).message.endswith(
        f"ValidatingAdmissionPolicy '{POLICY}' denied request: failed to configure policy: failed to find "
        "resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'"
    )


def test_invalid_param_source_instance_name() -> None:
    """``TestInvalidParamSourceInstanceName``: the named param is missing, parameterNotFoundAction Deny."""
    cp = world(
        policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"}),
        binding(paramRef={"name": "replicas-test.example.com", "parameterNotFoundAction": "Deny"}),
    )
    assert refused(cp, job()).message.endswith(
        denied(
            "failed to configure binding: no params found for policy binding with `Deny` "
            "parameterNotFoundAction"
        )
    )


def test_empty_param_ref_evaluates_with_null_params() -> None:
    """``TestEmptyParamRef``: a policy with paramKind, a binding without paramRef: params is null."""
    cp = world(
        policy(
            [{"expression": "params == null", "message": "params set"}],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        ),
        binding(),
    )
    cp.server.create(job())


def test_param_not_found_allow_runs_nothing() -> None:
    """``TestParamRef`` ("no params found, Allow"): nothing is evaluated."""
    cp = world(
        policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"}),
        binding(paramRef={"name": "missing", "parameterNotFoundAction": "Allow"}),
    )
    cp.server.create(job())


def test_native_type_param() -> None:
    """``TestNativeTypeParam``: a ConfigMap as params, read as ``params.data``."""
    limit = ConfigMap.model_validate(
        {"metadata": {"name": "limits", "namespace": "default"}, "data": {"maxCompletions": "3"}}
    )
    cp = world(
        limit,
        policy(
            [
                {
                    "expression": "object.spec.completions <= int(params.data.maxCompletions)",
                    "messageExpression": "'at most ' + params.data.maxCompletions + ' completions'",
                }
            ],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        ),
        binding(paramRef={"name": "limits", "parameterNotFoundAction": "Deny"}),
    )
    cp.server.create(job("small", completions=3))
    assert refused(cp, job("big", completions=4)).message.endswith(denied("at most 3 completions"))


def test_param_ref_selector_runs_once_per_param() -> None:
    """``TestParamRef`` (selector): each selected param judges the request."""
    cms = [
        ConfigMap.model_validate(
            {"metadata": {"name": n, "namespace": "default", "labels": {"p": "y"}}, "data": {"max": m}}
        )
        for n, m in (("a", "5"), ("b", "2"))
    ]
    cp = world(
        *cms,
        policy(
            [
                {
                    "expression": "object.spec.completions <= int(params.data.max)",
                    "messageExpression": "'param ' + params.metadata.name",
                }
            ],
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        ),
        binding(paramRef={"selector": {"matchLabels": {"p": "y"}}, "parameterNotFoundAction": "Deny"}),
    )
    assert refused(cp, job(completions=3)).message.endswith(denied("param b"))


def test_namespace_param_ref_cluster_scoped_param_error() -> None:
    """``TestNamespaceParamRefClusterScopedParamError``: a namespaced paramKind for a cluster-scoped
    request without paramRef.namespace."""
    cp = world(
        policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"}),
        binding(paramRef={"name": "p", "parameterNotFoundAction": "Deny"}),
    )
    ns = Namespace.model_validate({"metadata": {"name": "team-a"}})
    assert refused(cp, ns).message.endswith(
        denied(
            "failed to configure binding: cannot use namespaced paramRef in policy binding that matches "
            "cluster-scoped resources"
        )
    )


def test_warn_validation_action() -> None:
    """``TestWarnValidationAction``: a warning, no error."""
    cp = world(policy(), binding(("Warn",)))
    warnings: list[str] = []
    from kbatch.apiserver.create import create_object

    create_object(cp.server, job(), warnings=warnings)
    assert warnings == [
        f"Validation failed for ValidatingAdmissionPolicy '{POLICY}' with binding '{BINDING}': I'm sorry Dave"
    ]


def test_audit_validation_action() -> None:
    """``TestAuditValidationAction``: neither an error nor a warning (kbatch keeps no audit log)."""
    cp = world(policy(), binding(("Audit",)))
    warnings: list[str] = []
    from kbatch.apiserver.create import create_object

    create_object(cp.server, job(), warnings=warnings)
    assert warnings == []


@pytest.mark.parametrize(("failure_policy", "admitted"), [("Fail", False), ("Ignore", True)])
def test_failure_policy_on_evaluation_error(failure_policy: str, admitted: bool) -> None:
    """validator_test.go ``TestValidate`` ("runtime error", failurePolicy Fail / Ignore)."""
    cp = world(
        policy([{"expression": "object.spec.nosuchfield == 1"}], failurePolicy=failure_policy), binding()
    )
    if admitted:
        cp.server.create(job())
    else:
        assert refused(cp, job()).message.endswith(
            denied("expression 'object.spec.nosuchfield == 1' resulted in error: no such key: nosuchfield")
        )


def test_message_falls_back_to_the_expression() -> None:
    """validator_test.go ``TestValidate`` ("no message"): ``failed expression: <expression>``."""
    cp = world(policy([{"expression": "object.metadata.name != 'pi'"}]), binding())
    assert refused(cp, job()).message.endswith(denied("failed expression: object.metadata.name != 'pi'"))


def test_reason_sets_the_status() -> None:
    """validator_test.go ``TestValidate`` (custom reason): the code follows the reason."""
    cp = world(policy([{"expression": "false", "reason": "Forbidden"}]), binding())
    err = refused(cp, job())
    assert (err.code, err.reason) == (403, "Forbidden")


def test_false_match_condition_skips_the_policy() -> None:
    """validator_test.go ``TestValidate`` (match conditions): one false condition, no decision."""
    conditions = [{"name": "only-labelled", "expression": "'queue' in object.metadata.?labels.orValue({})"}]
    cp = world(policy(matchConditions=conditions), binding())
    cp.server.create(job("unlabelled"))
    refused(cp, job("labelled", {"queue": "q"}))


def test_variables_compose() -> None:
    """validator_test.go ``TestValidate`` (variables): a variable read by a validation."""
    cp = world(
        policy(
            [
                {
                    "expression": "variables.count <= 2",
                    "messageExpression": "'too many: ' + string(variables.count)",
                }
            ],
            variables=[{"name": "count", "expression": "object.spec.completions"}],
        ),
        binding(),
    )
    assert refused(cp, job(completions=3)).message.endswith(denied("too many: 3"))


def test_binding_match_resources_narrow_the_policy() -> None:
    """matching_test.go: a binding's matchResources (namespaceSelector) narrows where it applies."""
    cp = world(
        Namespace.model_validate({"metadata": {"name": "prod", "labels": {"env": "prod"}}}),
        policy(),
        binding(matchResources={"namespaceSelector": {"matchLabels": {"env": "prod"}}}),
    )
    cp.server.create(job())  # default namespace: not selected
    prod = job("p")
    prod.metadata.namespace = "prod"
    refused(cp, prod)


def test_update_sees_the_old_object() -> None:
    """validator_test.go ``TestValidate`` (oldObject): on update ``oldObject`` is the stored object,
    on create it is null."""
    rule = "oldObject == null || object.spec.parallelism <= oldObject.spec.parallelism"
    cp = world(policy([{"expression": rule, "message": "parallelism may not grow"}]), binding())
    stored = cp.server.create(job())
    from kbatch.api import edit

    grown = edit(stored)
    grown.spec.parallelism = 5
    with pytest.raises(StatusError) as caught:
        cp.server.update(grown)
    assert caught.value.message.endswith(denied("parallelism may not grow"))
    assert cp.server.get(Job, "pi", "default").spec.parallelism == 1  # nothing written


def test_namespace_object_is_the_request_namespace() -> None:
    """validator_test.go ``TestValidate`` (namespaceObject): the namespace's labels are readable."""
    rule = "namespaceObject.metadata.?labels.?team.orValue('') == 'ml'"
    cp = world(
        Namespace.model_validate({"metadata": {"name": "ml", "labels": {"team": "ml"}}}),
        policy([{"expression": rule, "message": "ml namespaces only"}]),
        binding(),
    )
    ml = job("in-ml")
    ml.metadata.namespace = "ml"
    cp.server.create(ml)
    assert refused(cp, job()).message.endswith(denied("ml namespaces only"))


def test_user_info_match_condition_evaluates() -> None:
    """JobSet's site example ``in-place-restart/service-account.yaml`` guards pod updates with a
    match condition on ``request.userInfo.username``: it must evaluate (false for kbatch's
    requester), not fail, or ``failurePolicy: Fail`` would refuse every pod update."""
    target = "request.userInfo.username == 'system:serviceaccount:default:jobset-in-place-restart'"
    cp = world(
        policy(matchConditions=[{"name": "is-target-service-account", "expression": target}]), binding()
    )
    cp.server.create(job())
    who = policy([{"expression": "'system:masters' in request.userInfo.groups"}])
    who.metadata.name = "who"
    cp.server.create(who)
