"""PersistentVolumeClaim strategy: defaults and the spec checks of upstream's claim validation.

Upstream: kubernetes ``pkg/registry/core/persistentvolumeclaim/strategy.go`` and
``pkg/apis/core/validation/validation.go`` (``ValidatePersistentVolumeClaimSpec``,
``ValidatePersistentVolumeClaimUpdate``), ``pkg/apis/core/v1/defaults.go``
(``SetDefaults_PersistentVolumeClaim``: phase ``Pending``; ``volumeMode: Filesystem``).

Checked: at least one access mode, each a supported one, ``ReadWriteOncePod`` alone; a storage
request, above zero; the selector; ``volumeMode``.

Updates (``ValidatePersistentVolumeClaimUpdate``): the spec is immutable except that ``volumeName``
may be set once (the binder, or a user pre-binding), a claim with neither ``storageClassName`` nor
the beta annotation ``volume.beta.kubernetes.io/storage-class`` may get a class
(RetroactiveDefaultStorageClass, GA in 1.28), a class named by the beta annotation may be written into
``storageClassName``, and a *bound* claim may change ``resources.requests`` and
``volumeAttributesClassName``; the beta annotation itself is immutable. kbatch binds no claim yet, so
the last rule never applies. Upstream appends a diff of the two specs to the update error; kbatch
reports the message without it.
"""

from __future__ import annotations

from kbatch.api.core_v1.claim import (
    ACCESS_MODES,
    PersistentVolumeClaim,
    PersistentVolumeClaimSpec,
    PersistentVolumeClaimStatus,
)
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
        errs = _beta_class_errors(new, old)
        if _comparable_spec(new, old) != old.spec:
            errs.append(FieldError.forbidden("spec", IMMUTABLE_SPEC))
        return errs


BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _beta_class(claim: PersistentVolumeClaim) -> str | None:
    return (claim.metadata.annotations or {}).get(BETA_CLASS_ANNOTATION)


def _upgrades_from_annotation(new: PersistentVolumeClaim, old: PersistentVolumeClaim) -> bool:
    """``validateStorageClassUpgradeFromAnnotation``: the old claim's class came from the beta
    annotation, the new one keeps the annotation and names the same class in the spec."""
    old_value, new_value = _beta_class(old), _beta_class(new)
    return (old_value is not None and new_value == old_value and old.spec.storage_class_name is None
            and new.spec.storage_class_name == old_value)


def _upgrades_from_nil(new: PersistentVolumeClaim, old: PersistentVolumeClaim) -> bool:
    """``validateStorageClassUpgradeFromNil``: no class at all before, one now."""
    return _beta_class(old) is None and old.spec.storage_class_name is None \
        and new.spec.storage_class_name is not None


def _beta_class_errors(new: PersistentVolumeClaim, old: PersistentVolumeClaim) -> list[FieldError]:
    """``ValidateImmutableAnnotation`` of the beta class annotation (skipped for an upgrade from it)."""
    if _upgrades_from_annotation(new, old) or _beta_class(new) == _beta_class(old):
        return []
    return [FieldError.invalid(f"metadata.annotations.{BETA_CLASS_ANNOTATION}", _beta_class(new) or "",
                               "field is immutable")]


def _comparable_spec(claim: PersistentVolumeClaim, old: PersistentVolumeClaim) -> PersistentVolumeClaimSpec:
    """The claim's spec with what an update may change taken from ``old`` (upstream compares clones
    it edits the same way): a first ``volumeName``, a class set from nil or from the beta
    annotation, a bound claim's storage request, ``volumeAttributesClassName``."""
    spec = claim.spec
    update: dict[str, object] = {"volume_attributes_class_name": old.spec.volume_attributes_class_name}
    if not old.spec.volume_name:
        update["volume_name"] = old.spec.volume_name
    if _upgrades_from_annotation(claim, old) or _upgrades_from_nil(claim, old):
        update["storage_class_name"] = old.spec.storage_class_name
    bound = claim.status is not None and claim.status.phase == "Bound"
    if bound and spec.resources is not None and spec.resources.requests is not None:
        requests = dict(spec.resources.requests)
        old_requests = (old.spec.resources.requests if old.spec.resources else None) or {}
        if "storage" in old_requests:
            requests["storage"] = old_requests["storage"]
        else:
            requests.pop("storage", None)
        update["resources"] = spec.resources.model_copy(update={"requests": requests})
    return spec.model_copy(update=update)
