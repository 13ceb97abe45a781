"""Validation of a PersistentVolume's volume source: exactly one, and what lies inside the ones kbatch
models (hostPath, nfs, local, csi), in upstream's order.

Upstream (read at master, 1.34+): kubernetes ``pkg/apis/core/validation/validation.go``
``ValidatePersistentVolumeSpec`` (the chain of ``may not specify more than 1 volume type``,
``must specify a volume type``, local volumes' node affinity), ``validateHostPathVolumeSource``,
``validateNFSVolumeSource``, ``validateLocalVolumeSource``, ``validateCSIPersistentVolumeSource``,
``ValidateCSIDriverName``. Messages are upstream's.
"""

from __future__ import annotations

import posixpath

from kbatch.api.core_v1.persistent_volume import (
    CSIPersistentVolumeSource,
    PersistentVolumeSpec,
    SecretReference,
)
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.volume_sources import HOST_PATH_TYPES
from kbatch.api.validation import child, is_dns1123_subdomain

__all__ = ["source_errors"]

_MORE_THAN_ONE = "may not specify more than 1 volume type"
_CSI_DRIVER_MAX = 63


def _no_backsteps(target: str, path: str) -> list[FieldError]:
    if ".." in target.replace("\\", "/").split("/"):
        return [FieldError.invalid(path, target, "must not contain '..'")]
    return []


def _host_path_errors(spec: PersistentVolumeSpec, path: str) -> list[FieldError]:
    host = spec.host_path
    assert host is not None
    if not host.path:
        return [FieldError.required(child(path, "path"), "")]
    errs = _no_backsteps(host.path, child(path, "path"))
    if host.type is not None and host.type not in HOST_PATH_TYPES:
        errs.append(FieldError.not_supported(child(path, "type"), host.type, HOST_PATH_TYPES))
    return errs


def _nfs_errors(spec: PersistentVolumeSpec, path: str) -> list[FieldError]:
    nfs = spec.nfs
    assert nfs is not None
    errs: list[FieldError] = []
    if not nfs.server:
        errs.append(FieldError.required(child(path, "server"), ""))
    if not nfs.path:
        errs.append(FieldError.required(child(path, "path"), ""))
    if not posixpath.isabs(nfs.path):
        errs.append(FieldError.invalid(child(path, "path"), nfs.path, "must be an absolute path"))
    return errs


def _local_errors(spec: PersistentVolumeSpec, path: str) -> list[FieldError]:
    local = spec.local
    assert local is not None
    if not local.path:
        return [FieldError.required(child(path, "path"), "")]
    return _no_backsteps(local.path, child(path, "path"))


def _driver_errors(driver: str, path: str) -> list[FieldError]:
    """``ValidateCSIDriverName``."""
    if not driver:
        return [FieldError.required(path, "")]
    errs = []
    if len(driver) > _CSI_DRIVER_MAX:
        errs.append(FieldError.too_long(path, _CSI_DRIVER_MAX))
    lowered = driver.lower()
    return errs + [FieldError.invalid(path, driver, m) for m in is_dns1123_subdomain(lowered)]


def _secret_ref_errors(ref: SecretReference | None, path: str) -> list[FieldError]:
    if ref is None:
        return []
    errs = []
    if not ref.name:
        errs.append(FieldError.required(child(path, "name"), ""))
    if not ref.namespace:
        errs.append(FieldError.required(child(path, "namespace"), ""))
    return errs


def _csi_errors(spec: PersistentVolumeSpec, path: str) -> list[FieldError]:
    csi: CSIPersistentVolumeSource | None = spec.csi
    assert csi is not None
    errs = _driver_errors(csi.driver, child(path, "driver"))
    if not csi.volume_handle:
        errs.append(FieldError.required(child(path, "volumeHandle"), ""))
    for name, ref in (("controllerPublishSecretRef", csi.controller_publish_secret_ref),
                      ("nodeStageSecretRef", csi.node_stage_secret_ref),
                      ("nodePublishSecretRef", csi.node_publish_secret_ref),
                      ("controllerExpandSecretRef", csi.controller_expand_secret_ref),
                      ("nodeExpandSecretRef", csi.node_expand_secret_ref)):
        errs += _secret_ref_errors(ref, child(path, name))
    return errs


_SOURCES = (("hostPath", "host_path", _host_path_errors), ("nfs", "nfs", _nfs_errors),
            ("local", "local", _local_errors), ("csi", "csi", _csi_errors))


def source_errors(spec: PersistentVolumeSpec, path: str, node_affinity_given: bool) -> list[FieldError]:
    """The source checks of ``ValidatePersistentVolumeSpec``: the first source set is validated,
    each later one is forbidden; none at all is required; ``local`` needs node affinity."""
    errs: list[FieldError] = []
    count = 0
    for wire, attr, check in _SOURCES:
        if getattr(spec, attr) is None:
            continue
        if count:
            errs.append(FieldError.forbidden(child(path, wire), _MORE_THAN_ONE))
            continue
        count += 1
        errs += check(spec, child(path, wire))
        if attr == "local" and not node_affinity_given:
            errs.append(FieldError.required(child(path, "nodeAffinity"),
                                            "Local volume requires node affinity"))
    if not count:
        errs.append(FieldError.required(path, "must specify a volume type"))
    return errs
