"""Device taint eviction of a pod that got its devices through an extended resource backed by DRA
(KEP-5004): the special claim named in ``status.extendedResourceClaimStatus`` is one of the pod's
claims for the ``device-taint-eviction`` controller (kubernetes#141290, fixed by kubernetes#142289:
upstream's claim iteration includes it, owner checked). A ``NoExecute`` taint on one of its devices
evicts the pod; a toleration cannot help (the special claim's requests carry none), and a claim
that is not the pod's own, or no longer reserved for it, does not count."""

from __future__ import annotations

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.resource_v1 import DeviceTaintRule, ResourceClaim
from kbatch.controllers.dra.devicetainteviction.sync import pod_claim_names

from .test_extended_resources import cluster, pod


def _rule(device: str = "gpu-0", effect: str = "NoExecute") -> DeviceTaintRule:
    return DeviceTaintRule.model_validate({
        "metadata": {"name": "broken"},
        "spec": {"deviceSelector": {"pool": "node-0", "device": device},
                 "taint": {"key": "broken", "effect": effect}},
    })


def _events(cp: ControlPlane, name: str) -> list[tuple[str, str]]:
    return [(e.reason, e.message) for e in cp.client.list(Event, "default").items
            if e.involved_object.name == name and "Taint" in (e.reason or "")]


def test_a_tainted_device_evicts_the_pod_that_got_it_through_an_extended_resource() -> None:
    cp = cluster(nodes=1, gpus=2)
    cp.client.create(pod("p", count=1))
    cp.advance(1)
    got = cp.client.get(Pod, "p", "default")
    assert got.status.phase == "Running"
    [claim] = cp.client.list(ResourceClaim, "default").items
    [result] = claim.status.allocation.devices.results
    other = "gpu-1" if result.device == "gpu-0" else "gpu-0"
    cp.client.create(_rule(other))  # the device the pod does not use: nothing happens
    cp.advance(1)
    assert cp.client.get(Pod, "p", "default").status.condition("DisruptionTarget") is None
    cp.client.delete(DeviceTaintRule, "broken")
    cp.client.create(_rule(result.device))
    cp.advance(1)
    condition = cp.client.get(Pod, "p", "default").status.condition("DisruptionTarget")
    assert (condition.status, condition.reason) == ("True", "DeletionByDeviceTaintManager")
    assert _events(cp, "p") == [("DeviceTaintManagerEviction", "Marking for deletion")]
    cp.advance(60)
    assert [p.metadata.name for p in cp.client.list(Pod, "default").items] == []
    assert cp.client.list(ResourceClaim, "default").items == []  # gone with its pod


def test_the_special_claim_is_a_claim_of_its_pod_owner_checked() -> None:
    body = {"metadata": {"name": "p", "namespace": "default", "uid": "u"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}],
                     "resourceClaims": [{"name": "own", "resourceClaimName": "shared"}]},
            "status": {"extendedResourceClaimStatus": {"resourceClaimName": "p-extended-resources-abcde",
                                                       "requestMappings": []}}}
    names = pod_claim_names(Pod.model_validate(body))
    assert names == [("shared", False), ("p-extended-resources-abcde", True)]


def test_a_special_claim_controlled_by_another_pod_is_not_counted() -> None:
    """The pod names a special claim it does not control (a stale status): no eviction for it."""
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(pod("p", count=1))
    cp.advance(1)
    [claim] = cp.client.list(ResourceClaim, "default").items
    forged = edit(claim)
    forged.metadata.owner_references[0].uid = "someone-else"
    cp.client.update(forged)
    cp.client.create(_rule("gpu-0"))
    cp.advance(1)
    assert cp.client.get(Pod, "p", "default").status.condition("DisruptionTarget") is None
