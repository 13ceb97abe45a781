"""Upstream's DynamicResources queueing-hint cases, translated into kbatch.

Source: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``
``Test_isSchedulableAfterClaimChange`` and ``Test_isSchedulableAfterPodChange`` (stored versions of
the v1alpha3 and v1beta1 eras, same rows; checked against ``isSchedulableAfterClaimChange`` and
``isSchedulableAfterPodChange`` in the resource.k8s.io/v1 ``dynamicresources.go`` with ``SignPod``,
1.35 or later, whose logic the rows exercise unchanged), plus two cases of the claim hint's code that
the table leaves out (named ``code: ...``). The claims are created through kbatch's API and observed
by the plugin, as its informer would; the hints are those the plugin registers.

Not translated: "backoff-wrong-new-object" and "backoff-wrong-old-object" (an object of another type
cannot reach kbatch's typed hints).
"""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.resource_v1 import ResourceClaim
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.scheduler.events import QueueingHint
from kbatch.controllers.scheduler.profiles import Handle
from kbatch.controllers.scheduler.types import PodInfo

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
CLAIM = "ResourceClaim"  # the informer kind the plugin registers its claim hint for
POD_UID = "1234"
CLAIM_NAME = "my-pod-my-resource"


class Cluster:
    """A control plane and the plugin observing its claims."""

    def __init__(self) -> None:
        self.cp = ControlPlane(controllers=[])
        self.plugin = DynamicResources(Handle(client=self.cp.client))
        (self.hint,) = [r.hint for r in self.plugin.events_to_register() if r.event.resource == CLAIM]

    def create(self, name: str = CLAIM_NAME, **meta: Any) -> ResourceClaim:
        claim = ResourceClaim.model_validate(
            {
                "metadata": {"name": name, "namespace": "default", **meta},
                "spec": {"devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": "c"}}]}},
            }
        )
        stored = self.cp.client.create(claim)
        self.plugin.observe(CLAIM, None, stored)
        return stored

    def update(self, claim: ResourceClaim, **metadata: Any) -> ResourceClaim:
        """A metadata update (e.g. finalizers)."""
        body = edit(claim)
        for key, value in metadata.items():
            setattr(body.metadata, key, value)
        return self._observed(claim, self.cp.client.update(body))

    def allocate(self, claim: ResourceClaim, allocated: bool = True) -> ResourceClaim:
        """A status update: the claim allocated, or deallocated."""
        body = edit(claim)
        body.status = _status(allocated)
        return self._observed(claim, self.cp.client.update_status(body))

    def _observed(self, old: ResourceClaim, new: ResourceClaim) -> ResourceClaim:
        self.plugin.observe(CLAIM, old, new)
        return new


def _status(allocated: bool) -> Any:
    if not allocated:
        return None
    allocation = {
        "devices": {
            "results": [
                {"request": "req-1", "driver": "some-driver", "pool": "worker", "device": "instance-1"}
            ]
        }
    }
    return ResourceClaim.model_validate(
        {"metadata": {"name": "x"}, "spec": {}, "status": {"allocation": allocation}}
    ).status


def _pod(claim: str = CLAIM_NAME) -> PodInfo:
    """upstream ``podWithClaimName``: a claim referenced by name."""
    return PodInfo("default", "my-pod", uid=POD_UID, resource_claims=(("my-resource", claim, ""),))


def _template_pod() -> PodInfo:
    """upstream ``podWithClaimTemplateInStatus``: a template whose claim the status names."""
    return PodInfo(
        "default",
        "my-pod",
        uid=POD_UID,
        resource_claims=(("my-resource", "", "my-template"),),
        claim_statuses=(("my-resource", CLAIM_NAME),),
    )


def test_skip_deletes() -> None:
    # "skip-deletes": upstream registers claim adds and updates only; a delete never queues
    c = Cluster()
    claim = c.allocate(c.create())
    assert c.hint(_template_pod(), claim, None) is SKIP


def test_skip_wrong_claim() -> None:
    # "skip-wrong-claim": the template's claim is owned by another pod (resourceclaim.IsForPod fails)
    c = Cluster()
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID + "123", "controller": True}
    claim = c.create(ownerReferences=[owner])
    assert c.hint(_template_pod(), None, claim) is SKIP


def test_skip_unrelated_claim() -> None:
    # "skip-unrelated-claim": another claim, not deallocated
    c = Cluster()
    c.create()
    other = c.create(CLAIM_NAME + "-foo")
    assert c.hint(_pod(), None, other) is SKIP


def test_queue_on_add() -> None:
    # "queue-on-add": the pod's claim was created
    c = Cluster()
    claim = c.create()
    assert c.hint(_pod(), None, claim) is QUEUE


def test_skip_adding_finalizer() -> None:
    # "skip-adding-finalizer": the pod's claim changed, its status did not
    c = Cluster()
    claim = c.create()
    updated = c.update(claim, finalizers=["foo"])
    assert c.hint(_pod(), claim, updated) is SKIP


def test_queue_on_status_change() -> None:
    # "queue-on-status-change": the pod's claim got an allocation
    c = Cluster()
    claim = c.create()
    updated = c.allocate(claim)
    assert c.hint(_pod(), claim, updated) is QUEUE


def test_structured_claim_deallocate() -> None:
    # "structured-claim-deallocate": another claim was deallocated: its devices may fit this pod
    c = Cluster()
    c.create()
    other = c.allocate(c.create("structured-claim"))
    freed = c.allocate(other, allocated=False)
    assert c.hint(_pod(), other, freed) is QUEUE


def test_code_deallocation_does_not_queue_a_pod_whose_claim_is_missing() -> None:
    # code: foreachPodResourceClaim fails (the pod's own claim does not exist) -> QueueSkip, before
    # the deallocation check
    c = Cluster()
    other = c.allocate(c.create("structured-claim"))
    freed = c.allocate(other, allocated=False)
    assert c.hint(_pod(), other, freed) is SKIP


def test_code_claim_created_while_another_is_missing() -> None:
    # code: one of the pod's two claims is created, the other does not exist yet -> QueueSkip
    c = Cluster()
    claim = c.create()
    pod = PodInfo(
        "default",
        "my-pod",
        uid=POD_UID,
        resource_claims=(("my-resource", CLAIM_NAME, ""), ("second", "second-claim", "")),
    )
    assert c.hint(pod, None, claim) is SKIP


# --- Test_isSchedulableAfterPodChange (UpdatePodGeneratedResourceClaim) ------------------------------


def _pod_hint(c: Cluster) -> Any:
    (hint,) = [r.hint for r in c.plugin.events_to_register() if r.event.resource == "UnschedulablePod"]
    return hint


def _owner() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID, "controller": True}


def _unrecorded(*entries: str) -> PodInfo:
    """upstream ``podWithClaimTemplate`` / ``podWithTwoClaimTemplates``: no claim recorded yet."""
    return PodInfo(
        "default", "my-pod", uid=POD_UID, resource_claims=tuple((e, "", "my-template") for e in entries)
    )


def test_pod_change_complete() -> None:
    # "complete": the generated claim exists and is the pod's
    c = Cluster()
    c.create(ownerReferences=[_owner()])
    assert _pod_hint(c)(_unrecorded("my-resource"), _unrecorded("my-resource"), _template_pod()) is QUEUE


def test_pod_change_wrong_pod() -> None:
    # "wrong-pod": the event is about another pod (another uid)
    c = Cluster()
    c.create(ownerReferences=[_owner()])
    other = PodInfo("default", "my-pod2", uid=POD_UID + "2", resource_claims=_template_pod().resource_claims)
    assert _pod_hint(c)(other, None, _template_pod()) is SKIP


def test_pod_change_missing_claim() -> None:
    # "missing-claim": the status names a claim that does not exist
    c = Cluster()
    assert _pod_hint(c)(_unrecorded("my-resource"), None, _template_pod()) is SKIP


def test_pod_change_incomplete() -> None:
    # "incomplete": two templates, only the first claim recorded
    c = Cluster()
    c.create(ownerReferences=[_owner()])
    new = PodInfo(
        "default",
        "my-pod",
        uid=POD_UID,
        resource_claims=_unrecorded("my-resource", "second").resource_claims,
        claim_statuses=(("my-resource", CLAIM_NAME),),
    )
    assert _pod_hint(c)(_unrecorded("my-resource", "second"), None, new) is SKIP
