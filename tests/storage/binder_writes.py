"""Test helper: bind a claim to a volume by writing the objects as upstream's persistentvolume-binder
does (``pkg/controller/volume/persistentvolume/pv_controller.go`` ``bind``: the volume's
``claimRef`` and phase ``Bound``, the claim's ``volumeName``, its ``pv.kubernetes.io/bind-completed``
annotation and phase ``Bound``). kbatch's binder is another stage; the scheduler and the kubelet only
read these fields."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.core_v1.persistent_volume import PersistentVolume

__all__ = ["bind_claim", "volume"]


def volume(name: str, size: str = "1Gi", cls: str = "", node: str | None = None,
           claim: tuple[str, str] | None = None) -> dict[str, Any]:
    """A hostPath PersistentVolume manifest; ``node`` pins it by hostname, ``claim`` (namespace,
    name) pre-binds it by ``claimRef``."""
    spec: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": f"/d/{name}"}}
    if cls:
        spec["storageClassName"] = cls
    if node:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}
    if claim:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def bind_claim(cp: Any, claim: str, namespace: str, pv: str) -> None:
    client = cp.client
    pvc = client.get(PersistentVolumeClaim, claim, namespace)
    client.patch(PersistentVolume, pv, {"spec": {"claimRef": {
        "kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": namespace, "name": claim,
        "uid": pvc.metadata.uid}}})
    client.patch_status(PersistentVolume, pv, {"status": {"phase": "Bound"}})
    client.patch(PersistentVolumeClaim, claim, {"metadata": {"annotations": {
        "pv.kubernetes.io/bind-completed": "yes"}}, "spec": {"volumeName": pv}}, namespace)
    client.patch_status(PersistentVolumeClaim, claim, {"status": {"phase": "Bound"}}, namespace)
