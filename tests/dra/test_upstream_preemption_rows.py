"""Upstream's DRA preemption tables (kubernetes/kubernetes
``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_preemption_test.go``, KEP-5690):
``TestRemovePod``, ``TestAddPod``, ``TestSharedClaimsPreemption``, ``TestPreemptionSimulationSymmetry``
and ``TestPreemptionEndToEnd``, on :class:`~kbatch.controllers.dra.dynamicresources.preemption.Simulation`
and the structured allocator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kbatch.api.resource_v1 import ResourceClaim
from kbatch.controllers.dra.dynamicresources.preemption import Simulation
from kbatch.controllers.dra.structured import AllocatedState, DeviceID, claim_devices

from .builders import allocate, exactly, gpu, make_claim, make_class, make_slice

DRIVER = "test-driver"


@dataclass
class FakePod:
    name: str
    uid: str
    claims: tuple[str, ...] = ()
    template: bool = False  # the entry names a template (no claim recorded: resourceclaim.Name fails)
    namespace: str = "default"
    claim_statuses: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @property
    def resource_claims(self) -> tuple[tuple[str, str, str], ...]:
        if self.template:
            return (("my-claim", "", "my-template"),)
        return tuple((f"my-claim-{i}", c, "") for i, c in enumerate(self.claims))


def claim(name: str, device: str | None = "device-1", *consumers: str, pool: str = "pool-1",
          share: str | None = None, capacity: dict[str, str] | None = None,
          group: bool = False) -> ResourceClaim:
    status: dict[str, Any] = {}
    if device is not None:
        result: dict[str, Any] = {"request": "req", "driver": DRIVER, "pool": pool, "device": device}
        if share is not None:
            result["shareID"] = share
            result["consumedCapacity"] = capacity
        status["allocation"] = {"devices": {"results": [result]}}
    reserved = [{"resource": "pods", "name": u, "uid": u} for u in consumers]
    if group:
        reserved = [{"apiGroup": "scheduling.k8s.io", "resource": "podgroups", "name": "my-group",
                     "uid": "group-uid"}]
    if reserved:
        status["reservedFor"] = reserved
    return ResourceClaim.model_validate({
        "metadata": {"name": name, "namespace": "default", "uid": name},
        "spec": {"devices": {"requests": [exactly("req", "test-class")]}},
        "status": status or None,
    })


def lookup_of(*claims: ResourceClaim) -> Any:
    by_name = {c.metadata.name: c for c in claims}
    return lambda namespace, name: by_name.get(name)


def held(*claims: ResourceClaim) -> AllocatedState:
    state = AllocatedState()
    for c in claims:
        state.add(claim_devices(c))
    return state


# -- TestRemovePod ---------------------------------------------------------------------------------
REMOVE_ROWS = {
    # name: (claims, pod, pre-removed {claim: pods}, released?, recorded as removed?)
    "allocated-unused-claim-released": (
        [claim("claim-1")], FakePod("pod-a", "pod-a-uid", ("claim-1",)), {}, True, True),
    "single-user-claim-released": (
        [claim("claim-populated", "device-1", "pod-populated-uid")],
        FakePod("pod-populated", "pod-populated-uid", ("claim-populated",)), {}, True, True),
    "shared-claim-single-user-out-not-released": (
        [claim("shared-claim", None, "pod-a-uid", "pod-b-uid")],
        FakePod("pod-shared-a", "pod-a-uid", ("shared-claim",)), {}, False, True),
    "shared-claim-all-users-out-released": (
        [claim("shared-claim", None, "pod-a-uid", "pod-b-uid")],
        FakePod("pod-shared-b", "pod-b-uid", ("shared-claim",)), {"shared-claim": {"pod-a-uid"}}, True, True),
    "pod-group-claim-not-released": (
        [claim("pod-group-claim", None, group=True)],
        FakePod("pod-group-a", "pod-group-a-uid", ("pod-group-claim",)), {}, False, True),
    "shared-claim-count-matches-but-uids-differ-not-released": (
        [claim("spurious-claim", None, "never-simulated-pod-uid")],
        FakePod("pod-spurious", "pod-spurious-uid", ("spurious-claim",)), {}, False, True),
    "direct-claim-released": (
        [claim("claim-1")], FakePod("pod-direct", "pod-direct-uid", ("claim-1",)), {}, True, True),
}


@pytest.mark.parametrize("row", sorted(REMOVE_ROWS))
def test_remove_pod(row: str) -> None:
    claims, pod, pre, released, recorded = REMOVE_ROWS[row]
    sim = Simulation()
    sim.removed = {k: set(v) for k, v in pre.items()}
    sim.remove_pod(pod, lookup_of(*claims), held(*claims))
    uid = claims[0].metadata.uid
    assert (uid in sim.released) is released
    assert (pod.uid in sim.removed.get(uid, set())) is recorded


def test_remove_pod_duplicate_claim_name_ignored() -> None:
    c = claim("claim-1")
    pod = FakePod("pod-dup-claim", "pod-dup-uid", ("claim-1", "claim-1"))
    sim = Simulation()
    sim.remove_pod(pod, lookup_of(c), held(c))
    assert sim.removed["claim-1"] == {"pod-dup-uid"} and sim.released == {"claim-1"}
    assert sim.allocated is not None and not sim.allocated.devices  # removed strictly once


@pytest.mark.parametrize("pod", [FakePod("pod-missing-claim", "pod-missing-uid", ("missing-claim",)),
                                 FakePod("pod-nil-claim", "pod-nil-uid", template=True)],
                         ids=["missing-claim-ignored", "nil-resource-claim-name-ignored"])
def test_remove_pod_ignores_claims_that_do_not_exist(pod: FakePod) -> None:
    sim = Simulation()
    sim.remove_pod(pod, lookup_of(), AllocatedState())
    assert not sim.removed and not sim.released


# -- TestAddPod ------------------------------------------------------------------------------------
def released_state(*claims: ResourceClaim, removed: dict[str, set[str]] | None = None) -> Simulation:
    sim = Simulation(AllocatedState())
    sim.released = {c.metadata.uid for c in claims}
    sim.removed = {k: set(v) for k, v in (removed or {}).items()}
    return sim


@pytest.mark.parametrize("row", ["released-claim-readded", "direct-claim-readded"])
def test_add_pod_restores_a_released_claim(row: str) -> None:
    c = claim("claim-1")
    sim = released_state(c)
    sim.add_pod(FakePod("pod-a", "pod-a-uid", ("claim-1",)), lookup_of(c))
    assert not sim.released
    assert sim.allocated is not None and DeviceID(DRIVER, "pool-1", "device-1") in sim.allocated.devices


def test_add_pod_shared_claim_clear_counter() -> None:
    c = claim("claim-1")
    sim = Simulation(AllocatedState())
    sim.removed = {"claim-1": {"pod-a-uid"}}
    sim.add_pod(FakePod("pod-a", "pod-a-uid", ("claim-1",)), lookup_of(c))
    assert "pod-a-uid" not in sim.removed["claim-1"]


def test_add_pod_duplicate_claim_name_ignored() -> None:
    c = claim("claim-1")
    sim = released_state(c, removed={"claim-1": {"pod-dup-uid"}})
    sim.add_pod(FakePod("pod-dup-claim", "pod-dup-uid", ("claim-1", "claim-1")), lookup_of(c))
    assert not sim.released and not sim.removed["claim-1"]
    assert sim.allocated is not None and sim.allocated.devices == {DeviceID(DRIVER, "pool-1", "device-1"): 1}


@pytest.mark.parametrize("pod", [FakePod("pod-missing-claim", "pod-missing-uid", ("missing-claim",)),
                                 FakePod("pod-nil-claim", "pod-nil-uid", template=True)],
                         ids=["missing-claim-ignored", "nil-resource-claim-name-ignored"])
def test_add_pod_ignores_claims_that_do_not_exist(pod: FakePod) -> None:
    sim = Simulation(AllocatedState())
    sim.add_pod(pod, lookup_of())
    assert not sim.released and not sim.removed


# -- TestSharedClaimsPreemption --------------------------------------------------------------------
def test_shared_claims_preemption() -> None:
    c = claim("claim-1", None, "victim-1-uid", "victim-2-uid")
    lookup = lookup_of(c)
    one = FakePod("victim-1", "victim-1-uid", ("claim-1",))
    two = FakePod("victim-2", "victim-2-uid", ("claim-1",))
    sim = Simulation()
    sim.remove_pod(one, lookup, AllocatedState())
    assert "claim-1" not in sim.released  # 1. only victim-1 removed
    sim.remove_pod(two, lookup, AllocatedState())
    assert "claim-1" in sim.released  # 2. both removed
    sim.add_pod(one, lookup)  # 3. backtrack
    assert "claim-1" not in sim.released and sim.removed["claim-1"] == {"victim-2-uid"}
    sim.add_pod(two, lookup)  # 4. fully restored
    assert not sim.removed["claim-1"]


# -- TestPreemptionSimulationSymmetry --------------------------------------------------------------
@pytest.mark.parametrize("order", [("a", "a"), ("a", "b", "a", "b"), ("a", "b", "b", "a")],
                         ids=["single-pod-remove-add", "shared-claims-remove-A-remove-B-add-A-add-B",
                              "shared-claims-remove-A-remove-B-add-B-add-A"])
def test_simulation_symmetry(order: tuple[str, ...]) -> None:
    c = claim("claim-1", "device-1", "pod-a-uid", "pod-b-uid")
    lookup = lookup_of(c)
    pods = {k: FakePod(f"pod-{k}", f"pod-{k}-uid", ("claim-1",)) for k in "ab"}
    base = held(c)
    sim = Simulation()
    seen: set[str] = set()
    for key in order:
        if key in seen:
            sim.add_pod(pods[key], lookup)
        else:
            seen.add(key)
            sim.remove_pod(pods[key], lookup, base)
    assert not sim.released and not sim.removed["claim-1"]
    assert sim.allocated is None or sim.allocated.devices == base.devices


def test_simulation_symmetry_consumable_capacity() -> None:
    c = claim("claim-consumable", "device-1", "pod-a-uid", share="share-1", capacity={"cpu": "5"})
    pod = FakePod("pod-a", "pod-a-uid", ("claim-consumable",))
    base = held(c)
    sim = Simulation()
    sim.remove_pod(pod, lookup_of(c), base)
    assert sim.allocated is not None and not sim.allocated.shares and not sim.allocated.capacity
    sim.add_pod(pod, lookup_of(c))
    assert not sim.released
    assert sim.allocated.devices == {} and sim.allocated.shares == base.shares
    assert sim.allocated.capacity == base.capacity


# -- TestPreemptionEndToEnd ------------------------------------------------------------------------
SLICE = make_slice("node-1-slice", [gpu("dev-1"), gpu("dev-2"), gpu("dev-3")], node="node-1", driver=DRIVER)
CLASS = make_class("test-class")
VICTIM_1 = claim("victim-claim-1", "dev-1", pool="node-1")
SHARED = claim("victim-shared-claim", "dev-2", "victim-shared-a-uid", "victim-shared-b-uid", pool="node-1")
VICTIM_2 = claim("victim-claim-2", "dev-3", pool="node-1")
VICTIMS = {
    "victim-1": FakePod("victim-1", "victim-1-uid", ("victim-claim-1",)),
    "victim-a": FakePod("victim-a", "victim-shared-a-uid", ("victim-shared-claim",)),
    "victim-b": FakePod("victim-b", "victim-shared-b-uid", ("victim-shared-claim",)),
    "victim-2": FakePod("victim-2", "victim-2-uid", ("victim-claim-2",)),
    "victim-multi": FakePod("victim-multi", "victim-multi-uid", ("victim-claim-1", "victim-claim-2")),
}
END_TO_END = {
    # name: (preemptor claims, operations, fits?)
    "baseline-exhaustion-no-preemption": (1, (), False),
    "successful-preemption-single-victim": (1, (("remove", "victim-1"),), True),
    "partial-preemption-shared-claim-fails": (1, (("remove", "victim-a"),), False),
    "full-preemption-shared-claim-succeeds": (1, (("remove", "victim-a"), ("remove", "victim-b")), True),
    "multi-claim-preemption": (2, (("remove", "victim-1"), ("remove", "victim-2")), True),
    "preemption-rollback": (1, (("remove", "victim-1"), ("add", "victim-1")), False),
    "single-victim-multiple-claims": (2, (("remove", "victim-multi"),), True),
}


@pytest.mark.parametrize("row", sorted(END_TO_END))
def test_preemption_end_to_end(row: str) -> None:
    count, operations, fits = END_TO_END[row]
    preemptor = [make_claim(f"preemptor-claim-{i}", exactly("req", "test-class"))
                 for i in range(1, count + 1)]
    lookup = lookup_of(VICTIM_1, SHARED, VICTIM_2)
    base = held(VICTIM_1, SHARED, VICTIM_2)
    sim = Simulation()
    for action, name in operations:
        if action == "remove":
            sim.remove_pod(VICTIMS[name], lookup, base)
        else:
            sim.add_pod(VICTIMS[name], lookup)
    state = sim.allocated if sim.active() and sim.allocated is not None else base
    result = allocate(preemptor, [SLICE], [CLASS], node="node-1", allocated=state)
    assert (result is not None) is fits  # upstream: nil, or Unschedulable "cannot allocate all claims"
