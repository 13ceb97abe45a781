"""Validation of a projected volume's sources: secret / configMap items, downwardAPI files and
serviceAccountToken, with the paths they project kept unique across sources.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (validateProjectedVolumeSource,
validateProjectionSources). Quirks kept as upstream has them: a repeated path is Invalid on the
projected source's own path (with the secret's / configMap's name, or the file's path, as the
value), and a serviceAccountToken's missing path is Required at ``projected.path``. The
clusterTrustBundle and podCertificate sources count towards "more than 1 volume type" but their
own fields are not validated (listed in docs/apiserver.md, "Deliberate differences").
"""

from __future__ import annotations

from kbatch.api.core_v1 import KeyToPath, ProjectedVolumeSource, VolumeProjection
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.volume_sources import (
    downward_file_errors,
    key_to_path_errors,
    local_non_reserved_errors,
    mode_errors,
)
from kbatch.api.validation import child, index

__all__ = ["projected_errors"]

_TOKEN_DEFAULT_SECONDS = 3600  # SetDefaults_ServiceAccountTokenProjection


def _source_count(source: VolumeProjection) -> int:
    return sum(s is not None for s in (source.secret, source.config_map, source.downward_api,
                                       source.service_account_token, source.cluster_trust_bundle,
                                       source.pod_certificate))


def _claim(paths: set[str], value: str, target: str, at: str) -> list[FieldError]:
    """Record ``target`` as projected; a repeat is "conflicting duplicate paths"."""
    if not target:
        return []
    if target in paths:
        return [FieldError.invalid(at, value, "conflicting duplicate paths")]
    paths.add(target)
    return []


def _key_items(name: str | None, items: list[KeyToPath] | None, at: str, paths: set[str],
               projected: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not name:
        errs.append(FieldError.required(child(at, "name")))
    for i, item in enumerate(items or ()):
        errs += key_to_path_errors(item, index(child(at, "items"), i))
        errs += _claim(paths, name or "", item.path, projected)
    return errs


def _token_errors(source: VolumeProjection, at: str, projected: str, loose_path: bool) -> list[FieldError]:
    token = source.service_account_token
    assert token is not None
    errs: list[FieldError] = []
    seconds = _TOKEN_DEFAULT_SECONDS if token.expiration_seconds is None else token.expiration_seconds
    if seconds < 600:
        errs.append(FieldError.invalid(child(at, "expirationSeconds"), seconds,
                                       "may not specify a duration less than 10 minutes"))
    if seconds > 1 << 32:
        errs.append(FieldError.invalid(child(at, "expirationSeconds"), seconds,
                                       "may not specify a duration larger than 2^32 seconds"))
    if not token.path:
        errs.append(FieldError.required(child(projected, "path")))
    elif not loose_path:
        errs += local_non_reserved_errors(token.path, child(projected, "path"))
    return errs


def projected_errors(projection: ProjectedVolumeSource, path: str,
                     loose_token_path: bool = False) -> list[FieldError]:
    """``validateProjectedVolumeSource`` for the projected source at ``path``; ``loose_token_path`` is
    ``AllowNonLocalProjectedTokenPath`` (an update whose old pod had such a path, pkg/api/pod/util.go
    ``hasNonLocalProjectedTokenPath``)."""
    errs = mode_errors(projection.default_mode, child(path, "defaultMode"))
    paths: set[str] = set()
    for i, source in enumerate(projection.sources or ()):
        at = index(child(path, "sources"), i)
        if source.secret is not None:
            errs += _key_items(source.secret.name, source.secret.items, child(at, "secret"), paths, path)
        if source.config_map is not None:
            errs += _key_items(source.config_map.name, source.config_map.items, child(at, "configMap"),
                               paths, path)
        if source.downward_api is not None:
            for item in source.downward_api.items or ():
                errs += downward_file_errors(item, child(at, "downwardAPI"))
                errs += _claim(paths, item.path, item.path, path)
        if source.service_account_token is not None:
            errs += _token_errors(source, child(at, "serviceAccountToken"), path, loose_token_path)
        if _source_count(source) > 1:
            errs.append(FieldError.forbidden(at, "may not specify more than 1 volume type"))
    return errs
