"""Device taint eviction decisions (upstream ``pkg/controller/devicetainteviction``,
``device_taint_eviction.go``, KEP-5055), pure functions of the objects.

* ``claimEvictionTime``: every ``NoExecute`` taint of an allocated device (its own, or a
  DeviceTaintRule's with effect ``NoExecute`` that selects it) is a reason to evict, at its
  ``timeAdded``, unless a toleration *with effect NoExecute* tolerates it: one without
  ``tolerationSeconds`` ignores the taint for ever, otherwise the shortest ``tolerationSeconds``
  (negative counts as 0) delays it. The claim's time is the earliest of its reasons'.
* ``podEvictionTime``: a scheduled pod is evicted at the earliest time of its claims, with all their
  reasons, counting only a claim that is allocated, reserved for this pod (``reservedFor`` holds its
  UID: a finished pod, dropped from ``reservedFor`` by the resourceclaim controller, is left alone),
  and, for a claim generated from a template, owned by the pod; with PodGroup claims
  (``DRAWorkloadResourceClaims``, KEP-5729) a claim reserved for the pod's PodGroup counts too
  (owned by the PodGroup when generated): every scheduled member using it is evicted. The claims
  are the pod's own and the special claim the scheduler recorded in
  ``status.extendedResourceClaimStatus`` (extended resources backed by DRA, KEP-5004), which must be
  owned by the pod too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.api.resource_v1 import TAINT_EFFECT_NO_EXECUTE
from kbatch.controllers.dra.podgroupclaims import is_group_consumer
from kbatch.controllers.dra.structured import tolerates

__all__ = [
    "Eviction",
    "TaintSource",
    "device_eviction",
    "eviction_time",
    "extended_claim_name",
    "has_claims",
    "merge",
    "pod_claim_names",
    "reserved_for",
]


@dataclass(frozen=True)
class TaintSource:
    """One taint that applies to a device: ``rule`` is the DeviceTaintRule's (name, uid) when a rule
    adds it, None for the device's own taint."""

    taint: Any
    added: float | None
    rule: tuple[str, str] | None = None


@dataclass(frozen=True)
class Eviction:
    """When the pod must go (seconds on the clock's timeline) and the DeviceTaintRules among the
    reasons (upstream ``evictionAndReason``; the rules get the eviction counted in their status)."""

    when: float
    rules: frozenset[tuple[str, str]] = frozenset()


def _tolerated_for(taint: Any, tolerations: Sequence[Any]) -> float | bool:
    """False when no NoExecute toleration matches; True when one tolerates for ever; else seconds."""
    seconds: list[float] = []
    for toleration in tolerations:
        if toleration.effect != TAINT_EFFECT_NO_EXECUTE or not tolerates(toleration, taint):
            continue
        if toleration.toleration_seconds is None:
            return True
        seconds.append(float(max(0, toleration.toleration_seconds)))
    return min(seconds) if seconds else False


def device_eviction(sources: Iterable[TaintSource], tolerations: Sequence[Any]) -> Eviction | None:
    """``claimEvictionTime`` for one allocated device: its taints and the tolerations of its
    allocation result (a claim's eviction merges those of its devices, :func:`merge`)."""
    when: float | None = None
    rules: set[tuple[str, str]] = set()
    found = False
    for source in sources:
        if source.taint.effect != TAINT_EFFECT_NO_EXECUTE:
            continue
        tolerated = _tolerated_for(source.taint, tolerations)
        if tolerated is True:
            continue
        at = (source.added or 0.0) + (tolerated if isinstance(tolerated, float) else 0.0)
        found = True
        when = at if when is None else min(when, at)
        if source.rule is not None:
            rules.add(source.rule)
    return Eviction(when, frozenset(rules)) if found and when is not None else None


def merge(evictions: Iterable[Eviction | None]) -> Eviction | None:
    """A pod's eviction: the earliest time of its claims, with every claim's reasons."""
    out: Eviction | None = None
    for e in evictions:
        if e is None:
            continue
        out = e if out is None else Eviction(min(out.when, e.when), out.rules | e.rules)
    return out


def eviction_time(taints: Iterable[tuple[Any, float | None]], tolerations: Sequence[Any]) -> float | None:
    """When a pod using one device with ``taints`` ((taint, timeAdded) pairs) must go; None when no
    NoExecute taint requires it."""
    found = device_eviction((TaintSource(t, added) for t, added in taints), tolerations)
    return None if found is None else found.when


def extended_claim_name(pod: Any) -> str:
    """The special claim for extended resources backed by DRA that the scheduler recorded in
    ``status.extendedResourceClaimStatus`` (KEP-5004), or ""."""
    ext = pod.status.extended_resource_claim_status if pod.status is not None else None
    return (ext.resource_claim_name or "") if ext is not None else ""


def has_claims(pod: Any) -> bool:
    """Whether the pod uses claims: its own, or the scheduler's special claim."""
    return bool(pod.spec.resource_claims) or bool(extended_claim_name(pod))


def pod_claim_names(pod: Any) -> list[tuple[str, bool]]:
    """``resourceclaim.Name`` for each of the pod's claims: (claim name, must check the owner); a
    template entry without a generated claim in the pod's status is skipped. The special claim of
    ``status.extendedResourceClaimStatus`` comes last, owner checked (the scheduler created it with
    the pod as controller): kubernetes#141290, whose fix (kubernetes#142289) makes upstream's claim
    iteration include it."""
    statuses = {
        s.name: s.resource_claim_name
        for s in ((pod.status.resource_claim_statuses if pod.status else None) or ())
    }
    out: list[tuple[str, bool]] = []
    for entry in pod.spec.resource_claims or ():
        if entry.resource_claim_name:
            out.append((entry.resource_claim_name, False))
        elif entry.resource_claim_template_name and statuses.get(entry.name):
            out.append((statuses[entry.name] or "", True))
    special = extended_claim_name(pod)
    if special:
        out.append((special, True))
    return out


def reserved_for(claim: Any, pod: Any, must_check_owner: bool, group: str = "") -> bool:
    """``IsReservedForPod`` (the pod's UID in ``reservedFor``) and, for a generated claim,
    ``IsForPod`` (the pod is the claim's controller). ``group``: the pod's PodGroup when PodGroup
    claims are on (KEP-5729, "Determining Allowed Pods for a ResourceClaim"): a claim reserved for
    that PodGroup (by name) is the pod's too, a generated one when the PodGroup controls it."""
    status = claim.status
    if status is None:
        return False
    owners = {ref.uid for ref in claim.metadata.owner_references or () if ref.controller}
    uid = pod.metadata.uid
    for ref in status.reserved_for or ():
        if ref.uid == uid and (not must_check_owner or uid in owners):
            return True
        mine = group and is_group_consumer(ref) and ref.name == group
        if mine and (not must_check_owner or ref.uid in owners):
            return True
    return False
