"""A simulated DRA driver reporting device status (KEP-4817, ``DRAResourceClaimDeviceStatus``, GA in
1.37): nodes added with ``DeviceTemplate(device_status=True)`` have their driver write each device's
``status.devices`` entry (``Ready``, ``data``, ``networkData`` for network devices) as
``system:node:<node>`` once the node's kubelet prepared the claim for a bound pod, and take it out
when it is unprepared (no running pod on the node uses it; ``test_attach_driver.py``: nothing while
the scheduler's PreBind waits with the claim reserved); drivers
without it write nothing. The API server's validation of the entries (upstream
``validateDeviceStatus`` / ``validateNetworkDeviceData``): Kubernetes-style field errors, no partial
write."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceClaimTemplate
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.controllers.dra.driver.status import entry_key, merged
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

from .test_preemption import gpu_pod, shared_claim


def cluster(status: bool = True, network: bool = False, nodes: int = 1) -> ControlPlane:
    template = DeviceTemplate(count=2, device_status=status, network=network)
    return cluster_of(NodeTemplate(devices=template), nodes)


def cluster_of(template: NodeTemplate, nodes: int = 1) -> ControlPlane:
    """``nodes`` nodes of ``template``, the DeviceClass ``gpu`` and the template ``one-gpu``."""
    cp = ControlPlane(seed=0)
    create_nodes(cp, nodes, template)
    cp.client.create(DeviceClass.model_validate({"metadata": {"name": "gpu"}, "spec": {
        "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}))
    cp.client.create(ResourceClaimTemplate.model_validate({
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}))
    cp.run_until_idle()
    return cp


def only_claim(cp: ControlPlane) -> ResourceClaim:
    [claim] = cp.client.list(ResourceClaim, "default").items
    return claim


def entries(claim: ResourceClaim) -> list[dict[str, Any]]:
    return [d.to_dict() for d in (claim.status.devices or ())] if claim.status else []


def test_the_driver_reports_each_prepared_device_ready_with_data() -> None:
    cp = cluster()
    cp.client.create(gpu_pod("p"))
    cp.advance(3)
    claim = only_claim(cp)
    [result] = claim.status.allocation.devices.results
    [entry] = entries(claim)
    assert (entry["driver"], entry["pool"], entry["device"]) == (result.driver, result.pool, result.device)
    [ready] = entry["conditions"]
    assert (ready["type"], ready["status"], ready["reason"]) == ("Ready", "True", "DevicePrepared")
    assert entry["data"]["model"] == "A100" and entry["data"]["node"] == "node-0"
    assert entry["data"]["index"] == 0 and len(entry["data"]["uuid"]) == 36
    assert "networkData" not in entry
    assert cp.client.get(Pod, "p", "default").status.phase == "Running"


def test_network_devices_carry_network_data() -> None:
    cp = cluster(network=True)
    cp.client.create(gpu_pod("p"))
    cp.advance(3)
    [entry] = entries(only_claim(cp))
    assert entry["device"] == "nic-0"
    network = entry["networkData"]
    assert network["interfaceName"] == "net1"
    assert network["ips"] == ["10.200.0.2/24"]  # the device's network, the node's host number (.2)
    assert network["hardwareAddress"].startswith("02:") and len(network["hardwareAddress"]) == 17


def test_a_driver_without_device_status_writes_nothing() -> None:
    cp = cluster(status=False)
    cp.client.create(gpu_pod("p"))
    cp.advance(3)
    assert entries(only_claim(cp)) == []


def test_the_driver_writes_as_its_node() -> None:
    cp = cluster()
    seen: list[tuple[str, str, str]] = []

    def hook(req: AdmissionRequest) -> None:
        if isinstance(req.obj, ResourceClaim) and req.subresource == "status" and req.obj.status \
                and req.obj.status.devices:
            seen.append((req.operation, req.user.name, ",".join(req.user.groups)))

    cp.server.admission.add_validating(None, hook)
    cp.client.create(gpu_pod("p"))
    cp.advance(3)
    assert seen and set(seen) == {("UPDATE", "system:node:node-0", "system:nodes,system:authenticated")}


def test_the_entry_goes_when_the_claim_is_no_longer_reserved() -> None:
    """A shared claim keeps its allocation while another pod holds it; when the last consumer goes the
    resourceclaim controller deallocates it, clearing the entries with the allocation; a claim
    reserved for nobody but still allocated loses its driver's entry (unprepared)."""
    cp = cluster()
    shared_claim(cp, "shared")
    cp.client.create(gpu_pod("a", claim="shared"))
    cp.client.create(gpu_pod("b", claim="shared"))
    cp.advance(3)
    assert len(entries(cp.client.get(ResourceClaim, "shared", "default"))) == 1
    cp.client.delete(Pod, "a", "default")
    cp.advance(3)
    assert len(entries(cp.client.get(ResourceClaim, "shared", "default"))) == 1  # b still uses it
    cp.client.delete(Pod, "b", "default")
    cp.advance(3)
    claim = cp.client.get(ResourceClaim, "shared", "default")
    assert claim.status is None or (claim.status.allocation is None and not claim.status.devices)


def test_an_allocated_claim_reserved_for_nobody_loses_the_entry() -> None:
    cp = cluster()
    shared_claim(cp, "shared")
    cp.client.create(gpu_pod("a", claim="shared"))
    cp.advance(3)
    claim = cp.client.get(ResourceClaim, "shared", "default")
    body = claim.to_dict()
    body["status"]["reservedFor"] = None  # as the scheduler's Unreserve of a failed PodGroup leaves it
    cp.client.update_status(ResourceClaim.model_validate(body))
    cp.client.delete(Pod, "a", "default")  # the kubelet would otherwise never have been told
    cp.advance(3)
    claim = cp.client.get(ResourceClaim, "shared", "default")
    assert claim.status.allocation is not None and not claim.status.devices


# -- validation of status.devices entries --------------------------------------------------------------
def allocated(cp: ControlPlane) -> ResourceClaim:
    cp.client.create(gpu_pod("p"))
    cp.advance(3)
    return only_claim(cp)


@pytest.mark.parametrize(("change", "wanted"), [
    ({"networkData": {"ips": ["10.0.0.1"]}},
     'status.devices[0].networkData.ips[0]: Invalid value: "10.0.0.1": '
     "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"),
    ({"networkData": {"ips": ["2001:DB8::1/64"]}}, 'status.devices[0].networkData.ips[0]: Invalid value: '
     '"2001:DB8::1/64": must be in canonical form ("2001:db8::1/64")'),
    ({"networkData": {"ips": ["10.0.0.1/24", "10.0.0.1/24"]}},
     'status.devices[0].networkData.ips[1]: Duplicate value: "10.0.0.1/24"'),
    ({"networkData": {"ips": [f"10.0.0.{i}/24" for i in range(17)]}},
     "status.devices[0].networkData.ips: Too many: 17: must have at most 16 items"),
    ({"networkData": {"interfaceName": "x" * 257}},
     "status.devices[0].networkData.interfaceName: Too long: may not be more than 256 bytes"),
    ({"networkData": {"hardwareAddress": "x" * 129}},
     "status.devices[0].networkData.hardwareAddress: Too long: may not be more than 128 bytes"),
    ({"data": [1, 2]},
     'status.devices[0].data: Invalid value: "<value omitted>": must be a valid JSON object'),
    ({"data": {"blob": "x" * 10240}}, "status.devices[0].data: Too long: may not be more than 10240 bytes"),
    ({"conditions": [{"type": f"C{i}", "status": "True", "reason": "R", "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"} for i in range(9)]},
     "status.devices[0].conditions: Too many: 9: must have at most 8 items"),
    ({"conditions": [{"type": "Ready", "status": "Maybe", "reason": "R", "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}]},
     'status.devices[0].conditions[0].status: Unsupported value: "Maybe"'),
])
def test_invalid_entries_are_refused_with_field_paths(change: dict[str, Any], wanted: str) -> None:
    cp = cluster(status=False)
    claim = allocated(cp)
    result = claim.status.allocation.devices.results[0]
    body = claim.to_dict()
    body["status"]["devices"] = [{"driver": result.driver, "pool": result.pool, "device": result.device,
                                  **change}]
    with pytest.raises(Invalid) as info:
        cp.client.update_status(ResourceClaim.model_validate(body))
    causes = [f"{c.field}: {c.message}" for c in info.value.status.details.causes]
    assert any(c.startswith(wanted) for c in causes), causes
    assert entries(cp.client.get(ResourceClaim, claim.metadata.name, "default")) == []  # no partial write


# -- the property -------------------------------------------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["create", "delete", "advance"]), st.integers(0, 3)),
                      min_size=1, max_size=8),
       network=st.booleans())
def test_the_entries_are_exactly_the_reserved_claims_devices(steps: list[tuple[str, int]],
                                                             network: bool) -> None:
    """After any mix of pods created and deleted (two nodes, two devices each), once things settle:
    a claim has one driver entry per allocated device when it is reserved (its pod bound and
    prepared), none otherwise, and every entry names an allocated device."""
    cp = cluster(network=network, nodes=2)
    for action, i in steps:
        name = f"p{i}"
        present = name in {p.metadata.name for p in cp.client.list(Pod, "default").items}
        if action == "create" and not present:
            cp.client.create(gpu_pod(name))
        elif action == "delete" and present:
            cp.client.delete(Pod, name, "default")
        cp.advance(1)
    cp.advance(5)
    for claim in cp.client.list(ResourceClaim, "default").items:
        status = claim.status
        allocation = status.allocation if status is not None else None
        results = {(r.driver, r.pool, r.device) for r in (allocation.devices.results or ())} \
            if allocation else set()
        got = [(e["driver"], e["pool"], e["device"]) for e in entries(claim)]
        assert len(got) == len(set(got))
        assert set(got) == (results if status is not None and status.reserved_for else set())


def test_merging_keeps_other_drivers_entries_and_unchanged_transition_times() -> None:
    ours = {("gpu.example.com", "node-0")}
    other = {"driver": "nic.example.com", "pool": "node-0", "device": "nic-0", "conditions": []}
    mine_then = {"driver": "gpu.example.com", "pool": "node-0", "device": "gpu-0", "data": {"a": 1},
                 "conditions": [{"type": "Ready", "status": "True", "reason": "DevicePrepared", "message": "",
                                 "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    mine_now = {**mine_then, "conditions": [{**mine_then["conditions"][0],
                                             "lastTransitionTime": "2026-06-01T00:00:00Z"}]}
    key = entry_key(mine_then)
    assert merged([other, mine_then], {key: mine_now}, ours) is None  # nothing changed but the time
    assert merged([other, mine_then], {}, ours) == [other]  # unprepared: ours goes, the other stays
    added = merged([other], {key: mine_now}, ours)
    assert added == [other, mine_now]
