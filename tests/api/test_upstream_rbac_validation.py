"""Translated cases of upstream ``pkg/apis/rbac/validation/validation_test.go`` (kubernetes/kubernetes;
the rows of ``TestValidateClusterRoleBinding``, ``TestValidateRoleBinding``,
``TestValidateRoleBindingUpdate`` and the ``TestValidateRole*`` functions), checked against the 1.37
``validation.go`` (``ValidateRBACName``, ``ValidatePolicyRule``, the ``aggregationRule`` checks of
``ValidateClusterRole``) and ``pkg/apis/rbac/v1/defaults.go``. Each object goes through an
:class:`APIServer` as a user's object goes; a rejection is read back as the 422's causes, and every
cause must have the row's field and type (upstream's loop checks each error).

Not translated: the two zero-length-namespace rows (a create through the API always has the request's
namespace: :func:`test_zero_length_namespace_is_the_requests`) and ``TestNonResourceURLCovers`` (the
escalation check's URL coverage; kbatch does not authorize requests, docs/rbac.md).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.errors import Invalid
from kbatch.api.meta import Resource
from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

GROUP = "rbac.authorization.k8s.io"
NOT_SUPPORTED, REQUIRED, INVALID = "FieldValueNotSupported", "FieldValueRequired", "FieldValueInvalid"


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(0))


def _causes(server: APIServer, obj: Resource) -> set[tuple[str, str]]:
    with pytest.raises(Invalid) as err:
        server.create(obj)
    assert err.value.status.code == 422
    return {(c["field"], c["reason"]) for c in err.value.status.to_dict()["details"]["causes"]}


def _meta(name: str | None, namespace: str | None) -> dict[str, Any]:
    return {k: v for k, v in (("name", name), ("namespace", namespace)) if v is not None}


def _crb(name: str | None, ref: dict[str, Any],
         subjects: list[dict[str, Any]] | None = None) -> ClusterRoleBinding:
    return ClusterRoleBinding.model_validate({"metadata": _meta(name, None), "roleRef": ref,
                                              "subjects": subjects})


def _rb(name: str | None, ref: dict[str, Any], subjects: list[dict[str, Any]] | None = None,
        namespace: str | None = "default") -> RoleBinding:
    return RoleBinding.model_validate({"metadata": _meta(name, namespace), "roleRef": ref,
                                       "subjects": subjects})


VALID_CLUSTER_REF = {"apiGroup": GROUP, "kind": "ClusterRole", "name": "valid"}
VALID_ROLE_REF = {"apiGroup": GROUP, "kind": "Role", "name": "valid"}


# -- TestValidateClusterRoleBinding -----------------------------------------------------------------

def test_cluster_role_binding_success() -> None:
    created = _server().create(_crb("master", VALID_CLUSTER_REF, [
        {"name": "validsaname", "namespace": "foo", "kind": "ServiceAccount"},
        {"name": "valid@username", "kind": "User"},
        {"name": "valid@groupname", "kind": "Group"}]))
    # SetDefaults_Subject: Users and Groups get the rbac api group, a ServiceAccount none
    assert [s.api_group for s in created.subjects or ()] == [None, GROUP, GROUP]


@pytest.mark.parametrize(("case", "name", "ref", "subjects", "want"), [
    ("bad group", "default", {"apiGroup": "rbac.GroupName", "kind": "ClusterRole", "name": "valid"}, None,
     ("roleRef.apiGroup", NOT_SUPPORTED)),
    ("bad kind", "default", {"apiGroup": GROUP, "kind": "Type", "name": "valid"}, None,
     ("roleRef.kind", NOT_SUPPORTED)),
    ("reference role", "default", VALID_ROLE_REF, None, ("roleRef.kind", NOT_SUPPORTED)),
    ("zero-length name", None, VALID_CLUSTER_REF, None, ("metadata.name", REQUIRED)),
    ("bad role", "default", {"apiGroup": GROUP, "kind": "ClusterRole"}, None, ("roleRef.name", REQUIRED)),
    ("bad subject kind", "master", VALID_CLUSTER_REF, [{"name": "subject"}],
     ("subjects[0].kind", NOT_SUPPORTED)),
    ("bad subject name", "master", VALID_CLUSTER_REF,
     [{"namespace": "foo", "name": "subject:bad", "kind": "ServiceAccount"}], ("subjects[0].name", INVALID)),
    ("missing SA namespace", "master", VALID_CLUSTER_REF, [{"name": "good", "kind": "ServiceAccount"}],
     ("subjects[0].namespace", REQUIRED)),
    ("missing subject name", "master", VALID_CLUSTER_REF, [{"namespace": "foo", "kind": "ServiceAccount"}],
     ("subjects[0].name", REQUIRED)),
])
def test_cluster_role_binding_error_cases(case: str, name: str | None, ref: dict[str, Any],
                                          subjects: list[dict[str, Any]] | None,
                                          want: tuple[str, str]) -> None:
    assert _causes(_server(), _crb(name, ref, subjects)) == {want}


# -- TestValidateRoleBinding ------------------------------------------------------------------------

def test_role_binding_success() -> None:
    created = _server().create(_rb("master", VALID_ROLE_REF, [
        {"name": "validsaname", "kind": "ServiceAccount"},
        {"name": "valid@username", "kind": "User"},
        {"name": "valid@groupname", "kind": "Group"}]))
    assert created.role_ref.name == "valid"


@pytest.mark.parametrize(("case", "name", "namespace", "ref", "subjects", "want"), [
    ("bad group", "default", "default",
     {"apiGroup": "rbac.GroupName", "kind": "ClusterRole", "name": "valid"}, None,
     ("roleRef.apiGroup", NOT_SUPPORTED)),
    ("bad kind", "default", "default", {"apiGroup": GROUP, "kind": "Type", "name": "valid"}, None,
     ("roleRef.kind", NOT_SUPPORTED)),
    ("zero-length name", None, "default", VALID_ROLE_REF, None, ("metadata.name", REQUIRED)),
    ("bad role", "default", "default", {"apiGroup": GROUP, "kind": "Role"}, None, ("roleRef.name", REQUIRED)),
    ("bad subject kind", "master", "default", VALID_ROLE_REF, [{"name": "subject"}],
     ("subjects[0].kind", NOT_SUPPORTED)),
    ("bad subject name", "master", "default", VALID_ROLE_REF,
     [{"name": "subject:bad", "kind": "ServiceAccount"}],
     ("subjects[0].name", INVALID)),
    ("missing subject name", "master", "default", VALID_ROLE_REF, [{"kind": "ServiceAccount"}],
     ("subjects[0].name", REQUIRED)),
])
def test_role_binding_error_cases(case: str, name: str | None, namespace: str | None, ref: dict[str, Any],
                                  subjects: list[dict[str, Any]] | None, want: tuple[str, str]) -> None:
    assert _causes(_server(), _rb(name, ref, subjects, namespace)) == {want}


# -- TestValidateRoleBindingUpdate ------------------------------------------------------------------

def test_role_binding_update_keeps_role_ref() -> None:
    server = _server()
    old = server.create(_rb("master", VALID_ROLE_REF))
    same = _rb("master", VALID_ROLE_REF)
    same.metadata.resource_version = old.metadata.resource_version
    assert server.update(same).role_ref == old.role_ref


@pytest.mark.parametrize("kind", [RoleBinding, ClusterRoleBinding])
def test_role_binding_update_changed_ref(kind: type[Resource]) -> None:
    """Row "changedRef" (``ValidateRoleBindingUpdate``; ``ValidateClusterRoleBindingUpdate`` alike)."""
    server = _server()
    namespace = "default" if kind is RoleBinding else None
    ref = VALID_ROLE_REF if kind is RoleBinding else VALID_CLUSTER_REF
    old = server.create(kind.model_validate({"metadata": _meta("master", namespace), "roleRef": ref}))
    changed = kind.model_validate({"metadata": {**_meta("master", namespace),
                                                "resourceVersion": old.metadata.resource_version},
                                   "roleRef": {**ref, "name": "changed"}})
    with pytest.raises(Invalid) as err:
        server.update(changed)
    causes = err.value.status.to_dict()["details"]["causes"]
    assert [(c["field"], c["reason"], c["message"].endswith("cannot change roleRef")) for c in causes] == \
        [("roleRef", INVALID, True)]


# -- TestValidateRole* ------------------------------------------------------------------------------

def _role(namespace: str | None, name: str | None, rules: list[dict[str, Any]] | None = None) -> Resource:
    model = Role if namespace is not None else ClusterRole
    return model.model_validate({"metadata": _meta(name, namespace), "rules": rules})


@pytest.mark.parametrize(("case", "namespace", "name", "rules"), [
    ("TestValidateRoleValidRole", "default", "default", None),
    ("TestValidateRoleValidRoleNoNamespace", None, "default", None),
    ("TestValidateRoleNonResourceURL", None, "default", [{"verbs": ["get"], "nonResourceURLs": ["/*"]}]),
    ("TestValidateRoleValidResource", "default", "default",
     [{"verbs": ["get"], "apiGroups": ["v1"], "resources": ["pods"]}]),
])
def test_role_success_cases(case: str, namespace: str | None, name: str | None,
                            rules: list[dict[str, Any]] | None) -> None:
    assert _server().create(_role(namespace, name, rules)).metadata.name == name


@pytest.mark.parametrize(("case", "namespace", "name", "rules", "want"), [
    ("TestValidateRoleZeroLengthName", "default", None, None, ("metadata.name", REQUIRED)),
    ("TestValidateRoleNamespacedNonResourceURL", "default", "default",
     [{"verbs": ["get"], "nonResourceURLs": ["/*"]}], ("rules[0].nonResourceURLs", INVALID)),
    ("TestValidateRoleNonResourceURLNoVerbs", None, "default", [{"verbs": [], "nonResourceURLs": ["/*"]}],
     ("rules[0].verbs", REQUIRED)),
    ("TestValidateRoleMixedNonResourceAndResource", None, "default",
     [{"verbs": ["get"], "nonResourceURLs": ["/*"], "apiGroups": ["v1"], "resources": ["pods"]}],
     ("rules[0].nonResourceURLs", INVALID)),
    ("TestValidateRoleNoAPIGroup", "default", "default", [{"verbs": ["get"], "resources": ["pods"]}],
     ("rules[0].apiGroups", REQUIRED)),
    ("TestValidateRoleNoResources", "default", "default", [{"verbs": ["get"], "apiGroups": ["v1"]}],
     ("rules[0].resources", REQUIRED)),
])
def test_role_error_cases(case: str, namespace: str | None, name: str | None,
                          rules: list[dict[str, Any]] | None, want: tuple[str, str]) -> None:
    assert _causes(_server(), _role(namespace, name, rules)) == {want}


@pytest.mark.parametrize("obj", [_rb("default", VALID_ROLE_REF, namespace=None),
                                 Role.model_validate({"metadata": {"name": "default"}})])
def test_zero_length_namespace_is_the_requests(obj: Resource) -> None:
    """Rows "zero-length namespace" (TestValidateRoleBinding) and TestValidateRoleZeroLengthNamespace
    do not translate: through the API a namespaced create always has the request's namespace (the
    URL's; kbatch's clients default it to ``default``), so validation never sees an empty one."""
    assert _server().create(obj).metadata.namespace == "default"


# -- ValidateRBACName (path segments), ValidateClusterRole's aggregationRule ---------------------------

@pytest.mark.parametrize("name", ["system:aggregate-to-admin", "system:coredns", "Upper_Case", "a b"])
def test_rbac_names_are_path_segments(name: str) -> None:
    """``ValidateRBACName`` is ``path.IsValidPathSegmentName``: not a DNS-1123 subdomain."""
    assert _server().create(_role(None, name)).metadata.name == name


@pytest.mark.parametrize(("name", "message"), [("..", "may not be '..'"), ("a/b", "may not contain '/'"),
                                               ("a%b", "may not contain '%'")])
def test_rbac_names_that_are_not_path_segments(name: str, message: str) -> None:
    with pytest.raises(Invalid) as err:
        _server().create(_role("default", name))
    causes = err.value.status.to_dict()["details"]["causes"]
    assert [(c["field"], c["message"].endswith(message)) for c in causes] == [("metadata.name", True)]


def test_aggregation_rule_needs_a_selector() -> None:
    role = ClusterRole.model_validate({"metadata": {"name": "agg"}, "aggregationRule": {}})
    assert _causes(_server(), role) == {("aggregationRule.clusterRoleSelectors", REQUIRED)}


def test_aggregation_rule_selector_is_validated() -> None:
    selector = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["not a value!"]}]}
    role = ClusterRole.model_validate({"metadata": {"name": "agg"},
                                       "aggregationRule": {"clusterRoleSelectors": [selector]}})
    fields = _causes(_server(), role)
    assert fields == {("aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]", INVALID)}
