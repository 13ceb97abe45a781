"""What a fresh control plane holds of RBAC (``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``,
kube-apiserver's ``rbac/bootstrap-roles`` post-start hook): ``cluster-admin`` and its binding to
``system:masters``; they are created only when missing; and creating them leaves the control plane's
seeded generator alone (later uids, and so every later decision, are those of a plane without RBAC)."""

from __future__ import annotations

from kbatch.api.core_v1 import ConfigMap
from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding
from kbatch.families import BUILTIN_FAMILIES
from kbatch.runtime.controlplane import ControlPlane


def test_a_fresh_control_plane_holds_cluster_admin() -> None:
    cp = ControlPlane(controllers=[])
    role = cp.client.get(ClusterRole, "cluster-admin")
    assert [r.to_dict() for r in role.rules or ()] == [
        {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, {"verbs": ["*"], "nonResourceURLs": ["*"]}]
    assert role.metadata.labels == {"kubernetes.io/bootstrapping": "rbac-defaults"}
    assert role.metadata.annotations == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    binding = cp.client.get(ClusterRoleBinding, "cluster-admin")
    assert binding.role_ref.to_dict() == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                          "name": "cluster-admin"}
    assert [s.to_dict() for s in binding.subjects or ()] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}]


def test_bootstrap_leaves_the_seeded_generator_alone() -> None:
    without = ControlPlane(controllers=[], families=[f for f in BUILTIN_FAMILIES if f.name != "rbac"])
    with_rbac = ControlPlane(controllers=[])
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    uids = [cp.apply(doc)[0].metadata.uid for cp in (without, with_rbac)]
    assert uids[0] == uids[1]
    assert with_rbac.client.get(ConfigMap, "c").metadata.uid == uids[0]


def _rules(role: ClusterRole) -> list[dict[str, object]]:
    return [r.to_dict() for r in role.rules or ()]


def test_admin_edit_view_are_aggregated_from_their_bootstrap_parts() -> None:
    """policy.go: ``admin``/``edit``/``view`` carry only aggregation rules; ``edit`` is labelled
    aggregate-to-admin and ``view`` aggregate-to-edit, so the clusterrole-aggregation controller makes
    admin ⊇ edit ⊇ view out of ``system:aggregate-to-admin|edit|view`` (each selector's roles in name
    order, as the controller takes them)."""
    cp = ControlPlane(controllers=["clusterrole-aggregation"])
    cp.run_until_idle()
    view, edit, admin = (cp.client.get(ClusterRole, n) for n in ("view", "edit", "admin"))
    parts = {n: _rules(cp.client.get(ClusterRole, f"system:aggregate-to-{n}"))
             for n in ("admin", "edit", "view")}
    assert _rules(view) == parts["view"]
    assert _rules(edit) == parts["edit"] + parts["view"]
    assert _rules(admin) == _rules(edit) + parts["admin"]  # the matching roles by name: edit, system:…
    assert {"verbs": ["get", "list", "watch"], "apiGroups": ["batch"],
            "resources": ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]} in parts["view"]
    assert {"verbs": ["create", "delete", "deletecollection", "patch", "update"], "apiGroups": ["batch"],
            "resources": ["cronjobs", "jobs"]} in parts["edit"]
    assert (edit.metadata.labels or {}).get("rbac.authorization.k8s.io/aggregate-to-admin") == "true"
    assert (view.metadata.labels or {}).get("rbac.authorization.k8s.io/aggregate-to-edit") == "true"


def test_every_authenticated_user_may_discover_and_review_itself() -> None:
    """policy.go ``ClusterRoleBindings``: system:discovery and system:basic-user to
    ``system:authenticated``, system:public-info-viewer to it and ``system:unauthenticated``."""
    cp = ControlPlane(controllers=[])
    subjects = {n: [s.name for s in cp.client.get(ClusterRoleBinding, n).subjects or ()]
                for n in ("system:discovery", "system:basic-user", "system:public-info-viewer")}
    assert subjects == {"system:discovery": ["system:authenticated"],
                        "system:basic-user": ["system:authenticated"],
                        "system:public-info-viewer": ["system:authenticated", "system:unauthenticated"]}
    basic = _rules(cp.client.get(ClusterRole, "system:basic-user"))
    assert basic[0] == {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
                        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]}


def test_cluster_admin_keeps_the_uids_it_had_before_the_other_roles() -> None:
    """The hook's own generator draws for cluster-admin's role and binding first, as before the other
    bootstrap roles existed (the uids a control plane had at 5bc53cf)."""
    cp = ControlPlane(controllers=[])
    assert cp.client.get(ClusterRole, "cluster-admin").metadata.uid == "43d23fc6-9352-40cb-9f20-b83d8eb062d9"
    assert cp.client.get(ClusterRoleBinding, "cluster-admin").metadata.uid == \
        "c3aa247d-75ad-485a-b10a-f7d27f8dc453"
