"""The ``persistentvolume-binder`` controller (kube-controller-manager's
persistentvolume-binder-controller; upstream ``pkg/controller/volume/persistentvolume/pv_controller.go``
``syncClaim`` / ``syncUnboundClaim`` / ``syncBoundClaim`` / ``syncVolume``, read at master 1.37).

One queue carries both kinds: a request with a namespace is a claim, one without is a volume
(PersistentVolume is cluster-scoped). A claim without ``pv.kubernetes.io/bind-completed`` is bound
to the best matching volume (``volume_match``, over the shared :mod:`kbatch.api.pv_helpers`), or —
with a class — handed to its provisioner
(``ExternalProvisioning``; kbatch ships ``kbatch.io/simulated``, ``provisioner.py``), or waits for
its first consumer (WaitForFirstConsumer classes until the scheduler sets
``volume.kubernetes.io/selected-node``). A bound claim whose volume is gone is ``Lost``. A volume
whose claim is gone is ``Released`` and reclaimed by its policy (``reclaim.py``).

Resync: upstream re-syncs every claim and volume every 15 s (``--pvclaimbinder-sync-period``), which
is how a claim that found nothing binds to a volume created later. kbatch re-queues a claim it left
Pending after the same 15 s of virtual time (and reacts to claim and volume events at once); bound
claims and volumes are synced on their events only. Not modelled: CSI migration annotations,
in-tree provisioner, deleter and recycler plugins.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import NotFound
from kbatch.api.pv_helpers import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    BETA_CLASS_ANNOTATION,
    claim_class,
    has_annotation,
    is_delay_binding_mode,
    is_volume_bound_to_claim,
    volume_mode_mismatch,
)
from kbatch.api.storage_v1 import StorageClass, default_class
from kbatch.controllers.storage import binder_writes as writes
from kbatch.controllers.storage.protection import BY_CLAIM, claims_of_pod
from kbatch.controllers.storage.reclaim import reclaim_volume
from kbatch.controllers.storage.volume_match import best_match_for_claim, volume_satisfies_claim
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["PersistentVolumeBinder", "setup"]

WAIT_FOR_CONSUMER = "waiting for first consumer to be created before binding"
RESYNC_SECONDS = 15.0  # kube-controller-manager --pvclaimbinder-sync-period default
NO_CLASS = "no persistent volumes available for this claim and no storage class is set"


def _terminated(pod: Any) -> bool:
    """``IsPodTerminated``: Succeeded or Failed."""
    return pod.status is not None and pod.status.phase in ("Succeeded", "Failed")


class PersistentVolumeBinder:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> Result | None:
        if request.namespace:
            claim = self._get(PersistentVolumeClaim, request.name, request.namespace)
            if claim is not None and self.sync_claim(claim):
                return Result(requeue_after=RESYNC_SECONDS)
        else:
            volume = self._get(PersistentVolume, request.name, None)
            if volume is not None:
                self.sync_volume(volume)
        return None

    def _get(self, kind: type[Any], name: str, namespace: str | None) -> Any:
        try:
            return self.ctx.cache.get(kind, name, namespace)
        except NotFound:
            return None

    # --- claims -------------------------------------------------------------------------------

    def sync_claim(self, claim: PersistentVolumeClaim) -> bool:
        """``syncClaim``; True when the claim is left unbound (to be re-synced)."""
        if has_annotation(claim, ANN_BIND_COMPLETED):
            self.sync_bound_claim(claim)
            return False
        if claim.spec.volume_name:
            return self.sync_requested_volume(claim)
        return self.sync_unbound_claim(claim)

    def _delay_binding(self, claim: PersistentVolumeClaim) -> bool:
        """``IsDelayBindingMode`` over the informer's classes."""
        return is_delay_binding_mode(claim, lambda name: self._get(StorageClass, name, None))

    def sync_unbound_claim(self, claim: PersistentVolumeClaim) -> bool:
        """``syncUnboundClaim`` for a claim that names no volume."""
        delay = self._delay_binding(claim)
        volume = best_match_for_claim(claim, self.ctx.cache.list(PersistentVolume), delay)
        if volume is not None:
            writes.bind(self.ctx, volume, claim)
            return False
        if self._assign_default_class(claim):
            return False  # the update re-queues the claim
        if delay and ANN_SELECTED_NODE not in (claim.metadata.annotations or {}):
            self._wait_for_consumer(claim)
        elif claim_class(claim):
            self._provision(claim)
            return True
        else:
            self.ctx.recorder.event(claim, "Normal", "FailedBinding", NO_CLASS)
        writes.set_claim_status(self.ctx, claim, "Pending", None)
        return True

    def _assign_default_class(self, claim: PersistentVolumeClaim) -> bool:
        """``assignDefaultStorageClass`` (RetroactiveDefaultStorageClass, GA in 1.28): a claim with
        no class at all gets today's default one."""
        annotations = claim.metadata.annotations or {}
        if claim.spec.storage_class_name is not None or BETA_CLASS_ANNOTATION in annotations:
            return False
        chosen = default_class(self.ctx.cache.list(StorageClass))
        if chosen is None:
            return False
        clone = claim.model_copy(deep=True)
        clone.spec.storage_class_name = chosen.metadata.name
        self.ctx.client.update(clone)
        return True

    def _wait_for_consumer(self, claim: PersistentVolumeClaim) -> None:
        """``emitEventForUnboundDelayBindingClaim``: name the unscheduled pods that use the claim."""
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        pods = sorted(p.metadata.name or "" for p in self.ctx.cache.list(Pod, index=(BY_CLAIM, key))
                      if not p.spec.node_name and not _terminated(p))
        if not pods:
            reason, message = "WaitForFirstConsumer", WAIT_FOR_CONSUMER
        elif len(pods) == 1:
            reason, message = "WaitForPodScheduled", f"waiting for pod {pods[0]} to be scheduled"
        else:
            reason, message = "WaitForPodScheduled", f"waiting for pods {','.join(pods)} to be scheduled"
        self.ctx.recorder.event(claim, "Normal", reason, message)

    def _provision(self, claim: PersistentVolumeClaim) -> None:
        """``provisionClaim`` → ``findProvisionablePlugin`` → ``provisionClaimOperationExternal``.
        kbatch has no in-tree provisioner plugins: a ``kubernetes.io/`` provisioner fails as
        upstream does for one it lacks; any other name is an external provisioner."""
        name = claim_class(claim)
        sc = self._get(StorageClass, name, None)
        if sc is None:
            message = f'storageclass.storage.k8s.io "{name}" not found'
            self.ctx.recorder.event(claim, "Warning", "ProvisioningFailed", message)
            return
        if sc.provisioner.startswith("kubernetes.io/"):
            message = f"no volume plugin matched name: {sc.provisioner}"
            self.ctx.recorder.event(claim, "Warning", "ProvisioningFailed", message)
            return
        claim = self._set_provisioner(claim, sc.provisioner)
        self.ctx.recorder.event(claim, "Normal", "ExternalProvisioning", (
            f"Waiting for a volume to be created either by the external provisioner '{sc.provisioner}' or "
            "manually by the system administrator. If volume creation is delayed, please verify that the "
            "provisioner is running and correctly registered."))

    def _set_provisioner(self, claim: PersistentVolumeClaim, provisioner: str) -> PersistentVolumeClaim:
        """``setClaimProvisioner``: both provisioner annotations, written when missing or stale."""
        annotations = claim.metadata.annotations or {}
        wanted = {ANN_STORAGE_PROVISIONER: provisioner, ANN_BETA_STORAGE_PROVISIONER: provisioner}
        if all(annotations.get(k) == v for k, v in wanted.items()):
            return claim
        clone = claim.model_copy(deep=True)
        clone.metadata.annotations = {**annotations, **wanted}
        return self.ctx.client.update(clone)

    def sync_requested_volume(self, claim: PersistentVolumeClaim) -> bool:
        """``syncUnboundClaim`` for a claim pre-bound by ``spec.volumeName``."""
        volume = self._get(PersistentVolume, claim.spec.volume_name or "", None)
        if volume is None:
            writes.set_claim_status(self.ctx, claim, "Pending", None)
        elif volume.spec.claim_ref is None:
            why = volume_satisfies_claim(volume, claim)
            if why is None:
                writes.bind(self.ctx, volume, claim)
                return False
            message = f'Cannot bind to requested volume "{volume.metadata.name}": {why}'
            self.ctx.recorder.event(claim, "Warning", "VolumeMismatch", message)
            writes.set_claim_status(self.ctx, claim, "Pending", None)
        elif is_volume_bound_to_claim(volume, claim):
            writes.bind(self.ctx, volume, claim)
            return False
        else:
            message = f'volume "{volume.metadata.name}" already bound to a different claim.'
            self.ctx.recorder.event(claim, "Warning", "FailedBinding", message)
            if not has_annotation(claim, ANN_BOUND_BY_CONTROLLER):
                writes.set_claim_status(self.ctx, claim, "Pending", None)
        return True

    def sync_bound_claim(self, claim: PersistentVolumeClaim) -> None:
        """``syncBoundClaim``: re-assert the binding, or mark the claim Lost."""
        if not claim.spec.volume_name:
            writes.set_claim_status_with_event(self.ctx, claim, "Lost", "Warning", "ClaimLost", (
                "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!"))
            return
        volume = self._get(PersistentVolume, claim.spec.volume_name, None)
        if volume is None:
            writes.set_claim_status_with_event(self.ctx, claim, "Lost", "Warning", "ClaimLost", (
                "Bound claim has lost its PersistentVolume. Data on the volume is lost!"))
        elif volume.spec.claim_ref is None or volume.spec.claim_ref.uid == claim.metadata.uid:
            writes.bind(self.ctx, volume, claim)
        else:
            writes.set_claim_status_with_event(self.ctx, claim, "Lost", "Warning", "ClaimMisbound", (
                "Two claims are bound to the same volume, this one is bound incorrectly"))

    # --- volumes ------------------------------------------------------------------------------

    def sync_volume(self, volume: PersistentVolume) -> None:
        """``syncVolume``."""
        ref = volume.spec.claim_ref
        if ref is None or not ref.uid:  # unused, or pre-bound and waiting for its claim's sync
            writes.set_volume_phase(self.ctx, volume, "Available")
            return
        claim = self._get(PersistentVolumeClaim, ref.name or "", ref.namespace or "")
        if claim is not None and claim.metadata.uid != ref.uid:
            claim = None  # deleted, and another claim of that name created
        if claim is None:
            self._release(volume)
        elif not claim.spec.volume_name:
            if volume_mode_mismatch(claim, volume):
                self._volume_mode_mismatch(volume, claim)
            # otherwise the claim's sync (queued by the volume event) completes the binding
        elif claim.spec.volume_name == volume.metadata.name:
            writes.set_volume_phase(self.ctx, volume, "Bound")
        elif (has_annotation(volume, ANN_DYNAMICALLY_PROVISIONED)
              and volume.spec.persistent_volume_reclaim_policy == "Delete"):
            self._release(volume)  # provisioned for a claim that bound elsewhere
        else:
            writes.unbind_volume(self.ctx, volume)

    def _release(self, volume: PersistentVolume) -> None:
        """Released (unless already Released or Failed), then the reclaim policy."""
        phase = volume.status.phase if volume.status is not None else None
        if phase not in ("Released", "Failed"):
            volume = writes.set_volume_phase(self.ctx, volume, "Released")
        reclaim_volume(self.ctx, volume)

    def _volume_mode_mismatch(self, volume: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        self.ctx.recorder.event(volume, "Warning", "VolumeMismatch", (
            f'Cannot bind PersistentVolume to requested PersistentVolumeClaim "{claim.metadata.name}" '
            "due to incompatible volumeMode."))
        self.ctx.recorder.event(claim, "Warning", "VolumeMismatch", (
            f'Cannot bind PersistentVolume "{volume.metadata.name}" to requested PersistentVolumeClaim '
            "due to incompatible volumeMode."))


def _volume_and_claim(volume: Any) -> list[Request]:
    """A volume event: the volume, and the claim its claimRef names (upstream's syncVolume queues
    that claim so a provisioned or pre-bound volume binds promptly)."""
    requests = [Request("", volume.metadata.name)]
    ref = volume.spec.claim_ref
    if ref is not None and ref.name:
        requests.append(Request(ref.namespace or "", ref.name))
    return requests


def _claim_and_volume(claim: Any) -> list[Request]:
    """A claim event: the claim, and the volume it names (a deleted claim releases its volume)."""
    requests = [Request(claim.metadata.namespace, claim.metadata.name)]
    if claim.spec.volume_name:
        requests.append(Request("", claim.spec.volume_name))
    return requests


def setup(ctx: ControllerContext) -> PersistentVolumeBinder:
    ctx.cache.add_index(Pod, BY_CLAIM, claims_of_pod)
    controller = PersistentVolumeBinder(ctx)
    (ctx.build().describe("binds PersistentVolumeClaims to PersistentVolumes; releases and reclaims volumes")
     .watches(PersistentVolume, _volume_and_claim).watches(PersistentVolumeClaim, _claim_and_volume)
     .complete(controller))
    return controller
