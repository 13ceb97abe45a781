"""Builders and a small world for Kueue tests (the wrappers of kueue's ``pkg/util/testing``)."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.kueue_v1beta2 import AdmissionCheck, ClusterQueue, LocalQueue, Workload

__all__ = ["World", "cluster_queue", "cpu_world", "flavor", "local_queue", "quota", "workload"]

KUEUE = "kueue.x-k8s.io/v1beta2"


def flavor(
    name: str,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    tolerations: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def quota(
    resource: str, nominal: str, borrowing: str | None = None, lending: str | None = None
) -> dict[str, Any]:
    q: dict[str, Any] = {"name": resource, "nominalQuota": nominal}
    if borrowing is not None:
        q["borrowingLimit"] = borrowing
    if lending is not None:
        q["lendingLimit"] = lending
    return q


def cluster_queue(
    name: str,
    *groups: tuple[list[str], list[tuple[str, list[dict[str, Any]]]]],
    cohort: str | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """``groups``: (covered resources, [(flavor, [quota(...), ...]), ...])."""
    body: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {"coveredResources": covered, "flavors": [{"name": f, "resources": rs} for f, rs in flavors]}
            for covered, flavors in groups
        ],
    }
    if cohort:
        body["cohortName"] = cohort
    body.update(spec)
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def local_queue(name: str, cq: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cq, **spec},
    }


def activate_checks(cp: ControlPlane, *names: str) -> None:
    """Mark AdmissionChecks Active, as their controllers would (kbatch runs none), then settle."""
    active = {"type": "Active", "status": "True", "reason": "Active", "message": "",
              "lastTransitionTime": "2026-01-01T00:00:00Z"}
    for name in names:
        cp.client.patch_status(AdmissionCheck, name, {"status": {"conditions": [active]}})
    cp.run_until_idle()


def workload(
    name: str,
    queue: str,
    *,
    cpu: str = "1",
    count: int = 1,
    priority: int | None = None,
    namespace: str = "default",
    min_count: int | None = None,
    memory: str | None = None,
    node_selector: dict[str, str] | None = None,
    tolerations: list[dict[str, str]] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    requests = {"cpu": cpu}
    if memory is not None:
        requests["memory"] = memory
    requests.update(extra or {})
    pod: dict[str, Any] = {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": requests}}],
    }
    if node_selector:
        pod["nodeSelector"] = node_selector
    if tolerations:
        pod["tolerations"] = tolerations
    ps: dict[str, Any] = {"name": "main", "count": count, "template": {"spec": pod}}
    if min_count is not None:
        ps["minCount"] = min_count
    spec: dict[str, Any] = {"queueName": queue, "podSets": [ps]}
    if priority is not None:
        spec["priority"] = priority
    return {
        "apiVersion": KUEUE,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


class World:
    """A control plane running Kueue (and whatever else ``controllers`` names)."""

    def __init__(self, *objects: Any, controllers: str = "kueue", **kwargs: Any) -> None:
        self.cp = ControlPlane(seed=kwargs.pop("seed", 1), controllers=controllers, **kwargs)
        if objects:
            self.cp.apply(list(objects))

    def apply(self, *objects: Any) -> None:
        self.cp.apply(list(objects))

    def wl(self, name: str, namespace: str = "default") -> Workload:
        return self.cp.client.get(Workload, name, namespace)

    def cq(self, name: str) -> ClusterQueue:
        return self.cp.client.get(ClusterQueue, name)

    def lq(self, name: str, namespace: str = "default") -> LocalQueue:
        return self.cp.client.get(LocalQueue, name, namespace)

    def cond(self, name: str, kind: str, namespace: str = "default") -> Any:
        status = self.wl(name, namespace).status
        for c in (status.conditions if status is not None else None) or ():
            if c.type == kind:
                return c
        return None

    def settled(self, name: str, kind: str = "QuotaReserved") -> Any:
        """The Workload's ``kind`` condition once the manager has settled and 2 s have passed."""
        self.cp.run_until_idle()
        self.cp.advance(2)
        return self.cond(name, kind)

    def admitted(self, name: str, namespace: str = "default") -> bool:
        c = self.cond(name, "Admitted", namespace)
        return c is not None and c.status == "True"

    def reserved(self, name: str, namespace: str = "default") -> bool:
        c = self.cond(name, "QuotaReserved", namespace)
        return c is not None and c.status == "True"

    def flavors(self, name: str, namespace: str = "default") -> dict[str, str]:
        adm = self.wl(name, namespace).status.admission
        return dict(adm.pod_set_assignments[0].flavors or {}) if adm else {}

    def events(self, name: str, namespace: str = "default") -> list[tuple[str, str, str]]:
        from kbatch.api.core_v1 import Event

        return [
            (e.type, e.reason, e.message)
            for e in self.cp.client.list(Event, namespace).items
            if e.involved_object.name == name
        ]

    def finish(self, name: str, namespace: str = "default") -> None:
        """Mark a workload finished (what the job framework does when its job ends)."""
        wl = self.wl(name, namespace)
        now = self.cp.now().isoformat()
        conds = [c.to_dict() for c in wl.status.conditions or ()]
        conds.append(
            {
                "type": "Finished",
                "status": "True",
                "reason": "Succeeded",
                "message": "done",
                "lastTransitionTime": now,
            }
        )
        self.cp.client.patch_status(Workload, name, {"status": {"conditions": conds}}, namespace)
        self.cp.run_until_idle()

    def release_evicted(self) -> int:
        """Do what a job integration does for an evicted workload once its job is stopped: release
        the reservation (upstream's tests: ``util.FinishEvictionForWorkloads``). Returns how many."""
        from kbatch.api import edit
        from kbatch.controllers.kueue import workloads as W

        released = 0
        for wl in self.cp.client.list(Workload).items:
            if W.has(wl.status, "Evicted") and W.has(wl.status, "QuotaReserved"):
                wl = edit(wl)
                message = W.find(wl.status, "Evicted").message
                W.unset_quota_reservation(wl.status, "Pending", message, wl.metadata.generation,
                                          self.cp.now())
                self.cp.client.update_status(wl)
                released += 1
        self.cp.run_until_idle()
        return released

    def settle(self, rounds: int = 6, step: float = 1.5) -> None:
        """Let the manager act: release evictions and pass the requeue batch periods, a few times."""
        for _ in range(rounds):
            self.cp.run_until_idle()
            self.release_evicted()
            self.cp.advance(step)

    def usage(self, flavor_name: str = "default", resource: str = "cpu") -> dict[str, int]:
        """Milli-units of ``resource`` in ``flavor_name`` held by quota-reserving, unfinished
        workloads, per ClusterQueue: computed from the Workloads, not from the queues' status."""
        out: dict[str, int] = {}
        for wl in self.cp.client.list(Workload).items:
            st = wl.status
            if st is None or st.admission is None or not _true(st, "QuotaReserved") or _true(st, "Finished"):
                continue
            for psa in st.admission.pod_set_assignments or ():
                if (psa.flavors or {}).get(resource) == flavor_name:
                    q = (psa.resource_usage or {}).get(resource)
                    cq = st.admission.cluster_queue or ""
                    out[cq] = out.get(cq, 0) + (q.milli_value() if q is not None else 0)
        return out

    @staticmethod
    def wl_model() -> type[Workload]:
        return Workload

    def names_where(self, kind: str) -> list[str]:
        return sorted(wl.metadata.name for wl in self.cp.client.list(Workload).items
                      if _true(wl.status, kind))


def cpu_world(*objects: Any, cpu: str = "4") -> World:
    """Flavor ``default``, ClusterQueue ``cq`` with ``cpu`` of it, LocalQueue ``lq``, then ``objects``."""
    return World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", cpu)])])),
                 local_queue("lq", "cq"), *objects)


def _true(status: Any, kind: str) -> bool:
    for c in (status.conditions if status is not None else None) or ():
        if c.type == kind:
            return c.status == "True"
    return False
