"""The ``ephemeral-volume`` controller (kube-controller-manager's ephemeral-volume-controller;
upstream ``pkg/controller/volume/ephemeral/controller.go``, Kubernetes 1.37).

For each generic ephemeral volume (``volumes[].ephemeral``) of a pod that is not being deleted, the
claim ``<pod>-<volume>`` (``ephemeral.VolumeClaimName``) is created from the volume's
``volumeClaimTemplate`` (its labels, annotations and spec), controlled by the pod
(``ownerReferences`` with ``controller`` and ``blockOwnerDeletion``), so the garbage collector
deletes it with the pod. A claim of that name that the pod does not control is left alone: a
``FailedBinding`` Warning on the pod (``ephemeral volume v: PVC ns/x was not created for pod ns/p
(pod is not owner)``) and the volume stays unusable (VolumeBinding rejects the pod). A deleted
claim whose pod still exists is created again.

Events, as upstream's handlers: a pod *added* with an ephemeral volume and no deletion mark
(``enqueuePod``; pod updates are ignored, the volumes being immutable, and so are pod deletes, the
garbage collector removing the claims), and a claim *deleted* (``onPVCDelete``: the pods using it).
Other pods cost one check per add.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.errors import AlreadyExists, NotFound, StatusError
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs
from kbatch.runtime.reconcile import Request

__all__ = ["BY_EPHEMERAL_CLAIM", "EphemeralVolumes", "claim_manifest", "ephemeral_claims", "setup"]

BY_EPHEMERAL_CLAIM = "ephemeral-claims"  # pod cache index: "<namespace>/<pod>-<volume>"


def _has_ephemeral(pod: Any) -> bool:
    volumes = pod.spec.volumes
    return bool(volumes) and any(v.ephemeral is not None for v in volumes)


def ephemeral_claims(pod: Any) -> list[str]:
    """The claim keys of the pod's generic ephemeral volumes."""
    ns, name = pod.metadata.namespace, pod.metadata.name
    return [f"{ns}/{name}-{v.name}" for v in pod.spec.volumes or () if v.ephemeral is not None]


def claim_manifest(pod: Any, volume: Any) -> dict[str, Any]:
    """The claim upstream's ``handleVolume`` creates for ``volume`` of ``pod`` (pure)."""
    template = volume.ephemeral.volume_claim_template or {}
    meta = template.get("metadata") or {}
    out_meta: dict[str, Any] = {
        "name": f"{pod.metadata.name}-{volume.name}", "namespace": pod.metadata.namespace,
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name,
                             "uid": pod.metadata.uid, "controller": True, "blockOwnerDeletion": True}]}
    for key in ("labels", "annotations"):
        if meta.get(key):
            out_meta[key] = dict(meta[key])
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": out_meta,
            "spec": dict(template.get("spec") or {})}


def _controlled_by(claim: Any, pod: Any) -> bool:
    refs = claim.metadata.owner_references or ()
    return any(ref.controller and ref.uid == pod.metadata.uid for ref in refs)


class EphemeralVolumes:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self._reported: set[tuple[str, str]] = set()  # (pod uid, volume): the Warning already recorded

    def reconcile(self, request: Request) -> None:
        try:
            pod = self.ctx.cache.get(Pod, request.name, request.namespace)
        except NotFound:
            return
        if pod.metadata.deletion_timestamp is not None:
            return  # upstream: nothing to do for a pod marked for deletion
        for volume in pod.spec.volumes or ():
            if volume.ephemeral is not None and not self._handle(pod, volume):
                return  # upstream stops at the first volume that fails

    def _handle(self, pod: Any, volume: Any) -> bool:
        meta = pod.metadata
        name = f"{meta.name}-{volume.name}"
        try:
            claim = self.ctx.cache.get(PersistentVolumeClaim, name, meta.namespace)
        except NotFound:
            claim = None
        if claim is not None:
            if _controlled_by(claim, pod):
                return True
            return self._fail(pod, volume, f"PVC {meta.namespace}/{name} was not created for pod "
                                           f"{meta.namespace}/{meta.name} (pod is not owner)")
        try:
            self.ctx.client.create(PersistentVolumeClaim.model_validate(claim_manifest(pod, volume)))
        except AlreadyExists:
            return True  # the cache is behind: the claim's event brings the pod back
        except StatusError as err:
            return self._fail(pod, volume, f"create PVC {name}: {err.message}")
        return True

    def _fail(self, pod: Any, volume: Any, message: str) -> bool:
        key = (pod.metadata.uid or "", volume.name)
        if key not in self._reported:
            self._reported.add(key)
            self.ctx.recorder.event(pod, "Warning", "FailedBinding",
                                    f"ephemeral volume {volume.name}: {message}")
        return False


def _needs_claims(pod: Any) -> bool:
    """``enqueuePod``: a pod not being deleted with at least one ephemeral volume."""
    return pod.metadata.deletion_timestamp is None and _has_ephemeral(pod)


POD_ADDED = Funcs(create=_needs_claims, update=False, delete=False)
CLAIM_DELETED = Funcs(create=False, update=False, delete=True)


class _PodsOfClaim:
    """A deleted claim enqueues the pods whose ephemeral volume it is (upstream ``onPVCDelete``).
    A class, not a closure: the controller is pickled."""

    __slots__ = ("cache",)

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, claim: Any) -> list[Request]:
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        return [Request(p.metadata.namespace, p.metadata.name)
                for p in self.cache.list(Pod, index=(BY_EPHEMERAL_CLAIM, key))]


def setup(ctx: ControllerContext) -> EphemeralVolumes:
    ctx.cache.add_index(Pod, BY_EPHEMERAL_CLAIM, ephemeral_claims)
    controller = EphemeralVolumes(ctx)
    (ctx.build().describe("creates the PersistentVolumeClaims of pods' generic ephemeral volumes")
     .for_(Pod, POD_ADDED)
     .watches(PersistentVolumeClaim, _PodsOfClaim(ctx.cache), CLAIM_DELETED).complete(controller))
    return controller
