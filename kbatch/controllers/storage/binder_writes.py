"""The persistentvolume-binder's writes: binding both sides, phases, unbinding.

Upstream ``pkg/controller/volume/persistentvolume/pv_controller.go`` (``bind``,
``bindVolumeToClaim`` via ``GetBindVolumeToClaim``, ``bindClaimToVolume``, ``updateClaimStatus``,
``updateClaimStatusWithEvent``, ``updateVolumePhase``, ``updateVolumePhaseWithEvent``,
``unbindVolume``). Each function writes only when something changes and returns the object the
server stored, so the next step starts from it (a Conflict propagates: the queue retries).

``lastPhaseTransitionTime``: upstream's PersistentVolume status strategy stamps it when the phase
changes; kbatch's strategies have no clock, so :func:`set_volume_phase` stamps it (docs/storage.md).
"""

from __future__ import annotations

from typing import Any

from kbatch.api import pv_helpers
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.claim import PersistentVolumeClaimStatus
from kbatch.api.core_v1.persistent_volume import PersistentVolume, PersistentVolumeStatus
from kbatch.api.pv_helpers import ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, claim_reference, has_annotation
from kbatch.runtime.context import ControllerContext

__all__ = ["bind", "claim_reference", "set_claim_status", "set_claim_status_with_event", "set_volume_phase",
           "set_volume_phase_with_event", "unbind_volume"]


def _annotate(obj: Any, key: str) -> None:
    obj.metadata.annotations = {**(obj.metadata.annotations or {}), key: "yes"}


def bind_volume_to_claim(ctx: ControllerContext, volume: PersistentVolume,
                         claim: PersistentVolumeClaim) -> PersistentVolume:
    """``bindVolumeToClaim``: ``GetBindVolumeToClaim``'s volume, written when it changed."""
    clone, dirty = pv_helpers.bind_volume_to_claim(volume, claim)
    return ctx.client.update(clone) if dirty else volume


def bind_claim_to_volume(ctx: ControllerContext, claim: PersistentVolumeClaim,
                         volume: PersistentVolume) -> PersistentVolumeClaim:
    """``bindClaimToVolume``: ``volumeName``; ``bound-by-controller`` if the controller chose the
    volume; ``bind-completed`` always."""
    clone = claim.model_copy(deep=True)
    dirty = False
    if claim.spec.volume_name != volume.metadata.name:
        clone.spec.volume_name = volume.metadata.name
        if not has_annotation(clone, ANN_BOUND_BY_CONTROLLER):
            _annotate(clone, ANN_BOUND_BY_CONTROLLER)
        dirty = True
    if not has_annotation(clone, ANN_BIND_COMPLETED):
        _annotate(clone, ANN_BIND_COMPLETED)
        dirty = True
    return ctx.client.update(clone) if dirty else claim


def set_volume_phase(ctx: ControllerContext, volume: PersistentVolume, phase: str,
                     message: str = "") -> PersistentVolume:
    """``updateVolumePhase``: phase and message, when the phase differs."""
    if volume.status is not None and volume.status.phase == phase:
        return volume
    clone = volume.model_copy(deep=True)
    clone.status = PersistentVolumeStatus(phase=phase, message=message or None,
                                          last_phase_transition_time=ctx.clock.now_datetime())
    return ctx.client.update_status(clone)


def set_volume_phase_with_event(ctx: ControllerContext, volume: PersistentVolume, phase: str,
                                type_: str, reason: str, message: str) -> PersistentVolume:
    """``updateVolumePhaseWithEvent``: the event only when the phase changes."""
    if volume.status is not None and volume.status.phase == phase:
        return volume
    stored = set_volume_phase(ctx, volume, phase, message)
    ctx.recorder.event(stored, type_, reason, message)
    return stored


def _claim_status(claim: PersistentVolumeClaim, phase: str,
                  volume: PersistentVolume | None) -> PersistentVolumeClaimStatus:
    old = claim.status or PersistentVolumeClaimStatus()
    status = old.model_copy(deep=True, update={"phase": phase})
    if volume is None:
        status.access_modes, status.capacity = None, None
        return status
    status.access_modes = list(volume.spec.access_modes or ()) or None
    status.current_volume_attributes_class_name = volume.spec.volume_attributes_class_name
    if old.phase != phase:  # capacity only when becoming Bound (a resize may differ on purpose)
        want = (volume.spec.capacity or {}).get("storage")
        have = (old.capacity or {}).get("storage")
        if have is None or want is None or want.cmp(have) != 0:
            status.capacity = dict(volume.spec.capacity or {})
    return status


def set_claim_status(ctx: ControllerContext, claim: PersistentVolumeClaim, phase: str,
                     volume: PersistentVolume | None) -> PersistentVolumeClaim:
    """``updateClaimStatus``: phase, and access modes and capacity from the volume (cleared
    without one)."""
    status = _claim_status(claim, phase, volume)
    if status == (claim.status or PersistentVolumeClaimStatus()):
        return claim
    clone = claim.model_copy(deep=True)
    clone.status = status
    return ctx.client.update_status(clone)


def set_claim_status_with_event(ctx: ControllerContext, claim: PersistentVolumeClaim, phase: str,
                                type_: str, reason: str, message: str) -> PersistentVolumeClaim:
    """``updateClaimStatusWithEvent`` (no volume): the event only when the phase changes."""
    if claim.status is not None and claim.status.phase == phase:
        return claim
    stored = set_claim_status(ctx, claim, phase, None)
    ctx.recorder.event(stored, type_, reason, message)
    return stored


def bind(ctx: ControllerContext, volume: PersistentVolume, claim: PersistentVolumeClaim) -> None:
    """``bind``: the volume first (claimRef, then phase Bound), then the claim (volumeName and
    annotations, then status Bound with the volume's access modes and capacity)."""
    volume = bind_volume_to_claim(ctx, volume, claim)
    volume = set_volume_phase(ctx, volume, "Bound")
    claim = bind_claim_to_volume(ctx, claim, volume)
    set_claim_status(ctx, claim, "Bound", volume)


def unbind_volume(ctx: ControllerContext, volume: PersistentVolume) -> None:
    """``unbindVolume``: a controller-made binding is dropped (claimRef and annotation); a user's
    pre-binding keeps its claimRef without the uid. Then phase Available."""
    clone = volume.model_copy(deep=True)
    if has_annotation(volume, ANN_BOUND_BY_CONTROLLER):
        clone.spec.claim_ref = None
        rest = {k: v for k, v in (clone.metadata.annotations or {}).items() if k != ANN_BOUND_BY_CONTROLLER}
        clone.metadata.annotations = rest or None
    elif clone.spec.claim_ref is not None:
        clone.spec.claim_ref.uid = ""
    set_volume_phase(ctx, ctx.client.update(clone), "Available")
