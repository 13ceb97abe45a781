"""The resourceclaim controller's decisions, as pure functions of values (upstream
``pkg/controller/resourceclaim/controller.go``, ``syncPod`` and ``syncClaim``, Kubernetes 1.37).

**A pod** (:func:`plan_pod`): for each ``spec.resourceClaims`` entry naming a template, unless the pod
is done or being deleted:

1. ``status.resourceClaimStatuses`` already names its claim: nothing to do;
2. a claim owned by the pod and annotated ``resource.kubernetes.io/pod-claim-name: <entry>`` exists
   (created before the status write was lost): record it;
3. otherwise create one from the template: ``generateName`` ``<pod>-<entry>-`` (both parts truncated
   in proportion when longer than 57 characters, so the server's 5 random characters fit a 63-character
   name), the template's labels and annotations plus the annotation, the pod as controlling owner
   (``blockOwnerDeletion``), the template's spec; then record its name.

**A claim** (:func:`plan_claim`):

1. ``reservedFor`` keeps the pods that exist with that uid and are not done; other consumers are
   dropped. Done is upstream's ``isPodDone``: Succeeded or Failed, or being deleted before it was
   scheduled. A scheduled pod being deleted keeps its reservation: its containers may run through
   the grace period, so its devices are freed only once it is terminal or gone;
2. a claim reserved for nobody is deallocated (``allocation`` cleared) and loses the
   ``resource.kubernetes.io/delete-protection`` finalizer, so its devices are free and a pending deletion
   completes;
3. a claim generated for a pod (controlled by it and annotated) whose pod is done or gone, and that is
   reserved for nobody, is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "ClaimFacts",
    "ClaimPlan",
    "ConsumerFacts",
    "PodClaimFacts",
    "PodFacts",
    "PodPlan",
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


def plan_pod(pod: PodFacts, owned: Mapping[str, str]) -> PodPlan:
    """``owned``: pod claim name -> name of an existing claim the pod controls for it."""
    if pod.done or pod.deleting:
        return PodPlan()
    create, record = [], []
    for claim in pod.claims:
        if not claim.template_name or pod.statuses.get(claim.name):
            continue
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
    exists: bool = False
    done: bool = False  # upstream's isPodDone

    @property
    def valid(self) -> bool:
        return self.resource != "pods" or (self.exists and not self.done)


@dataclass(frozen=True, slots=True)
class ClaimFacts:
    allocated: bool
    consumers: tuple[ConsumerFacts, ...] = ()
    has_finalizer: bool = False
    deleting: bool = False
    generated_for_done_pod: bool = False  # controlled by a pod, annotated, the pod done or gone


@dataclass(frozen=True, slots=True)
class ClaimPlan:
    reserved_for: tuple[ConsumerFacts, ...] | None = None  # the new list; None: unchanged
    deallocate: bool = False
    remove_finalizer: bool = False
    delete: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def plan_claim(claim: ClaimFacts) -> ClaimPlan:
    valid = tuple(c for c in claim.consumers if c.valid)
    reserved = valid if len(valid) != len(claim.consumers) else None
    unused = not valid
    deallocate = unused and claim.allocated
    remove_finalizer = unused and claim.has_finalizer
    delete = unused and claim.generated_for_done_pod and not claim.deleting
    return ClaimPlan(reserved, deallocate, remove_finalizer, delete)
