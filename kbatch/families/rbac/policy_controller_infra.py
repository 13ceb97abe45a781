"""The ``system:controller:*`` roles of Kubernetes' ``controller_policy.go`` for the network, volume,
DRA, certificate and lifecycle controllers (the rest, and the assembly, are in
:mod:`kbatch.families.rbac.policy_controllers`): rules as upstream's, with the feature-gated roles where
the gate is on; a rule that lists also watches (``TestControllerRoleVerbsConsistency``).
"""

from __future__ import annotations

from kbatch.families.rbac.policy_builders import READ, Gates, Obj, events_rule, rule

__all__ = ["infrastructure_roles"]

LW = ("list", "watch")
BATCH, STORAGE, DRA = "batch", "storage.k8s.io", "resource.k8s.io"
CERTS, SCHED = "certificates.k8s.io", "scheduling.k8s.io"


def _network() -> dict[str, list[Obj]]:
    discovery = "discovery.k8s.io"
    slices = rule(["create", "delete", "get", "list", "update", "watch"], [discovery], ["endpointslices"])
    return {
        "endpoint-controller": [
            rule(READ, [""], ["pods", "services"]),
            rule(["create", "delete", "get", "list", "update", "watch"], [""], ["endpoints"]),
            rule(["create"], [""], ["endpoints/restricted"]),
            events_rule(),
        ],
        "endpointslice-controller": [
            rule(READ, [""], ["nodes", "pods", "services"]),
            rule(["update"], [""], ["services/finalizers"]),
            slices,
            events_rule(),
        ],
        "endpointslicemirroring-controller": [
            rule(READ, [""], ["endpoints", "services"]),
            rule(["update"], [""], ["services/finalizers"]),
            rule(["update"], [""], ["endpoints/finalizers"]),
            slices,
            events_rule(),
        ],
    }


def _volumes() -> dict[str, list[Obj]]:
    return {
        "attachdetach-controller": [
            rule(LW, [""], ["persistentvolumeclaims", "persistentvolumes"]),
            rule(READ, [""], ["nodes"]),
            rule(["patch", "update"], [""], ["nodes/status"]),
            rule(LW, [""], ["pods"]),
            events_rule(),
            rule(["create", "delete", "get", "list", "watch"], [STORAGE], ["volumeattachments"]),
            rule(READ, [STORAGE], ["csidrivers"]),
            rule(READ, [STORAGE], ["csinodes"]),
        ],
        "expand-controller": [
            rule(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumes"]),
            rule(["patch", "update"], [""], ["persistentvolumeclaims/status"]),
            rule(READ, [""], ["persistentvolumeclaims"]),
            rule(READ, [STORAGE], ["storageclasses"]),
            rule(["get"], [""], ["endpoints", "services"]),
            rule(["get"], [""], ["secrets"]),
            events_rule(),
        ],
        "ephemeral-volume-controller": [
            rule(READ, [""], ["pods"]),
            rule(["update"], [""], ["pods/finalizers"]),
            rule(["create", "get", "list", "watch"], [""], ["persistentvolumeclaims"]),
            events_rule(),
        ],
    }


def _dra(gates: Gates) -> dict[str, list[Obj]]:
    if not gates.on("DynamicResourceAllocation"):
        return {}
    roles = {
        "resource-claim-controller": [
            rule(READ, [""], ["pods"]),
            rule(["update"], [""], ["pods/finalizers"]),
            rule(["create", "delete", "get", "list", "watch"], [DRA], ["resourceclaims"]),
            rule(["patch", "update"], [DRA], ["resourceclaims", "resourceclaims/status"]),
            rule(["patch", "update"], [""], ["pods/status"]),
            events_rule(),
        ]
    }
    if gates.on("DRADeviceTaints"):
        taints = [
            rule(["delete", "get", "list", "watch"], [""], ["pods"]),
            rule(["patch", "update"], [""], ["pods/status"]),
            rule(READ, [DRA], ["resourceclaims"]),
            rule(READ, [DRA], ["resourceslices"]),
            rule(READ, [DRA], ["deviceclasses"]),
            events_rule(),
        ]
        if gates.on("DRADeviceTaintRules"):
            taints += [
                rule(["patch", "update"], [DRA], ["devicetaintrules/status"]),
                rule(READ, [DRA], ["devicetaintrules"]),
            ]
        roles["device-taint-eviction-controller"] = taints
    return roles


def _signers() -> list[str]:
    return [
        "kubernetes.io/kube-apiserver-client",
        "kubernetes.io/kube-apiserver-client-kubelet",
        "kubernetes.io/kubelet-serving",
        "kubernetes.io/legacy-unknown",
    ]


def _lifecycle(gates: Gates) -> dict[str, list[Obj]]:
    roles = {
        "certificate-controller": [
            rule(["delete", "get", "list", "watch"], [CERTS], ["certificatesigningrequests"]),
            rule(
                ["update"],
                [CERTS],
                ["certificatesigningrequests/approval", "certificatesigningrequests/status"],
            ),
            rule(["approve"], [CERTS], ["signers"], ["kubernetes.io/kube-apiserver-client-kubelet"]),
            rule(["sign"], [CERTS], ["signers"], _signers()),
            rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
            events_rule(),
        ],
        "pvc-protection-controller": [
            rule(["get", "list", "update", "watch"], [""], ["persistentvolumeclaims"]),
            rule(READ, [""], ["pods"]),
            events_rule(),
        ],
        "pv-protection-controller": [
            rule(["get", "list", "update", "watch"], [""], ["persistentvolumes"]),
            events_rule(),
        ],
        "volumeattributesclass-protection-controller": [
            rule(READ, [""], ["persistentvolumeclaims"]),
            rule(READ, [""], ["persistentvolumes"]),
            rule(["get", "list", "update", "watch"], [STORAGE], ["volumeattributesclasses"]),
            events_rule(),
        ],
        "ttl-after-finished-controller": [
            rule(["delete", "get", "list", "watch"], [BATCH], ["jobs"]),
            events_rule(),
        ],
        "root-ca-cert-publisher": [rule(["create", "update"], [""], ["configmaps"]), events_rule()],
        "validatingadmissionpolicy-status-controller": [
            rule(READ, ["admissionregistration.k8s.io"], ["validatingadmissionpolicies"]),
            rule(
                ["get", "patch", "update"],
                ["admissionregistration.k8s.io"],
                ["validatingadmissionpolicies/status"],
            ),
            events_rule(),
        ],
    }
    if gates.on("StorageVersionAPI") and gates.on("APIServerIdentity"):
        internal = "internal.apiserver.k8s.io"
        roles["storage-version-garbage-collector"] = [
            rule(READ, ["coordination.k8s.io"], ["leases"]),
            rule(["delete", "get", "list", "patch", "update", "watch"], [internal], ["storageversions"]),
            rule(["get", "patch", "update"], [internal], ["storageversions/status"]),
        ]
    roles["legacy-service-account-token-cleaner"] = [
        rule(["get"], [""], ["configmaps"], ["kube-apiserver-legacy-service-account-token-tracking"]),
        rule(["delete", "patch"], [""], ["secrets"]),
    ]
    return roles


def _gated_tail(gates: Gates) -> dict[str, list[Obj]]:
    roles: dict[str, list[Obj]] = {}
    if gates.on("StorageVersionMigrator"):
        roles["storage-version-migrator-controller"] = [
            rule(["create", "list", "patch", "watch"], ["*"], ["*"]),
            rule(["update"], ["storagemigration.k8s.io"], ["storageversionmigrations/status"]),
        ]
    if gates.on("SELinuxChangePolicy"):
        roles["selinux-warning-controller"] = [
            rule(READ, [""], ["persistentvolumeclaims", "persistentvolumes", "pods"]),
            rule(READ, [STORAGE], ["csidrivers"]),
            events_rule(),
        ]
    if gates.on("GenericWorkload"):
        roles["podgroup-protection-controller"] = [
            rule(["get", "list", "update", "watch"], [SCHED], ["podgroups"]),
            rule(READ, [""], ["pods"]),
        ]
    return roles


def infrastructure_roles(gates: Gates) -> dict[str, list[Obj]]:
    """The rules of these controllers' roles, by controller name."""
    return {**_network(), **_volumes(), **_dra(gates), **_lifecycle(gates), **_gated_tail(gates)}
