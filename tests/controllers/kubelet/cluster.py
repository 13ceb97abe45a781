"""A small simulated cluster for integration tests of the scheduler, kubelet, podgc and node
lifecycle controllers (shared by their test packages: ``from kubelet.cluster import sim_cluster``)."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes


def sim_cluster(nodes: int = 0, template: NodeTemplate | None = None, *,
                controllers: str = "scheduler,kubelet", seed: int = 0,
                options: dict[str, dict[str, Any]] | None = None) -> ControlPlane:
    cp = ControlPlane(seed=seed, controllers=controllers, options=options)
    if nodes:
        create_nodes(cp, nodes, template or NodeTemplate())
    return cp


def pod_yaml(name: str, command: str = "sleep 10", restart: str = "Never", cpu: str | None = None,
             gpu: int = 0, extra_spec: str = "", priority: int | None = None,
             grace: int | None = None) -> str:
    resources = ""
    if cpu or gpu:
        resources = "\n    resources:"
        if cpu:
            resources += f"\n      requests: {{cpu: \"{cpu}\"}}"
        if gpu:
            resources += f"\n      limits: {{nvidia.com/gpu: \"{gpu}\"}}"
    spec_extra = extra_spec
    if priority is not None:
        spec_extra += f"\n  priority: {priority}"
    if grace is not None:
        spec_extra += f"\n  terminationGracePeriodSeconds: {grace}"
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  restartPolicy: {restart}{spec_extra}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, "{command}"]{resources}
"""


def get_pod(cp: ControlPlane, name: str) -> Pod:
    return cp.client.get(Pod, name, "default")


def condition(pod: Pod, type_: str) -> Any:
    return pod.status.condition(type_) if pod.status else None
