"""What the persistentvolume-binder does with a Released volume: its reclaim policy.

Upstream ``pkg/controller/volume/persistentvolume/pv_controller.go`` (``reclaimVolume``,
``deleteVolumeOperation``, ``isVolumeReleased``, ``findDeletablePlugin``, ``recycleVolumeOperation``),
with ``HonorPVReclaimPolicy`` GA (1.33):

* ``Retain``: nothing; the volume stays Released with its claimRef.
* ``Delete``: a volume another provisioner made (``pv.kubernetes.io/provisioned-by`` not a
  ``kubernetes.io/`` plugin) or a CSI volume is left to its external deleter — for
  ``kbatch.io/simulated`` that is ``provisioner.py``, which deletes the PersistentVolume. kbatch has
  no in-tree deleter plugins, so any other volume goes ``Failed`` with ``VolumeFailedDelete``
  (upstream's hostPath plugin deletes ``/tmp/...`` paths; kbatch does not).
* ``Recycle``: kbatch has no recycler (upstream runs a recycler pod for hostPath and NFS): the volume
  goes ``Failed`` with ``VolumeFailedRecycle``.
"""

from __future__ import annotations

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.pv_helpers import ANN_DYNAMICALLY_PROVISIONED
from kbatch.controllers.storage.binder_writes import set_volume_phase_with_event
from kbatch.runtime.context import ControllerContext

__all__ = ["external_deleter", "reclaim_volume"]


def external_deleter(volume: PersistentVolume) -> bool:
    """``findDeletablePlugin`` returning no plugin: someone outside the binder deletes it."""
    provisioner = (volume.metadata.annotations or {}).get(ANN_DYNAMICALLY_PROVISIONED, "")
    if provisioner:
        return not provisioner.startswith("kubernetes.io/")
    return volume.spec.csi is not None


def reclaim_volume(ctx: ControllerContext, volume: PersistentVolume) -> None:
    policy = volume.spec.persistent_volume_reclaim_policy
    if policy == "Retain":
        return
    if policy == "Delete":
        if not external_deleter(volume):
            message = (f'error getting deleter volume plugin for volume "{volume.metadata.name}": '
                       "no volume plugin matched")
            set_volume_phase_with_event(ctx, volume, "Failed", "Warning", "VolumeFailedDelete", message)
        return
    if policy == "Recycle":
        set_volume_phase_with_event(ctx, volume, "Failed", "Warning", "VolumeFailedRecycle",
                                    "No recycler plugin found for the volume!")
        return
    set_volume_phase_with_event(ctx, volume, "Failed", "Warning", "VolumeUnknownReclaimPolicy",
                                "Volume has unrecognized PersistentVolumeReclaimPolicy")
