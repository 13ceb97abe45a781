"""storage.k8s.io/v1 StorageClass and CSIDriver (k8s.io/api ``storage/v1/types.go``), as of Kubernetes 1.37.

A StorageClass is a cluster-scoped class of storage: which provisioner makes its volumes, with which
parameters, reclaim policy and binding mode. Fields sit at the top level (no spec, no status). The
default class is the one annotated ``storageclass.kubernetes.io/is-default-class: "true"`` (the beta
annotation is still honoured, pkg/volume/util/storageclass.go ``IsDefaultAnnotation``).

A CSIDriver (cluster-scoped, named after the driver, a spec and no status) tells Kubernetes how to
treat a CSI driver's volumes; NodeRestriction reads its ``spec.tokenRequests`` audiences
(:mod:`kbatch.apiserver.admission_plugins.node_token_audience`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel
from kbatch.api.meta import Resource

__all__ = [
    "BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION",
    "IS_DEFAULT_STORAGE_CLASS_ANNOTATION",
    "SIMULATED_PROVISIONER",
    "VOLUME_BINDING_MODES",
    "CSIDriver",
    "CSIDriverSpec",
    "CSITokenRequest",
    "StorageClass",
    "TopologySelectorLabelRequirement",
    "TopologySelectorTerm",
    "is_default_annotation",
]

IS_DEFAULT_STORAGE_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
# the dynamic provisioner kbatch ships (kbatch/controllers/storage/provisioner.py) and the default
# class ``standard`` names (kbatch/families/storage/default_class.py)
SIMULATED_PROVISIONER = "kbatch.io/simulated"

_NEVER = datetime.min.replace(tzinfo=UTC)

# storage.VolumeBindingMode values, sorted as validation lists them.
VOLUME_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")


class TopologySelectorLabelRequirement(KubeModel):
    key: str = ""
    values: list[str] | None = None


class TopologySelectorTerm(KubeModel):
    match_label_expressions: list[TopologySelectorLabelRequirement] | None = None


class StorageClass(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="storage.k8s.io", version="v1", kind="StorageClass", plural="storageclasses",
        namespaced=False, short_names=("sc",), singular="storageclass", subresources=(),
    )

    provisioner: str = ""
    parameters: dict[str, str] | None = None
    reclaim_policy: str | None = None  # Delete | Retain (defaulted to Delete)
    mount_options: list[str] | None = None
    allow_volume_expansion: bool | None = None
    volume_binding_mode: str | None = None  # Immediate | WaitForFirstConsumer (defaulted to Immediate)
    allowed_topologies: list[TopologySelectorTerm] | None = None


class CSITokenRequest(KubeModel):
    """storage/v1 ``TokenRequest``: an audience the driver wants a service-account token for."""

    audience: str = ""
    expiration_seconds: int | None = None


class CSIDriverSpec(KubeModel):
    attach_required: bool | None = None
    pod_info_on_mount: bool | None = None
    volume_lifecycle_modes: list[str] | None = None  # Persistent | Ephemeral (+listType=set)
    storage_capacity: bool | None = None
    fs_group_policy: str | None = None  # ReadWriteOnceWithFSType | File | None
    token_requests: list[CSITokenRequest] | None = None  # +listType=atomic
    requires_republish: bool | None = None
    se_linux_mount: bool | None = None
    node_allocatable_update_period_seconds: int | None = None
    service_account_token_in_secrets: bool | None = None
    prevent_pod_scheduling_if_missing: bool | None = None


class CSIDriver(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="storage.k8s.io", version="v1", kind="CSIDriver", plural="csidrivers",
        namespaced=False, singular="csidriver", subresources=(),
    )

    spec: CSIDriverSpec = Field(default_factory=CSIDriverSpec)


def is_default_annotation(annotations: Mapping[str, str] | None) -> bool:
    """``IsDefaultAnnotation``: either annotation set to exactly ``"true"``."""
    found = annotations or {}
    return (found.get(IS_DEFAULT_STORAGE_CLASS_ANNOTATION) == "true"
            or found.get(BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION) == "true")


def default_class(classes: Iterable[StorageClass]) -> StorageClass | None:
    """``GetDefaultClass`` (pkg/volume/util/storageclass.go, since kubernetes#110559 in 1.26): of the
    classes annotated default, the newest by ``creationTimestamp``, then the first by name; ``None``
    when no class is annotated."""
    defaults = [c for c in classes if is_default_annotation(c.metadata.annotations)]
    if not defaults:
        return None
    newest = max(_created(c) for c in defaults)
    return min((c for c in defaults if _created(c) == newest), key=lambda c: c.metadata.name or "")


def _created(sc: StorageClass) -> datetime:
    return sc.metadata.creation_timestamp or _NEVER
