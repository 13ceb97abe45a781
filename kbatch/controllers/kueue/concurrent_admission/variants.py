"""Parents and Variants of concurrent admission: the labels, annotations and owner references.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workload/concurrentadmission/concurrentadmission.go``
(``SetParentVariantLabel``, ``IsParent``, ``IsVariant``, ``GetVariantFlavor``,
``GetParentWorkloadName``/``UID``, ``IsFlavorAllowedForVariant``), the constants of
``pkg/controller/constants/constants.go``, ``GetWorkloadNameForVariant`` of
``pkg/controller/jobframework/workload_names.go``, and the policy as ``migrationMode`` in
``pkg/controller/concurrentadmission/controller.go`` reads it; KEP ``keps/8691-concurrent-admission``.

A *parent* is a Workload of a ClusterQueue with ``spec.concurrentAdmissionPolicy`` (labelled by the
workload controller); it is never queued. Its *Variants* are Workloads owned by it, one per flavor of
the ClusterQueue's (only) resource group, each restricted to its flavor by the allowed-flavor
annotation. All functions here are pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue, Workload

__all__ = [
    "ALLOWED_FLAVORS_ANNOTATION",
    "PARENT_LABEL",
    "READ_GVK",
    "RETAIN_FIRST_ADMISSION",
    "TRY_PREFERRED_FLAVORS",
    "WORKLOAD_API_VERSION",
    "Policy",
    "flavor_allowed",
    "flavor_order",
    "is_parent",
    "is_variant",
    "parent_name",
    "parent_uid",
    "policy_of",
    "variant_flavor",
    "variant_name",
]

PARENT_LABEL = "kueue.x-k8s.io/concurrent-admission-parent"  # ConcurrentAdmissionParentLabelKey
ALLOWED_FLAVORS_ANNOTATION = "kueue.x-k8s.io/workload-allowed-resource-flavors"
WORKLOAD_API_VERSION = "kueue.x-k8s.io/v1beta2"
TRY_PREFERRED_FLAVORS = "TryPreferredFlavors"
RETAIN_FIRST_ADMISSION = "RetainFirstAdmission"
# the (kind, group) of a Workload read through controller-runtime's cached client (CacheReader.Get)
READ_GVK = ("Workload", "kueue.x-k8s.io")


@dataclass(frozen=True)
class Policy:
    """A ClusterQueue's ``concurrentAdmissionPolicy``, settled: its migration mode (``""`` reads as
    ``TryPreferredFlavors``, ``migrationMode``) and ``lastAcceptableFlavorName``."""

    mode: str = TRY_PREFERRED_FLAVORS
    last_acceptable: str | None = None


def policy_of(cq: ClusterQueue | None) -> Policy | None:
    """The ClusterQueue's policy, ``None`` when it has none."""
    policy = cq.spec.concurrent_admission_policy if cq is not None and cq.spec is not None else None
    if policy is None:
        return None
    migration = policy.migration
    constraints = migration.constraints if migration is not None else None
    return Policy(
        (migration.mode if migration is not None else None) or TRY_PREFERRED_FLAVORS,
        constraints.last_acceptable_flavor_name if constraints is not None else None,
    )


def flavor_order(cq: ClusterQueue) -> tuple[str, ...]:
    """The flavors of the first resource group, most favourable first (each name once)."""
    groups = (cq.spec.resource_groups if cq.spec else None) or []
    flavors = groups[0].flavors or [] if groups else []
    return tuple(dict.fromkeys(f.name or "" for f in flavors))


def is_parent(wl: Any) -> bool:
    return wl is not None and (wl.metadata.labels or {}).get(PARENT_LABEL) == "true"


def _workload_owner(wl: Any) -> Any:
    for ref in (wl.metadata.owner_references if wl is not None else None) or ():
        if ref.kind == "Workload" and ref.api_version == WORKLOAD_API_VERSION:
            return ref
    return None


def parent_name(wl: Any) -> str:
    """``GetParentWorkloadName``: the owning Workload's name, ``""`` when none."""
    ref = _workload_owner(wl)
    return ref.name if ref is not None else ""


def parent_uid(wl: Any) -> str:
    """``GetParentWorkloadUID``."""
    ref = _workload_owner(wl)
    return ref.uid if ref is not None else ""


def is_variant(wl: Any) -> bool:
    return parent_name(wl) != ""


def _allowed(wl: Any) -> list[str] | None:
    annotations = (wl.metadata.annotations if wl is not None else None) or {}
    value = annotations.get(ALLOWED_FLAVORS_ANNOTATION)
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]  # csv.Parse


def variant_flavor(wl: Any) -> str:
    """``GetVariantFlavor``: the first allowed flavor, ``""`` when none."""
    flavors = _allowed(wl) or []
    return flavors[0] if flavors else ""


def flavor_allowed(wl: Any, flavor: str) -> bool:
    """``IsFlavorAllowedForVariant`` (the caller checks the gate): without the annotation every
    flavor is allowed."""
    allowed = _allowed(wl)
    return allowed is None or flavor in allowed


def variant_name(
    parent: Workload, flavor: str, *, short: bool = False, gvk: tuple[str, str] = READ_GVK
) -> str:
    """``GetWorkloadNameForVariant``: the parent's name up to its last ``-`` (``getWorkloadBaseName``,
    which drops the job-framework hash), ``-variant-`` and the flavor, truncated to 247 characters
    (57 with ``ShortWorkloadNames``: ``maxPrefixLength``), ``-``, then 5 hex digits of SHA-1 over
    ``gvk`` (kind, group), the parent's name and UID and the flavor (``getHash``).

    Upstream hashes ``parent.GroupVersionKind()`` of the parent its client read: controller-runtime
    v0.24's cache reader (``CacheReader.Get``) sets it to the Workload kind, so a live controller
    hashes :data:`READ_GVK`; the fake client of upstream's unit tests clears it
    (``ensureTypeMeta``), which ``gvk=("", "")`` reproduces (``wl-variant-spot-a2342``). A name
    without ``-`` makes upstream's slice panic, which controller-runtime recovers into a reconcile
    error (``RecoverPanic``, on by default): :class:`ValueError` here, retried with back-off and no
    Variant ever created."""
    from kbatch.controllers.kueue.jobframework.names import name_with_hash  # jobframework imports us

    name = parent.metadata.name or ""
    if "-" not in name:
        raise ValueError(f"workload name {name!r} has no '-': slice bounds out of range [:-1]")
    prefix = f"{name[: name.rfind('-')]}-variant-{flavor}"
    return name_with_hash(prefix, name, parent.metadata.uid or "", *gvk, short, flavor)
