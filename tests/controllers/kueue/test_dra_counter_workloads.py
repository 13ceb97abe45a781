"""Counter- and capacity-based DRA quota through the running manager, after kueue v0.19.2
``test/integration/singlecluster/controller/dra/dra_pd_test.go`` ("DRA Partitionable Devices
Integration"): MIG profiles charge ``gpu.memory`` by their ``consumesCounters``, not by device; count
multiplies; a broad selector charges the largest; whole GPU and MIG add up; a selector matching
nothing, or an incomplete pool, is inadmissible, and a ResourceSlice created later requeues it;
borrowing in a cohort; an exhausted cohort keeps the next pending. Then capacity sources
(``KueueDRAIntegrationConsumableCapacity``)."""

from __future__ import annotations

from typing import Any

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .test_dra_extended_workloads import device_class

MEM = "device.driver == 'gpu.example.com'"
CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "resources": {
        "deviceClassMappings": [
            {
                "name": "gpu.memory",
                "deviceClassNames": ["gpu.example.com", "mig.example.com"],
                "sources": [
                    {
                        "counter": {
                            "name": "memory",
                            "driver": "gpu.example.com",
                            "deviceSelector": {"cel": {"expression": MEM}},
                        }
                    }
                ],
            }
        ]
    },
}
MIG_CLASS = device_class("mig.example.com", None, "device.attributes['gpu.example.com'].type == 'mig'")
P1G = "device.attributes['gpu.example.com'].profile == '1g.5gb'"


def dev(name: str, kind: str, memory: str, profile: str | None = None) -> dict[str, Any]:
    attrs: dict[str, Any] = {"type": {"string": kind}}
    if profile:
        attrs["profile"] = {"string": profile}
    return {
        "name": name,
        "attributes": attrs,
        "consumesCounters": [{"counterSet": "gpu-0-counter-set", "counters": {"memory": {"value": memory}}}],
    }


GPU0 = dev("gpu-0", "gpu", "40320Mi")
MIG_1G = [dev(f"gpu-0-mig-1g5gb-{i}", "mig", "4864Mi", "1g.5gb") for i in range(2)]
MIG_3G = dev("gpu-0-mig-3g20gb-0", "mig", "20Gi", "3g.20gb")


def slice_(*devices: dict[str, Any], name: str = "pd", slices: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "gpu.example.com",
            "allNodes": True,
            "pool": {"name": "node1-gpu0", "generation": 1, "resourceSliceCount": slices},
            "devices": list(devices),
        },
    }


def template(
    name: str, device_class: str = "mig.example.com", count: int = 1, cel: str | None = P1G
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class, "count": count}
    if cel:
        exactly["selectors"] = [{"cel": {"expression": cel}}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}},
    }


def pd_workload(name: str, *templates: str, count: int = 1, queue: str = "lq") -> dict[str, Any]:
    wl = workload(name, queue, count=count, cpu="100m")
    if queue != "lq":  # the cohort's queues have only gpu.memory quota
        del wl["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]
    wl["spec"]["podSets"][0]["template"]["spec"]["resourceClaims"] = [
        {"name": f"c{i}", "resourceClaimTemplateName": t} for i, t in enumerate(templates)
    ]
    return wl


def _world(*objects: Any, config: Any = CONFIG) -> World:
    return World(
        flavor("default"),
        cluster_queue(
            "cq", (["cpu", "gpu.memory"], [("default", [quota("cpu", "8"), quota("gpu.memory", "160Gi")])])
        ),
        local_queue("lq", "cq"),
        MIG_CLASS,
        *objects,
        kueue_config=config,
    )


def _settle(w: World, rounds: int = 1) -> None:
    for _ in range(rounds):
        w.cp.run_until_idle()
        w.cp.advance(2)


def _usage(w: World, name: str) -> dict[str, str]:
    return dict(w.wl(name).status.admission.pod_set_assignments[0].to_dict()["resourceUsage"])


def test_a_mig_workload_is_charged_its_memory_counter() -> None:
    w = _world(slice_(GPU0, *MIG_1G), template("mig-1g5gb"))
    w.apply(pd_workload("a", "mig-1g5gb"))
    _settle(w)
    assert w.admitted("a")
    assert _usage(w, "a") == {"cpu": "100m", "gpu.memory": "4864Mi"}
    assert [r.to_dict() for r in w.wl("a").status.resource_requests or ()] in (
        [],
        [{"name": "main", "resources": {"cpu": "100m", "gpu.memory": "4864Mi"}}],
    )


def test_the_count_multiplies_and_a_broad_selector_is_charged_the_largest() -> None:
    broad = P1G + " || device.attributes['gpu.example.com'].profile == '3g.20gb'"
    w = _world(slice_(GPU0, *MIG_1G, MIG_3G), template("two", count=2), template("broad", cel=broad))
    w.apply(pd_workload("a", "two"), pd_workload("b", "broad"))
    _settle(w)
    assert _usage(w, "a")["gpu.memory"] == "9728Mi"
    assert _usage(w, "b")["gpu.memory"] == "20Gi"


def test_whole_gpu_and_mig_add_up_under_one_resource() -> None:
    whole = device_class("gpu.example.com", None)
    w = _world(
        whole, slice_(GPU0, MIG_1G[0]), template("whole-gpu", "gpu.example.com", cel=None), template("mig")
    )
    w.apply(pd_workload("a", "whole-gpu", "mig"))
    _settle(w)
    assert _usage(w, "a")["gpu.memory"] == "45184Mi"  # 40320Mi + 4864Mi


def test_memory_not_devices_bounds_admission() -> None:
    """160Gi of ``gpu.memory`` admits four 40320Mi GPUs' worth (one pod set of 4 pods: 161280Mi),
    and the next 1g.5gb MIG pod (4864Mi) no longer fits, though it is a single device."""
    whole = device_class("gpu.example.com", None)
    w = _world(
        whole, slice_(GPU0, *MIG_1G), template("whole-gpu", "gpu.example.com", cel=None), template("mig")
    )
    w.apply(pd_workload("a", "whole-gpu", count=4))
    _settle(w)
    assert _usage(w, "a")["gpu.memory"] == "161280Mi"
    w.apply(pd_workload("b", "mig"))
    _settle(w)
    assert not w.reserved("b")
    assert "insufficient unused quota for gpu.memory in flavor default, 2304Mi more needed" in (
        w.cond("b", "QuotaReserved").message
    )


def test_no_matching_device_is_inadmissible_until_a_slice_provides_one() -> None:
    w = _world(template("mig-requeue"))
    w.apply(pd_workload("a", "mig-requeue"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == (
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly.selectors: "
        "Internal error: ResourceClaimTemplate mig-requeue: insufficient matching devices for CEL selector "
        "in DeviceClass mig.example.com: 0 device(s) match in the cluster but 1 requested"
    )
    w.apply(slice_(GPU0, MIG_1G[0]))
    _settle(w, 10)
    assert w.admitted("a")
    assert _usage(w, "a")["gpu.memory"] == "4864Mi"


def test_an_incomplete_pool_is_inadmissible() -> None:
    w = _world(slice_(GPU0, MIG_1G[0], slices=2), template("mig-incomplete"))
    w.apply(pd_workload("a", "mig-incomplete"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == (
        "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Internal error: "
        "insufficient matching devices for counter driver: 0 device(s) match but 1 requested"
    )
    assert w.cond("a", "Requeued").status == "False"


def _cohort_world() -> World:
    devices = [dev(f"mig-{i}", "mig", "10Gi", "1g.10gb") for i in range(7)]
    return World(
        flavor("default"),
        *(
            cluster_queue(cq, (["gpu.memory"], [("default", [quota("gpu.memory", "30Gi")])]), cohort="pd")
            for cq in ("prod", "dev")
        ),
        local_queue("prod-lq", "prod"),
        local_queue("dev-lq", "dev"),
        MIG_CLASS,
        slice_(*devices),
        template("pd", cel=None),
        kueue_config=CONFIG,
    )


def test_counter_quota_is_borrowed_in_a_cohort() -> None:
    w = _cohort_world()
    w.apply(pd_workload("a", "pd", count=5, queue="prod-lq"))
    _settle(w, 2)
    assert w.admitted("a")
    assert _usage(w, "a")["gpu.memory"] == "50Gi"
    usage = w.cq("prod").status.flavors_usage[0].to_dict()["resources"]
    assert usage == [{"name": "gpu.memory", "total": "50Gi", "borrowed": "20Gi"}]


def test_an_exhausted_cohort_keeps_the_next_workload_pending() -> None:
    w = _cohort_world()
    w.apply(pd_workload("p", "pd", count=3, queue="prod-lq"), pd_workload("d", "pd", count=3, queue="dev-lq"))
    _settle(w)
    assert w.admitted("p") and w.admitted("d")
    w.apply(pd_workload("x", "pd", queue="prod-lq"))
    _settle(w)
    assert not w.reserved("x")


# --- capacity sources ------------------------------------------------------------------------------

CAPACITY_CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "featureGates": {"KueueDRAIntegrationConsumableCapacity": True},
    "resources": {
        "deviceClassMappings": [
            {
                "name": "gpu.memory",
                "deviceClassNames": ["vgpu.example.com"],
                "sources": [
                    {
                        "capacity": {
                            "name": "memory",
                            "driver": "gpu.example.com",
                            "deviceSelector": {"cel": {"expression": MEM}},
                        }
                    }
                ],
            }
        ]
    },
}


def shared_gpu() -> dict[str, Any]:
    policy = {"default": "8Gi", "validRange": {"min": "1Gi", "max": "80Gi", "step": "1Gi"}}
    return slice_(
        {
            "name": "gpu-0",
            "allowMultipleAllocations": True,
            "capacity": {"memory": {"value": "80Gi", "requestPolicy": policy}},
        },
        name="shared",
    )


def vgpu_template(name: str, memory: str | None) -> dict[str, Any]:
    tmpl = template(name, "vgpu.example.com", cel=None)
    if memory:
        tmpl["spec"]["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {
            "requests": {"memory": memory}
        }
    return tmpl


def test_capacity_sources_charge_the_requested_capacity() -> None:
    w = _world(
        device_class("vgpu.example.com", None),
        shared_gpu(),
        vgpu_template("asks", "15500Mi"),
        vgpu_template("default", None),
        config=CAPACITY_CONFIG,
    )
    w.apply(pd_workload("a", "asks", count=2), pd_workload("b", "default"))
    _settle(w)
    assert _usage(w, "a")["gpu.memory"] == "32Gi"  # 15500Mi rounded up to 16Gi, two pods
    assert _usage(w, "b")["gpu.memory"] == "8Gi"  # the policy's default


def test_without_the_capacity_gate_a_capacity_mapping_is_refused() -> None:
    config = {k: v for k, v in CAPACITY_CONFIG.items() if k != "featureGates"}
    try:
        _world(config=config).apply(pd_workload("a", "asks"))
    except Exception as err:  # the manager refuses its Configuration
        assert "capacity sources require KueueDRAIntegrationConsumableCapacity to be enabled" in str(err)
    else:
        raise AssertionError("the Configuration was accepted")
