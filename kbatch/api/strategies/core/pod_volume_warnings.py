"""Volume warnings of a pod spec: deprecated volume plugins, overlapping virtual paths inside one
configMap/secret/downwardAPI/projected volume, and fractional storage in an ephemeral volume's claim.

Upstream: kubernetes pkg/api/pod/warnings.go (the volume loop of ``warningsForPodSpecAndMeta``,
``warningsForOverlappingVirtualPaths``, ``checkVolumeMappingForOverlap``, ``checkForOverlap``) and
pkg/api/persistentvolumeclaim/util.go ``GetWarningsForPersistentVolumeClaimSpec``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import PodSpec, Volume
from kbatch.api.quantity import Quantity, QuantityError

__all__ = ["volume_warnings"]

# (wire name of the volume source, model attribute, message), in upstream's order
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "photon_persistent_disk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "git_repo", "deprecated in v1.11"),
    ("scaleIO", "scale_io", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageOS", "storageos", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_PathAndSource = tuple[str, str]  # upstream's pathAndSource


def volume_warnings(spec: PodSpec, pre: str) -> list[str]:
    warnings = []
    for i, vol in enumerate(spec.volumes or ()):
        for wire, attr, msg in _DEPRECATED_VOLUMES:
            if getattr(vol, attr) is not None:
                warnings.append(f"{pre}spec.volumes[{i}].{wire}: {msg}")
        if vol.ephemeral is not None and vol.ephemeral.volume_claim_template is not None:
            warnings += _claim_spec_warnings(vol.ephemeral.volume_claim_template,
                                             f"{pre}spec.volumes[{i}].ephemeral.volumeClaimTemplate.spec")
    for vol in spec.volumes or ():
        warnings += _overlap_warnings(vol)
    return warnings


def _claim_spec_warnings(template: dict[str, Any], path: str) -> list[str]:
    """Fractional ``storage`` requests/limits of the claim template's spec."""
    resources = ((template.get("spec") or {}).get("resources") or {})
    warnings = []
    for kind in ("requests", "limits"):
        raw = (resources.get(kind) or {}).get("storage")
        if raw is None:
            continue
        try:
            q = Quantity(raw)
        except (QuantityError, TypeError, ValueError):
            continue  # validation reports it
        if q.milli_value() % 1000:
            warnings.append(f'{path}.resources.{kind}[storage]: fractional byte value "{q}" is invalid, '
                            "must be an integer")
    return warnings


def _text(ps: _PathAndSource) -> str:
    path, source = ps
    return f'"{path}" ({source})' if source else f'"{path}"'


def _overlaps(seen: list[_PathAndSource], needle: _PathAndSource) -> list[_PathAndSource]:
    """``checkForOverlap``: the same path, or one a directory of the other."""
    path = needle[0]
    if not path:
        return []
    return [item for item in seen if item[0] and (
        item == needle or (item[0] + "/").startswith(path + "/") or (path + "/").startswith(item[0] + "/"))]


def _mapping_overlaps(paths: list[_PathAndSource]) -> list[str]:
    seen: list[_PathAndSource] = []
    found = []
    for raw_path, source in paths:
        ps = (raw_path.rstrip("/"), source)
        found += [f"{_text(ps)} with {_text(c)}" for c in _overlaps(seen, ps)]
        seen.append(ps)
    return found


def _projection_paths(src: Any) -> list[_PathAndSource] | None:
    """The paths one projected source writes (None: an empty source)."""
    if src.config_map is not None and src.config_map.items is not None:
        return [(k.path, f'ConfigMap "{src.config_map.name or ""}"') for k in src.config_map.items]
    if src.secret is not None and src.secret.items is not None:
        return [(k.path, f'Secret "{src.secret.name or ""}"') for k in src.secret.items]
    if src.downward_api is not None and src.downward_api.items is not None:
        return [(f.path, "DownwardAPI") for f in src.downward_api.items]
    if src.service_account_token is not None:
        return [(src.service_account_token.path, "ServiceAccountToken")]
    if src.cluster_trust_bundle is not None:
        ctb = src.cluster_trust_bundle
        return [(ctb.path, f'ClusterTrustBundle "{ctb.name if ctb.name is not None else ctb.signer_name}"')]
    if all(getattr(src, f) is None for f in type(src).model_fields):
        return None
    return []


def _overlap_warnings(vol: Volume) -> list[str]:
    name = vol.name
    warnings = []
    if vol.config_map is not None and vol.config_map.items is not None:
        warnings += [f'volume "{name}" (ConfigMap "{vol.config_map.name or ""}"): overlapping paths: {o}'
                     for o in _mapping_overlaps([(k.path, "") for k in vol.config_map.items])]
    if vol.secret is not None and vol.secret.items is not None:
        warnings += [f'volume "{name}" (Secret "{vol.secret.secret_name or ""}"): overlapping paths: {o}'
                     for o in _mapping_overlaps([(k.path, "") for k in vol.secret.items])]
    if vol.downward_api is not None and vol.downward_api.items is not None:
        warnings += [f'volume "{name}" (DownwardAPI): overlapping paths: {o}'
                     for o in _mapping_overlaps([(f.path, "") for f in vol.downward_api.items])]
    if vol.projected is not None:
        warnings += _projected_overlaps(name, vol.projected.sources or [])
    return warnings


def _projected_overlaps(name: str, sources: list[Any]) -> list[str]:
    """A source that writes no paths (e.g. a configMap without items) re-checks the previous source's
    paths: upstream keeps ``sourcePaths`` across the loop, and kbatch says what kube-apiserver says."""
    warnings = []
    seen: list[_PathAndSource] = []
    paths: list[_PathAndSource] = []
    for src in sources:
        found = _projection_paths(src)
        if found is None:
            warnings.append(f'volume "{name}" (Projected) has no sources provided')
            continue
        paths = found or paths
        for raw_path, source in paths:
            ps = (raw_path.rstrip("/"), source)
            warnings += [f'volume "{name}" (Projected): overlapping paths: {_text(ps)} with {_text(c)}'
                         for c in _overlaps(seen, ps)]
            seen.append(ps)
    return warnings
