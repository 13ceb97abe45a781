"""RBAC's escalation check on writes of roles and bindings by an impersonated user, over HTTP
(Kubernetes 1.37 ``pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/
storage.go``, ``pkg/registry/rbac/escalation_check.go``, ``pkg/registry/rbac/validation/rule.go``
``ConfirmNoEscalation``). A request that impersonates no one is ``system:masters``' and unchecked."""

from __future__ import annotations

from typing import Any

from kbatch.server.facade import ControlPlaneBackend, new_control_plane

RBAC = "/apis/rbac.authorization.k8s.io/v1"
JANE = {"impersonate-user": "jane"}


def rule(verbs: list[str], resources: list[str], group: str = "", **extra: Any) -> dict[str, Any]:
    return {"verbs": verbs, "apiGroups": [group], "resources": resources, **extra}


def role(name: str, rules: list[Any], kind: str = "Role") -> dict[str, Any]:
    meta = {"name": name} if kind == "ClusterRole" else {"name": name, "namespace": "default"}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta, "rules": rules}


def binding(name: str, ref_kind: str, ref_name: str, subject: str = "jane",
            kind: str = "RoleBinding") -> dict[str, Any]:
    meta = {"name": name} if kind == "ClusterRoleBinding" else {"name": name, "namespace": "default"}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": ref_name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": subject}]}


def grant(api: Any, name: str, rules: list[Any]) -> None:
    """Give jane ``rules`` in ``default`` (written as system:masters)."""
    assert api.post(f"{RBAC}/namespaces/default/roles", json=role(name, rules)).status_code == 201
    assert api.post(f"{RBAC}/namespaces/default/rolebindings",
                    json=binding(name, "Role", name)).status_code == 201


WRITE_ROLES = rule(["create", "update", "get"], ["roles", "rolebindings"], "rbac.authorization.k8s.io")


def test_a_role_with_rules_the_user_holds_is_created(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES, rule(["get", "list"], ["pods"])])
    out = api.post(f"{RBAC}/namespaces/default/roles", headers=JANE,
                   json=role("reader", [rule(["get"], ["pods"])]))
    assert out.status_code == 201, out.json()


def test_a_role_with_rules_the_user_lacks_is_forbidden(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES, rule(["get"], ["pods"])])
    out = api.post(f"{RBAC}/namespaces/default/roles", headers=JANE,
                   json=role("deleter", [rule(["get", "delete", "list"], ["pods"]),
                                         rule(["get"], ["secrets"], resourceNames=["s"])]))
    assert out.status_code == 403
    assert out.json()["details"] == {"name": "deleter", "group": "rbac.authorization.k8s.io", "kind": "roles"}
    assert out.json()["message"] == (
        'roles.rbac.authorization.k8s.io "deleter" is forbidden: user "jane" '
        '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "list"]}\n'
        '{APIGroups:[""], Resources:["secrets"], ResourceNames:["s"], Verbs:["get"]}')
    assert api.get(f"{RBAC}/namespaces/default/roles/deleter").status_code == 404


def test_the_escalate_verb_lifts_the_check(api: Any) -> None:
    """``RoleEscalationAuthorized``: ``escalate`` on ``roles`` in the request's namespace."""
    grant(api, "jane", [WRITE_ROLES, rule(["escalate"], ["roles"], "rbac.authorization.k8s.io")])
    out = api.post(f"{RBAC}/namespaces/default/roles", headers=JANE,
                   json=role("any", [rule(["*"], ["*"], "*")]))
    assert out.status_code == 201, out.json()


def test_an_update_is_checked_too(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES, rule(["get"], ["pods"])])
    created = api.post(f"{RBAC}/namespaces/default/roles", headers=JANE,
                       json=role("reader", [rule(["get"], ["pods"])])).json()
    wider = {**created, "rules": [rule(["get", "watch"], ["pods"])]}
    out = api.request("PUT", f"{RBAC}/namespaces/default/roles/reader", headers=JANE, json=wider)
    assert out.status_code == 403
    assert out.json()["message"].endswith('\n{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}')


def test_an_update_of_finalizers_alone_is_not_checked(api: Any) -> None:
    """``IsOnlyMutatingGCFields``: what the garbage collector changes needs no rules."""
    api.post(f"{RBAC}/namespaces/default/roles", json=role("wide", [rule(["*"], ["*"], "*")]))
    grant(api, "jane", [WRITE_ROLES])
    stored = api.get(f"{RBAC}/namespaces/default/roles/wide").json()
    stored["metadata"]["finalizers"] = ["example.com/keep"]
    out = api.request("PUT", f"{RBAC}/namespaces/default/roles/wide", headers=JANE, json=stored)
    assert out.status_code == 200, out.json()


def test_binding_a_role_the_user_does_not_hold_is_forbidden(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES, rule(["get"], ["pods"])])
    api.post(f"{RBAC}/clusterroles", json=role("jobs", [rule(["get", "list", "watch"], ["jobs"], "batch"),
                                                        rule(["get"], ["pods"])], kind="ClusterRole"))
    out = api.post(f"{RBAC}/namespaces/default/rolebindings", headers=JANE,
                   json=binding("view", "ClusterRole", "jobs", subject="bob"))
    assert out.status_code == 403
    message = out.json()["message"]
    assert message.startswith('rolebindings.rbac.authorization.k8s.io "view" is forbidden: user "jane" '
                              '(groups=["system:authenticated"]) is attempting to grant RBAC permissions '
                              "not currently held:\n")
    missing = '{APIGroups:["batch"], Resources:["jobs"], Verbs:["get" "list" "watch"]}'
    assert message.split("\n")[1:] == [missing]


def test_binding_a_role_the_user_holds_is_allowed(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES, rule(["get"], ["pods"])])
    api.post(f"{RBAC}/namespaces/default/roles", json=role("pods", [rule(["get"], ["pods"])]))
    out = api.post(f"{RBAC}/namespaces/default/rolebindings", headers=JANE,
                   json=binding("bob-pods", "Role", "pods", subject="bob"))
    assert out.status_code == 201, out.json()


def test_the_bind_verb_on_the_role_lifts_the_check(api: Any) -> None:
    """``BindingAuthorized``: ``bind`` on ``clusterroles`` named ``wide`` in the binding's namespace."""
    grant(api, "jane", [WRITE_ROLES, rule(["bind"], ["clusterroles"], "rbac.authorization.k8s.io",
                                          resourceNames=["wide"])])
    for name in ("wide", "wider"):
        api.post(f"{RBAC}/clusterroles", json=role(name, [rule(["*"], ["*"], "*")], kind="ClusterRole"))
    out = api.post(f"{RBAC}/namespaces/default/rolebindings", headers=JANE,
                   json=binding("wide", "ClusterRole", "wide", subject="bob"))
    assert out.status_code == 201, out.json()
    other = api.post(f"{RBAC}/namespaces/default/rolebindings", headers=JANE,
                     json=binding("wider", "ClusterRole", "wider", subject="bob"))
    assert other.status_code == 403


def test_binding_a_missing_role_is_not_found(api: Any) -> None:
    grant(api, "jane", [WRITE_ROLES])
    out = api.post(f"{RBAC}/namespaces/default/rolebindings", headers=JANE,
                   json=binding("b", "Role", "nope", subject="bob"))
    assert out.status_code == 404
    assert out.json()["message"] == 'roles.rbac.authorization.k8s.io "nope" not found'


def test_an_aggregation_rule_needs_every_permission(api: Any) -> None:
    """clusterrole/policybased: an ``aggregationRule`` can gather anything, so it needs ``*`` on
    everything (checked in the request's namespace, none for a ClusterRole)."""
    crb = binding("jane-roles", "ClusterRole", "role-writer", kind="ClusterRoleBinding")
    api.post(f"{RBAC}/clusterroles", json=role("role-writer", [rule(["create"], ["clusterroles"],
                                                                     "rbac.authorization.k8s.io")],
                                                 kind="ClusterRole"))
    api.post(f"{RBAC}/clusterrolebindings", json=crb)
    aggregated = {**role("agg", [], kind="ClusterRole"),
                  "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]}}
    out = api.post(f"{RBAC}/clusterroles", headers=JANE, json=aggregated)
    assert out.status_code == 403
    assert out.json()["message"] == ('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have '
                                     "cluster-admin privileges to use the aggregationRule")


def test_system_masters_is_not_checked(api: Any) -> None:
    """``EscalationAllowed``: an impersonated member of ``system:masters`` may grant anything."""
    out = api.post(f"{RBAC}/namespaces/default/roles",
                   headers={**JANE, "impersonate-group": "system:masters"},
                   json=role("any", [rule(["*"], ["*"], "*")]))
    assert out.status_code == 201, out.json()


def test_the_controllers_a_write_wakes_are_not_the_user(make_api: Any) -> None:
    """The writes the controllers make after jane's write (the aggregation controller filling
    ``view`` from her role) are the control plane's, as kube-controller-manager's are, not jane's."""
    api = make_api(ControlPlaneBackend(new_control_plane(controllers="clusterrole-aggregation")))
    api.post(f"{RBAC}/clusterroles", json=role("cr-writer", [
        rule(["create"], ["clusterroles"], "rbac.authorization.k8s.io"), rule(["get"], ["secrets"])],
        kind="ClusterRole"))
    api.post(f"{RBAC}/clusterrolebindings", json=binding("jane-cr", "ClusterRole", "cr-writer",
                                                          kind="ClusterRoleBinding"))
    part = role("secrets-view", [rule(["get"], ["secrets"])], kind="ClusterRole")
    part["metadata"]["labels"] = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}
    out = api.post(f"{RBAC}/clusterroles", headers=JANE, json=part)
    assert out.status_code == 201, out.json()
    view = api.get(f"{RBAC}/clusterroles/view").json()
    assert rule(["get"], ["secrets"]) in view["rules"]
