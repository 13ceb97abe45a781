"""The ``system:controller:<name>`` ClusterRoles of Kubernetes' ``plugin/pkg/auth/authorizer/rbac/
bootstrappolicy/controller_policy.go`` (``buildControllerRoles``) at 1.37, each bound by a
ClusterRoleBinding of its name to the ServiceAccount ``kube-system/<name>`` kube-controller-manager
runs that controller as (``addControllerRole``), with the feature-gated roles and rules where the gate
is on; the network, volume, DRA and lifecycle controllers' rules are in
:mod:`kbatch.families.rbac.policy_controller_infra`. As upstream's ``TestControllerRoleVerbsConsistency``
demands, a rule that lists also watches.
"""

from __future__ import annotations

from kbatch.families.rbac.policy_builders import (
    READ,
    Gates,
    Obj,
    cluster_binding,
    events_rule,
    role,
    rule,
    sa,
)
from kbatch.families.rbac.policy_controller_infra import infrastructure_roles

__all__ = ["PREFIX", "controller_roles"]

PREFIX = "system:controller:"
RW = ("create", "delete", "get", "list", "patch", "update", "watch")
LW = ("list", "watch")
APPS, EXT, BATCH, STORAGE = "apps", "extensions", "batch", "storage.k8s.io"
NET, SCHED = "networking.k8s.io", "scheduling.k8s.io"


def _workloads(gates: Gates) -> dict[str, list[Obj]]:
    job = [
        rule(["get", "list", "patch", "update", "watch"], [BATCH], ["jobs"]),
        rule(["update"], [BATCH], ["jobs/status"]),
        rule(["update"], [BATCH], ["jobs/finalizers"]),
        rule(["create", "delete", "list", "patch", "watch"], [""], ["pods"]),
        events_rule(),
    ]
    if gates.on("GenericWorkload") and gates.on("WorkloadWithJob"):
        job.append(rule(["create", "get", "list", "update", "watch"], [SCHED], ["podgroups", "workloads"]))
    return {
        "cronjob-controller": [
            rule(["get", "list", "update", "watch"], [BATCH], ["cronjobs"]),
            rule(["create", "delete", "get", "list", "patch", "update", "watch"], [BATCH], ["jobs"]),
            rule(["update"], [BATCH], ["cronjobs/status"]),
            rule(["update"], [BATCH], ["cronjobs/finalizers"]),
            rule(["delete", "list", "watch"], [""], ["pods"]),
            events_rule(),
        ],
        "daemon-set-controller": [
            rule(READ, [APPS, EXT], ["daemonsets"]),
            rule(["update"], [APPS, EXT], ["daemonsets/status"]),
            rule(["update"], [APPS, EXT], ["daemonsets/finalizers"]),
            rule(LW, [""], ["nodes"]),
            rule(["create", "delete", "list", "patch", "watch"], [""], ["pods"]),
            rule(["create"], [""], ["pods/binding"]),
            rule(RW, [APPS], ["controllerrevisions"]),
            events_rule(),
        ],
        "deployment-controller": [
            rule(["get", "list", "update", "watch"], [APPS, EXT], ["deployments"]),
            rule(["update"], [APPS, EXT], ["deployments/status"]),
            rule(["update"], [APPS, EXT], ["deployments/finalizers"]),
            rule(RW, [APPS, EXT], ["replicasets"]),
            rule(["get", "list", "update", "watch"], [""], ["pods"]),
            events_rule(),
        ],
        "disruption-controller": [
            rule(READ, [APPS, EXT], ["deployments"]),
            rule(READ, [APPS, EXT], ["replicasets"]),
            rule(READ, [""], ["replicationcontrollers"]),
            rule(READ, ["policy"], ["poddisruptionbudgets"]),
            rule(READ, [APPS], ["statefulsets"]),
            rule(["update"], ["policy"], ["poddisruptionbudgets/status"]),
            rule(["patch", "update"], [""], ["pods/status"]),
            rule(["get"], ["*"], ["*/scale"]),
            events_rule(),
        ],
        "job-controller": job,
    }


def _garbage_and_nodes() -> dict[str, list[Obj]]:
    return {
        "generic-garbage-collector": [
            rule(["delete", "get", "list", "patch", "update", "watch"], ["*"], ["*"]),
            events_rule(),
        ],
        "horizontal-pod-autoscaler": [
            rule(READ, ["autoscaling"], ["horizontalpodautoscalers"]),
            rule(["update"], ["autoscaling"], ["horizontalpodautoscalers/status"]),
            rule(["get", "update"], ["*"], ["*/scale"]),
            rule(LW, [""], ["pods"]),
            rule(LW, ["metrics.k8s.io"], ["pods"]),
            rule(READ, ["custom.metrics.k8s.io"], ["*"]),
            rule(READ, ["external.metrics.k8s.io"], ["*"]),
            events_rule(),
        ],
        "namespace-controller": [
            rule(["delete", "get", "list", "watch"], [""], ["namespaces"]),
            rule(["update"], [""], ["namespaces/finalize", "namespaces/status"]),
            rule(["delete", "deletecollection", "get", "list", "watch"], ["*"], ["*"]),
        ],
        "node-controller": [
            rule(["delete", "get", "list", "patch", "update", "watch"], [""], ["nodes"]),
            rule(["patch", "update"], [""], ["nodes/status"]),
            rule(["patch", "update"], [""], ["pods/status"]),
            rule(["delete", "get", "list", "watch"], [""], ["pods"]),
            events_rule(),
        ],
        "persistent-volume-binder": [
            rule(["create", "delete", "get", "list", "update", "watch"], [""], ["persistentvolumes"]),
            rule(["update"], [""], ["persistentvolumes/status"]),
            rule(["get", "list", "update", "watch"], [""], ["persistentvolumeclaims"]),
            rule(["update"], [""], ["persistentvolumeclaims/status"]),
            rule(["create", "delete", "get", "list", "watch"], [""], ["pods"]),
            rule(READ, [STORAGE], ["storageclasses"]),
            rule(["create", "delete", "get", "update"], [""], ["endpoints"]),
            rule(["create", "delete", "get"], [""], ["services"]),
            rule(["get"], [""], ["secrets"]),
            rule(READ, [""], ["nodes"]),
            rule(["watch"], [""], ["events"]),
            events_rule(),
        ],
        "pod-garbage-collector": [
            rule(["delete", "list", "watch"], [""], ["pods"]),
            rule(READ, [""], ["nodes"]),
            rule(["patch"], [""], ["pods/status"]),
        ],
    }


def _replication() -> dict[str, list[Obj]]:
    pods = rule(["create", "delete", "list", "patch", "watch"], [""], ["pods"])
    return {
        "replicaset-controller": [
            rule(["get", "list", "update", "watch"], [APPS, EXT], ["replicasets"]),
            rule(["update"], [APPS, EXT], ["replicasets/status"]),
            rule(["update"], [APPS, EXT], ["replicasets/finalizers"]),
            pods,
            events_rule(),
        ],
        "replication-controller": [
            rule(["get", "list", "update", "watch"], [""], ["replicationcontrollers"]),
            rule(["update"], [""], ["replicationcontrollers/status"]),
            rule(["update"], [""], ["replicationcontrollers/finalizers"]),
            pods,
            events_rule(),
        ],
        "resourcequota-controller": [
            rule(LW, ["*"], ["*"]),
            rule(["update"], [""], ["resourcequotas/status"]),
            events_rule(),
        ],
        "route-controller": [
            rule(LW, [""], ["nodes"]),
            rule(["patch"], [""], ["nodes/status"]),
            events_rule(),
        ],
        "service-account-controller": [rule(["create"], [""], ["serviceaccounts"]), events_rule()],
        "service-controller": [
            rule(READ, [""], ["services"]),
            rule(["patch", "update"], [""], ["services/status"]),
            rule(LW, [""], ["nodes"]),
            events_rule(),
        ],
        "service-cidrs-controller": [
            rule(["get", "list", "patch", "update", "watch"], [NET], ["servicecidrs"]),
            rule(["patch", "update"], [NET], ["servicecidrs/finalizers"]),
            rule(["patch", "update"], [NET], ["servicecidrs/status"]),
            rule(READ, [NET], ["ipaddresses"]),
            events_rule(),
        ],
        "statefulset-controller": [
            rule(LW, [""], ["pods"]),
            rule(READ, [APPS], ["statefulsets"]),
            rule(["update"], [APPS], ["statefulsets/status"]),
            rule(["update"], [APPS], ["statefulsets/finalizers"]),
            rule(["create", "delete", "get", "patch", "update"], [""], ["pods"]),
            rule(RW, [APPS], ["controllerrevisions"]),
            rule(["create", "get"], [""], ["persistentvolumeclaims"]),
            events_rule(),
            rule(["delete", "update"], [""], ["persistentvolumeclaims"]),
        ],
        "ttl-controller": [rule(["list", "patch", "update", "watch"], [""], ["nodes"]), events_rule()],
    }


def _agg() -> dict[str, list[Obj]]:
    return {
        "clusterrole-aggregation-controller": [
            rule(
                ["escalate", "get", "list", "patch", "update", "watch"],
                ["rbac.authorization.k8s.io"],
                ["clusterroles"],
            )
        ]
    }


def controller_roles(gates: Gates) -> tuple[list[Obj], list[Obj]]:
    """``ControllerRoles()`` and ``ControllerRoleBindings()``, by name (the order of upstream's
    rendered ``testdata/controller-roles.yaml``)."""
    by_name: dict[str, list[Obj]] = {}
    for part in (
        _agg(),
        _workloads(gates),
        _garbage_and_nodes(),
        _replication(),
        infrastructure_roles(gates),
    ):
        by_name.update(part)
    names = sorted(by_name)
    return (
        [role(PREFIX + n, by_name[n]) for n in names],
        [cluster_binding(PREFIX + n, sa("kube-system", n)) for n in names],
    )
