"""coordination.k8s.io/v1 Lease strategy: validation only (a Lease has no status and no defaults).

Upstream (semantics only): ``pkg/registry/coordination/lease/strategy.go`` and
``pkg/apis/coordination/validation/validation.go`` ``ValidateLeaseSpec``: ``leaseDurationSeconds``
must be greater than 0 and ``leaseTransitions`` at least 0 when set; a ``preferredHolder`` needs a
``strategy``.
"""

from __future__ import annotations

from kbatch.api.coordination_v1 import Lease
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import validate_nonnegative

__all__ = ["LeaseStrategy", "validate_lease_spec"]


def validate_lease_spec(lease: Lease) -> list[FieldError]:
    spec, errs = lease.spec, []
    if spec.lease_duration_seconds is not None and spec.lease_duration_seconds <= 0:
        errs.append(FieldError.invalid("spec.leaseDurationSeconds", spec.lease_duration_seconds,
                                       "must be greater than 0"))
    errs += validate_nonnegative(spec.lease_transitions, "spec.leaseTransitions")
    if spec.preferred_holder and not spec.strategy:
        errs.append(FieldError.forbidden("spec.preferredHolder",
                                         "preferredHolder is only allowed if strategy is set"))
    return errs


class LeaseStrategy(DefaultStrategy):
    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, Lease)
        return validate_lease_spec(obj)

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        assert isinstance(new, Lease)
        return validate_lease_spec(new)
