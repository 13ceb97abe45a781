"""CSIDriver strategy: upstream's defaults, validation and update rules.

Upstream (1.37): kubernetes ``pkg/apis/storage/v1/defaults.go`` (``SetDefaults_CSIDriver``:
``attachRequired: true``, ``podInfoOnMount``, ``storageCapacity``, ``requiresRepublish`` and
``seLinuxMount`` false, ``fsGroupPolicy: ReadWriteOnceWithFSType``, ``volumeLifecycleModes:
[Persistent]``), ``pkg/apis/storage/validation/validation.go`` (``ValidateCSIDriver``,
``ValidateCSIDriverUpdate``, ``validateCSIDriverSpec`` and its helpers; the immutable
``attachRequired`` is reported at upstream's ``spec.attachedRequired``, sic) and
``pkg/registry/storage/csidriver/strategy.go`` (and its ``strategy_test.go`` tables): no status; no
``metadata.generation`` on create, then one more for each update that changes the spec (so the first
change makes it 1); a gated field dropped on create while its gate is off, and on update when the
stored driver does not use it yet (SELinuxMountReadWriteOncePod: ``seLinuxMount``;
MutableCSINodeAllocatableCount: ``nodeAllocatableUpdatePeriodSeconds``; CSIServiceAccountTokenSecrets:
``serviceAccountTokenInSecrets``; VolumeLimitScaling: ``preventPodSchedulingIfMissing``; all on in 1.37);
the warning recommending ``serviceAccountTokenInSecrets`` when ``tokenRequests`` are set (on update
only when they change); no unconditional update. Messages are upstream's, except one: that
``serviceAccountTokenInSecrets`` needs ``tokenRequests`` is the API's own rule (k8s.io/api
``storage/v1/types.go``: "The API server will reject CSIDriver specs that set this field without
TokenRequests"), but its wording here is kbatch's: upstream's 1.37 validation.go was not readable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.errors import FieldError
from kbatch.api.gates import gate_on
from kbatch.api.storage_v1 import CSIDriver, CSIDriverSpec, CSITokenRequest
from kbatch.api.strategy import DefaultStrategy, GateBound
from kbatch.api.validation import child, index, validate_immutable

if TYPE_CHECKING:
    from kbatch.api.features import FeatureGates

__all__ = ["CSI_DRIVER_GATES", "TOKEN_IN_SECRETS_RECOMMENDED", "CSIDriverStrategy"]

SE_LINUX_MOUNT = "SELinuxMountReadWriteOncePod"
MUTABLE_ALLOCATABLE_COUNT = "MutableCSINodeAllocatableCount"
TOKEN_SECRETS = "CSIServiceAccountTokenSecrets"
VOLUME_LIMIT_SCALING = "VolumeLimitScaling"
# each gated spec field (the model's attribute) and its gate
CSI_DRIVER_GATES = (("se_linux_mount", SE_LINUX_MOUNT),
                    ("node_allocatable_update_period_seconds", MUTABLE_ALLOCATABLE_COUNT),
                    ("service_account_token_in_secrets", TOKEN_SECRETS),
                    ("prevent_pod_scheduling_if_missing", VOLUME_LIMIT_SCALING))
TOKEN_IN_SECRETS_RECOMMENDED = ("spec.serviceAccountTokenInSecrets is unset; if supported by this CSI "
                                "driver, set to true to prevent possible logging of tokens in volume "
                                "attributes")

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
    if spec.se_linux_mount is None:  # SELinuxMountReadWriteOncePod is GA (locked on)
        errs.append(FieldError.required("spec.seLinuxMount", ""))
    period = spec.node_allocatable_update_period_seconds
    if period is not None and period < 10:
        errs.append(FieldError.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period,
                                       "must be greater than or equal to 10 seconds"))
    in_secrets = spec.service_account_token_in_secrets
    if in_secrets is not None and not spec.token_requests:
        errs.append(FieldError.invalid("spec.serviceAccountTokenInSecrets", in_secrets,
                                       "serviceAccountTokenInSecrets is set but no tokenRequests are "
                                       "specified"))
    return errs


def _drop_disabled(spec: CSIDriverSpec, old: CSIDriverSpec | None, gates: FeatureGates | None) -> None:
    """A gated field goes while its gate is off, unless the stored driver already uses it."""
    for attr, gate in CSI_DRIVER_GATES:
        if getattr(spec, attr) is not None and not gate_on(gates, gate) \
                and (old is None or getattr(old, attr) is None):
            setattr(spec, attr, None)


class CSIDriverStrategy(GateBound, DefaultStrategy):
    has_status = False
    create_generation = None  # PrepareForCreate sets none; PrepareForUpdate counts from 0
    allow_unconditional_update = False

    def prepare_for_create(self, obj: CSIDriver) -> None:  # type: ignore[override]
        _drop_disabled(obj.spec, None, self.gates)

    def prepare_for_update(self, new: CSIDriver, old: CSIDriver) -> None:  # type: ignore[override]
        _drop_disabled(new.spec, old.spec, self.gates)

    def warnings_on_create(self, obj: CSIDriver) -> list[str]:  # type: ignore[override]
        return self._token_warnings(obj.spec)

    def warnings_on_update(self, new: CSIDriver, old: CSIDriver) -> list[str]:  # type: ignore[override]
        return self._token_warnings(new.spec) if new.spec.token_requests != old.spec.token_requests else []

    def _token_warnings(self, spec: CSIDriverSpec) -> list[str]:
        if spec.token_requests and spec.service_account_token_in_secrets is None \
                and gate_on(self.gates, TOKEN_SECRETS):
            return [TOKEN_IN_SECRETS_RECOMMENDED]
        return []

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
