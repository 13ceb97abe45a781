"""MutatingAdmissionPolicy through kbatch's API: the cases of the upstream docs page "Mutating Admission
Policy" (kubernetes.io/docs/reference/access-authn-authz/mutating-admission-policy: a sidecar by
apply configuration and by JSON patch, parameters, labels, key escaping), failure policies, match
conditions, reinvocation, and the kinds' validation (``pkg/apis/admissionregistration/validation``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ConfigMap, Pod
from kbatch.api.errors import Invalid, NotFound, StatusError

PODS = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]
NO_SIDECAR = (
    "!has(object.spec.initContainers) || !object.spec.initContainers.exists(ic, ic.name == 'mesh-proxy')"
)


def apply(expression: str) -> dict[str, Any]:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def patch(expression: str) -> dict[str, Any]:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


def policy(
    name: str, *mutations: dict[str, Any], rules: list[dict[str, Any]] | None = None, **spec: Any
) -> MutatingAdmissionPolicy:
    body = {
        "matchConstraints": {"resourceRules": rules or PODS},
        "reinvocationPolicy": "Never",
        "mutations": list(mutations),
        **spec,
    }
    return MutatingAdmissionPolicy.model_validate({"metadata": {"name": name}, "spec": body})


def binding(name: str, **spec: Any) -> MutatingAdmissionPolicyBinding:
    return MutatingAdmissionPolicyBinding.model_validate(
        {"metadata": {"name": name}, "spec": {"policyName": name, **spec}}
    )


def pod(name: str = "p", labels: dict[str, str] | None = None, **spec: Any) -> Pod:
    body = {"containers": [{"name": "c", "image": "busybox"}], **spec}
    return Pod.model_validate(
        {"metadata": {"name": name, "namespace": "default", "labels": labels or {}}, "spec": body}
    )


def world(*objects: Any) -> ControlPlane:
    cp = ControlPlane()
    for obj in objects:
        cp.server.create(obj)
    return cp


def made(cp: ControlPlane, obj: Any) -> dict[str, Any]:
    cp.server.create(obj)
    got = cp.server.get(type(obj), obj.metadata.name, obj.metadata.namespace)
    return json.loads(got.to_json())  # type: ignore[no-any-return]


SIDECAR_APPLY = apply(
    "Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: 'mesh-proxy', "
    "image: 'mesh/proxy:v1.0.0', restartPolicy: 'Always'}]}}"
)
SIDECAR_PATCH = patch(
    "[JSONPatch{op: 'add', path: '/spec/initContainers', value: []}, "
    "JSONPatch{op: 'add', path: '/spec/initContainers/-', value: Object.spec.initContainers{"
    "name: 'mesh-proxy', image: params.data.image, restartPolicy: 'Always'}}]"
)


def test_docs_sidecar_by_apply_configuration() -> None:
    cp = world(
        policy("sidecar", SIDECAR_APPLY, matchConditions=[{"name": "no-sidecar", "expression": NO_SIDECAR}]),
        binding("sidecar"),
    )
    init = made(cp, pod())["spec"]["initContainers"]
    assert [(c["name"], c["image"], c["restartPolicy"]) for c in init] == [
        ("mesh-proxy", "mesh/proxy:v1.0.0", "Always")
    ]
    assert init[0]["imagePullPolicy"] == "IfNotPresent"  # the patched object is defaulted (dispatchOne)


def test_docs_sidecar_by_json_patch_with_a_param() -> None:
    params = ConfigMap.model_validate(
        {"metadata": {"name": "sidecar", "namespace": "default"}, "data": {"image": "mesh/proxy:v2"}}
    )
    cp = world(
        params,
        policy(
            "sidecar",
            SIDECAR_PATCH,
            paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
            matchConditions=[{"name": "no-sidecar", "expression": NO_SIDECAR}],
        ),
        binding("sidecar", paramRef={"name": "sidecar", "parameterNotFoundAction": "Deny"}),
    )
    assert [c["image"] for c in made(cp, pod())["spec"]["initContainers"]] == ["mesh/proxy:v2"]
    with_one = pod("q", initContainers=[{"name": "mesh-proxy", "image": "mine", "restartPolicy": "Always"}])
    assert [c["image"] for c in made(cp, with_one)["spec"]["initContainers"]] == ["mine"]  # condition false


def test_labels_by_apply_configuration_and_escaped_json_patch_keys() -> None:
    cp = world(
        policy(
            "labels",
            apply("Object{metadata: Object.metadata{labels: {'team': 'a'}}}"),
            patch(
                "[JSONPatch{op: 'add', path: '/metadata/labels/' + "
                "jsonpatch.escapeKey('example.com/env'), value: 'prod'}]"
            ),
        ),
        binding("labels"),
    )
    assert made(cp, pod(labels={"x": "1"}))["metadata"]["labels"] == {
        "x": "1",
        "team": "a",
        "example.com/env": "prod",
    }


def test_a_json_patch_reads_the_object_as_the_unstructured_converter_writes_it() -> None:
    """``object`` is ``DefaultUnstructuredConverter.ToUnstructured`` of the typed pod (apiserver
    ``pkg/admission/plugin/cel/filter.go`` ``objectToResolveVal``): a container without resources
    has ``resources: {}``, so adding ``/resources/requests`` finds its parent, and ``has()`` on it
    is false rather than an error."""
    cp = world(
        policy(
            "requests",
            patch(
                "object.spec.containers.all(c, !has(c.resources.requests)) ? "
                "[JSONPatch{op: 'add', path: '/spec/containers/0/resources/requests', "
                "value: {'cpu': '100m'}}] : []"
            ),
        ),
        binding("requests"),
    )
    assert made(cp, pod())["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}


def test_image_pull_policy_always() -> None:
    cp = world(
        policy(
            "pull",
            apply(
                "Object{spec: Object.spec{containers: object.spec.containers.map(c, "
                "Object.spec.containers{name: c.name, imagePullPolicy: 'Always'})}}"
            ),
        ),
        binding("pull"),
    )
    got = made(cp, pod(containers=[{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]))
    assert [c["imagePullPolicy"] for c in got["spec"]["containers"]] == ["Always", "Always"]


def test_update_is_mutated_too() -> None:
    rules = [{"apiGroups": ["batch"], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["jobs"]}]
    cp = world(
        policy(
            "touched",
            apply("Object{metadata: Object.metadata{annotations: {'touched': 'yes'}}}"),
            rules=rules,
        ),
        binding("touched"),
    )
    job = Job.model_validate(
        {
            "metadata": {"name": "j", "namespace": "default"},
            "spec": {
                "suspend": True,
                "template": {
                    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
                },
            },
        }
    )
    created = cp.server.create(job)
    assert not (created.metadata.annotations or {})
    changed = Job.model_validate(
        {
            **json.loads(created.to_json()),
            "metadata": {**json.loads(created.to_json())["metadata"], "labels": {"a": "b"}},
        }
    )
    assert cp.server.update(changed).metadata.annotations == {"touched": "yes"}


def test_failing_expression_with_fail_refuses_and_writes_nothing() -> None:
    cp = world(
        policy("bad", apply("Object{metadata: Object.metadata{labels: {'x': object.spec.nope}}}")),
        binding("bad"),
    )
    with pytest.raises(StatusError) as caught:
        cp.server.create(pod())
    err = caught.value
    assert (err.code, err.reason) == (403, "Invalid")
    assert err.message == (
        "policy 'bad' with binding 'bad' denied request: expression "
        "'Object{metadata: Object.metadata{labels: {'x': object.spec.nope}}}' resulted in error: "
        "no such key: nope"
    )
    assert err.status.details is not None and err.status.details.causes is not None
    assert [c.message for c in err.status.details.causes] == [err.message]
    with pytest.raises(NotFound):
        cp.server.get(Pod, "p", "default")


def test_failing_expression_with_ignore_admits_the_request_unchanged() -> None:
    cp = world(
        policy(
            "bad",
            apply("Object{metadata: Object.metadata{labels: {'x': object.spec.nope}}}"),
            apply("Object{metadata: Object.metadata{labels: {'y': 'ok'}}}"),
            failurePolicy="Ignore",
        ),
        binding("bad"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {
        "y": "ok"
    }  # the failing mutation is skipped, not the rest


def test_strict_decoding_of_the_patched_object() -> None:
    """``jsonPatch invalid CEL initializer field`` (json_patch_test.go): an unknown field is refused."""
    cp = world(
        policy(
            "z",
            patch(
                "[JSONPatch{op: 'add', path: '/spec/containers/-', value: "
                "Object.spec.containers{name: 'x', image: 'i', "
                "ports: [Object.spec.containers.ports{containerPortZ: 8080}]}}]"
            ),
        ),
        binding("z"),
    )
    with pytest.raises(StatusError, match=r"policy 'z' with binding 'z' denied request: .*containerPortZ"):
        cp.server.create(pod())


def test_missing_param_follows_the_failure_policy() -> None:
    spec = {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}
    ref = {"paramRef": {"name": "absent", "parameterNotFoundAction": "Deny"}}
    cp = world(policy("p", SIDECAR_PATCH, **spec), binding("p", **ref))
    with pytest.raises(StatusError) as caught:
        cp.server.create(pod())
    assert caught.value.message == (
        "policy 'p' with binding 'p' denied request: failed to configure binding: no "
        "params found for policy binding with `Deny` parameterNotFoundAction"
    )
    assert (caught.value.code, caught.value.reason) == (403, "Forbidden")


def test_binding_match_resources_narrow_the_policy() -> None:
    selector = {"objectSelector": {"matchLabels": {"mutate": "yes"}}}
    cp = world(
        policy("l", apply("Object{metadata: Object.metadata{labels: {'done': 'yes'}}}")),
        binding("l", matchResources=selector),
    )
    assert made(cp, pod("a", labels={"mutate": "yes"}))["metadata"]["labels"] == {
        "mutate": "yes",
        "done": "yes",
    }
    assert made(cp, pod("b"))["metadata"].get("labels") is None


READS_B = apply("Object{metadata: Object.metadata{labels: {'a': object.metadata.?labels.b.orValue('none')}}}")
SETS_B = apply("Object{metadata: Object.metadata{labels: {'b': 'set'}}}")


@pytest.mark.parametrize(("reinvocation", "want"), [("IfNeeded", "set"), ("Never", "none")])
def test_reinvocation_if_needed_sees_a_later_policys_change(reinvocation: str, want: str) -> None:
    cp = world(
        policy("a-first", READS_B, reinvocationPolicy=reinvocation),
        binding("a-first"),
        policy("b-second", SETS_B),
        binding("b-second"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {"a": want, "b": "set"}


def test_reinvocation_is_bounded() -> None:
    """Two IfNeeded policies that keep changing each other's input run at most twice each: the second
    pass is the last, so a counter each one bumps ends at 2, not in a loop."""
    bump = (
        "Object{{metadata: Object.metadata{{labels: {{'{k}': string(int(object.metadata.?labels['{k}']"
        ".orValue('0')) + 1)}}}}}}"
    )
    cp = world(
        policy("a", apply(bump.format(k="a")), reinvocationPolicy="IfNeeded"),
        binding("a"),
        policy("b", apply(bump.format(k="b")), reinvocationPolicy="IfNeeded"),
        binding("b"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {"a": "2", "b": "2"}


def test_in_tree_plugins_run_again_after_a_mutation() -> None:
    """Reinvocation runs every mutating plugin again: the ServiceAccount plugin mounts its token into
    the init container the policy added, once."""
    cp = world(policy("sidecar", SIDECAR_APPLY), binding("sidecar"))
    got = made(cp, pod())
    assert [m["mountPath"] for m in got["spec"]["initContainers"][0]["volumeMounts"]] == [
        "/var/run/secrets/kubernetes.io/serviceaccount"
    ]
    assert len(got["spec"]["volumes"]) == 1


@pytest.mark.parametrize(
    ("spec", "errors"),
    [
        ({"mutations": []}, ["spec.mutations: Required value: mutations must contain at least one item"]),
        ({"reinvocationPolicy": None}, ["spec.reinvocationPolicy: Required value"]),
        (
            {"reinvocationPolicy": "Sometimes"},
            [
                'spec.reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", '
                '"Never"'
            ],
        ),
        (
            {"mutations": [{"patchType": "Merge"}]},
            [
                'spec.mutations[0].patchType: Unsupported value: "Merge": supported values: '
                '"ApplyConfiguration", '
                '"JSONPatch"'
            ],
        ),
        (
            {"mutations": [{"patchType": "JSONPatch"}]},
            ["spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch"],
        ),
        (
            {"mutations": [{**patch("[]"), "applyConfiguration": {"expression": "Object{}"}}]},
            [
                "spec.mutations[0].applyConfiguration: Forbidden: must not be specified when patchType "
                "is JSONPatch"
            ],
        ),
        (
            {"mutations": [apply("'x'")]},
            [
                "spec.mutations[0].applyConfiguration.expression: Invalid value: \"'x'\": must evaluate "
                "to Object but "
                "got string"
            ],
        ),
        (
            {"mutations": [patch("[JSONPatch{opp: 'add'}]")]},
            [
                "spec.mutations[0].jsonPatch.expression: Invalid value: \"[JSONPatch{opp: 'add'}]\": "
                "compilation failed: "
                "ERROR: <input>:1:12: undefined field 'opp'\n | [JSONPatch{opp: 'add'}]\n | ...........^"
            ],
        ),
        (
            {"failurePolicy": "Maybe"},
            ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
        ),
    ],
    ids=[
        "no mutations",
        "no reinvocationPolicy",
        "bad reinvocationPolicy",
        "bad patchType",
        "no member",
        "both members",
        "not an Object",
        "JSONPatch field",
        "failurePolicy",
    ],
)
def test_policy_validation(spec: dict[str, Any], errors: list[str]) -> None:
    body: dict[str, Any] = {
        "matchConstraints": {"resourceRules": PODS},
        "reinvocationPolicy": "Never",
        "mutations": [SIDECAR_APPLY],
    }
    body.update(spec)
    obj = MutatingAdmissionPolicy.model_validate({"metadata": {"name": "v"}, "spec": body})
    with pytest.raises(Invalid) as caught:
        ControlPlane().server.create(obj)
    assert [str(e) for e in caught.value.errors] == errors
    assert caught.value.message.startswith(
        'MutatingAdmissionPolicy.admissionregistration.k8s.io "v" is invalid'
    )


def test_binding_validation() -> None:
    obj = MutatingAdmissionPolicyBinding.model_validate(
        {"metadata": {"name": "b"}, "spec": {"paramRef": {"name": "x"}}}
    )
    with pytest.raises(Invalid) as caught:
        ControlPlane().server.create(obj)
    assert [str(e) for e in caught.value.errors] == [
        "spec.policyName: Required value",
        "spec.paramRef.parameterNotFoundAction: Required value",
    ]


def test_defaults_and_printer_columns() -> None:
    cp = world(
        policy("sidecar", SIDECAR_APPLY, SIDECAR_PATCH, paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    )
    stored = cp.server.get(MutatingAdmissionPolicy, "sidecar")
    assert stored.spec.failure_policy == "Fail"
    assert (
        stored.spec.match_constraints is not None
        and stored.spec.match_constraints.match_policy == "Equivalent"
    )
    from kbatch.families.admission_policy.printers import MUTATING_POLICY

    assert [c.name for c in MUTATING_POLICY.columns] == ["Name", "Mutations", "ParamKind", "Age"]
    cells = MUTATING_POLICY.cells(json.loads(stored.to_json()), stored.metadata.creation_timestamp)  # type: ignore[arg-type]
    assert cells[:3] == ["sidecar", 2, "v1/ConfigMap"]


# Rows of upstream's dispatcher_test.go (``TestDispatcher``), a Pod for the Deployment; policies are
# invoked in name order here as in upstream's hook order.
COUNT = (
    "Object{{metadata: Object.metadata{{labels: {{'{name}': string(int(object.?metadata.labels['count']"
    ".orValue('1')) + 1)}}}}}}"
)
SET_ENV = apply("Object{metadata: Object.metadata{labels: {'environment': 'production'}}}")
PROD_ONLY = [
    {"name": "prodonly", "expression": "object.?metadata.labels['environment'].orValue('') == 'production'"}
]
MARK = apply("Object{metadata: Object.metadata{labels: {'policy1invoked': 'true'}}}")


def test_dispatcher_both_policies_invoked() -> None:
    cp = world(
        policy("policy1", apply(COUNT.format(name="policy1"))),
        binding("policy1"),
        policy("policy2", apply(COUNT.format(name="policy2"))),
        binding("policy2"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {"policy1": "2", "policy2": "2"}


def test_dispatcher_first_policy_sets_the_match_condition_the_second_matches() -> None:
    cp = world(
        policy("policy1", SET_ENV),
        binding("policy1"),
        policy("policy2", MARK, matchConditions=PROD_ONLY),
        binding("policy2"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {"environment": "production", "policy1invoked": "true"}


def test_dispatcher_first_policy_still_does_not_match_after_the_second_sets_its_condition() -> None:
    cp = world(
        policy("policy1", MARK, matchConditions=PROD_ONLY),
        binding("policy1"),
        policy("policy2", SET_ENV),
        binding("policy2"),
    )
    assert made(cp, pod())["metadata"]["labels"] == {"environment": "production"}


def test_the_writer_does_not_own_what_a_policy_adds() -> None:
    """Upstream's handler records the writer's fields once, before admission; the chain's second pass
    (reinvocation) re-runs admission plugins only, so the label a policy adds stays unowned."""
    from kbatch.apiserver.apply.tracking import field_manager

    cp = world(
        policy("team", apply("Object{metadata: Object.metadata{labels: {'team': 'a'}}}")), binding("team")
    )
    with field_manager("me"):
        cp.server.create(pod(labels={"app": "web"}))
    got = cp.server.get(Pod, "p", "default")
    assert got.metadata.labels == {"app": "web", "team": "a"}
    (entry,) = got.metadata.managed_fields or []
    owned = json.dumps(entry.to_dict()["fieldsV1"])
    assert entry.manager == "me" and '"f:app"' in owned and '"f:team"' not in owned
