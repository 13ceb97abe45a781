"""Upstream's resourceclaim controller cases, translated into kbatch scenarios.

Source: ``pkg/controller/resourceclaim/controller_test.go`` ``TestSyncHandler`` (the 1.36/1.37
version with PodGroup claims and ``resource.k8s.io/v1``); each test names its case. Upstream calls
``syncHandler`` once on a fake client; here a control plane runs the controller (and, where the
case needs it, the scheduler and the kubelet) and the observable objects are checked.

Already covered elsewhere: "create", "recreate", "clear-reserved-structured",
"dont-clear-reserved-structured", "clear-reserved-when-done", "clear-reserved-structured-deleted",
"structured-deleted", "stay-reserved-seen" (``tests/dra/test_claim_sync.py`` and
``test_lifecycle.py``). Not translated: the PodGroup cases (DRAWorkloadResourceClaims is not
modelled, docs/dra.md), the metrics, "find-created-claim-in-cache" and "stay-reserved-not-seen"
(informer races kbatch's synchronous cache does not have), "create-conflict" (an injected API
error), the admin-access gate cases (DRAAdminAccess is GA and locked in 1.37).
"""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Event, Pod
from kbatch.api.resource_v1 import POD_CLAIM_NAME_ANNOTATION, ResourceClaim, ResourceClaimConsumerReference
from kbatch.sim.nodes import create_nodes

from .test_lifecycle import claims, cluster, gpu_pod, pods


def _shared_claim(name: str = "shared") -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
        }
    )


def _bound_pod(name: str, node: str, **claim: Any) -> Pod:
    """A pod the user binds to ``node`` itself (``spec.nodeName``): the scheduler never sees it."""
    pod = gpu_pod(name, seconds=100, **claim)
    pod.spec.node_name = node
    return pod


def test_add_reserved_a_pod_bound_by_the_user_is_added_to_an_allocated_claim() -> None:
    # "add-reserved": syncPod, for a pod with spec.nodeName, adds the pod to reservedFor of each of
    # its claims that is allocated, not reserved for it yet and can take one more consumer
    # (resourceclaim.CanBeReserved); the kubelet can then prepare the claim and run the pod
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(_shared_claim())
    cp.client.create(gpu_pod("a", seconds=100, resourceClaimName="shared"))
    cp.advance(1)
    node = pods(cp)["a"].spec.node_name
    cp.client.create(_bound_pod("b", node, resourceClaimName="shared"))
    cp.advance(2)
    shared = claims(cp)["shared"]
    assert [r.name for r in shared.status.reserved_for] == ["a", "b"]
    assert pods(cp)["b"].status.phase == "Running"


def test_add_reserved_waits_for_the_allocation() -> None:
    # "add-reserved" with an unallocated claim: nothing to reserve (the controller does not
    # allocate); once another pod's scheduling allocates the claim, its event reaches the bound pod
    # (upstream enqueueResourceClaim: the pods using the claim, podResourceClaimIndex) and it is
    # reserved
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(_shared_claim())
    cp.client.create(_bound_pod("b", "node-0", resourceClaimName="shared"))
    cp.advance(2)
    assert claims(cp)["shared"].status is None or not claims(cp)["shared"].status.reserved_for
    assert pods(cp)["b"].status.phase in (None, "Pending")
    cp.client.create(gpu_pod("a", seconds=100, resourceClaimName="shared"))
    cp.advance(2)
    assert sorted(r.name for r in claims(cp)["shared"].status.reserved_for) == ["a", "b"]
    assert pods(cp)["b"].status.phase == "Running"


def test_find_existing_claim_by_label_records_the_owned_claim() -> None:
    # "find-existing-claim-by-label": a claim owned by the pod and annotated with the pod claim's
    # name (created before the status write got lost) is recorded, no second claim is created,
    # even with the template gone
    cp = ControlPlane(controllers=["resourceclaim"])
    pod = cp.client.create(gpu_pod("test-pod", resourceClaimTemplateName="my-template"))
    existing = _shared_claim("test-pod-gpu-abcde")
    existing.metadata.annotations = {POD_CLAIM_NAME_ANNOTATION: "gpu"}
    existing.metadata.owner_references = [
        {"apiVersion": "v1", "kind": "Pod", "name": "test-pod", "uid": pod.metadata.uid, "controller": True}
    ]
    cp.client.create(existing)
    cp.advance(1)
    [status] = pods(cp)["test-pod"].status.resource_claim_statuses
    assert (status.name, status.resource_claim_name) == ("gpu", "test-pod-gpu-abcde")
    assert list(claims(cp)) == ["test-pod-gpu-abcde"]


def test_missing_template_is_an_event_and_no_claim() -> None:
    # "missing-template" (and "wrong-claim-owner": a claim of the deterministic name that the pod
    # does not own is not adopted): the error names the template as the lister does, and syncPod's
    # FailedResourceClaimCreation event is "PodResourceClaim <entry>: <error>"
    cp = ControlPlane(controllers=["resourceclaim"])
    cp.client.create(_shared_claim("test-pod-gpu"))  # conflictingClaim: no owner
    cp.client.create(gpu_pod("test-pod", resourceClaimTemplateName="my-template"))
    cp.advance(1)
    [event] = [e for e in cp.client.list(Event, "default").items if e.reason == "FailedResourceClaimCreation"]
    assert event.type == "Warning"
    assert event.message == (
        'PodResourceClaim gpu: resource claim template "my-template": '
        'resourceclaimtemplate.resource.k8s.io "my-template" not found'
    )
    assert list(claims(cp)) == ["test-pod-gpu"]
    assert not pods(cp)["test-pod"].status.resource_claim_statuses


def test_no_such_pod_pod_deleted_and_no_volumes_do_nothing() -> None:
    # "pod-deleted": a pod being deleted gets no claim; "no-volumes": a pod without claims neither
    cp = ControlPlane(controllers=["resourceclaim"])
    create_nodes(cp, 1)
    deleting = gpu_pod("test-pod", resourceClaimTemplateName="my-template")
    deleting.metadata.finalizers = ["example.com/hold"]
    cp.client.create(deleting)
    cp.client.delete(Pod, "test-pod", "default")
    plain = gpu_pod("plain")
    plain.spec.resource_claims = None
    plain.spec.containers[0].resources = None
    cp.client.create(plain)
    cp.advance(1)
    assert not claims(cp)
    assert all(not p.status.resource_claim_statuses for p in pods(cp).values())


def test_remove_reserved_drops_the_pod_that_is_gone() -> None:
    # "remove-reserved": of two consumers, the one whose pod no longer exists is dropped; the claim
    # stays allocated for the other
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(_shared_claim())
    for name in ("a", "b"):
        cp.client.create(gpu_pod(name, seconds=1000, resourceClaimName="shared"))
    cp.advance(1)
    cp.client.delete(Pod, "b", "default", grace_period_seconds=0)
    cp.advance(2)
    shared = claims(cp)["shared"]
    assert [r.name for r in shared.status.reserved_for] == ["a"]
    assert shared.status.allocation is not None


def test_clean_up_pod_reservation_with_non_pod_reservation_present() -> None:
    # "clean up pod reservation with non-pod reservation present": the finished pod's entry goes,
    # another kind of consumer (apiGroup foo.com) stays, and so does the allocation
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(_shared_claim())
    cp.client.create(gpu_pod("a", seconds=5, resourceClaimName="shared"))
    cp.advance(1)
    claim = edit(claims(cp)["shared"])
    foo = ResourceClaimConsumerReference(api_group="foo.com", resource="foo", name="foo", uid="123")
    claim.status.reserved_for = [*claim.status.reserved_for, foo]
    cp.client.update_status(claim)
    cp.wait_for(lambda: pods(cp)["a"].status.phase == "Succeeded", timeout=60)
    cp.advance(1)
    shared = claims(cp)["shared"]
    kept = [(r.api_group, r.resource, r.name) for r in shared.status.reserved_for]
    assert kept == [("foo.com", "foo", "foo")]
    assert shared.status.allocation is not None


def test_delete_claim_when_done_deletes_the_generated_claim() -> None:
    # "delete-claim-when-done": the generated claim of a pod that succeeded is released and deleted
    cp = cluster(nodes=1, gpus=1)
    cp.client.create(gpu_pod("test-pod", seconds=1))
    cp.advance(1)
    [name] = [s.resource_claim_name for s in pods(cp)["test-pod"].status.resource_claim_statuses]
    cp.wait_for(lambda: pods(cp)["test-pod"].status.phase == "Succeeded", timeout=60)
    cp.advance(1)
    assert name not in claims(cp)
