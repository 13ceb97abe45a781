"""Which PersistentVolume the binder binds a claim to: the binder's own decisions over the shared
helpers of :mod:`kbatch.api.pv_helpers` (upstream component-helpers ``storage/volume``).

Upstream: ``pkg/controller/volume/persistentvolume/index.go`` (``findByClaim``: volumes grouped by
their access-mode set, the groups that contain every requested mode tried fewest modes first, each
through ``FindMatchingVolume`` with no node) and ``pv_controller.go`` (``checkVolumeSatisfyClaim``),
read at master (1.37).

Determinism: upstream walks an informer index, so among equally small volumes (or equally long
access-mode sets) the winner depends on map order; kbatch breaks ties by name (and by the sorted
mode list), so the same volumes always give the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.pv_helpers import (
    access_modes_ok,
    attributes_class_mismatch,
    claim_class,
    find_matching_volume,
    requested_storage,
    volume_capacity,
    volume_class,
    volume_mode_mismatch,
)

__all__ = ["best_match_for_claim", "volume_satisfies_claim"]


def _mode_groups(volumes: Sequence[PersistentVolume], requested: list[str]) -> list[tuple[str, ...]]:
    """``allPossibleMatchingAccessModes``: the volumes' distinct mode sets that contain every
    requested mode, fewest modes first."""
    groups = {tuple(sorted(set(v.spec.access_modes or ()))) for v in volumes}
    fitting = [g for g in groups if set(requested) <= set(g)]
    return sorted(fitting, key=lambda g: (len(g), g))


def best_match_for_claim(claim: PersistentVolumeClaim, volumes: Sequence[PersistentVolume],
                         delay_binding: bool) -> PersistentVolume | None:
    """``findBestMatchForClaim``: :func:`find_matching_volume` over each access-mode group in turn,
    so a volume offering exactly the requested modes is preferred to a larger mode set. Volumes are
    tried by name, so ties go to the first by name."""
    volumes = sorted(volumes, key=lambda v: v.metadata.name or "")
    for group in _mode_groups(volumes, list(claim.spec.access_modes or ())):
        members = [v for v in volumes if tuple(sorted(set(v.spec.access_modes or ()))) == group]
        found = find_matching_volume(claim, members, delay_binding=delay_binding)
        if found is not None:
            return found
    return None


def volume_satisfies_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> str | None:
    """``checkVolumeSatisfyClaim`` for a claim that names its volume: why not, or ``None``."""
    if volume.metadata.deletion_timestamp is not None:
        return f'the volume is marked for deletion "{volume.metadata.name}"'
    if volume_capacity(volume).value() < requested_storage(claim).value():
        return "requested PV is too small"
    if volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if attributes_class_mismatch(claim, volume):
        return "volumeAttributesClassName does not match"
    if volume_mode_mismatch(claim, volume):
        return "incompatible volumeMode"
    if not access_modes_ok(claim, volume):
        return "incompatible accessMode"
    return None
