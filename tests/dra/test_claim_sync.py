"""The resourceclaim controller's claim decisions against upstream
``pkg/controller/resourceclaim/controller.go`` ``syncClaim`` / ``isPodDone`` and the cases of its
``controller_test.go`` ``TestSyncHandler`` (stay-reserved-seen, clear-reserved-structured,
dont-clear-reserved-structured, clear-reserved-when-done, structured-deleted)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.dra.resourceclaim.sync import (
    ClaimFacts,
    ClaimPlan,
    ConsumerFacts,
    PodClaimUse,
    PodFacts,
    claims_to_reserve,
    plan_claim,
)

from .test_lifecycle import claims, cluster, gpu_pod, pods


def _pod(name: str = "p", *, exists: bool = True, done: bool = False) -> ConsumerFacts:
    return ConsumerFacts("pods", name, f"uid-{name}", exists, done)


def test_a_consumer_stays_while_its_pod_runs() -> None:
    # "stay-reserved-seen"; "dont-clear-reserved-structured": one of two consumers goes, the claim
    # stays allocated for the other
    claim = ClaimFacts(allocated=True, consumers=(_pod(),), has_finalizer=True)
    assert plan_claim(claim) == ClaimPlan()
    two = ClaimFacts(allocated=True, consumers=(_pod(), _pod("q", exists=False)), has_finalizer=True)
    assert plan_claim(two) == ClaimPlan(reserved_for=(_pod(),))


def test_the_last_consumer_going_deallocates_and_drops_the_finalizer() -> None:
    # "clear-reserved-structured", "clear-reserved-when-done"
    for gone in (_pod(exists=False), _pod(done=True)):
        claim = ClaimFacts(allocated=True, consumers=(gone,), has_finalizer=True)
        assert plan_claim(claim) == ClaimPlan(reserved_for=(), deallocate=True, remove_finalizer=True)


def test_an_allocated_claim_never_reserved_stays_allocated() -> None:
    # syncClaim deallocates on the transition from used to unused only ("a claim that is currently
    # unused should not get deallocated"); without the finalizer nothing is cleared either
    assert plan_claim(ClaimFacts(allocated=True, has_finalizer=True)) == ClaimPlan()
    unowned = ClaimFacts(allocated=True, consumers=(_pod(exists=False),))
    assert plan_claim(unowned) == ClaimPlan(reserved_for=())


def test_a_deleted_unused_claim_is_deallocated_and_released() -> None:
    # "clear-reserved-structured-deleted", "structured-deleted"
    claim = ClaimFacts(allocated=True, has_finalizer=True, deleting=True)
    assert plan_claim(claim) == ClaimPlan(deallocate=True, remove_finalizer=True)


def test_a_terminating_pod_keeps_its_devices_until_it_is_gone() -> None:
    # isPodDone: a scheduled pod that is being deleted is not done (its containers still run), so
    # its reservation, and with it the device, stays until it terminates
    cp = cluster(nodes=1, gpus=1)
    first = gpu_pod("first", seconds=1000)
    first.spec.termination_grace_period_seconds = 30
    cp.client.create(first)
    cp.advance(1)
    cp.client.delete(Pod, "first", "default")
    cp.client.create(gpu_pod("second", seconds=1000))
    cp.advance(5)
    now = pods(cp)
    assert now["first"].metadata.deletion_timestamp is not None and now["first"].status.phase == "Running"
    assert now["second"].status.phase in (None, "Pending")
    [held] = [c for c in claims(cp).values() if c.status.reserved_for]
    assert [r.name for r in held.status.reserved_for] == ["first"]
    cp.wait_for(lambda: pods(cp)["second"].status.phase == "Running", timeout=120)
    assert "first" not in pods(cp)


def test_a_deleted_generated_claim_is_created_again() -> None:
    # controller.go handleClaim ("recreate" in TestSyncHandler): a claim recorded in
    # status.resourceClaimStatuses that no longer exists (deleted by accident) is created again
    # from the template, and the status names the new one
    from kbatch.api.resource_v1 import ResourceClaim

    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("first", seconds=20))
    cp.advance(1)
    cp.client.create(gpu_pod("second", seconds=10))
    cp.advance(1)
    [lost] = [s.resource_claim_name for s in pods(cp)["second"].status.resource_claim_statuses]
    cp.client.delete(ResourceClaim, lost, "default")
    cp.advance(1)
    [again] = [s.resource_claim_name for s in pods(cp)["second"].status.resource_claim_statuses]
    assert again != lost and again in claims(cp) and lost not in claims(cp)
    cp.wait_for(lambda: pods(cp)["second"].status.phase == "Running", timeout=120)


def test_a_status_entry_without_a_claim_name_needs_no_claim() -> None:
    # resourceclaim.Name (k8s.io/dynamic-resource-allocation): a resourceClaimStatuses entry without
    # resourceClaimName means generating a claim was not necessary; the controller creates none, the
    # scheduler and the kubelet ignore the entry, and the pod runs
    from kbatch import ControlPlane
    from kbatch.sim.nodes import create_nodes

    cp = ControlPlane(controllers=["scheduler", "kubelet", "resourceclaim"])
    create_nodes(cp, 1)
    cp.client.create(gpu_pod("p", seconds=100, resourceClaimTemplateName="absent"))
    cp.client.patch_status(Pod, "p", {"status": {"resourceClaimStatuses": [{"name": "gpu"}]}}, "default")
    cp.advance(3)
    pod = pods(cp)["p"]
    assert pod.status.phase == "Running" and not claims(cp)
    assert [(s.name, s.resource_claim_name) for s in pod.status.resource_claim_statuses] == [("gpu", None)]


_uses = st.lists(
    st.builds(
        PodClaimUse,
        name=st.sampled_from(["a", "b", "c", "d"]),
        exists=st.booleans(),
        for_pod=st.booleans(),
        allocated=st.booleans(),
        reserved_for_pod=st.booleans(),
        consumers=st.integers(0, 4),
    ),
    max_size=5,
).map(tuple)


@given(
    uses=_uses,
    node=st.sampled_from(["", "node-0"]),
    done=st.booleans(),
    deleting=st.booleans(),
)
def test_claims_to_reserve_only_adds_a_bound_live_pod_to_allocated_claims_with_room(
    uses: tuple[PodClaimUse, ...], node: str, done: bool, deleting: bool
) -> None:
    # controller.go syncPod, case "add-reserved": only a pod with spec.nodeName that is neither done
    # nor being deleted; only allocated claims not reserved for it with room (CanBeReserved); in spec
    # order, stopping at the first claim that is missing or not the pod's
    pod = PodFacts("default", "p", "uid-p", (), {}, done=done, deleting=deleting)
    got = claims_to_reserve(pod, node, uses, limit=3)
    if not node or done or deleting:
        assert got == ()
        return
    walked = []
    for use in uses:
        if not use.exists or not use.for_pod:
            break
        walked.append(use)
    assert got == tuple(u.name for u in walked if u.allocated and not u.reserved_for_pod and u.consumers < 3)
