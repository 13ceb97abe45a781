"""A manager and in-process workers on one clock (``kbatch+inprocess://NAME``), for MultiKueue tests."""

from __future__ import annotations

import base64
from typing import Any

from kbatch import ControlPlane
from kbatch.api.kueue_v1beta2 import MultiKueueCluster, Workload
from kbatch.controllers.kueue.multikueue import attach_worker, set_reachable
from kbatch.sim import NodeTemplate, create_nodes
from kbatch.testing import make_job

from ..helpers import cluster_queue, flavor, local_queue, quota

KUEUE = "kueue.x-k8s.io/v1beta2"
NAMESPACE = "kueue-system"


def kubeconfig(server: str, token: str | None = None) -> str:
    user = f"\n    token: {token}" if token else " {}"
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
        f"clusters:\n- name: c\n  cluster:\n    server: {server}\n"
        "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n"
        f"users:\n- name: u\n  user:{user}\n"
    )


def secret(name: str, text: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "data": {"kubeconfig": base64.b64encode(text.encode()).decode()},
    }


def mk_cluster(name: str, secret_name: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "MultiKueueCluster",
        "metadata": {"name": name},
        "spec": {"clusterSource": {"kubeConfig": {"location": secret_name or f"{name}-kubeconfig"}}},
    }


def mk_config(name: str, clusters: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "MultiKueueConfig",
        "metadata": {"name": name},
        "spec": {"clusters": clusters},
    }


def mk_check(name: str = "mk", config: str = "mkconf") -> dict[str, Any]:
    return {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": {"name": name},
        "spec": {
            "controllerName": "kueue.x-k8s.io/multikueue",
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": config},
        },
    }


def queues(cpu: str, checks: list[str] | None = None) -> list[dict[str, Any]]:
    extra = {"admissionChecksStrategy": {"admissionChecks": [{"name": c} for c in checks]}} if checks else {}
    return [
        flavor("default"),
        cluster_queue("cq", (["cpu"], [("default", [quota("cpu", cpu)])]), **extra),
        local_queue("lq", "cq"),
    ]


class MKWorld:
    """One manager (quota 4 cpu, ClusterQueue ``cq`` with the MultiKueue check ``mk``) and workers."""

    def __init__(
        self,
        workers: dict[str, str],
        seed: int = 0,
        kueue_config: dict[str, Any] | None = None,
        connect: bool = True,
        feature_gates: str | None = None,
    ) -> None:
        self.manager = ControlPlane(seed=seed, kueue_config=kueue_config, feature_gates=feature_gates)
        self.workers: dict[str, ControlPlane] = {}
        for i, (name, cpu) in enumerate(workers.items()):
            worker = ControlPlane(seed=seed + i + 1, clock=self.manager.clock, kueue_config=kueue_config)
            create_nodes(worker, 1, NodeTemplate(cpu="8", memory="32Gi"))
            worker.apply(queues(cpu))
            attach_worker(self.manager, name, worker)
            self.workers[name] = worker
        m = self.manager
        create_nodes(m, 1, NodeTemplate(cpu="8", memory="32Gi"))
        m.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        m.apply([mk_check(), mk_config("mkconf", list(workers)), *queues("4", ["mk"])])
        if connect:
            for name in workers:
                self.connect(name)
        m.run_until_idle()

    def connect(self, name: str) -> None:
        m = self.manager
        m.apply(
            [secret(f"{name}-kubeconfig", kubeconfig(f"kbatch+inprocess://{name}")), mk_cluster(name)],
            namespace=NAMESPACE,
        )

    def cut(self, name: str, reachable: bool = False) -> None:
        set_reachable(self.manager, name, reachable)

    def job(self, name: str, cpu: str = "1", sleep: str = "30") -> None:
        j = (
            make_job(name)
            .command(f"sleep {sleep}")
            .requests(cpu=cpu)
            .label("kueue.x-k8s.io/queue-name", "lq")
        )
        self.manager.client.create(j.obj())
        self.manager.run_until_idle()

    def remote_workloads(self, name: str) -> list[Workload]:
        return list(self.workers[name].client.list(Workload).items)

    def cluster(self, name: str) -> MultiKueueCluster:
        return self.manager.client.get(MultiKueueCluster, name)


def local_workload(world: MKWorld) -> Workload:
    """The manager's only Workload."""
    (wl,) = world.manager.client.list(Workload).items
    return wl


def check_of(wl: Workload) -> tuple[str, str]:
    """The state and message of the Workload's only admission check."""
    (acs,) = wl.status.admission_checks
    return acs.state or "", acs.message or ""
