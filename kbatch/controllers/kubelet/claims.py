"""Whether a pod's PersistentVolumeClaims let its volumes be set up: pure functions.

Upstream (semantics only), Kubernetes 1.37: the kubelet's volume manager
(``pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go``, ``getPVCExtractPV``)
reads each claim a pod's ``persistentVolumeClaim`` or generic ``ephemeral`` volume names (the latter
``<pod>-<volume>``, ``ephemeral.VolumeClaimName``) and refuses it while it is missing (``failed to
fetch PVC from API server: persistentvolumeclaims "x" not found``), being deleted (``can't start pod
because PVC ns/x is being deleted``) or not bound (``PVC ns/x has non-bound phase ("Pending") or
empty pvc.Spec.VolumeName ("")``); the pod's containers do not start until every volume is mounted,
and the populator tries again. A :data:`~.references.Lookup` answers ``("PersistentVolumeClaim",
namespace, name)`` from the informer cache.
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.kubelet.references import Lookup

__all__ = ["CLAIM", "claim_errors", "has_claims"]

CLAIM = "PersistentVolumeClaim"


def _claims(pod: Any) -> list[tuple[str, str]]:
    """``(volume, claim)`` for each volume backed by a claim, in the pod's volume order."""
    out = []
    for volume in pod.spec.volumes or ():
        if volume.persistent_volume_claim is not None:
            out.append((volume.name, volume.persistent_volume_claim.claim_name or ""))
        elif volume.ephemeral is not None:
            out.append((volume.name, f"{pod.metadata.name}-{volume.name}"))
    return out


def has_claims(pod: Any) -> bool:
    volumes = pod.spec.volumes
    return bool(volumes) and any(v.persistent_volume_claim is not None or v.ephemeral is not None
                                 for v in volumes)


def _claim_error(namespace: str, name: str, lookup: Lookup) -> str | None:
    claim = lookup(CLAIM, namespace, name)
    if claim is None:
        return f'failed to fetch PVC from API server: persistentvolumeclaims "{name}" not found'
    if claim.metadata.deletion_timestamp is not None:
        return f"can't start pod because PVC {namespace}/{name} is being deleted"
    phase = claim.status.phase if claim.status is not None else None
    if phase != "Bound" or not claim.spec.volume_name:
        return (f'PVC {namespace}/{name} has non-bound phase ("{phase or ""}") or empty '
                f'pvc.Spec.VolumeName ("{claim.spec.volume_name or ""}")')
    return None


def claim_errors(pod: Any, lookup: Lookup) -> list[tuple[str, str]]:
    """``(volume, message)`` for each volume whose claim is not usable yet, in volume order."""
    namespace = pod.metadata.namespace or ""
    out = []
    for volume, name in _claims(pod):
        err = _claim_error(namespace, name, lookup)
        if err:
            out.append((volume, err))
    return out
