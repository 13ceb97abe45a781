"""Which PersistentVolume a claim binds to: pure decisions the binder (and a scheduler) share.

Upstream: ``k8s.io/component-helpers/storage/volume/pv_helpers.go`` (``FindMatchingVolume``,
``IsVolumeBoundToClaim``, ``CheckVolumeModeMismatches``, ``CheckAccessModes``, the annotation
names), ``pkg/controller/volume/persistentvolume/index.go`` (``findByClaim``: volumes grouped by
their access-mode set, the groups that contain every requested mode tried fewest modes first) and
``pv_controller.go`` (``checkVolumeSatisfyClaim``), read at component-helpers 2026-07 (1.37).

Determinism: upstream walks an informer index, so among equally small volumes (or equally long
access-mode sets) the winner depends on map order; kbatch breaks ties by name (and by the sorted
mode list), so the same volumes always give the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.quantity import Quantity
from kbatch.api.selectors import selector_from_model

__all__ = [
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_SELECTED_NODE",
    "ANN_STORAGE_PROVISIONER",
    "BETA_CLASS_ANNOTATION",
    "access_modes_ok",
    "best_match_for_claim",
    "claim_class",
    "find_matching_volume",
    "has_annotation",
    "is_volume_bound_to_claim",
    "volume_class",
    "volume_mode_mismatch",
    "volume_satisfies_claim",
]

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"

_ZERO = Quantity("0")


def has_annotation(obj: PersistentVolume | PersistentVolumeClaim, key: str) -> bool:
    return key in (obj.metadata.annotations or {})


def claim_class(claim: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then the spec, else ``""``."""
    annotations = claim.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return annotations[BETA_CLASS_ANNOTATION]
    return claim.spec.storage_class_name or ""


def volume_class(volume: PersistentVolume) -> str:
    """``GetPersistentVolumeClass``: the beta annotation first, then the spec, else ``""``."""
    annotations = volume.metadata.annotations or {}
    if BETA_CLASS_ANNOTATION in annotations:
        return annotations[BETA_CLASS_ANNOTATION]
    return volume.spec.storage_class_name or ""


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim``: the volume's claimRef names the claim (and its uid, when set)."""
    ref = volume.spec.claim_ref
    if ref is None or ref.name != claim.metadata.name or ref.namespace != claim.metadata.namespace:
        return False
    return not ref.uid or ref.uid == claim.metadata.uid


def volume_mode_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches``: an unset mode counts as ``Filesystem`` on either side."""
    return (claim.spec.volume_mode or "Filesystem") != (volume.spec.volume_mode or "Filesystem")


def access_modes_ok(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckAccessModes``: the volume offers every mode the claim asks for."""
    return set(claim.spec.access_modes or ()) <= set(volume.spec.access_modes or ())


def _storage(quantities: object) -> Quantity:
    return (quantities or {}).get("storage", _ZERO)  # type: ignore[attr-defined, no-any-return]


def _requested(claim: PersistentVolumeClaim) -> Quantity:
    return _storage(claim.spec.resources.requests if claim.spec.resources else None)


def _attributes_class(claim: PersistentVolumeClaim) -> str:
    return claim.spec.volume_attributes_class_name or ""


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         delay_binding: bool) -> PersistentVolume | None:
    """``FindMatchingVolume`` on the binder's path (no node, nothing excluded, VolumeAttributesClass
    on): a volume pre-bound to the claim wins if big enough; otherwise the smallest Available,
    unclaimed volume of the claim's class whose labels match the selector — unless binding is
    delayed (WaitForFirstConsumer), when only pre-bound volumes count."""
    requested = _requested(claim)
    selector = selector_from_model(claim.spec.selector) if claim.spec.selector is not None else None
    wanted_class = claim_class(claim)
    best: PersistentVolume | None = None
    for volume in sorted(volumes, key=lambda v: v.metadata.name or ""):
        bound_here = is_volume_bound_to_claim(volume, claim)
        if volume.spec.claim_ref is not None and not bound_here:
            continue
        size = _storage(volume.spec.capacity)
        if size.cmp(requested) < 0 or volume_mode_mismatch(claim, volume):
            continue
        if _attributes_class(claim) != (volume.spec.volume_attributes_class_name or ""):
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        if bound_here:
            return volume
        if delay_binding:
            continue
        if volume.status is None or volume.status.phase != "Available":
            continue
        if selector is not None and not selector.matches(volume.metadata.labels or {}):
            continue
        if volume_class(volume) != wanted_class:
            continue
        if best is None or _storage(best.spec.capacity).cmp(size) > 0:
            best = volume
    return best


def _mode_groups(volumes: Sequence[PersistentVolume], requested: list[str]) -> list[tuple[str, ...]]:
    """``allPossibleMatchingAccessModes``: the volumes' distinct mode sets that contain every
    requested mode, fewest modes first."""
    groups = {tuple(sorted(set(v.spec.access_modes or ()))) for v in volumes}
    fitting = [g for g in groups if set(requested) <= set(g)]
    return sorted(fitting, key=lambda g: (len(g), g))


def best_match_for_claim(claim: PersistentVolumeClaim, volumes: Sequence[PersistentVolume],
                         delay_binding: bool) -> PersistentVolume | None:
    """``findBestMatchForClaim``: :func:`find_matching_volume` over each access-mode group in turn,
    so a volume offering exactly the requested modes is preferred to a larger mode set."""
    for group in _mode_groups(volumes, list(claim.spec.access_modes or ())):
        members = [v for v in volumes if tuple(sorted(set(v.spec.access_modes or ()))) == group]
        found = find_matching_volume(claim, members, delay_binding)
        if found is not None:
            return found
    return None


def volume_satisfies_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> str | None:
    """``checkVolumeSatisfyClaim`` for a claim that names its volume: why not, or ``None``."""
    if volume.metadata.deletion_timestamp is not None:
        return f'the volume is marked for deletion "{volume.metadata.name}"'
    if _storage(volume.spec.capacity).value() < _requested(claim).value():
        return "requested PV is too small"
    if volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if _attributes_class(claim) != (volume.spec.volume_attributes_class_name or ""):
        return "volumeAttributesClassName does not match"
    if volume_mode_mismatch(claim, volume):
        return "incompatible volumeMode"
    if not access_modes_ok(claim, volume):
        return "incompatible accessMode"
    return None
