"""PersistentVolume strategy: defaults, create status, validation and the update rules of upstream.

Upstream (read at master, 1.34+): kubernetes ``pkg/apis/core/v1/defaults.go``
(``SetDefaults_PersistentVolume``: ``persistentVolumeReclaimPolicy: Retain``,
``volumeMode: Filesystem``; ``SetDefaults_HostPathVolumeSource``: ``type: ""``),
``pkg/registry/core/persistentvolume/strategy.go`` (create: status is ``phase: Pending`` with
``lastPhaseTransitionTime`` now; no generation; a main-resource update keeps the stored status),
``pkg/apis/core/validation/validation.go`` (``ValidatePersistentVolume``,
``ValidatePersistentVolumeSpec``, ``ValidatePersistentVolumeUpdate``). Messages are upstream's;
upstream appends a diff of the two sources to the immutable-source error, kbatch does not.
"""

from __future__ import annotations

import posixpath

from kbatch.api.core_v1.claim import ACCESS_MODES
from kbatch.api.core_v1.persistent_volume import (
    PV_RECLAIM_POLICIES,
    PersistentVolume,
    PersistentVolumeSpec,
    PersistentVolumeStatus,
)
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.scheduling_validation import validate_node_selector
from kbatch.api.strategies.storage.pv_sources import source_errors
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, key, name_is_dns1123_subdomain, validate_immutable

__all__ = ["PersistentVolumeStrategy", "access_mode_errors", "validate_pv_spec"]

VOLUME_MODES = ["Block", "Filesystem"]
_SOURCE_FIELDS = ("host_path", "local", "csi", "nfs")


def access_mode_errors(modes: list[str] | None, path: str) -> list[FieldError]:
    """The access-mode checks PersistentVolume and claim specs share: each supported,
    ``ReadWriteOncePod`` alone (an unsupported mode does not count as another)."""
    errs: list[FieldError] = []
    for mode in modes or ():
        if mode not in ACCESS_MODES:
            errs.append(FieldError.not_supported(path, mode, list(ACCESS_MODES)))
    found = set(modes or ())
    if "ReadWriteOncePod" in found and found & (set(ACCESS_MODES) - {"ReadWriteOncePod"}):
        errs.append(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _capacity_errors(spec: PersistentVolumeSpec, path: str) -> list[FieldError]:
    capacity = spec.capacity or {}
    errs: list[FieldError] = []
    if not capacity:
        errs.append(FieldError.required(path, ""))
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(FieldError.not_supported(path, {k: str(v) for k, v in capacity.items()}, ["storage"]))
    for name in sorted(capacity):
        if capacity[name].sign() <= 0:  # validateBasicResource + ValidatePositiveQuantityValue
            errs.append(FieldError.invalid(key(path, name), str(capacity[name]), "must be greater than zero"))
    return errs


def _class_name_errors(name: str | None, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, name, m) for m in name_is_dns1123_subdomain(name, False)] if name else []


def validate_pv_spec(spec: PersistentVolumeSpec, path: str = "spec") -> list[FieldError]:
    """``ValidatePersistentVolumeSpec`` for a PersistentVolume object (not an inline volume)."""
    errs: list[FieldError] = []
    if not spec.access_modes:
        errs.append(FieldError.required(child(path, "accessModes"), ""))
    errs += access_mode_errors(spec.access_modes, child(path, "accessModes"))
    errs += _capacity_errors(spec, child(path, "capacity"))
    policy = spec.persistent_volume_reclaim_policy
    if policy and policy not in PV_RECLAIM_POLICIES:
        errs.append(FieldError.not_supported(child(path, "persistentVolumeReclaimPolicy"), policy,
                                             list(PV_RECLAIM_POLICIES)))
    affinity_given = False
    if spec.node_affinity is not None:
        affinity_given = True
        required = spec.node_affinity.required
        at = child(child(path, "nodeAffinity"), "required")
        errs += (validate_node_selector(required, at) if required is not None
                 else [FieldError.required(at, "must specify required node constraints")])
    errs += source_errors(spec, path, affinity_given)
    if (spec.host_path is not None and posixpath.normpath(spec.host_path.path or ".") == "/"
            and policy == "Recycle"):
        errs.append(FieldError.forbidden(child(path, "persistentVolumeReclaimPolicy"),
                                         "may not be 'recycle' for a hostPath mount of '/'"))
    errs += _class_name_errors(spec.storage_class_name, child(path, "storageClassName"))
    if spec.volume_mode is not None and spec.volume_mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported(child(path, "volumeMode"), spec.volume_mode, VOLUME_MODES))
    vac = spec.volume_attributes_class_name
    if vac is not None:  # VolumeAttributesClass is GA (on, locked) since 1.34
        at = child(path, "volumeAttributesClassName")
        errs += ([FieldError.required(at, "an empty string is disallowed")] if not vac
                 else _class_name_errors(vac, at))
        if spec.csi is None:
            errs.append(FieldError.required(child(path, "csi"),
                                            "has to be specified when using volumeAttributesClassName"))
    return errs


def _source_of(spec: PersistentVolumeSpec) -> tuple[object, ...]:
    return tuple(getattr(spec, name) for name in _SOURCE_FIELDS)


class PersistentVolumeStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation

    def default(self, obj: PersistentVolume) -> None:  # type: ignore[override]
        spec = obj.spec
        if not spec.persistent_volume_reclaim_policy:
            spec.persistent_volume_reclaim_policy = "Retain"
        if spec.volume_mode is None:
            spec.volume_mode = "Filesystem"
        if spec.host_path is not None and spec.host_path.type is None:
            spec.host_path.type = ""

    def prepare_for_create(self, obj: PersistentVolume) -> None:  # type: ignore[override]
        # the server sets creationTimestamp to now before this runs: it is the transition time
        obj.status = PersistentVolumeStatus(phase="Pending",
                                            last_phase_transition_time=obj.metadata.creation_timestamp)

    def prepare_for_status_update(self, new: PersistentVolume,  # type: ignore[override]
                                  old: PersistentVolume) -> None:
        super().prepare_for_status_update(new, old)
        if new.status is not None and not new.status.phase:  # SetDefaults_PersistentVolume, on decode
            new.status.phase = "Pending"

    def fill_empty_status(self, obj: PersistentVolume) -> None:
        if obj.status is None:
            obj.status = PersistentVolumeStatus(phase="Pending")

    def validate(self, obj: PersistentVolume) -> list[FieldError]:  # type: ignore[override]
        return validate_pv_spec(obj.spec)

    def validate_update(self, new: PersistentVolume,  # type: ignore[override]
                        old: PersistentVolume) -> list[FieldError]:
        errs: list[FieldError] = []
        old_csi, new_csi = old.spec.csi, new.spec.csi
        new_source = _source_of(new.spec)
        if (old_csi is not None and new_csi is not None and old_csi.controller_expand_secret_ref is None
                and new_csi.controller_expand_secret_ref is not None):  # may be set once, later
            new_source = (new.spec.host_path, new.spec.local,
                          new_csi.model_copy(update={"controller_expand_secret_ref": None}), new.spec.nfs)
        if new_source != _source_of(old.spec):
            errs.append(FieldError.forbidden("spec.persistentvolumesource",
                                             "spec.persistentvolumesource is immutable after creation"))
        # upstream names these two paths without "spec." (sic)
        errs += validate_immutable(new.spec.volume_mode, old.spec.volume_mode, "volumeMode")
        if old.spec.node_affinity is not None:
            errs += validate_immutable(new.spec.node_affinity, old.spec.node_affinity, "nodeAffinity")
        old_vac, new_vac = old.spec.volume_attributes_class_name, new.spec.volume_attributes_class_name
        if old_vac is not None and new_vac is None:
            errs.append(FieldError.forbidden("spec.volumeAttributesClassName",
                                             "update from non-nil value to nil is forbidden"))
        return errs
