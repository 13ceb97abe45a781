"""Validation inside the volume sources batch pods use: configMap / secret items and modes, hostPath
paths and types, and the local paths they and volume mounts name.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateConfigMapVolumeSource,
validateSecretVolumeSource, validateKeyToPath, validateHostPathVolumeSource, validateHostPathType,
ValidateLocalNonReservedPath, validateLocalDescendingPath, validatePathNoBacksteps). Messages are
upstream's. Each source's one required field is :mod:`.pod_validation`'s.
"""

from __future__ import annotations

import posixpath

from kbatch.api.core_v1 import KeyToPath, Volume
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index

__all__ = ["local_descending_path_errors", "volume_source_errors"]

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


def _local_non_reserved_errors(target: str, path: str) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``: a local descending path not starting with ``..``."""
    errs = local_descending_path_errors(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errs.append(FieldError.invalid(path, target, "must not start with '..'"))
    return errs


def _mode_errors(mode: int | None, path: str) -> list[FieldError]:
    if mode is not None and not 0 <= mode <= 0o777:
        return [FieldError.invalid(path, mode, _FILE_MODE)]
    return []


def _key_to_path_errors(item: KeyToPath, path: str) -> list[FieldError]:
    """``validateKeyToPath``."""
    errs: list[FieldError] = []
    if not item.key:
        errs.append(FieldError.required(child(path, "key")))
    if not item.path:
        errs.append(FieldError.required(child(path, "path")))
    errs += _local_non_reserved_errors(item.path, child(path, "path"))
    return errs + _mode_errors(item.mode, child(path, "mode"))


def _items_errors(items: list[KeyToPath] | None, default_mode: int | None, path: str) -> list[FieldError]:
    errs = _mode_errors(default_mode, child(path, "defaultMode"))
    for i, item in enumerate(items or ()):
        errs += _key_to_path_errors(item, index(child(path, "items"), i))
    return errs


def volume_source_errors(volume: Volume, path: str) -> list[FieldError]:
    """What lies inside a volume's configMap, secret or hostPath source."""
    errs: list[FieldError] = []
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
