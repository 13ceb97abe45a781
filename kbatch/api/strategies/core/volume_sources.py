"""Validation inside the volume sources batch pods use: configMap / secret items and modes, hostPath
paths and types, downwardAPI files, emptyDir's sizeLimit, and the local paths they and volume
mounts name.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateConfigMapVolumeSource,
validateSecretVolumeSource, validateDownwardAPIVolumeSource / validateDownwardAPIVolumeFile, the
emptyDir sizeLimit check of validateVolumeSource, validateKeyToPath, validateHostPathVolumeSource,
validateHostPathType, ValidateLocalNonReservedPath, validateLocalDescendingPath,
validatePathNoBacksteps). Messages are upstream's. Each source's one required field is
:mod:`.pod_validation`'s.
"""

from __future__ import annotations

import posixpath

from kbatch.api.core_v1 import DownwardAPIVolumeFile, DownwardAPIVolumeSource, KeyToPath, Volume
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.env_selectors import (
    VOLUME_FIELD_PATHS,
    field_selector_errors,
    resource_selector_errors,
)
from kbatch.api.validation import child, index

__all__ = [
    "downward_file_errors",
    "key_to_path_errors",
    "local_descending_path_errors",
    "local_non_reserved_errors",
    "mode_errors",
    "volume_source_errors",
]

_FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket"]


def _no_backsteps(target: str, path: str) -> list[FieldError]:
    """``validatePathNoBacksteps``: no ``..`` element (one error however many)."""
    if ".." in target.replace("\\", "/").split("/"):
        return [FieldError.invalid(path, target, "must not contain '..'")]
    return []


def local_descending_path_errors(target: str, path: str) -> list[FieldError]:
    """``validateLocalDescendingPath``: relative, without ``..`` elements."""
    errs = [FieldError.invalid(path, target, "must be a relative path")] if posixpath.isabs(target) else []
    return errs + _no_backsteps(target, path)


def local_non_reserved_errors(target: str, path: str) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``: a local descending path not starting with ``..``."""
    errs = local_descending_path_errors(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(FieldError.invalid(path, target, "must not start with '..'"))
    return errs


def mode_errors(mode: int | None, path: str) -> list[FieldError]:
    if mode is not None and not 0 <= mode <= 0o777:
        return [FieldError.invalid(path, mode, _FILE_MODE)]
    return []


def key_to_path_errors(item: KeyToPath, path: str) -> list[FieldError]:
    """``validateKeyToPath``."""
    errs: list[FieldError] = []
    if not item.key:
        errs.append(FieldError.required(child(path, "key")))
    if not item.path:
        errs.append(FieldError.required(child(path, "path")))
    errs += local_non_reserved_errors(item.path, child(path, "path"))
    return errs + mode_errors(item.mode, child(path, "mode"))


def _items_errors(items: list[KeyToPath] | None, default_mode: int | None, path: str) -> list[FieldError]:
    errs = mode_errors(default_mode, child(path, "defaultMode"))
    for i, item in enumerate(items or ()):
        errs += key_to_path_errors(item, index(child(path, "items"), i))
    return errs


def downward_file_errors(item: DownwardAPIVolumeFile, path: str) -> list[FieldError]:
    """``validateDownwardAPIVolumeFile``; ``path`` is the source's own (upstream does not index items)."""
    errs: list[FieldError] = []
    if not item.path:
        errs.append(FieldError.required(child(path, "path")))
    errs += local_non_reserved_errors(item.path, child(path, "path"))
    if item.field_ref is not None:
        errs += field_selector_errors(item.field_ref, VOLUME_FIELD_PATHS, child(path, "fieldRef"))
        if item.resource_field_ref is not None:
            errs.append(FieldError.invalid(
                path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
    elif item.resource_field_ref is not None:
        errs += resource_selector_errors(item.resource_field_ref, child(path, "resourceFieldRef"),
                                         volume=True)
    else:
        errs.append(FieldError.required(path, "one of fieldRef and resourceFieldRef is required"))
    return errs + mode_errors(item.mode, child(path, "mode"))


def downward_api_errors(source: DownwardAPIVolumeSource, path: str) -> list[FieldError]:
    """``validateDownwardAPIVolumeSource``."""
    errs = mode_errors(source.default_mode, child(path, "defaultMode"))
    for item in source.items or ():
        errs += downward_file_errors(item, path)
    return errs


def volume_source_errors(volume: Volume, path: str) -> list[FieldError]:
    """What lies inside a volume's configMap, secret, hostPath, downwardAPI or emptyDir source
    (a projected source's is :mod:`.projected_validation`'s)."""
    errs: list[FieldError] = []
    if volume.downward_api is not None:
        errs += downward_api_errors(volume.downward_api, child(path, "downwardAPI"))
    empty = volume.empty_dir
    if empty is not None and empty.size_limit is not None and empty.size_limit.sign() < 0:
        errs.append(FieldError.forbidden(child(child(path, "emptyDir"), "sizeLimit"),
                                         "SizeLimit field must be a valid resource quantity"))
    if volume.config_map is not None:
        source = volume.config_map
        errs += _items_errors(source.items, source.default_mode, child(path, "configMap"))
    if volume.secret is not None:
        errs += _items_errors(volume.secret.items, volume.secret.default_mode, child(path, "secret"))
    host = volume.host_path
    if host is not None and host.path:
        at = child(path, "hostPath")
        errs += _no_backsteps(host.path, child(at, "path"))
        if host.type is not None and host.type not in HOST_PATH_TYPES:
            errs.append(FieldError.not_supported(child(at, "type"), host.type, HOST_PATH_TYPES))
    return errs
