"""resource.k8s.io/v1 strategies: defaulting, preparation and validation of DeviceClass,
ResourceSlice, ResourceClaim, ResourceClaimTemplate and DeviceTaintRule.

Upstream (semantics): ``pkg/registry/resource/*/strategy.go`` and
``pkg/apis/resource/validation/validation.go``. ResourceClaim: status cleared on create and kept on
main writes, the spec immutable (an update may change metadata only), status writes validated by
``validateResourceClaimStatusUpdate``. ResourceClaimTemplate: spec immutable. ResourceSlice: driver,
pool name and node name immutable. DeviceTaintRule: spec and status.
"""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.resource_v1 import (
    DeviceClass,
    DeviceTaintRule,
    DeviceTaintRuleStatus,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kbatch.api.strategies.resource.claim_validation import (
    request_names,
    validate_claim_spec,
    validate_claim_status_update,
    validate_device_class_spec,
)
from kbatch.api.strategies.resource.defaults import default_claim, drop_alpha_slice_fields
from kbatch.api.strategies.resource.slice_validation import validate_slice_spec, validate_taint_rule_spec
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import FIELD_IMMUTABLE, validate_annotations, validate_labels

__all__ = [
    "DeviceClassStrategy",
    "DeviceTaintRuleStrategy",
    "ResourceClaimStrategy",
    "ResourceClaimTemplateStrategy",
    "ResourceSliceStrategy",
]


def _immutable_spec(new: ResourceClaim | ResourceClaimTemplate, old: ResourceClaim | ResourceClaimTemplate
                    ) -> list[FieldError]:
    spec_new, spec_old = new.spec, old.spec
    if spec_new != spec_old:
        return [FieldError.invalid("spec", spec_new.to_dict(), FIELD_IMMUTABLE)]
    return []


class DeviceClassStrategy(DefaultStrategy):
    has_status = False

    def validate(self, obj: DeviceClass) -> list[FieldError]:  # type: ignore[override]
        return validate_device_class_spec(obj.spec)

    def validate_update(self, new: DeviceClass, old: DeviceClass) -> list[FieldError]:  # type: ignore[override]
        return validate_device_class_spec(new.spec)


class ResourceSliceStrategy(DefaultStrategy):
    has_status = False

    def prepare_for_create(self, obj: ResourceSlice) -> None:  # type: ignore[override]
        drop_alpha_slice_fields(obj.spec)

    def prepare_for_update(self, new: ResourceSlice, old: ResourceSlice) -> None:  # type: ignore[override]
        drop_alpha_slice_fields(new.spec)

    def validate(self, obj: ResourceSlice) -> list[FieldError]:  # type: ignore[override]
        return validate_slice_spec(obj.spec)

    def validate_update(self, new: ResourceSlice, old: ResourceSlice) -> list[FieldError]:  # type: ignore[override]
        return validate_slice_spec(new.spec, old.spec)


class ResourceClaimStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    @staticmethod
    def fill_empty_status(obj: ResourceClaim) -> None:
        """``status`` is a struct without omitempty upstream: a new claim reads ``"status": {}``."""
        if obj.status is None:
            obj.status = ResourceClaimStatus()

    def default(self, obj: ResourceClaim) -> None:  # type: ignore[override]
        default_claim(obj.spec.devices)

    def validate(self, obj: ResourceClaim) -> list[FieldError]:  # type: ignore[override]
        return validate_claim_spec(obj.spec.devices)

    def validate_update(self, new: ResourceClaim, old: ResourceClaim) -> list[FieldError]:  # type: ignore[override]
        return _immutable_spec(new, old)

    def validate_status_update(self, new: ResourceClaim, old: ResourceClaim) -> list[FieldError]:  # type: ignore[override]
        return validate_claim_status_update(
            new.status or ResourceClaimStatus(),
            old.status or ResourceClaimStatus(),
            new.metadata.deletion_timestamp is not None,
            request_names(new.spec.devices),
        )


class ResourceClaimTemplateStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def default(self, obj: ResourceClaimTemplate) -> None:  # type: ignore[override]
        default_claim(obj.spec.spec.devices)

    def validate(self, obj: ResourceClaimTemplate) -> list[FieldError]:  # type: ignore[override]
        # validateResourceClaimTemplateSpec: ValidateTemplateObjectMeta on spec.metadata (its labels
        # and annotations go onto every claim made from the template), then the claim spec
        meta = obj.spec.metadata
        errs = validate_annotations(meta.annotations, "spec.metadata.annotations") if meta else []
        errs += validate_labels(meta.labels, "spec.metadata.labels") if meta else []
        return errs + validate_claim_spec(obj.spec.spec.devices, "spec.spec.devices")

    def validate_update(self, new: ResourceClaimTemplate, old: ResourceClaimTemplate) -> list[FieldError]:  # type: ignore[override]
        return _immutable_spec(new, old)


class DeviceTaintRuleStrategy(DefaultStrategy):
    @staticmethod
    def fill_empty_status(obj: DeviceTaintRule) -> None:
        """``status`` is a struct upstream: a new rule reads ``"status": {}``."""
        if obj.status is None:
            obj.status = DeviceTaintRuleStatus()

    def validate(self, obj: DeviceTaintRule) -> list[FieldError]:  # type: ignore[override]
        return validate_taint_rule_spec(obj.spec)

    def validate_update(self, new: DeviceTaintRule, old: DeviceTaintRule) -> list[FieldError]:  # type: ignore[override]
        return validate_taint_rule_spec(new.spec, old.spec)
