"""The resourceclaim controller's decisions, as pure functions of values (upstream
``pkg/controller/resourceclaim/controller.go``, ``syncPod`` and ``syncClaim``, Kubernetes 1.37).

**A pod** (:func:`plan_pod`): for each ``spec.resourceClaims`` entry naming a template, unless the pod
is done or being deleted:

1. ``status.resourceClaimStatuses`` already names its claim and that claim exists, owned by the pod:
   nothing to do (a missing one is created again);
2. a claim owned by the pod and annotated ``resource.kubernetes.io/pod-claim-name: <entry>`` exists
   (created before the status write was lost): record it;
3. otherwise create one from the template: ``generateName`` ``<pod>-<entry>-`` (both parts truncated
   in proportion when longer than 57 characters, so the server's 5 random characters fit a 63-character
   name), the template's labels and annotations plus the annotation, the pod as controlling owner
   (``blockOwnerDeletion``), the template's spec; then record its name.

**A claim** (:func:`plan_claim`):

1. ``reservedFor`` keeps the pods that exist with that uid and are not done, and the PodGroups
   that exist (with PodGroup claims on); other consumers are dropped. A pod is done (upstream
   ``isPodDone``) when its phase is Succeeded or Failed, or when it is being deleted before it was
   scheduled: a scheduled pod that is terminating still runs its containers and keeps its devices;
2. when that drops the last consumer (the transition from used to unused, not a claim that was never
   reserved), a claim with the ``resource.kubernetes.io/delete-protection`` finalizer (the scheduler
   allocated it) is deallocated (``allocation`` cleared), then loses the finalizer;
3. a claim being deleted that nobody uses is deallocated and loses the finalizer, so the deletion
   completes;
4. a claim generated for a pod (controlled by it and annotated) whose pod is replaced (another uid) or
   done, and that is reserved for nobody, is deleted; when the pod is gone, the garbage collector
   deletes it.

**A pod bound without the scheduler** (:func:`claims_to_reserve`, the end of upstream ``syncPod``, its
case "add-reserved"): a pod whose ``spec.nodeName`` is set gets added to ``reservedFor`` of each of
its claims that is allocated, not reserved for it yet and below the 256-consumer limit
(``resourceclaim.CanBeReserved``), so the kubelet can prepare it. The walk stops at the first claim
that does not exist yet or that a template generated for another pod, as upstream's returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

__all__ = [
    "ClaimFacts",
    "ClaimPlan",
    "ConsumerFacts",
    "PodClaimFacts",
    "PodClaimUse",
    "PodFacts",
    "PodPlan",
    "claims_to_reserve",
    "generate_name",
    "plan_claim",
    "plan_pod",
]

MAX_BASE_LEN = 57  # 63 - 1 (hyphen) - 5 (random characters)


def generate_name(pod: str, claim: str) -> str:
    """Upstream's ``generateName`` for a pod's claim, truncated proportionally."""
    name = f"{pod}-{claim}-"
    if len(name) > MAX_BASE_LEN:
        length = len(name)
        name = (
            pod[: len(pod) * MAX_BASE_LEN // length]
            + "-"
            + claim[: len(claim) * MAX_BASE_LEN // length]
            + "-"
        )
    return name


@dataclass(frozen=True, slots=True)
class PodClaimFacts:
    name: str
    claim_name: str = ""
    template_name: str = ""


@dataclass(frozen=True, slots=True)
class PodFacts:
    namespace: str
    name: str
    uid: str
    claims: tuple[PodClaimFacts, ...]
    statuses: Mapping[str, str]  # spec claim name -> generated claim name (status)
    done: bool = False
    deleting: bool = False


@dataclass(frozen=True, slots=True)
class PodPlan:
    create: tuple[PodClaimFacts, ...] = ()  # template claims to create, in spec order
    record: tuple[tuple[str, str], ...] = ()  # existing claims to record in the status


def plan_pod(pod: PodFacts, owned: Mapping[str, str], present: AbstractSet[str] = frozenset()) -> PodPlan:
    """``owned``: pod claim name -> name of an existing claim the pod controls for it; ``present``:
    the generated claims (by name) that exist and belong to the pod. A claim the status names that
    is not present (deleted by accident, or no longer the pod's) is created again (upstream
    ``handleClaim``)."""
    if pod.done or pod.deleting:
        return PodPlan()
    create, record = [], []
    for claim in pod.claims:
        if not claim.template_name or pod.statuses.get(claim.name) in present:
            continue
        if claim.name in pod.statuses and not pod.statuses[claim.name]:
            continue  # recorded without a name: no claim needed (upstream resourceclaim.Name)
        existing = owned.get(claim.name)
        if existing:
            record.append((claim.name, existing))
        else:
            create.append(claim)
    return PodPlan(tuple(create), tuple(record))


@dataclass(frozen=True, slots=True)
class ConsumerFacts:
    """A ``reservedFor`` entry and what is known of the pod it names."""

    resource: str
    name: str
    uid: str
    exists: bool = False  # a pod of that name and uid exists
    done: bool = False  # ... and is done (upstream isPodDone)

    @property
    def valid(self) -> bool:
        """A pod that exists and is not done; a PodGroup that exists (KEP-5729; ``exists`` is True
        for one while PodGroup claims are off); any other consumer."""
        if self.resource == "podgroups":
            return self.exists
        return self.resource != "pods" or (self.exists and not self.done)


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    allocated: bool
    consumers: tuple[ConsumerFacts, ...] = ()
    has_finalizer: bool = False
    deleting: bool = False
    generated_for_done_pod: bool = False  # controlled by a pod, annotated; the pod replaced or done


@dataclass(frozen=True, slots=True)
class ClaimPlan:
    reserved_for: tuple[ConsumerFacts, ...] | None = None  # the new list; None: unchanged
    deallocate: bool = False
    remove_finalizer: bool = False
    delete: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def plan_claim(claim: ClaimFacts) -> ClaimPlan:
    """Upstream ``syncClaim``."""
    valid = tuple(c for c in claim.consumers if c.valid)
    delete = not valid and claim.generated_for_done_pod and not claim.deleting
    if len(valid) < len(claim.consumers):
        deallocate = not valid and claim.has_finalizer and claim.allocated
        remove_finalizer = claim.has_finalizer and (deallocate or not claim.allocated)
        return ClaimPlan(valid, deallocate, remove_finalizer, delete)
    if claim.has_finalizer and claim.deleting and not valid:
        return ClaimPlan(None, claim.allocated, True, delete)
    return ClaimPlan(None, False, False, delete)


@dataclass(frozen=True, slots=True)
class PodClaimUse:
    """A claim a bound pod uses, as :func:`claims_to_reserve` needs to know it."""

    name: str
    exists: bool = True
    for_pod: bool = True  # not generated from a template, or generated for this pod (IsForPod)
    allocated: bool = False
    reserved_for_pod: bool = False
    consumers: int = 0


def claims_to_reserve(
    pod: PodFacts, node_name: str, uses: tuple[PodClaimUse, ...], limit: int
) -> tuple[str, ...]:
    """Upstream ``syncPod`` after the claims are created: the claims (by name, in spec order) to
    reserve for a pod bound to ``node_name`` by someone other than the scheduler; ``limit`` is
    ``ResourceClaimReservedForMaxSize``."""
    if not node_name or pod.done or pod.deleting:
        return ()
    out = []
    for use in uses:
        if not use.exists or not use.for_pod:
            break  # upstream: a missing claim ends the sync, a foreign one is an error
        if use.allocated and not use.reserved_for_pod and use.consumers < limit:
            out.append(use.name)
    return tuple(out)
