"""The whole bootstrap policy kube-apiserver's ``rbac/bootstrap-roles`` post-start hook keeps in every
cluster (Kubernetes 1.37 ``pkg/registry/rbac/rest/storage_rbac.go`` ``EnsureRBACPolicy``, data from
``plugin/pkg/auth/authorizer/rbac/bootstrappolicy``):

* the ClusterRoles of ``policy.go`` (:mod:`.policy_cluster`) and ``controller_policy.go``
  (:mod:`.policy_controllers`);
* their ClusterRoleBindings;
* the Roles and RoleBindings of ``namespace_policy.go`` in ``kube-system`` and ``kube-public``
  (:mod:`.policy_namespaces`).

Rules behind a feature gate follow the control plane's gates where a kbatch family declares the gate,
and the gate's 1.37 default otherwise (:data:`GATE_DEFAULTS`). ``cluster-admin``'s role and binding
come first: their uids, drawn first from the hook's own generator, are the ones kbatch gave them
before the rest of the policy was bootstrapped.
"""

from __future__ import annotations

from functools import lru_cache

from kbatch.api.features import FeatureGates
from kbatch.families.rbac.policy_builders import Gates, Obj
from kbatch.families.rbac.policy_cluster import cluster_role_bindings, cluster_roles
from kbatch.families.rbac.policy_controllers import controller_roles
from kbatch.families.rbac.policy_namespaces import namespace_role_bindings, namespace_roles

__all__ = ["GATE_DEFAULTS", "bootstrap_objects"]

# Every gate the policy branches on, at its Kubernetes 1.37 default (used when no kbatch family
# declares the gate; kubernetes/website feature-gates reference)
GATE_DEFAULTS: dict[str, bool] = {
    "APIServerIdentity": True,
    "ClusterTrustBundle": False,
    "ClusterTrustBundleProjection": False,
    "CompositePodGroup": False,
    "DRADeviceTaintRules": True,
    "DRADeviceTaints": True,
    "DRAExtendedResource": True,
    "DynamicResourceAllocation": True,
    "GenericWorkload": False,
    "KubeletFineGrainedAuthz": True,
    "KubeletServiceAccountTokenForCredentialProviders": True,
    "PodCertificateRequest": False,
    "SELinuxChangePolicy": True,
    "StorageVersionAPI": False,
    "StorageVersionMigrator": False,
    "WorkloadWithJob": False,
}


def bootstrap_objects(features: FeatureGates | None = None) -> tuple[Obj, ...]:
    """Every bootstrap object for these gates (``None``: the 1.37 defaults), ``cluster-admin``'s
    role and binding first, then the ClusterRoles, the ClusterRoleBindings, the Roles and the
    RoleBindings, as ``EnsureRBACPolicy`` reconciles them. Shared: callers copy before changing."""
    return _objects(Gates(features, GATE_DEFAULTS).key())


@lru_cache(maxsize=8)
def _objects(key: tuple[bool, ...]) -> tuple[Obj, ...]:
    gates = Gates(None, dict(zip(sorted(GATE_DEFAULTS), key, strict=True)))
    controllers, controller_bindings = controller_roles(gates)
    roles = cluster_roles(gates) + controllers
    bindings = cluster_role_bindings(gates) + controller_bindings
    first = (roles[0], bindings[0])
    assert all(o["metadata"]["name"] == "cluster-admin" for o in first)
    return (*first, *roles[1:], *bindings[1:], *namespace_roles(), *namespace_role_bindings())
