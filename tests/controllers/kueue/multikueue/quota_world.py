"""A manager with ``MultiKueueManagerQuotaAutomation`` on and in-process workers, each given its own
LocalQueues and ClusterQueues, for the quota automation tests (KEP 9988)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbatch import ControlPlane
from kbatch.api.kueue_v1beta2 import ClusterQueue
from kbatch.api.kueue_v1beta2.multikueue import QUOTA_AUTOMATION_CONDITION
from kbatch.controllers.kueue.multikueue import MULTIKUEUE, attach_worker, set_reachable
from kbatch.controllers.kueue.multikueue.quota_reconciler import QUOTA_CONTROLLER
from kbatch.runtime.reconcile import Request

from ..helpers import local_queue
from .world import KUEUE, NAMESPACE, kubeconfig, mk_check, mk_cluster, mk_config, secret

GATE = "MultiKueueManagerQuotaAutomation=true"
Flavor = tuple[str, dict[str, str]]  # (flavor, resource -> nominal quota)


def cq(name: str, *groups: list[Flavor], checks: tuple[str, ...] = ()) -> dict[str, Any]:
    """A ClusterQueue; each group lists its flavors, covering the first flavor's resources."""
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": list(flavors[0][1]),
                "flavors": [
                    {"name": f, "resources": [{"name": r, "nominalQuota": q} for r, q in res.items()]}
                    for f, res in flavors
                ],
            }
            for flavors in groups
        ],
    }
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": c} for c in checks]}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def lq(name: str, cluster_queue: str) -> dict[str, Any]:
    return local_queue(name, cluster_queue)


def config(name: str, clusters: list[str], mode: str | None = "Automated") -> dict[str, Any]:
    body = mk_config(name, clusters)
    if mode is not None:
        body["spec"]["quotaManagement"] = mode
    return body


@dataclass
class Worker:
    queues: list[dict[str, Any]] = field(default_factory=list)  # its LocalQueues and ClusterQueues
    inactive: bool = False


def build(
    manager_objects: list[dict[str, Any]], workers: dict[str, Worker], gates: str = GATE
) -> ControlPlane:
    """The manager (objects applied, every worker's MultiKueueCluster connected), settled."""
    m = ControlPlane(feature_gates=gates)
    m.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    for i, (name, w) in enumerate(sorted(workers.items())):
        plane = ControlPlane(seed=i + 1, clock=m.clock)
        if w.queues:
            plane.apply(w.queues)
        attach_worker(m, name, plane)
        m.apply(
            [secret(f"{name}-kubeconfig", kubeconfig(f"kbatch+inprocess://{name}")), mk_cluster(name)],
            namespace=NAMESPACE,
        )
    if manager_objects:
        m.apply(manager_objects)
    settle(m)
    for name, w in sorted(workers.items()):
        if w.inactive:
            set_reachable(m, name, False)
    settle(m)
    return m


def settle(m: ControlPlane, batches: int = 2) -> None:
    """Run, and let the events batch period (1 s) pass so every queued reconcile runs."""
    m.run_until_idle()
    for _ in range(batches):
        m.advance(1.5)
        m.run_until_idle()


def reconcile(m: ControlPlane, name: str) -> None:
    m.published.get(MULTIKUEUE).enqueue(QUOTA_CONTROLLER, Request("", name))
    m.run_until_idle()


def quotas(m: ControlPlane, name: str) -> dict[str, str]:
    """The ClusterQueue's single flavor's nominal quotas."""
    (group,) = m.client.get(ClusterQueue, name).spec.resource_groups
    (flavor,) = group.flavors
    return {r.name: str(r.nominal_quota) for r in flavor.resources or ()}


def condition(m: ControlPlane, name: str) -> tuple[str, str, str] | None:
    obj = m.client.get(ClusterQueue, name)
    for c in (obj.status.conditions if obj.status else None) or ():
        if c.type == QUOTA_AUTOMATION_CONDITION:
            return (c.status, c.reason or "", c.message or "")
    return None


def manager(
    cluster_queue: dict[str, Any],
    lqs: list[dict[str, Any]],
    cfg: dict[str, Any] | None,
    check_config: str = "config1",
) -> list[dict[str, Any]]:
    """The manager's objects: the check ``ac1`` naming ``check_config``, the config, queues."""
    return [mk_check("ac1", check_config), *([cfg] if cfg else []), cluster_queue, *lqs]
