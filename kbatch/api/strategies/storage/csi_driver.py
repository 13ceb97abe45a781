"""CSIDriver strategy: upstream's defaults, validation and update rules.

Upstream (1.37): kubernetes ``pkg/apis/storage/v1/defaults.go`` (``SetDefaults_CSIDriver``:
``attachRequired: true``, ``podInfoOnMount``, ``storageCapacity``, ``requiresRepublish`` and
``seLinuxMount`` false, ``fsGroupPolicy: ReadWriteOnceWithFSType``, ``volumeLifecycleModes:
[Persistent]``), ``pkg/apis/storage/validation/validation.go`` (``ValidateCSIDriver``,
``ValidateCSIDriverUpdate``, ``validateCSIDriverSpec`` and its helpers; the immutable
``attachRequired`` is reported at upstream's ``spec.attachedRequired``, sic) and
``pkg/registry/storage/csidriver/strategy.go`` (no status). Messages are upstream's.

kbatch differs in two places, written in docs/storage.md: a CSIDriver carries no
``metadata.generation`` (upstream sets none on create and counts from 0 when ``tokenRequests``,
``requiresRepublish`` or ``seLinuxMount`` change), and no field is dropped for a disabled gate.
"""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.storage_v1 import CSIDriver, CSIDriverSpec, CSITokenRequest
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, validate_immutable

__all__ = ["CSIDriverStrategy"]

FS_GROUP_POLICIES = ["File", "None", "ReadWriteOnceWithFSType"]  # sorted, as NotSupported lists them
LIFECYCLE_MODES = ["Persistent", "Ephemeral"]
MIN_EXPIRATION = 10 * 60
MAX_EXPIRATION = 1 << 32


def _token_request_errors(requests: list[CSITokenRequest] | None) -> list[FieldError]:
    """``validateTokenRequests``: audiences distinct; an expiration from 10 minutes to 2^32 s."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, request in enumerate(requests or ()):
        at = index("spec.tokenRequests", i)
        if request.audience in seen:
            errs.append(FieldError.duplicate(child(at, "audience"), request.audience))
            continue
        seen.add(request.audience)
        seconds = request.expiration_seconds
        if seconds is not None and seconds < MIN_EXPIRATION:
            errs.append(FieldError.invalid(child(at, "expirationSeconds"), seconds,
                                           "may not specify a duration less than 10 minutes"))
        if seconds is not None and seconds > MAX_EXPIRATION:
            errs.append(FieldError.invalid(child(at, "expirationSeconds"), seconds,
                                           "may not specify a duration larger than 2^32 seconds"))
    return errs


def _spec_errors(spec: CSIDriverSpec) -> list[FieldError]:
    errs = [FieldError.required(f"spec.{path}", "")
            for path, value in (("attachedRequired", spec.attach_required),
                                ("podInfoOnMount", spec.pod_info_on_mount),
                                ("storageCapacity", spec.storage_capacity)) if value is None]
    if spec.fs_group_policy is not None and spec.fs_group_policy not in FS_GROUP_POLICIES:
        errs.append(FieldError.not_supported("spec.fsGroupPolicy", spec.fs_group_policy, FS_GROUP_POLICIES))
    errs += _token_request_errors(spec.token_requests)
    errs += [FieldError.not_supported("spec.volumeLifecycleModes", mode, LIFECYCLE_MODES)
             for mode in spec.volume_lifecycle_modes or () if mode not in LIFECYCLE_MODES]
    if spec.se_linux_mount is None:  # SELinuxMountReadWriteOncePod is on
        errs.append(FieldError.required("spec.seLinuxMount", ""))
    period = spec.node_allocatable_update_period_seconds
    if period is not None and period < 10:
        errs.append(FieldError.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period,
                                       "must be greater than or equal to 10 seconds"))
    return errs


class CSIDriverStrategy(DefaultStrategy):
    has_status = False
    has_generation = False

    def default(self, obj: CSIDriver) -> None:  # type: ignore[override]
        spec = obj.spec
        for name, value in (("attach_required", True), ("pod_info_on_mount", False),
                            ("storage_capacity", False), ("fs_group_policy", "ReadWriteOnceWithFSType"),
                            ("requires_republish", False), ("se_linux_mount", False)):
            if getattr(spec, name) is None:
                setattr(spec, name, value)
        if not spec.volume_lifecycle_modes:
            spec.volume_lifecycle_modes = ["Persistent"]

    def validate(self, obj: CSIDriver) -> list[FieldError]:  # type: ignore[override]
        return _spec_errors(obj.spec)

    def validate_update(self, new: CSIDriver, old: CSIDriver) -> list[FieldError]:  # type: ignore[override]
        spec, before = new.spec, old.spec
        return (validate_immutable(spec.attach_required, before.attach_required, "spec.attachedRequired")
                + validate_immutable(spec.volume_lifecycle_modes, before.volume_lifecycle_modes,
                                     "spec.volumeLifecycleModes"))

    def spec_changed(self, new: CSIDriver, old: CSIDriver) -> bool:  # type: ignore[override]
        return False
