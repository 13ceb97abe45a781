"""The pieces of claim nomination (KEP-5690, "Claim nomination") one at a time: the second-pass check
(:func:`~kbatch.controllers.dra.structured.results_fit`), a nominated preemptor in the preemption
simulation (``Simulation.add_nominated``: the KEP's worked examples), the nomination record and the
node-local restriction."""

from __future__ import annotations

from typing import Any

from kbatch.api.resource_v1 import ResourceSlice
from kbatch.controllers.dra.dynamicresources.nomination import Nomination, Nominations
from kbatch.controllers.dra.dynamicresources.preemption import Simulation
from kbatch.controllers.dra.dynamicresources.world import World
from kbatch.controllers.dra.structured import AllocatedState, Features, NodeView, gather_pools, results_fit

from .builders import allocate, exactly, gpu, make_claim, make_class, make_slice
from .test_upstream_preemption_rows import DRIVER, FakePod, claim, held, lookup_of

NODE = "node-1"


def pools(*slices: ResourceSlice) -> list[Any]:
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        by_pool.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    return gather_pools(list(slices), NodeView(NODE, {}), Features(), lambda d, p: by_pool.get((d, p), []))


def results(*claims: Any) -> list[Any]:
    return [r for c in claims for r in c.status.allocation.devices.results]


def shared_device(name: str = "dev-1", memory: str = "80Gi") -> dict[str, Any]:
    return {"name": name, "allowMultipleAllocations": True, "capacity": {"memory": {"value": memory}}}


def share(name: str, share_id: str, *consumers: str, memory: str = "40Gi") -> Any:
    return claim(name, "dev-1", *consumers, pool=NODE, share=share_id, capacity={"memory": memory})


# -- results_fit ---------------------------------------------------------------------------------
SLICE = make_slice("s", [gpu("dev-1"), gpu("dev-2")], node=NODE, driver=DRIVER)


def test_an_exclusive_device_fits_only_when_no_claim_holds_it() -> None:
    mine = claim("mine", "dev-1", pool=NODE)
    assert results_fit(results(mine), pools(SLICE), AllocatedState())
    assert not results_fit(results(mine), pools(SLICE), held(claim("other", "dev-1", pool=NODE)))
    assert results_fit(results(mine), pools(SLICE), held(claim("other", "dev-2", pool=NODE)))


def test_a_device_the_node_does_not_have_does_not_fit() -> None:
    assert not results_fit(results(claim("mine", "dev-9", pool=NODE)), pools(SLICE), AllocatedState())


def test_a_share_fits_while_the_device_has_capacity_left() -> None:
    slice_ = make_slice("s", [shared_device()], node=NODE, driver=DRIVER)
    mine = share("mine", "s-2")
    assert results_fit(results(mine), pools(slice_), held(share("v1", "s-1")))
    assert not results_fit(results(mine), pools(slice_), held(share("v1", "s-1"), share("v2", "s-3")))
    assert not results_fit(results(mine), pools(slice_), held(claim("excl", "dev-1", pool=NODE)))


def test_partitions_fit_while_their_counter_set_has_room() -> None:
    counters = {"name": "gpu-0-counters", "counters": {"memory": {"value": "80Gi"}}}
    def part(name: str) -> dict[str, Any]:
        return {"name": name, "consumesCounters": [
            {"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "40Gi"}}}]}
    devices = make_slice("s", [part("p-0"), part("p-1"), part("p-2")], node=NODE, driver=DRIVER)
    shared = make_slice("c", None, node=NODE, driver=DRIVER, sharedCounters=[counters])  # type: ignore[arg-type]
    devices.spec.pool.resource_slice_count = shared.spec.pool.resource_slice_count = 2
    mine = claim("mine", "p-2", pool=NODE)
    assert results_fit(results(mine), pools(devices, shared), held(claim("a", "p-0", pool=NODE)))
    both = held(claim("a", "p-0", pool=NODE), claim("b", "p-1", pool=NODE))
    assert not results_fit(results(mine), pools(devices, shared), both)


# -- Simulation.add_nominated: the KEP's "Interaction with the preemption simulation" -----------------
def test_a_second_victim_after_the_first_is_gone_kep_example() -> None:
    """80Gi split between V1 and V2 (40Gi each). P1 preempted V1, which is gone from the node but
    whose claim is still allocated. P2 (40Gi) simulates removing V2: pass 1 (with P1 nominated)
    subtracts V1's claim before adding P1's 40Gi, so 40Gi is in use, not 80Gi, and P2 fits; pass 2
    (without P1) has V1's 40Gi in use and accepts P2's allocation too."""
    slice_ = make_slice("s", [shared_device()], node=NODE, driver=DRIVER)
    v1, v2 = share("claim-v1", "s-1", "v1-uid"), share("claim-v2", "s-2", "v2-uid")
    p1 = share("claim-p1", "s-3")
    base = held(v1, v2)
    sim = Simulation()
    sim.remove_pod(FakePod("v2", "v2-uid", ("claim-v2",)), lookup_of(v1, v2), base)
    pass_two = sim.allocated.copy() if sim.allocated is not None else base
    sim.add_nominated(results(p1), [v1], base)
    assert sim.active() and sim.allocated is not None
    assert sim.allocated.capacity == held(p1).capacity  # 40Gi: V1 and P1 not double-counted
    request = exactly("req", "shared", capacity={"requests": {"memory": "40Gi"}})
    found = allocate([make_claim("claim-p2", request)], [slice_], [make_class("shared")], node=NODE,
                     allocated=sim.allocated)
    assert found is not None
    assert results_fit(found[0].devices.results, pools(slice_), pass_two)


def test_sharing_a_terminating_victim_kep_example() -> None:
    """V holds GPU-0 and GPU-1; P1 (one GPU) nominated GPU-0. P2 removes V in its simulation: V's
    claim is released once, P1's GPU-0 added, so P2 gets GPU-1."""
    slice_ = make_slice("s", [gpu("gpu-0"), gpu("gpu-1")], node=NODE, driver=DRIVER)
    v = claim("claim-v", "gpu-0", "v-uid", pool=NODE)
    v.status.allocation.devices.results.append(
        v.status.allocation.devices.results[0].model_copy(update={"device": "gpu-1"}))
    base = held(v)
    sim = Simulation()
    sim.remove_pod(FakePod("v", "v-uid", ("claim-v",)), lookup_of(v), base)
    sim.add_nominated(results(claim("claim-p1", "gpu-0", pool=NODE)), [v], base)
    assert sim.subtracted == set()  # released by the removal: not taken out twice
    found = allocate([make_claim("claim-p2", exactly("req", "test-class"))], [slice_],
                     [make_class("test-class")], node=NODE, allocated=sim.allocated)
    assert found is not None and [r.device for r in found[0].devices.results] == ["gpu-1"]


def test_the_nominated_devices_and_victims_survive_a_copy_only_in_the_copy() -> None:
    v = claim("claim-v", "dev-1", "v-uid", pool=NODE)
    sim = Simulation()
    copy = sim.copy()
    copy.add_nominated(results(claim("p", "dev-2", pool=NODE)), [v], held(v))
    assert copy.nominated and copy.subtracted == {"claim-v"}
    assert not sim.nominated and not sim.subtracted and sim.allocated is None


# -- the record ---------------------------------------------------------------------------------
def test_victim_claims_stay_tracked_until_deallocated_even_without_the_nomination() -> None:
    record = Nominations()
    record.add("p-uid", Nomination(NODE, (), (("c1", "default/c1"), ("c2", "default/c2"))))
    assert record.remove("p-uid") is not None and record.get("p-uid") is None
    allocated = {"c1", "c2"}
    still = lambda uid, key: uid in allocated  # noqa: E731
    assert record.settling(NODE, still) == [("c1", "default/c1"), ("c2", "default/c2")]
    allocated.discard("c1")
    assert record.settling(NODE, still) == [("c2", "default/c2")]
    allocated.clear()
    assert record.settling(NODE, still) == [] and NODE not in record.victims


# -- node-local claims only ---------------------------------------------------------------------
def test_only_claims_whose_devices_all_have_a_node_name_are_node_local() -> None:
    world = World()
    world.set_slice(make_slice("local", [gpu("dev-1")], node=NODE, driver=DRIVER))
    world.set_slice(make_slice("net", [gpu("dev-9")], node=None, pool="net", driver=DRIVER, allNodes=True))
    per_device = make_slice("per", [{"name": "dev-5", "nodeName": NODE}, {"name": "dev-6", "allNodes": True}],
                            node=None, pool="per", driver=DRIVER, perDeviceNodeSelection=True)
    world.set_slice(per_device)
    assert world.node_local(claim("a", "dev-1", pool=NODE))
    assert not world.node_local(claim("b", "dev-9", pool="net"))
    assert world.node_local(claim("c", "dev-5", pool="per"))
    assert not world.node_local(claim("d", "dev-6", pool="per"))
    assert not world.node_local(claim("e", "gone", pool=NODE))
    sim = Simulation()
    removed = FakePod("v", "v-uid", ("b",))
    net = claim("b", "dev-9", "v-uid", pool="net")
    assert sim.remove_pod(removed, lookup_of(net), held(net), world.node_local) == []
    assert sim.removed == {"b": {"v-uid"}} and not sim.released
