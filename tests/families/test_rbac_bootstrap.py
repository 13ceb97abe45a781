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
