"""PersistentVolumeClaim strategy: defaults and the spec checks of upstream's claim validation.

Upstream: kubernetes ``pkg/registry/core/persistentvolumeclaim/strategy.go`` and
``pkg/apis/core/validation/validation.go`` (``ValidatePersistentVolumeClaimSpec``,
``ValidatePersistentVolumeClaimUpdate``), ``pkg/apis/core/v1/defaults.go``
(``SetDefaults_PersistentVolumeClaim``: phase ``Pending``; ``volumeMode: Filesystem``).

Checked: at least one access mode, each a supported one, ``ReadWriteOncePod`` alone; a storage
request, above zero; the selector; ``volumeMode``. kbatch binds no claim (no PersistentVolumes are
simulated), so every claim stays unbound and its spec stays immutable: upstream allows changing
``resources.requests`` and ``volumeAttributesClassName`` of *bound* claims only. Upstream appends a
diff of the two specs to the update error; kbatch reports the message without it.
"""

from __future__ import annotations

from kbatch.api.core_v1.claim import ACCESS_MODES, PersistentVolumeClaim, PersistentVolumeClaimStatus
from kbatch.api.errors import FieldError
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import validate_label_selector

__all__ = ["PersistentVolumeClaimStrategy", "validate_claim_spec"]

VOLUME_MODES = ["Block", "Filesystem"]
IMMUTABLE_SPEC = ("spec is immutable after creation except resources.requests and "
                  "volumeAttributesClassName for bound claims")


def validate_claim_spec(claim: PersistentVolumeClaim, path: str = "spec") -> list[FieldError]:
    spec = claim.spec
    modes = spec.access_modes or []
    errs: list[FieldError] = []
    if not modes:
        errs.append(FieldError.required(f"{path}.accessModes", "at least 1 access mode is required"))
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(FieldError.not_supported(f"{path}.accessModes", mode, list(ACCESS_MODES)))
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        errs.append(FieldError.forbidden(f"{path}.accessModes",
                                         "may not use ReadWriteOncePod with other access modes"))
    errs += validate_label_selector(spec.selector, f"{path}.selector")
    requests = (spec.resources.requests if spec.resources else None) or {}
    storage = requests.get("storage")
    if storage is None:
        errs.append(FieldError.required(f"{path}.resources[storage]"))
    elif storage.sign() <= 0:
        errs.append(FieldError.invalid(f"{path}.resources[storage]", str(storage),
                                       "must be greater than zero"))
    if spec.volume_mode is not None and spec.volume_mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", spec.volume_mode, VOLUME_MODES))
    return errs


class PersistentVolumeClaimStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation

    def default(self, obj: PersistentVolumeClaim) -> None:  # type: ignore[override]
        if obj.spec.volume_mode is None:
            obj.spec.volume_mode = "Filesystem"

    def prepare_for_create(self, obj: PersistentVolumeClaim) -> None:  # type: ignore[override]
        obj.status = PersistentVolumeClaimStatus(phase="Pending")

    def fill_empty_status(self, obj: PersistentVolumeClaim) -> None:
        """A struct status, as Go serializes it (kbatch.apiserver.empty_status); phase defaulted."""
        if obj.status is None:
            obj.status = PersistentVolumeClaimStatus(phase="Pending")

    def validate(self, obj: PersistentVolumeClaim) -> list[FieldError]:  # type: ignore[override]
        return validate_claim_spec(obj)

    def validate_update(self, new: PersistentVolumeClaim,  # type: ignore[override]
                        old: PersistentVolumeClaim) -> list[FieldError]:
        return [] if new.spec == old.spec else [FieldError.forbidden("spec", IMMUTABLE_SPEC)]
