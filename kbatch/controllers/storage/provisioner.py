"""``kbatch.io/simulated``: the dynamic provisioner kbatch ships (controller ``simulated-provisioner``).

It behaves as an external provisioner built on ``sig-storage-lib-external-provisioner`` does
(``controller/controller.go``: ``shouldProvision``, ``provisionClaimOperation``, ``shouldDelete``,
``deleteVolumeOperation``), with nothing behind the volumes:

* **Provision** a claim that names no volume, whose ``volume.kubernetes.io/storage-provisioner``
  (or the beta annotation) is ``kbatch.io/simulated`` — the binder sets it — whose class names this
  provisioner and, for a WaitForFirstConsumer class, that carries
  ``volume.kubernetes.io/selected-node``. Events ``Provisioning`` then ``ProvisioningSucceeded``.
  The PersistentVolume is ``pvc-<claim uid>``: the claim's request as capacity, its access modes
  and volume mode, the class's reclaim policy and mount options, ``claimRef`` to the claim,
  ``pv.kubernetes.io/provisioned-by: kbatch.io/simulated`` and a ``csi`` source (driver
  ``simulated.kbatch.io``, as a CSI driver name may hold no ``/``; handle the volume's name).
  With a selected node the volume is local to it, as a topology-constrained provisioner
  (local-path, a zonal disk on a one-node zone) makes it: ``nodeAffinity`` requires
  ``kubernetes.io/hostname`` to be that node's hostname label.
  The binder then binds the claim to it.
* **Delete** a volume it provisioned once it is ``Released`` with reclaim policy ``Delete``.

Decisions are pure (:func:`should_provision`, :func:`provisioned_volume`); the controller writes.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.core_v1 import Node, PersistentVolumeClaim
from kbatch.api.core_v1.affinity import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kbatch.api.core_v1.persistent_volume import (
    CSIPersistentVolumeSource,
    PersistentVolume,
    PersistentVolumeSpec,
    VolumeNodeAffinity,
)
from kbatch.api.errors import AlreadyExists, NotFound
from kbatch.api.meta import ObjectMeta
from kbatch.api.pv_helpers import (
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    claim_class,
    claim_reference,
)
from kbatch.api.storage_v1 import SIMULATED_PROVISIONER, StorageClass
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["PROVISIONER", "SimulatedProvisioner", "provisioned_volume", "setup", "should_provision"]

PROVISIONER = SIMULATED_PROVISIONER
CSI_DRIVER = "simulated.kbatch.io"  # a CSI driver name is a DNS subdomain: no "/"
HOSTNAME = "kubernetes.io/hostname"


def should_provision(claim: PersistentVolumeClaim, sc: StorageClass | None) -> bool:
    """``shouldProvision``: unbound, asked of this provisioner, of a class it serves, and — when
    the class waits for a consumer — with a node chosen by the scheduler."""
    annotations = claim.metadata.annotations or {}
    if claim.spec.volume_name or claim.metadata.deletion_timestamp is not None:
        return False
    asked = annotations.get(ANN_STORAGE_PROVISIONER) or annotations.get(ANN_BETA_STORAGE_PROVISIONER)
    if asked != PROVISIONER or sc is None or sc.provisioner != PROVISIONER:
        return False
    return sc.volume_binding_mode != "WaitForFirstConsumer" or bool(annotations.get(ANN_SELECTED_NODE))


def volume_name(claim: PersistentVolumeClaim) -> str:
    return f"pvc-{claim.metadata.uid}"


def _node_affinity(node: Node | None) -> VolumeNodeAffinity | None:
    if node is None:
        return None
    hostname = (node.metadata.labels or {}).get(HOSTNAME, node.metadata.name)
    requirement = NodeSelectorRequirement(key=HOSTNAME, operator="In", values=[hostname])
    return VolumeNodeAffinity(required=NodeSelector(node_selector_terms=[
        NodeSelectorTerm(match_expressions=[requirement])]))


def provisioned_volume(claim: PersistentVolumeClaim, sc: StorageClass, node: Node | None) -> PersistentVolume:
    """The PersistentVolume the provisioner creates for ``claim`` (``node``: the selected one)."""
    name = volume_name(claim)
    requests = (claim.spec.resources.requests if claim.spec.resources else None) or {}
    return PersistentVolume(
        metadata=ObjectMeta(name=name, annotations={ANN_DYNAMICALLY_PROVISIONED: PROVISIONER}),
        spec=PersistentVolumeSpec(
            capacity={"storage": requests["storage"]},
            access_modes=list(claim.spec.access_modes or ()),
            claim_ref=claim_reference(claim),
            persistent_volume_reclaim_policy=sc.reclaim_policy or "Delete",
            storage_class_name=claim_class(claim),
            mount_options=list(sc.mount_options) if sc.mount_options else None,
            volume_mode=claim.spec.volume_mode,
            csi=CSIPersistentVolumeSource(driver=CSI_DRIVER, volume_handle=name),
            node_affinity=_node_affinity(node),
        ),
    )


def should_delete(volume: PersistentVolume) -> bool:
    """``shouldDelete``: a volume this provisioner made, Released, with policy Delete."""
    provisioner = (volume.metadata.annotations or {}).get(ANN_DYNAMICALLY_PROVISIONED)
    phase = volume.status.phase if volume.status is not None else None
    return (provisioner == PROVISIONER and phase == "Released"
            and volume.spec.persistent_volume_reclaim_policy == "Delete"
            and volume.metadata.deletion_timestamp is None)


class SimulatedProvisioner:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def _get(self, kind: type[Any], name: str, namespace: str | None) -> Any:
        try:
            return self.ctx.cache.get(kind, name, namespace)
        except NotFound:
            return None

    def reconcile(self, request: Request) -> None:
        if not request.namespace:
            volume = self._get(PersistentVolume, request.name, None)
            if volume is not None and should_delete(volume):
                with contextlib.suppress(NotFound):
                    self.ctx.client.delete(PersistentVolume, request.name)
            return
        claim = self._get(PersistentVolumeClaim, request.name, request.namespace)
        if claim is None:
            return
        sc = self._get(StorageClass, claim_class(claim), None)
        if should_provision(claim, sc) and self._get(PersistentVolume, volume_name(claim), None) is None:
            self.provision(claim, sc)

    def provision(self, claim: PersistentVolumeClaim, sc: StorageClass) -> None:
        key = f"{claim.metadata.namespace}/{claim.metadata.name}"
        self.ctx.recorder.event(claim, "Normal", "Provisioning",
                                f'External provisioner is provisioning volume for claim "{key}"')
        node = None
        selected = (claim.metadata.annotations or {}).get(ANN_SELECTED_NODE)
        if selected:
            node = self._get(Node, selected, None)
            if node is None:
                self.ctx.recorder.event(claim, "Warning", "ProvisioningFailed",
                                        f'failed to get target node: node "{selected}" not found')
                return
        try:
            self.ctx.client.create(provisioned_volume(claim, sc, node))
        except AlreadyExists:
            return
        self.ctx.recorder.event(claim, "Normal", "ProvisioningSucceeded",
                                f"Successfully provisioned volume {volume_name(claim)}")


def _claim(claim: Any) -> list[Request]:
    return [Request(claim.metadata.namespace, claim.metadata.name)]


def _volume(volume: Any) -> list[Request]:
    return [Request("", volume.metadata.name)]


def setup(ctx: ControllerContext) -> SimulatedProvisioner:
    controller = SimulatedProvisioner(ctx)
    (ctx.build().describe(f"provisions and deletes {PROVISIONER} volumes (an external provisioner)")
     .watches(PersistentVolumeClaim, _claim).watches(PersistentVolume, _volume).complete(controller))
    return controller
