"""DRA beyond ResourceClaimTemplates through the running manager (kueue v0.19.2): extended
resources backed by a DeviceClass's ``extendedResourceName`` (``pkg/dra/extended_resources.go``,
``deviceClassHandler``), template selectors checked against the cluster's ResourceSlices
(``validateCELSelectorsAgainstDevices``, retried with back-off) and the ``ResourceSliceReconciler``."""

from __future__ import annotations

from typing import Any

from kbatch.api.resource_v1.deviceclass import DeviceClass

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .test_dra_workloads import CONFIG, dra_workload


def device_class(
    name: str = "gpu.example.com", ern: str | None = "example.com/gpu", *cel: str
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if ern:
        spec["extendedResourceName"] = ern
    if cel:
        spec["selectors"] = [{"cel": {"expression": e}} for e in cel]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def resource_slice(name: str, driver: str, *devices: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": driver,
            "allNodes": True,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": d} for d in devices],
        },
    }


def selector_template(expression: str) -> dict[str, Any]:
    req = {
        "name": "gpu",
        "exactly": {"deviceClassName": "gpu.example.com", "selectors": [{"cel": {"expression": expression}}]},
    }
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [req]}}},
    }


def gpu_workload(name: str, gpus: str = "1", count: int = 1) -> dict[str, Any]:
    return workload(name, "lq", count=count, cpu="100m", extra={"example.com/gpu": gpus})


def _world(*objects: Any, gpus: str = "2", config: Any = CONFIG) -> World:
    return World(
        flavor("default"),
        cluster_queue("cq", (["cpu", "gpus"], [("default", [quota("cpu", "10"), quota("gpus", gpus)])])),
        local_queue("lq", "cq"),
        *objects,
        kueue_config=config,
    )


def _mgr(w: World) -> Any:
    return w.cp.manager.get("kueue-workload").reconciler.mgr


def _settle(w: World, rounds: int = 1) -> None:
    for _ in range(rounds):
        w.cp.run_until_idle()
        w.cp.advance(2)


def test_an_extended_resource_backed_by_a_device_class_consumes_the_mapped_quota() -> None:
    w = _world(device_class())
    w.apply(gpu_workload("a", count=2), gpu_workload("b"))
    _settle(w)
    assert w.admitted("a")
    assignment = w.wl("a").status.admission.pod_set_assignments[0].to_dict()
    assert assignment["flavors"] == {"cpu": "default", "gpus": "default"}
    assert assignment["resourceUsage"] == {"cpu": "200m", "gpus": "2"}
    assert not w.reserved("b")
    assert [r.to_dict() for r in w.wl("b").status.resource_requests] == [
        {"name": "main", "resources": {"cpu": "100m", "gpus": "1"}}
    ]
    assert "insufficient unused quota for gpus in flavor default" in w.cond("b", "QuotaReserved").message


def test_without_the_gate_the_extended_resource_is_an_undeclared_resource() -> None:
    config = {**CONFIG, "featureGates": {"KueueDRAIntegrationExtendedResource": False}}
    w = _world(device_class(), config=config)
    w.apply(gpu_workload("a"))
    _settle(w)
    assert not w.reserved("a")
    assert "example.com/gpu" in w.cond("a", "QuotaReserved").message


def test_a_device_class_created_later_requeues_the_workload() -> None:
    """``deviceClassHandler``: the class that makes the name DRA-backed brings the Workload back."""
    w = _world()
    w.apply(gpu_workload("a"))
    _settle(w)
    assert not w.reserved("a")
    w.apply(device_class())
    _settle(w, 3)
    assert w.admitted("a")
    assert w.wl("a").status.admission.pod_set_assignments[0].to_dict()["resourceUsage"]["gpus"] == "1"


def test_a_fractional_dra_backed_request_is_inadmissible() -> None:
    w = _world(device_class())
    w.apply(gpu_workload("a", gpus="500m"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == (
        "spec.podSets[0].template.spec.containers[0].resources.requests.example.com/gpu: "
        'Invalid value: "500m": extended resource quantity must be an integer'
    )


def test_a_selector_no_device_matches_is_refused_then_a_new_slice_admits_it() -> None:
    w = _world(
        device_class(ern=None),
        selector_template('device.driver == "gpu.example.com"'),
        resource_slice("nic", "nic.example.com", "nic-0"),
    )
    w.apply(dra_workload("a"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == (
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: "
        "Internal error: ResourceClaimTemplate one-gpu: insufficient matching devices for CEL selector in "
        "DeviceClass gpu.example.com: 0 device(s) match in the cluster but 1 requested"
    )
    assert w.cond("a", "Requeued").status == "False"
    w.apply(resource_slice("gpus", "gpu.example.com", "gpu-0"))
    _settle(w, 10)
    assert w.admitted("a")


def test_a_counter_drivers_slice_makes_cluster_queues_retry() -> None:
    """``ResourceSliceReconciler``: a slice of a counter source's driver notifies every ClusterQueue."""
    config = {
        **CONFIG,
        "resources": {
            "deviceClassMappings": [
                {
                    "name": "gpus",
                    "deviceClassNames": ["gpu.example.com"],
                    "sources": [{"counter": {"name": "memory", "driver": "gpu.example.com",
                                             "deviceSelector": {"cel": {"expression": "true"}}}}],
                }
            ]
        },
    }
    w = _world(config=config)
    mgr = _mgr(w)
    seen: list[list[str]] = []
    original = mgr.notify_retry_inadmissible
    mgr.notify_retry_inadmissible = lambda names: (seen.append(list(names)), original(names))[1]  # type: ignore[method-assign]
    w.apply(resource_slice("other", "nic.example.com", "nic-0"))
    _settle(w)
    assert seen == []
    w.apply(resource_slice("gpus", "gpu.example.com", "gpu-0"))
    _settle(w)
    assert seen == [["cq"]]


def test_the_device_class_cache_follows_updates_and_deletes() -> None:
    w = _world(device_class())
    _settle(w)
    backed = _mgr(w).dra.backed
    assert backed.has("example.com/gpu")
    w.cp.client.delete(DeviceClass, "gpu.example.com")
    _settle(w)
    assert not backed.has("example.com/gpu")
