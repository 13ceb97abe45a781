"""The ``pvc-protection`` and ``pv-protection`` controllers (kube-controller-manager's
persistentvolumeclaim-protection-controller and persistentvolume-protection-controller; upstream
``pkg/controller/volume/pvcprotection``, ``pkg/controller/volume/pvprotection``).

Claims and volumes carry ``kubernetes.io/pvc-protection`` / ``kubernetes.io/pv-protection`` from
their creation (the ``StorageObjectInUseProtection`` admission plugin). Each controller:

* removes the finalizer from an object being deleted that is not in use, so the delete completes;
* adds it to an object not being deleted that lacks it (objects created with the plugin off).

A claim is in use while a *scheduled* pod (``spec.nodeName`` set) in its namespace names it in a
``persistentVolumeClaim`` volume, whatever the pod's phase — upstream's ``podUsesPVC`` — or owns it
as the claim of a generic ephemeral volume (``<pod>-<volume>``, controlled by the pod) and is not
shut down (deleted with a zero grace period). A finished pod therefore keeps its claim until the pod
object is gone. A volume is in use while its phase is ``Bound``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.errors import NotFound
from kbatch.apiserver.admission_plugins.storage_protection import (
    PV_PROTECTION_FINALIZER,
    PVC_PROTECTION_FINALIZER,
)
from kbatch.controllers.storage.protection_handlers import PodFreesClaims, ProtectionWork
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["BY_CLAIM", "claims_of_pod", "finalizers_after", "pod_uses_claim", "setup_pv", "setup_pvc"]

BY_CLAIM = "storage-pod-claims"  # pod cache index: "<namespace>/<claim name>"


def claims_of_pod(pod: Any) -> Iterable[str]:
    """Every claim a pod's volumes name (``PodPVCIndex``): persistentVolumeClaim and ephemeral."""
    ns, names = pod.metadata.namespace, []
    for volume in pod.spec.volumes or ():
        if volume.persistent_volume_claim is not None:
            names.append(f"{ns}/{volume.persistent_volume_claim.claim_name}")
        elif volume.ephemeral is not None:
            names.append(f"{ns}/{pod.metadata.name}-{volume.name}")
    return names


def _shut_down(pod: Any) -> bool:
    """``podIsShutDown``: deleted with a zero grace period (kubelet is done, or it was forced)."""
    meta = pod.metadata
    return meta.deletion_timestamp is not None and meta.deletion_grace_period_seconds == 0


def _owned_by(claim: PersistentVolumeClaim, pod: Any) -> bool:
    refs = claim.metadata.owner_references or ()
    return any(ref.controller and ref.uid == pod.metadata.uid for ref in refs)


def pod_uses_claim(pod: Any, claim: PersistentVolumeClaim) -> bool:
    """``podUsesPVC``: only scheduled pods count (kubelet refuses to start a pod whose claim is
    being deleted, so an unscheduled pod never will use it)."""
    if not pod.spec.node_name:
        return False
    for volume in pod.spec.volumes or ():
        source = volume.persistent_volume_claim
        if source is not None and source.claim_name == claim.metadata.name:
            return True
        if (volume.ephemeral is not None and not _shut_down(pod)
                and f"{pod.metadata.name}-{volume.name}" == claim.metadata.name and _owned_by(claim, pod)):
            return True
    return False


def finalizers_after(finalizers: list[str], finalizer: str, deleting: bool, in_use: bool) -> list[str] | None:
    """The decision both controllers share (``IsDeletionCandidate`` / ``NeedToAddFinalizer``): the
    new finalizer list, or ``None`` when nothing changes."""
    if deleting and finalizer in finalizers and not in_use:
        return [f for f in finalizers if f != finalizer]
    if not deleting and finalizer not in finalizers:
        return [*finalizers, finalizer]
    return None


def _write(ctx: ControllerContext, model: type[Any], obj: Any, finalizers: list[str]) -> None:
    meta = obj.metadata
    patch = {"metadata": {"finalizers": finalizers or None, "resourceVersion": meta.resource_version}}
    try:  # a Conflict propagates: the queue retries with the newer version
        ctx.client.patch(model, meta.name, patch, meta.namespace)
    except NotFound:
        return


class PVCProtection:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> None:
        try:
            claim = self.ctx.cache.get(PersistentVolumeClaim, request.name, request.namespace)
        except NotFound:
            return
        meta = claim.metadata
        deleting = meta.deletion_timestamp is not None
        in_use = deleting and any(
            pod_uses_claim(pod, claim)
            for pod in self.ctx.cache.list(Pod, index=(BY_CLAIM, f"{request.namespace}/{request.name}")))
        after = finalizers_after(list(meta.finalizers or ()), PVC_PROTECTION_FINALIZER, deleting, in_use)
        if after is not None:
            _write(self.ctx, PersistentVolumeClaim, claim, after)


class PVProtection:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> None:
        try:
            volume = self.ctx.cache.get(PersistentVolume, request.name, None)
        except NotFound:
            return
        meta = volume.metadata
        in_use = volume.status is not None and volume.status.phase == "Bound"
        after = finalizers_after(list(meta.finalizers or ()), PV_PROTECTION_FINALIZER,
                                 meta.deletion_timestamp is not None, in_use)
        if after is not None:
            _write(self.ctx, PersistentVolume, volume, after)


def _claims_of(pod: Any) -> list[Request]:
    """A pod's claims; which pod events count: :class:`.protection_handlers.PodFreesClaims`."""
    return [Request(*key.split("/", 1)) for key in claims_of_pod(pod)]


def setup_pvc(ctx: ControllerContext) -> PVCProtection:
    ctx.cache.add_index(Pod, BY_CLAIM, claims_of_pod)
    controller = PVCProtection(ctx)
    (ctx.build().describe("removes kubernetes.io/pvc-protection from deleted claims no scheduled pod uses")
     .for_(PersistentVolumeClaim, ProtectionWork(PVC_PROTECTION_FINALIZER))
     .watches(Pod, _claims_of, PodFreesClaims()).complete(controller))
    return controller


def setup_pv(ctx: ControllerContext) -> PVProtection:
    controller = PVProtection(ctx)
    (ctx.build().describe("removes kubernetes.io/pv-protection from deleted volumes that are not Bound")
     .for_(PersistentVolume, ProtectionWork(PV_PROTECTION_FINALIZER)).complete(controller))
    return controller
