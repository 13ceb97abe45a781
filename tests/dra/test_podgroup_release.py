"""What DynamicResources frees when a PodGroup's scheduling fails (KEP-5729 "Deallocate",
``DRAWorkloadResourceClaims``): Unreserve takes the PodGroup out of ``reservedFor`` of its claims when
no member of the group is scheduled; the PodGroup cycle's PostFilter deallocates the claims reserved
only for that group or for nobody (never while a member is scheduled). On control planes; a
hypothesis property: a group whose gang failed holds no allocation unless a member is bound."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice
from kbatch.sim.nodes import create_nodes

from .test_podgroup_claims import ON, pod_group
from .test_preemption import cluster, shared_claim


def member(name: str, claim: str = "shared", selector: dict[str, str] | None = None) -> Pod:
    spec: dict[str, Any] = {
        "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
        "schedulingGroup": {"podGroupName": "g"},
        "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "10000"],
                        "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}],
    }
    if selector:
        spec["nodeSelector"] = selector
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": spec})


def claim(cp: ControlPlane, name: str = "shared") -> ResourceClaim:
    return cp.client.get(ResourceClaim, name, "default")


def allocated_node(c: ResourceClaim) -> str | None:
    allocation = c.status.allocation if c.status is not None else None
    return allocation.devices.results[0].pool if allocation is not None else None


def reserved(c: ResourceClaim) -> list[str]:
    return [r.name for r in (c.status.reserved_for or ())] if c.status is not None else []


def cordon(cp: ControlPlane, node: str) -> None:
    cp.client.patch(Node, node, {"spec": {"unschedulable": True}})


def group_with_a_finished_member(cp: ControlPlane, min_count: int = 1) -> str:
    """A PodGroup whose claim its first members got; the members are gone, the group stays, so the
    claim stays allocated and reserved for the group. Returns the claim's node."""
    shared_claim(cp, "shared")
    cp.client.create(pod_group(min_count=min_count, claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    for i in range(min_count):
        cp.client.create(member(f"first-{i}"))
    cp.advance(3)
    assert reserved(claim(cp)) == ["g"]
    for i in range(min_count):
        cp.client.delete(Pod, f"first-{i}", "default")
    cp.advance(3)
    assert reserved(claim(cp)) == ["g"]  # the PodGroup exists: the controller keeps it
    node = allocated_node(claim(cp))
    assert node is not None
    return node


def test_a_failed_group_cycle_deallocates_a_claim_reserved_only_for_the_group() -> None:
    cp = cluster(nodes=2, gpus=1, gates=ON)
    node = group_with_a_finished_member(cp)
    cordon(cp, node)  # the claim's devices are on a node the next member cannot use
    cp.client.create(member("second"))
    cp.advance(3)
    # PostFilter of the failed cycle deallocated the claim; its update queued the member, which got
    # the other node's device
    assert reserved(claim(cp)) == ["g"]
    other = allocated_node(claim(cp))
    assert other is not None and other != node
    bound = cp.client.get(Pod, "second", "default")
    assert bound.spec.node_name == other and bound.status.phase == "Running"


def test_a_scheduled_member_keeps_the_groups_claim() -> None:
    cp = cluster(nodes=2, gpus=1, gates=ON)
    shared_claim(cp, "shared")
    cp.client.create(pod_group(min_count=1, claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    cp.client.create(member("a"))
    cp.advance(3)
    node = allocated_node(claim(cp))
    cp.client.create(member("b", selector={"missing": "label"}))  # never fits
    cp.advance(3)
    assert cp.client.get(Pod, "b", "default").spec.node_name is None
    assert allocated_node(claim(cp)) == node and reserved(claim(cp)) == ["g"]
    assert cp.client.get(Pod, "a", "default").status.phase == "Running"


def test_a_claim_also_reserved_for_a_pod_is_not_deallocated() -> None:
    cp = cluster(nodes=2, gpus=1, gates=ON)
    node = group_with_a_finished_member(cp)
    other = Pod.model_validate({"metadata": {"name": "outsider", "namespace": "default"}, "spec": {
        "nodeName": node, "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "10000"],
                        "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}]}})
    cp.client.create(other)  # bound by hand: the controller adds it to reservedFor
    cp.advance(2)
    assert sorted(reserved(claim(cp))) == ["g", "outsider"]
    cordon(cp, node)
    cp.client.create(member("second"))
    cp.advance(3)
    assert allocated_node(claim(cp)) == node
    assert sorted(reserved(claim(cp))) == ["g", "outsider"]


# -- Unreserve: a gang that failed after PreBind ----------------------------------------------------
DRIVER = "fabric.example.com"


def fabric_cluster() -> ControlPlane:
    """One node whose only device has binding conditions (KEP-5007), a named claim for it, a PodGroup
    sharing the claim and one member: PreBind reserves the claim for the group and waits."""
    cp = ControlPlane(seed=0, feature_gates=ON)
    create_nodes(cp, 1)
    cp.client.create(DeviceClass.model_validate({"metadata": {"name": "fabric"}, "spec": {
        "selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}}))
    cp.client.create(ResourceSlice.model_validate({"metadata": {"name": "node-0-fabric"}, "spec": {
        "driver": DRIVER, "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1},
        "nodeName": "node-0", "devices": [{"name": "gpu-0", "bindingConditions": ["Attached"],
                                          "bindingFailureConditions": ["AttachFailed"]}]}}))
    cp.client.create(ResourceClaim.model_validate({
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "fabric"}}]}}}))
    cp.client.create(pod_group(min_count=1, claims=[{"name": "gpu", "resourceClaimName": "c"}]))
    cp.client.create(member("a", claim="c"))
    cp.advance(1)
    return cp


def fail_binding(cp: ControlPlane) -> None:
    current = claim(cp, "c")
    result = current.status.allocation.devices.results[0]
    body = current.to_dict()
    failed = {"type": "AttachFailed", "status": "True", "reason": "Broken", "message": "",
              "lastTransitionTime": "2026-01-01T00:00:00Z"}
    body["status"]["devices"] = [{"driver": result.driver, "pool": result.pool, "device": result.device,
                                  "conditions": [failed]}]
    cp.client.update_status(ResourceClaim.model_validate(body))


def test_unreserve_takes_the_group_out_of_reserved_for_when_no_member_is_scheduled() -> None:
    cp = fabric_cluster()
    assert reserved(claim(cp, "c")) == ["g"]  # PreBind wrote it and waits for "Attached"
    fail_binding(cp)
    cp.advance(5)  # the poll sees the failure: the member is unreserved
    pod = cp.client.get(Pod, "a", "default")
    assert pod.spec.node_name is None
    current = claim(cp, "c")
    assert reserved(current) == []  # the group left reservedFor (no member is scheduled)


def test_the_retry_of_a_failed_binding_allocates_anew() -> None:
    cp = fabric_cluster()
    first = claim(cp, "c").status.allocation.allocation_timestamp
    fail_binding(cp)
    cp.advance(30)  # back-off, then the group cycle: Filter finds it unavailable, PostFilter frees it
    current = claim(cp, "c")
    assert current.status is not None and current.status.allocation is not None
    assert current.status.allocation.allocation_timestamp != first  # a new allocation, waiting again
    assert not current.status.devices
    assert reserved(current) == ["g"]


# -- the property -------------------------------------------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(nodes=st.integers(1, 3), cordoned=st.sets(st.integers(0, 2)), extra=st.integers(0, 2),
       min_count=st.integers(1, 3), seed=st.integers(0, 3))
def test_a_failed_gang_holds_no_allocation_unless_a_member_is_bound(
        nodes: int, cordoned: set[int], extra: int, min_count: int, seed: int) -> None:
    """Enough members for the gang (fewer are held at PreEnqueue: no cycle runs, nothing fails), the
    nodes randomly cordoned, the group's claim left allocated by its earlier members."""
    cp = cluster(nodes=nodes, gpus=1, gates=ON, seed=seed)
    group_with_a_finished_member(cp, min_count)
    for index in sorted(cordoned):
        if index < nodes:
            cordon(cp, f"node-{index}")
    for i in range(min_count + extra):
        cp.client.create(member(f"m{i}"))
    cp.advance(30)
    bound = [p for p in cp.client.list(Pod, "default").items if p.spec.node_name]
    if allocated_node(claim(cp)) is not None:
        assert bound, "the claim is allocated but no member of the group is bound"


def left_on_a_cordoned_node(cp: ControlPlane) -> None:
    """Claim "shared" allocated on node-0 and reserved for nobody; node-0 then cordoned."""
    shared_claim(cp, "shared")
    body = claim(cp).to_dict()
    body["status"] = {"allocation": {
        "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "node-0",
                                 "device": "gpu-0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["node-0"]}]}]}}}
    cp.client.update_status(ResourceClaim.model_validate(body))
    cordon(cp, "node-0")


def test_the_group_postfilter_reports_the_claims_it_freed() -> None:
    """Upstream ``PodGroupPostFilter`` (kubernetes/kubernetes#140535) answers ``Unschedulable``
    "deallocation and deletion of ResourceClaims completed" once it freed claims; the reason joins
    the failed group's message (its ``PodGroupInitiallyScheduled`` condition), as the pod-level
    PostFilter's "deallocation of ResourceClaim completed" joins a pod's. Here the group's claim was
    left allocated on a node that is now cordoned, reserved for nobody; the group's first cycle
    fails, frees it, and the next one allocates on the other node."""
    from kbatch.api.scheduling_v1beta1 import PodGroup
    from kbatch.apiserver.admission import AdmissionRequest

    cp = cluster(nodes=2, gpus=1, gates=ON)
    messages: list[str] = []

    def hook(req: AdmissionRequest) -> None:
        if isinstance(req.obj, PodGroup) and req.obj.status is not None:
            messages.extend(c.message or "" for c in req.obj.status.conditions or () if c.status == "False")

    cp.server.admission.add_validating(None, hook)
    left_on_a_cordoned_node(cp)
    cp.client.create(pod_group(min_count=1, claims=[{"name": "gpu", "resourceClaimName": "shared"}]))
    cp.client.create(member("first"))
    cp.advance(3)
    assert messages == ["pod group is unschedulable, minCount (1) cannot be satisfied: 0 scheduled, "
                        "0 remaining, deallocation and deletion of ResourceClaims completed"]
    assert allocated_node(claim(cp)) == "node-1" and reserved(claim(cp)) == ["g"]
    assert cp.client.get(Pod, "first", "default").spec.node_name == "node-1"
