"""The objects a pod or a persistent volume refers to, read from their wire dicts: what the Node
authorizer's graph links to a node (k8s.io/kubernetes ``pkg/api/v1/pod/util.go``
``VisitPodSecretNames``/``VisitPodConfigmapNames``, ``pkg/api/v1/persistentvolume/util.go``
``VisitPVSecretNames``, k8s.io/component-helpers ``storage/ephemeral`` ``VolumeClaimName``,
k8s.io/dynamic-resource-allocation ``resourceclaim.Name``).

Wire dicts rather than models, so that every volume source upstream visits is read (azureFile, cephfs,
cinder, flexVolume, rbd, scaleIO, iscsi, storageos, csi), including those kbatch's models leave out.
Every function is pure; names are returned sorted and without duplicates or empty names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["claim_names", "configmap_names", "pv_secret_refs", "pvc_names", "secret_names"]

Obj = Mapping[str, Any]

# volume source -> the field holding the secret's name: ``secretRef.name``, or a plain name
_POD_VOLUME_SECRETS = (("azureFile", "secretName"), ("cephfs", "secretRef"), ("cinder", "secretRef"),
                       ("flexVolume", "secretRef"), ("rbd", "secretRef"), ("secret", "secretName"),
                       ("scaleIO", "secretRef"), ("iscsi", "secretRef"), ("storageos", "secretRef"),
                       ("csi", "nodePublishSecretRef"))
# PV source -> its secret references and whether the kubelet reads each (``kubeletVisible``)
_PV_SECRETS: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = (
    ("azureFile", (("secretName", True),)), ("cephfs", (("secretRef", True),)),
    ("cinder", (("secretRef", True),)), ("flexVolume", (("secretRef", True),)),
    ("rbd", (("secretRef", True),)), ("scaleIO", (("secretRef", True),)),
    ("iscsi", (("secretRef", True),)), ("storageos", (("secretRef", True),)),
    ("csi", (("controllerPublishSecretRef", False), ("nodePublishSecretRef", True),
             ("controllerExpandSecretRef", False), ("nodeStageSecretRef", True),
             ("nodeExpandSecretRef", True))),
)


def _spec(pod: Obj) -> Obj:
    return pod.get("spec") or {}


def _containers(pod: Obj) -> Iterator[Obj]:
    spec = _spec(pod)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        yield from spec.get(key) or ()


def _ref_name(value: Any) -> str:
    if isinstance(value, Mapping):
        return str(value.get("name") or "")
    return str(value or "")


def _env_names(pod: Obj, from_key: str, ref_key: str) -> Iterator[str]:
    for container in _containers(pod):
        for source in container.get("envFrom") or ():
            yield _ref_name(source.get(from_key))
        for env in container.get("env") or ():
            yield _ref_name((env.get("valueFrom") or {}).get(ref_key))


def _projected(pod: Obj, key: str) -> Iterator[str]:
    for volume in _spec(pod).get("volumes") or ():
        for source in (volume.get("projected") or {}).get("sources") or ():
            yield _ref_name(source.get(key))


def _names(values: Iterator[str]) -> list[str]:
    return sorted({v for v in values if v})


def secret_names(pod: Obj) -> list[str]:
    """``VisitPodSecretNames``: image pull secrets, every container's ``envFrom``/``env`` secret
    references, and the secrets of its volumes (projected ones included)."""

    def visit() -> Iterator[str]:
        for ref in _spec(pod).get("imagePullSecrets") or ():
            yield _ref_name(ref)
        yield from _env_names(pod, "secretRef", "secretKeyRef")
        yield from _projected(pod, "secret")
        for volume in _spec(pod).get("volumes") or ():
            for source, field in _POD_VOLUME_SECRETS:
                if volume.get(source):
                    yield _ref_name(volume[source].get(field))

    return _names(visit())


def configmap_names(pod: Obj) -> list[str]:
    """``VisitPodConfigmapNames``: every container's ``envFrom``/``env`` config map references, and the
    config maps of its volumes (projected ones included)."""

    def visit() -> Iterator[str]:
        yield from _env_names(pod, "configMapRef", "configMapKeyRef")
        yield from _projected(pod, "configMap")
        for volume in _spec(pod).get("volumes") or ():
            yield _ref_name(volume.get("configMap"))

    return _names(visit())


def pvc_names(pod: Obj) -> list[str]:
    """The claims of the pod's volumes: ``persistentVolumeClaim.claimName``, and ``<pod>-<volume>`` for a
    generic ephemeral volume (``ephemeral.VolumeClaimName``)."""
    pod_name = (pod.get("metadata") or {}).get("name") or ""

    def visit() -> Iterator[str]:
        for volume in _spec(pod).get("volumes") or ():
            if volume.get("persistentVolumeClaim"):
                yield str(volume["persistentVolumeClaim"].get("claimName") or "")
            elif volume.get("ephemeral") is not None:
                yield f"{pod_name}-{volume.get('name') or ''}"

    return _names(visit())


def claim_names(pod: Obj) -> list[str]:
    """The ResourceClaims the pod uses: each ``spec.resourceClaims`` entry's ``resourceClaimName``, or
    for a template the name ``status.resourceClaimStatuses`` records for the entry (an entry not
    recorded yet, or recorded without a name, has none: ``resourceclaim.Name``), and
    ``status.extendedResourceClaimStatus.resourceClaimName`` (DRAExtendedResource)."""
    status = pod.get("status") or {}
    recorded = {s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or ()}

    def visit() -> Iterator[str]:
        for entry in _spec(pod).get("resourceClaims") or ():
            if entry.get("resourceClaimName"):
                yield str(entry["resourceClaimName"])
            elif entry.get("resourceClaimTemplateName"):
                yield str(recorded.get(entry.get("name")) or "")
        yield str((status.get("extendedResourceClaimStatus") or {}).get("resourceClaimName") or "")

    return _names(visit())


def pv_secret_refs(pv: Obj) -> list[tuple[str, str]]:
    """``VisitPVSecretNames`` limited to the references the kubelet reads: ``(namespace, name)``, the
    namespace the reference's own, else the bound claim's."""
    spec = pv.get("spec") or {}
    claim_namespace = str((spec.get("claimRef") or {}).get("namespace") or "")
    out: set[tuple[str, str]] = set()
    for source, fields in _PV_SECRETS:
        volume = spec.get(source)
        if not volume:
            continue
        for field, kubelet_visible in fields:
            ref = volume.get(field)
            name = _ref_name(ref)
            if not kubelet_visible or not name:
                continue
            own = ref.get("namespace") if isinstance(ref, Mapping) else volume.get("secretNamespace")
            out.add((str(own or claim_namespace), name))
    return sorted(out)
