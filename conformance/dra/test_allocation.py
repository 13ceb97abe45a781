"""DRA end to end: the resourceclaim controller, the DynamicResources scheduler plugin with the
structured allocator, the kubelet preparing claims.

Upstream: pkg/controller/resourceclaim (claims from templates, reservedFor clean-up, deallocation),
pkg/scheduler/framework/plugins/dynamicresources, k8s.io/dynamic-resource-allocation/structured
(allocator_testing.go's cases), test/integration/dra and test/e2e/dra.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.target import Obj, condition
from conformance.timing import budget

pytestmark = [pytest.mark.runs_pods, pytest.mark.simulated_dra]

V1 = "resource.k8s.io/v1"
CONTROLLER = "kubernetes/kubernetes pkg/controller/resourceclaim/controller.go"
PLUGIN = "kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources"
ALLOCATOR = "k8s.io/dynamic-resource-allocation/structured allocator_testing.go"


def _ready_node(target) -> str:
    for node in sorted(target.list("Node"), key=lambda n: n["metadata"]["name"]):
        ready = condition(node, "Ready")
        if ready is not None and ready.get("status") == "True" and not (node.get("spec") or {}).get("taints"):
            return node["metadata"]["name"]
    pytest.skip("no Ready untainted node")


@contextlib.contextmanager
def devices(
    target, models: list[str], taints: dict[int, list[dict]] | None = None
) -> Iterator[dict[str, str]]:
    """A DeviceClass and a ResourceSlice of ``len(models)`` devices for a Ready node, with a driver named
    after the namespace; deleted afterwards. Yields the names."""
    ns = target.namespace
    driver, node = f"{ns}.dra.kbatch.dev", _ready_node(target)
    names = {"driver": driver, "class": f"{ns}-gpu", "slice": f"{ns}-slice", "node": node}
    target.create(
        {
            "apiVersion": V1,
            "kind": "DeviceClass",
            "metadata": {"name": names["class"]},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]},
        }
    )
    slice_devices = []
    for i, model in enumerate(models):
        device: dict[str, Any] = {
            "name": f"gpu-{i}",
            "attributes": {"model": {"string": model}, "index": {"int": i}},
        }
        if taints and i in taints:
            device["taints"] = taints[i]
        slice_devices.append(device)
    target.create(
        {
            "apiVersion": V1,
            "kind": "ResourceSlice",
            "metadata": {"name": names["slice"]},
            "spec": {
                "driver": driver,
                "nodeName": node,
                "devices": slice_devices,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            },
        }
    )
    try:
        yield names
    finally:
        for kind, key in (("ResourceSlice", "slice"), ("DeviceClass", "class")):
            with contextlib.suppress(Exception):
                target.delete(kind, names[key])


def _template(name: str, request: dict[str, Any]) -> Obj:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name},
        "spec": {"spec": {"devices": {"requests": [request]}}},
    }


def _pod(name: str, seconds: int, **source: str) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 1,
            "containers": [
                {
                    "name": "c",
                    "image": "busybox:1.36",
                    "command": ["sh", "-c", f"sleep {seconds}"],
                    "resources": {"claims": [{"name": "gpu"}]},
                }
            ],
            "resourceClaims": [{"name": "gpu", **source}],
        },
    }


def _phase(target, name: str) -> str:
    pod = target.get("Pod", name)
    return ((pod or {}).get("status") or {}).get("phase", "")


def _claim_of(target, pod_name: str) -> Obj | None:
    pod = target.get("Pod", pod_name) or {}
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses") or []
    return target.get("ResourceClaim", statuses[0]["resourceClaimName"]) if statuses else None


def _results(claim: Obj | None) -> list[dict]:
    allocation = ((claim or {}).get("status") or {}).get("allocation") or {}
    return (allocation.get("devices") or {}).get("results") or []


@pytest.mark.semantic(
    "a template's claim is generated per pod (<pod>-<claim>-<5 random>, owned by the pod, "
    "recorded in resourceClaimStatuses), allocated, reserved for the pod; the pod runs",
    source=f"{CONTROLLER} syncPod; {PLUGIN} PreBind",
)
def test_generated_claim_is_allocated_and_reserved(target) -> None:
    with devices(target, ["A100"]) as names:
        target.create(_template("one", {"name": "gpu", "exactly": {"deviceClassName": names["class"]}}))
        target.create(_pod("p", 600, resourceClaimTemplateName="one"))
        assert target.wait_for(lambda: _phase(target, "p") == "Running", timeout=budget(rounds=1))
        claim = _claim_of(target, "p")
        assert claim is not None and claim["metadata"]["name"].startswith("p-gpu-")
        assert len(claim["metadata"]["name"]) == len("p-gpu-") + 5
        owner = claim["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner.get("controller")) == ("Pod", "p", True)
        assert [(r["driver"], r["device"]) for r in _results(claim)] == [(names["driver"], "gpu-0")]
        assert [r["name"] for r in claim["status"]["reservedFor"]] == ["p"]
        assert "resource.kubernetes.io/delete-protection" in claim["metadata"]["finalizers"]
        target.delete("Pod", "p", grace_period_seconds=0)


@pytest.mark.semantic(
    "a pod whose claims cannot be allocated is Unschedulable (cannot allocate all claims) "
    "and runs once a finished pod's claim frees the device",
    source=f"{PLUGIN} Filter; {CONTROLLER} syncClaim",
)
def test_devices_are_freed_when_pods_finish(target) -> None:
    with devices(target, ["A100"]) as names:
        target.create(_template("one", {"name": "gpu", "exactly": {"deviceClassName": names["class"]}}))
        target.create(_pod("first", 5, resourceClaimTemplateName="one"))
        assert target.wait_for(lambda: _phase(target, "first") == "Running", timeout=budget(rounds=1))
        target.create(_pod("second", 600, resourceClaimTemplateName="one"))

        def rejected() -> bool:
            scheduled = condition(target.get("Pod", "second") or {}, "PodScheduled") or {}
            return scheduled.get("reason") == "Unschedulable"

        assert target.wait_for(rejected, timeout=budget(rounds=1))
        assert (
            "cannot allocate all claims" in condition(target.get("Pod", "second"), "PodScheduled")["message"]
        )
        assert target.wait_for(
            lambda: _phase(target, "second") == "Running", timeout=budget(rounds=2, extra=5)
        )
        target.delete("Pod", "second", grace_period_seconds=0)


@pytest.mark.semantic(
    "a firstAvailable request takes its first satisfiable subrequest; results name <request>/<subrequest>",
    source=f"{ALLOCATOR} prioritized list; KEP-4816",
)
def test_first_available(target) -> None:
    with devices(target, ["A100", "A100"]) as names:
        cls = names["class"]
        request = {
            "name": "gpu",
            "firstAvailable": [
                {
                    "name": "h100",
                    "deviceClassName": cls,
                    "selectors": [
                        {"cel": {"expression": f'device.attributes["{names["driver"]}"].model == "H100"'}}
                    ],
                },
                {"name": "two", "deviceClassName": cls, "count": 2},
            ],
        }
        target.create(_template("prio", request))
        target.create(_pod("p", 600, resourceClaimTemplateName="prio"))
        assert target.wait_for(lambda: _phase(target, "p") == "Running", timeout=budget(rounds=1))
        assert [r["request"] for r in _results(_claim_of(target, "p"))] == ["gpu/two", "gpu/two"]
        target.delete("Pod", "p", grace_period_seconds=0)


@pytest.mark.semantic(
    "a claim shared by name is allocated once and reserved for every pod using it",
    source=f"{PLUGIN} PreBind; k8s.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation",
)
def test_shared_claim(target) -> None:
    with devices(target, ["A100"]) as names:
        target.create(
            {
                "apiVersion": V1,
                "kind": "ResourceClaim",
                "metadata": {"name": "shared"},
                "spec": {
                    "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": names["class"]}}]}
                },
            }
        )
        for name in ("a", "b"):
            target.create(_pod(name, 600, resourceClaimName="shared"))
        assert target.wait_for(
            lambda: _phase(target, "a") == "Running" and _phase(target, "b") == "Running",
            timeout=budget(rounds=1),
        )
        claim = target.get("ResourceClaim", "shared")
        assert sorted(r["name"] for r in claim["status"]["reservedFor"]) == ["a", "b"]
        assert len(_results(claim)) == 1
        for name in ("a", "b"):
            target.delete("Pod", name, grace_period_seconds=0)


@pytest.mark.semantic(
    "devices with an untolerated NoSchedule taint are not allocated; a toleration admits them",
    source=f"{ALLOCATOR} taints; KEP-5055",
)
def test_tainted_devices(target) -> None:
    taint = [{"key": "example.com/unhealthy", "effect": "NoSchedule"}]
    with devices(target, ["A100", "A100"], taints={0: taint}) as names:
        target.create(_template("plain", {"name": "gpu", "exactly": {"deviceClassName": names["class"]}}))
        target.create(
            _template(
                "tolerant",
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": names["class"],
                        "count": 2,
                        "tolerations": [{"key": "example.com/unhealthy", "operator": "Exists"}],
                    },
                },
            )
        )
        target.create(_pod("plain", 600, resourceClaimTemplateName="plain"))
        assert target.wait_for(lambda: _phase(target, "plain") == "Running", timeout=budget(rounds=1))
        assert [r["device"] for r in _results(_claim_of(target, "plain"))] == ["gpu-1"]
        target.delete("Pod", "plain", grace_period_seconds=0)
        target.create(_pod("tolerant", 600, resourceClaimTemplateName="tolerant"))
        assert target.wait_for(
            lambda: _phase(target, "tolerant") == "Running", timeout=budget(rounds=2, extra=5)
        )
        assert sorted(r["device"] for r in _results(_claim_of(target, "tolerant"))) == ["gpu-0", "gpu-1"]
        target.delete("Pod", "tolerant", grace_period_seconds=0)
