"""Builders for the gang-scheduling tests (both APIs): a GPU cluster, pods that join a group, the
two PodGroup kinds, and readers. Shared: ``from gang.builders import ...``."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid, NotFound
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes

NATIVE = "GenericWorkload=true"
X_LABEL = "scheduling.x-k8s.io/pod-group"


def gpu_cluster(nodes: int, gpus: int = 8, *, gates: str | None = None, controllers: str = "*",
                scheduler_config: dict[str, Any] | None = None, seed: int = 0,
                families: Any = None) -> ControlPlane:
    kwargs: dict[str, Any] = {"seed": seed, "controllers": controllers, "feature_gates": gates,
                              "scheduler_config": scheduler_config}
    if families is not None:
        kwargs["families"] = families
    cp = ControlPlane(**kwargs)
    if nodes:
        create_nodes(cp, nodes, NodeTemplate(gpus=gpus))
    return cp


def gpu_pod(name: str, *, group: str | None = None, xgroup: str | None = None, gpus: int = 8,
            command: str = "sleep 72", priority_class: str | None = None, gates: list[str] | None = None,
            scheduler: str | None = None, namespace: str = "default") -> dict[str, Any]:
    """A pod asking for ``gpus`` GPUs; ``group`` joins a scheduling.k8s.io PodGroup (spec.schedulingGroup),
    ``xgroup`` a scheduler-plugins one (the label)."""
    spec: dict[str, Any] = {
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
        "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command],
                        "resources": {"requests": {"nvidia.com/gpu": str(gpus)},
                                      "limits": {"nvidia.com/gpu": str(gpus)}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if scheduler:
        spec["schedulerName"] = scheduler
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if xgroup:
        meta["labels"] = {X_LABEL: xgroup}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def native_group(name: str, min_count: int | None = None, *, all_disruption: bool = False,
                 priority_class: str | None = None) -> dict[str, Any]:
    """A scheduling.k8s.io/v1beta1 PodGroup: gang with ``min_count``, basic without."""
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if all_disruption:
        spec["disruptionMode"] = {"all": {}}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


def x_group(name: str, min_member: int | None, *, timeout: int | None = None,
            min_resources: dict[str, str] | None = None) -> dict[str, Any]:
    """A scheduling.x-k8s.io/v1alpha1 PodGroup."""
    spec: dict[str, Any] = {}
    if min_member is not None:
        spec["minMember"] = min_member
    if timeout is not None:
        spec["scheduleTimeoutSeconds"] = timeout
    if min_resources:
        spec["minResources"] = min_resources
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value}


def pod(cp: ControlPlane, name: str) -> Pod | None:
    try:
        return cp.client.get(Pod, name, "default")
    except NotFound:
        return None


def node_of(cp: ControlPlane, name: str) -> str | None:
    p = pod(cp, name)
    return p.spec.node_name if p is not None else None


def scheduled_message(cp: ControlPlane, name: str) -> tuple[str | None, str | None]:
    """(reason, message) of the pod's PodScheduled condition."""
    p = pod(cp, name)
    cond = p.status.condition("PodScheduled") if p is not None and p.status else None
    return (cond.reason, cond.message) if cond is not None else (None, None)


def bound(cp: ControlPlane, names: list[str]) -> list[str]:
    return [n for n in names if node_of(cp, n)]


def invalid_causes(call: Any) -> list[tuple[str, str]]:
    """(reason, field) of each cause of the ``Invalid`` error ``call`` raises: upstream's (type, field),
    as ``field.ErrorMatcher{}.ByType().ByField()`` compares them."""
    with pytest.raises(Invalid) as info:
        call()
    return [(c["reason"], c["field"]) for c in info.value.status.to_dict()["details"]["causes"]]
