"""What one informer event makes the resourceclaim controller reconcile, as upstream's handlers decide
it (``pkg/controller/resourceclaim/controller.go``: ``enqueuePod`` with ``podNeedsClaims`` and
``podNeedsWork``, ``enqueueResourceClaim``, ``podResourceClaimIndexFunc``).

Each case runs the controller alone and lists the requests (``pod/<name>``, ``claim/<name>``) one
event reconciles. The handlers before this audit queued a pod and all its claims on every pod event
and a claim, its owner and its pods on every claim event; each case here fails with them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim, ResourceClaimTemplate
from kbatch.controllers.dra.resourceclaim.handlers import enqueue_pod, pod_needs_claims, pod_needs_work
from kbatch.runtime.reconcile import Request

from .test_lifecycle import gpu_pod

_SPEC = {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}


class _Recorder:
    """Wraps the controller's reconciler and keeps the requests it is given."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.seen = inner, []

    def reconcile(self, request: Request) -> Any:
        self.seen.append(request.name)
        return self.inner.reconcile(request)


def _plane() -> tuple[ControlPlane, _Recorder]:
    cp = ControlPlane(seed=0, controllers="resourceclaim")
    cp.client.create(ResourceClaimTemplate.model_validate(
        {"metadata": {"name": "one-gpu", "namespace": "default"}, "spec": {"spec": _SPEC}}))
    controller = cp.manager.get("resourceclaim")
    recorder = _Recorder(controller.reconciler)
    controller.reconciler = recorder
    return cp, recorder


def _reconciled(cp: ControlPlane, recorder: _Recorder) -> list[str]:
    """The requests reconciled since the last call, in order."""
    cp.run_until_idle()
    out, recorder.seen = recorder.seen, []
    return out


def _claim(name: str) -> ResourceClaim:
    return ResourceClaim.model_validate({"metadata": {"name": name, "namespace": "default"}, "spec": _SPEC})


def _pod(cp: ControlPlane, name: str) -> Pod:
    return cp.client.get(Pod, name, "default")


def _touch(cp: ControlPlane, name: str, value: str = "1") -> None:
    cp.client.patch(Pod, name, {"metadata": {"labels": {"touch": value}}}, "default")


def _allocate(cp: ControlPlane, name: str) -> None:
    claim = edit(cp.client.get(ResourceClaim, name, "default"))
    claim.status = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-0", "device": "gpu-0"}]}}}
    cp.client.update_status(claim)


def _generated(cp: ControlPlane, pod: str) -> str:
    [status] = _pod(cp, pod).status.resource_claim_statuses
    return status.resource_claim_name


def _templated(cp: ControlPlane, recorder: _Recorder, name: str = "p") -> str:
    """A pod with a template's claim, generated and recorded; the name of the claim."""
    cp.client.create(gpu_pod(name))
    assert _reconciled(cp, recorder)[0] == f"pod/{name}"
    return _generated(cp, name)


def _two_pods(cp: ControlPlane, recorder: _Recorder) -> str:
    """``p`` with a template's claim (generated, recorded; its name returned) and ``q`` with the
    user's claim ``mine``."""
    generated = _templated(cp, recorder)
    cp.client.create(_claim("mine"))
    cp.client.create(gpu_pod("q", resourceClaimName="mine"))
    _reconciled(cp, recorder)
    return generated


def _label_claim(cp: ControlPlane, name: str) -> None:
    claim = edit(cp.client.get(ResourceClaim, name, "default"))
    claim.metadata.labels = {"touch": "1"}
    cp.client.update(claim)


# --- pod events -----------------------------------------------------------------------------------


def test_a_pod_is_reconciled_until_its_template_claim_is_recorded_then_not() -> None:
    # podNeedsWork: resourceclaim.Name's ErrClaimNotFound, "must create ResourceClaim from template";
    # podNeedsClaims: a pending pod needs its claims, so none is queued
    cp, recorder = _plane()
    cp.client.create(gpu_pod("p"))
    seen = _reconciled(cp, recorder)
    claim = _generated(cp, "p")
    # the add queues the pod. Its reconcile creates the claim and records it; the pod's status event
    # is delivered before the claim's add (the pod informer is pumped first), so podNeedsWork does not
    # see the claim yet and queues the pod once more, as upstream's when its pod informer is ahead;
    # the claim's add queues the claim, and enqueuePod of its (recorded) pod finds no work
    assert seen == ["pod/p", "pod/p", f"claim/{claim}"]
    assert len(cp.client.list(ResourceClaim, "default").items) == 1
    # podNeedsWork "nothing to do" (recorded, exists, owned; not bound) and podNeedsClaims "pod might
    # run": an update queues neither the pod nor its claim
    _touch(cp, "p")
    assert _reconciled(cp, recorder) == []


def test_a_pod_using_a_users_claim_is_not_reconciled() -> None:
    # podNeedsWork, claim exists and is not the pod's to check; not bound: no work; and a missing
    # user claim is "missing and must be created by user"
    cp, recorder = _plane()
    cp.client.create(gpu_pod("p", resourceClaimName="mine"))
    assert _reconciled(cp, recorder) == []
    cp.client.create(_claim("mine"))
    assert _reconciled(cp, recorder) == ["claim/mine"]  # enqueueResourceClaim; the pod needs no work
    _touch(cp, "p")
    assert _reconciled(cp, recorder) == []


def test_a_terminal_pod_queues_its_claims_not_itself() -> None:
    # podNeedsClaims "pod has terminated": the claims, so reservedFor drops the pod; podNeedsWork
    # finds nothing to do for the pod
    cp, recorder = _plane()
    generated = _two_pods(cp, recorder)
    for pod in ("p", "q"):
        cp.client.patch_status(Pod, pod, {"status": {"phase": "Succeeded"}}, "default")
    # then the generated claim of the done pod is deleted (syncClaim); its delete event reaches the pod
    # through the index (enqueueResourceClaim): enqueuePod releases the claim again, and podNeedsWork,
    # which does not look at the phase, sees a template's claim missing (syncPod then does nothing
    # for a done pod)
    assert _reconciled(cp, recorder) == [f"claim/{generated}", "claim/mine", f"claim/{generated}", "pod/p"]
    assert [c.metadata.name for c in cp.client.list(ResourceClaim, "default").items] == ["mine"]


def test_a_scheduled_pod_being_deleted_queues_nothing_until_it_is_gone() -> None:
    # podNeedsClaims: a scheduled pod that is terminating "might run" (its claims stay); podNeedsWork
    # "pod is deleted"; the final delete (DeleteFunc, deleted=true) queues the claims only
    cp, recorder = _plane()
    cp.client.create(_claim("mine"))
    bound = gpu_pod("p", resourceClaimName="mine")
    bound.spec.node_name = "node-0"
    cp.client.create(bound)
    _reconciled(cp, recorder)
    cp.client.delete(Pod, "p", "default")
    assert _pod(cp, "p").metadata.deletion_timestamp is not None
    assert _reconciled(cp, recorder) == []
    cp.client.delete(Pod, "p", "default", grace_period_seconds=0)
    assert _reconciled(cp, recorder) == ["claim/mine"]


def test_an_unscheduled_pod_deleted_queues_its_claims() -> None:
    # podNeedsClaims "pod got removed" / "deleted before scheduling"
    cp, recorder = _plane()
    generated = _templated(cp, recorder)
    _reconciled(cp, recorder)
    cp.client.delete(Pod, "p", "default")
    seen = _reconciled(cp, recorder)
    assert "pod/p" not in seen
    assert seen[0] == f"claim/{generated}"


def test_a_bound_pod_with_an_allocated_unreserved_claim_is_reconciled() -> None:
    # podNeedsWork "need to reserve claim for pod" (spec.nodeName set by the user; allocated, not
    # reserved for it, CanBeReserved)
    cp, recorder = _plane()
    cp.client.create(_claim("mine"))
    _allocate(cp, "mine")
    _reconciled(cp, recorder)
    bound = gpu_pod("p", resourceClaimName="mine")
    bound.spec.node_name = "node-0"
    cp.client.create(bound)
    # the pod (reserves the claim), then the claim whose reservedFor changed
    assert _reconciled(cp, recorder) == ["pod/p", "claim/mine"]
    _touch(cp, "p")  # reserved now: nothing to do
    assert _reconciled(cp, recorder) == []


# --- claim events ---------------------------------------------------------------------------------


def test_a_claim_update_queues_the_claim_and_only_the_pods_that_need_work() -> None:
    # enqueueResourceClaim: the claim, then enqueuePod for each pod using it (podResourceClaimIndex):
    # a pending pod needs no work; a bound pod does once the claim is allocated
    cp, recorder = _plane()
    cp.client.create(_claim("mine"))
    cp.client.create(gpu_pod("pending", resourceClaimName="mine"))
    bound = gpu_pod("bound", resourceClaimName="mine")
    bound.spec.node_name = "node-0"
    cp.client.create(bound)
    _reconciled(cp, recorder)
    _label_claim(cp, "mine")
    assert _reconciled(cp, recorder) == ["claim/mine"]
    _allocate(cp, "mine")
    assert _reconciled(cp, recorder)[:2] == ["claim/mine", "pod/bound"]


def test_a_generated_claims_update_does_not_queue_its_pod() -> None:
    # no owner mapping upstream: the pod comes through the index and podNeedsWork only
    cp, recorder = _plane()
    generated = _templated(cp, recorder)
    _reconciled(cp, recorder)
    _label_claim(cp, generated)
    assert _reconciled(cp, recorder) == [f"claim/{generated}"]


def test_a_deleted_claim_is_not_queued_its_pod_only_when_it_must_regenerate() -> None:
    # enqueueResourceClaim "not enqueing deleted claim"; the pod of a deleted generated claim needs
    # work ("must create ResourceClaim from template"), the pod of a user's claim does not
    cp, recorder = _plane()
    generated = _two_pods(cp, recorder)
    cp.client.delete(ResourceClaim, "mine", "default")
    assert _reconciled(cp, recorder) == []
    cp.client.delete(ResourceClaim, generated, "default")
    seen = _reconciled(cp, recorder)
    assert seen[0] == "pod/p" and f"claim/{generated}" not in seen
    assert _generated(cp, "p") != generated  # created again


# --- the decisions as functions -------------------------------------------------------------------


class _NoClaims:
    def get(self, kind: Any, name: str, namespace: str | None = None) -> Any:
        from kbatch.api.errors import NotFound

        raise NotFound.of(kind.api_info.group_resource, name)

    def list(self, kind: Any, *, index: tuple[str, str] | None = None) -> list[Any]:
        return []


_PHASES = st.sampled_from([None, "Pending", "Running", "Succeeded", "Failed"])


@settings(max_examples=60, deadline=None)
@given(phase=_PHASES, node=st.booleans(), deleting=st.booleans(), deleted=st.booleans(),
       template=st.booleans(), recorded=st.booleans())
def test_claims_are_queued_exactly_when_the_pod_no_longer_needs_them(
        phase: str | None, node: bool, deleting: bool, deleted: bool, template: bool, recorded: bool) -> None:
    source = {"resourceClaimTemplateName": "one-gpu"} if template else {"resourceClaimName": "mine"}
    body = gpu_pod("p", **source).model_dump(by_alias=True, exclude_none=True)
    body["metadata"]["uid"] = "uid-p"
    if deleting:
        body["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    if node:
        body["spec"]["nodeName"] = "node-0"
    body["status"] = {"phase": phase} if phase else {}
    if recorded:
        body["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "p-gpu-x"}]
    pod = Pod.model_validate(body)
    out = [r.name for r in enqueue_pod(pod, deleted, _NoClaims())]
    releases = not pod_needs_claims(pod, deleted)
    claim = "claim/p-gpu-x" if template else "claim/mine"
    named = not template or recorded
    assert (claim in out) == (releases and named)
    # a pod being deleted never needs work; a template not recorded yet always does otherwise
    assert ("pod/p" in out) == pod_needs_work(pod, _NoClaims())
    if deleting:
        assert "pod/p" not in out
    elif template:
        assert "pod/p" in out  # not recorded, or recorded and missing: generate it
    else:
        assert "pod/p" not in out  # a user's claim missing is the user's to create
    assert releases == (deleted or phase in ("Succeeded", "Failed") or (deleting and not node))


# --- template events and extended-resource claims ------------------------------------------------


def test_a_template_created_after_its_pod_queues_the_pod_at_once() -> None:
    # kubernetes#135983 (1.36): a template added queues the pods naming it (enqueuePod through
    # podResourceClaimTemplateIndexFunc), so the claim is created then, not at the pod's next retry
    cp, recorder = _plane()
    cp.client.create(gpu_pod("p", resourceClaimTemplateName="later"))
    assert _reconciled(cp, recorder) == ["pod/p"]  # FailedResourceClaimCreation; retried later
    now = cp.clock.now()
    cp.client.create(ResourceClaimTemplate.model_validate(
        {"metadata": {"name": "later", "namespace": "default"}, "spec": {"spec": _SPEC}}))
    assert _reconciled(cp, recorder)[0] == "pod/p"
    assert cp.clock.now() == now
    assert _generated(cp, "p")


def test_a_template_of_no_waiting_pod_queues_nothing() -> None:
    cp, recorder = _plane()
    _templated(cp, recorder)  # its claim exists: podNeedsWork finds nothing to do
    _reconciled(cp, recorder)
    cp.client.patch(ResourceClaimTemplate, "one-gpu", {"metadata": {"labels": {"touch": "1"}}}, "default")
    cp.client.create(ResourceClaimTemplate.model_validate(
        {"metadata": {"name": "unused", "namespace": "default"}, "spec": {"spec": _SPEC}}))
    assert _reconciled(cp, recorder) == []


def test_a_done_pods_extended_resource_claim_is_released() -> None:
    # kubernetes#134312: enqueuePod also handles a pod whose only claim is the one
    # status.extendedResourceClaimStatus names (DRAExtendedResource, GA in 1.37): once the pod is
    # done, that claim is queued so that reservedFor drops the pod
    cp, recorder = _plane()
    cp.client.create(_claim("p-extended-resources-x"))
    body = gpu_pod("p").model_dump(by_alias=True, exclude_none=True)
    del body["spec"]["resourceClaims"], body["spec"]["containers"][0]["resources"]
    cp.client.create(Pod.model_validate(body))
    extended = {"resourceClaimName": "p-extended-resources-x",
                "requestMappings": [{"containerName": "c", "resourceName": "example.com/gpu",
                                     "requestName": "container-0-request-0"}]}
    cp.client.patch_status(Pod, "p", {"status": {"extendedResourceClaimStatus": extended}}, "default")
    _reconciled(cp, recorder)
    cp.client.patch_status(Pod, "p", {"status": {"phase": "Succeeded"}}, "default")
    assert _reconciled(cp, recorder) == ["claim/p-extended-resources-x"]
