"""A Kueue world with one ProvisioningRequest check (kueue's provisioning controller tests' setup):
flavor ``default``, ClusterQueue ``cq`` naming check ``check1`` (config ``config1``), LocalQueue
``lq``. The autoscaler's answers are written by hand (``answer``), as upstream's unit tests do."""

from __future__ import annotations

from typing import Any

from kbatch.api.autoscaling_x_v1 import ProvisioningRequest
from kbatch.api.core_v1 import PodTemplate
from kbatch.api.kueue_v1beta2 import AdmissionCheckState

from ..helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload

__all__ = [
    "CONTROLLER",
    "GPU",
    "admission_check",
    "answer",
    "check",
    "config",
    "prov_world",
    "requests",
    "submit",
    "templates",
]

CONTROLLER = "kueue.x-k8s.io/provisioning-request"
GPU = "example.com/gpu"


def config(name: str = "config1", **spec: Any) -> dict[str, Any]:
    body = {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io", **spec}
    return {
        "apiVersion": KUEUE,
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": name},
        "spec": body,
    }


def admission_check(name: str = "check1", config_name: str = "config1", **ref: Any) -> dict[str, Any]:
    params = {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": config_name, **ref}
    return {
        "apiVersion": KUEUE,
        "kind": "AdmissionCheck",
        "metadata": {"name": name},
        "spec": {"controllerName": CONTROLLER, "parameters": params},
    }


def prov_world(
    *extra: Any, kueue_config: dict[str, Any] | None = None, controllers: str = "kueue", **config_spec: Any
) -> World:
    w = World(
        flavor("default"),
        admission_check(),
        config(**config_spec),
        cluster_queue(
            "cq",
            (["cpu", GPU], [("default", [quota("cpu", "10"), quota(GPU, "10")])]),
            admissionChecksStrategy={"admissionChecks": [{"name": "check1"}]},
        ),
        local_queue("lq", "cq"),
        *extra,
        kueue_config=kueue_config,
        controllers=controllers,
    )
    w.cp.run_until_idle()
    return w


def submit(w: World, name: str = "wl", **kw: Any) -> None:
    w.apply(workload(name, "lq", **kw))
    w.settle(rounds=2)


def check(w: World, name: str = "wl", check_name: str = "check1") -> AdmissionCheckState:
    return next(c for c in w.wl(name).status.admission_checks or () if c.name == check_name)


def requests(w: World) -> dict[str, ProvisioningRequest]:
    return {pr.metadata.name or "": pr for pr in w.cp.client.list(ProvisioningRequest, "default").items}


def templates(w: World) -> dict[str, PodTemplate]:
    return {pt.metadata.name or "": pt for pt in w.cp.client.list(PodTemplate, "default").items}


def answer(
    w: World,
    name: str,
    kind: str,
    status: str = "True",
    reason: str = "Reason",
    message: str = "msg",
    details: dict[str, str] | None = None,
) -> None:
    """Set one condition on the request, as the autoscaler would."""
    cond = {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message,
        "lastTransitionTime": w.cp.now().isoformat(),
    }
    pr = w.cp.client.get(ProvisioningRequest, name, "default")
    conds = [c.to_dict() for c in (pr.status.conditions if pr.status else None) or () if c.type != kind]
    body: dict[str, Any] = {"conditions": [*conds, cond]}
    if details is not None:
        body["provisioningClassDetails"] = details
    w.cp.client.patch_status(ProvisioningRequest, name, {"status": body}, "default")
    w.cp.run_until_idle()
