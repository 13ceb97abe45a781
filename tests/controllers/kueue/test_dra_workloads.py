"""DRA devices against ClusterQueue quota through the running manager (kueue v0.19.2
``KueueDRAIntegration``: ``pkg/dra/claims.go``, the DRA block of ``Reconcile`` in
``pkg/controller/core/workload_controller.go``, ``WithPreprocessedDRAResources`` in
``pkg/workload/workload.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.resource_v1.claim import ResourceClaimTemplate

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2",
    "kind": "Configuration",
    "resources": {"deviceClassMappings": [{"name": "gpus", "deviceClassNames": ["gpu.example.com"]}]},
}


def template(name: str = "one-gpu", device_class: str = "gpu.example.com", **exactly: Any) -> dict[str, Any]:
    req = {"name": "gpu", "exactly": {"deviceClassName": device_class, **exactly}}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [req]}}},
    }


def dra_workload(name: str, count: int = 1, tmpl: str = "one-gpu", claim: str | None = None) -> Any:
    wl = workload(name, "lq", count=count, cpu="100m")
    ref = {"name": "gpu", "resourceClaimTemplateName": tmpl}
    if claim:
        ref = {"name": "gpu", "resourceClaimName": claim}
    wl["spec"]["podSets"][0]["template"]["spec"]["resourceClaims"] = [ref]
    return wl


def _world(*objects: Any, gpus: str = "2", config: Any = CONFIG) -> World:
    return World(
        flavor("default"),
        cluster_queue("cq", (["cpu", "gpus"], [("default", [quota("cpu", "10"), quota("gpus", gpus)])])),
        local_queue("lq", "cq"),
        *objects,
        kueue_config=config,
    )


def _settle(w: World) -> None:
    w.cp.run_until_idle()
    w.cp.advance(2)


def test_template_devices_count_against_the_mapped_quota() -> None:
    w = _world(template())
    w.apply(dra_workload("a", count=2), dra_workload("b", count=1))
    _settle(w)
    assert w.admitted("a")
    assert not w.reserved("b")
    assignment = w.wl("a").status.admission.pod_set_assignments[0].to_dict()
    assert assignment["flavors"] == {"cpu": "default", "gpus": "default"}
    assert assignment["resourceUsage"] == {"cpu": "200m", "gpus": "2"}
    assert [r.to_dict() for r in w.wl("b").status.resource_requests] == [
        {"name": "main", "resources": {"cpu": "100m", "gpus": "1"}}
    ]
    assert "insufficient unused quota for gpus in flavor default" in w.cond("b", "QuotaReserved").message


def test_a_workload_needing_more_devices_than_the_quota_stays_pending() -> None:
    w = _world(template())
    w.apply(dra_workload("a", count=4))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert cond.status == "False"
    assert "insufficient quota for gpus in flavor default" in cond.message


def test_an_unmapped_device_class_is_inadmissible() -> None:
    w = _world(template(device_class="fpga.example.com"))
    w.apply(dra_workload("a"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == (
        "spec.podSets[0].template.spec.resourceClaims[0].resourceClaimTemplateName: Not found: "
        '"DeviceClass fpga.example.com is not mapped in DRA configuration for podset main"'
    )
    requeued = w.cond("a", "Requeued")
    assert (requeued.status, requeued.reason, requeued.message) == ("False", "Inadmissible", cond.message)


def test_a_resource_claim_is_refused() -> None:
    w = _world()
    w.apply(dra_workload("a", claim="shared"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason) == ("False", "Inadmissible")
    assert cond.message == "KueueDRAIntegration feature does not support use of resource claims"
    assert w.cond("a", "Requeued").message == "DRA resource claims not supported"


def test_a_missing_template_is_retried_until_it_exists() -> None:
    w = _world()
    w.apply(dra_workload("a"))
    _settle(w)
    cond = w.cond("a", "QuotaReserved")
    assert cond.message == (
        "spec.podSets[0].template.spec.resourceClaims[0]: Internal error: failed to get claim spec for "
        "ResourceClaimTemplate one-gpu in podset main: "
        'resourceclaimtemplates.resource.k8s.io "one-gpu" not found'
    )
    w.apply(template())
    for _ in range(10):
        _settle(w)
    assert w.admitted("a")


EXACTLY = "spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0].exactly."


@pytest.mark.parametrize(
    ("exactly", "message"),
    [
        ({"allocationMode": "All"}, f"{EXACTLY}allocationMode: Invalid value: \"All\": "
         "ResourceClaimTemplate one-gpu: AllocationMode 'All' is not supported"),
        ({"adminAccess": True}, f"{EXACTLY}adminAccess: Invalid value: null: "
         "ResourceClaimTemplate one-gpu: AdminAccess is not supported"),
    ],
)
def test_unsupported_requests_are_inadmissible(exactly: dict[str, Any], message: str) -> None:
    admin_ns = {"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "default", "labels": {"resource.kubernetes.io/admin-access": "true"}}}
    w = _world(admin_ns, template(**exactly))
    w.apply(dra_workload("a"))
    _settle(w)
    assert w.cond("a", "QuotaReserved").message == message


def _gates_off(reject: bool) -> dict[str, Any]:
    gates = {"KueueDRAIntegration": False, "KueueDRAIntegrationExtendedResource": False,
             "KueueDRAIntegrationPartitionableDevices": False,
             "KueueDRARejectWorkloadsWhenDRADisabled": reject}
    return {**CONFIG, "featureGates": gates}


def test_with_the_gate_off_a_dra_workload_is_refused() -> None:
    """``KueueDRARejectWorkloadsWhenDRADisabled`` (beta, on): refused, not queued."""
    w = _world(template(), config=_gates_off(True))
    w.apply(dra_workload("a"))
    _settle(w)
    message = "Workload uses DRA resources but the KueueDRAIntegration feature gate is not enabled"
    cond = w.cond("a", "QuotaReserved")
    assert (cond.status, cond.reason, cond.message) == ("False", "Inadmissible", message)
    assert w.cond("a", "Requeued").message == message


def test_with_both_gates_off_templates_count_nothing() -> None:
    w = _world(template(), config=_gates_off(False))
    w.apply(dra_workload("a", count=4))
    _settle(w)
    assert ResourceClaimTemplate  # the kind exists either way
    assert w.admitted("a")
